// The IAM query API's door on the S3 port: recognises an IAM request, reads its form body
// (at most iam::kMaxIamFormBytes), authenticates it for service "iam" and hands it to
// iam::HandleIam. Internal to s3api (S3Service::Handle calls it before routing).
#pragma once

#include <chrono>

#include "iam/authorize.h"
#include "s3api/auth/types.h"
#include "s3api/http.h"
#include "s3api/service.h"
#include "storage/store.h"

namespace cubby::s3api {

// True for `POST /` with Content-Type application/x-www-form-urlencoded, and for `GET /` whose
// query names an Action (IAM accepts both): no S3 operation has either shape.
bool IsIamRequest(const HttpRequest& request);

// Serves an IAM request (IsIamRequest): answers in IAM's XML (text/xml), with IAM's codes for
// authentication failures: no signature → MissingAuthenticationToken; unknown or Inactive key
// → InvalidClientTokenId; wrong signature → SignatureDoesNotMatch; a malformed or mis-scoped
// Authorization → IncompleteSignature; a form over the limit → RequestEntityTooLarge (unread).
// `authorizer` decides which actions the caller may call (iam::IamCaller).
// `summary` gets the operation ("iam:<Action>"), the key id and the error code; never a secret.
HttpResponse ServeIam(storage::Store& store, const iam::Authorizer& authorizer,
                      const ServiceOptions& options, const HttpRequest& request, BodyReader& body,
                      std::chrono::system_clock::time_point now, const auth::KeyLookup& lookup,
                      RequestSummary* summary);

}  // namespace cubby::s3api
