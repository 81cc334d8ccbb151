// The KMS JSON API's door on the S3 port: recognises a KMS request, reads its JSON body (at most
// kMaxKmsBodyBytes), authenticates it for service "kms" and hands it to kms::KeyService's
// HandleApi. Internal to s3api (S3Service::Handle calls it before routing).
//   https://docs.aws.amazon.com/kms/latest/APIReference/Welcome.html
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "iam/authorize.h"
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
//   past the limit); a caller `authorizer` does not let call "kms:<Operation>" on the key's ARN
//   (KmsResources) → AccessDeniedException; options.kms null (a server without a keyring) →
//   UnsupportedOperationException.
// `summary` gets "kms:<Operation>" ("kms:Unknown" for an operation KeyService does not serve),
// the key id and the error code; never a secret, a key or a request body.
HttpResponse ServeKms(const iam::Authorizer& authorizer, const ServiceOptions& options,
                      const HttpRequest& request, BodyReader& body,
                      std::chrono::system_clock::time_point now, const auth::KeyLookup& lookup,
                      RequestSummary* summary);

// The resources a KMS call is authorized on, as AWS names them: "*" for CreateKey, ListKeys and
// ListAliases; the alias's ARN and its target key's for CreateAlias; the alias's for
// DeleteAlias; else the key's ARN ("arn:aws:kms:<region>:<account>:key/<id>") as `json`'s KeyId
// names it (an alias name: the alias's ARN; a full ARN as given). A member missing or not a
// string: "*" (the call then fails its own validation).
std::vector<std::string> KmsResources(std::string_view operation, std::string_view json,
                                      std::string_view region, std::string_view account);

}  // namespace cubby::s3api
