// Request authentication: AWS Signature Version 4, presigned query first, then the
// Authorization header, then anonymous (as Garage orders it). Pure functions of the request,
// the key table and the clock, so they are tested with AWS's published vectors.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "s3api/errors.h"
#include "s3api/http.h"
#include "storage/records.h"

namespace cubby::s3api::auth {

using Clock = std::function<std::chrono::system_clock::time_point()>;

// Looks an access key up in the store; nullopt if unknown (→ InvalidAccessKeyId).
using KeyLookup =
    std::function<std::optional<storage::AccessKeyRecord>(std::string_view access_key_id)>;

// How the body is protected, from x-amz-content-sha256 (or query auth: always unsigned).
enum class PayloadMode {
  kUnsigned,                     // UNSIGNED-PAYLOAD, presigned URLs, anonymous
  kSha256,                       // hex sha256 of the body in payload_sha256
  kStreamingSigned,              // STREAMING-AWS4-HMAC-SHA256-PAYLOAD (issue 3)
  kStreamingUnsignedTrailer,     // STREAMING-UNSIGNED-PAYLOAD-TRAILER (issue 3)
  kStreamingSignedTrailer,       // STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER (issue 3)
};

struct AuthResult {
  ErrorCode error = ErrorCode::kNone;   // kNone: authenticated (or anonymous)
  std::string error_message;            // detail for the error document; never secret material
  bool anonymous = true;
  std::optional<storage::AccessKeyRecord> key;  // set when !anonymous
  PayloadMode payload = PayloadMode::kUnsigned;
  std::string payload_sha256;           // lowercase hex, for kSha256
  // For streaming modes: what chunk signatures chain from.
  std::string seed_signature;           // hex signature of the request
  std::string signing_key;              // raw derived key (kSigning); secret material, never log
  std::string amz_date;                 // "20130524T000000Z"
  std::string scope;                    // "20130524/us-east-1/s3/aws4_request"
};

// Verifies the request's signature. `region` is the server's region; a credential scope naming
// another region is AuthorizationHeaderMalformed. Checks, with their errors:
//  - malformed Authorization header or credential scope → AuthorizationHeaderMalformed
//  - malformed or missing presign parameters → AuthorizationQueryParametersError
//  - unknown access key → InvalidAccessKeyId
//  - x-amz-date / Date more than 15 minutes from now → RequestTimeTooSkewed
//  - presigned URL past X-Amz-Date + X-Amz-Expires (max 7 days) → AccessDenied
//  - wrong signature → SignatureDoesNotMatch (constant-time compare)
//  - header auth without x-amz-content-sha256 → InvalidRequest; a value that is neither 64 hex
//    digits, UNSIGNED-PAYLOAD nor a STREAMING-* mode → InvalidArgument
//  - header auth without a valid x-amz-date or Date → AccessDenied
//  - presigned X-Amz-Date more than 15 minutes ahead → AccessDenied ("Request is not valid yet")
//  - host, or an x-amz-* header present in the request, not signed → AccessDenied
//  - both an Authorization header and presign parameters → InvalidArgument
//  - SigV2 (header "AWS ..." or AWSAccessKeyId query) → AuthorizationHeaderMalformed /
//    AuthorizationQueryParametersError until it is implemented
// The canonical URI and query are built from the target as sent, with percent-encoding
// normalised ("!" and "%21" verify alike; "%2F" stays distinct from "/"); '+' in the query is
// a space. error_message never contains secret-derived data. The steps live in sigv4.h.
AuthResult Authenticate(const HttpRequest& request, std::string_view region,
                        const KeyLookup& lookup, std::chrono::system_clock::time_point now);

// Wraps the raw body so that the payload protection in `auth` is enforced while it streams:
// kSha256 → the SHA-256 is computed as bytes pass and a mismatch is reported as
// XAmzContentSHA256Mismatch on the Read that would return end of body. kUnsigned → `raw`
// unchanged. Streaming modes → NotImplemented until issue 3.
std::unique_ptr<BodyReader> WrapBody(const AuthResult& auth, std::unique_ptr<BodyReader> raw);

// ---- Client side, for tests and the benchmark's load generator.
struct SignInput {
  std::string method;
  std::string host;           // value of the Host header
  std::string path;           // already URI-encoded, e.g. "/bucket/my%20key"
  std::string query;          // already encoded "a=1&b=2" (any order), or empty
  std::vector<Header> extra_headers;  // signed too
  std::string payload_sha256; // hex, or "UNSIGNED-PAYLOAD"
  std::string access_key_id;
  std::string secret_key;
  std::string region;
  std::chrono::system_clock::time_point now;
};
// Headers to add to the request: host, x-amz-date, x-amz-content-sha256, authorization.
std::vector<Header> SignV4(const SignInput& in);
// Full presigned target "path?query&X-Amz-...&X-Amz-Signature=..." valid for `expires_seconds`.
std::string PresignV4(const SignInput& in, int expires_seconds);

}  // namespace cubby::s3api::auth
