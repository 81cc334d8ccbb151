// The KMS JSON API's door on the S3 port: recognises a KMS request, reads its JSON body (at most
// kMaxKmsBodyBytes), authenticates it for service "kms" and hands it to kms::KeyService's
// HandleApi. Internal to s3api (S3Service::Handle calls it before routing).
//   https://docs.aws.amazon.com/kms/latest/APIReference/Welcome.html
#pragma once

#include <chrono>
#include <cstddef>

#include "s3api/auth/types.h"
#include "s3api/http.h"
#include "s3api/service.h"

namespace cubby::s3api {

inline constexpr size_t kMaxKmsBodyBytes = 64 << 10;

// True for `POST /` (no query) whose X-Amz-Target starts "TrentService.": no S3 operation has
// that shape.
bool IsKmsRequest(const HttpRequest& request);

// Serves a KMS request (IsKmsRequest) with options.kms; answers application/x-amz-json-1.1,
// errors as {"__type", "message"} with KMS's codes (all HTTP 400 but internal failures):
//   no Authorization → MissingAuthenticationTokenException; unknown or Inactive key →
//   UnrecognizedClientException; wrong signature or a request time out of range →
//   InvalidSignatureException; a malformed or mis-scoped Authorization →
//   IncompleteSignatureException; a body over kMaxKmsBodyBytes → ValidationException (unread
//   past the limit); a key that is not the administrator's → AccessDeniedException (only the
//   root user's keys may call KMS: IAM policies do not grant kms: actions yet); options.kms
//   null (a server without a keyring) → UnsupportedOperationException.
// `summary` gets "kms:<Operation>" ("kms:Unknown" for an operation KeyService does not serve),
// the key id and the error code; never a secret, a key or a request body.
HttpResponse ServeKms(const ServiceOptions& options, const HttpRequest& request, BodyReader& body,
                      std::chrono::system_clock::time_point now, const auth::KeyLookup& lookup,
                      RequestSummary* summary);

}  // namespace cubby::s3api
