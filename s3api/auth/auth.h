// Request authentication: AWS Signature Version 4, presigned query first, then the
// Authorization header, then anonymous (as Garage orders it). Pure functions of the request,
// the key table and the clock, so they are tested with AWS's published vectors.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
  int signature_version = 4;            // 2 for "Authorization: AWS ..." / AWSAccessKeyId=
  // Streaming modes only (also for an anonymous STREAMING-UNSIGNED-PAYLOAD-TRAILER request):
  uint64_t decoded_content_length = 0;  // x-amz-decoded-content-length
  std::vector<std::string> trailer_names;  // x-amz-trailer, lowercase, in order
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
//  - a STREAMING-* mode without x-amz-decoded-content-length → MissingContentLength; a value
//    that is not a decimal number → InvalidArgument
//
// Signature Version 2 (https://docs.aws.amazon.com/AmazonS3/latest/userguide/RESTAuthentication.html):
// "Authorization: AWS AKID:base64(hmac-sha1)" or the query AWSAccessKeyId/Signature/Expires.
// The canonicalized resource is "/" + vhost_bucket + the raw path when the request was routed
// virtual-hosted-style (pass the routed bucket as `vhost_bucket`), else the raw path; plus the
// S3 sub-resources (acl, uploadId, partNumber, versionId, response-*, ...). The payload is
// unsigned (payload = kUnsigned, signature_version = 2). Errors:
//  - malformed header (no ':' or an empty part) → InvalidArgument ("AWS authorization header
//    is invalid.  Expected AwsAccessKeyId:signature")
//  - query without Expires, or Expires not a number → AccessDenied
//    ("Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters")
//  - presigned and now > Expires → AccessDenied ("Request has expired")
//  - header auth without Date / x-amz-date → AccessDenied; more than 15 min off → RequestTimeTooSkewed
//  - unknown key → InvalidAccessKeyId; wrong signature → SignatureDoesNotMatch (constant time)
// The canonical URI and query are built from the target as sent, with percent-encoding
// normalised ("!" and "%21" verify alike; "%2F" stays distinct from "/"); '+' in the query is
// a space. error_message never contains secret-derived data. The steps live in sigv4.h.
AuthResult Authenticate(const HttpRequest& request, std::string_view region,
                        const KeyLookup& lookup, std::chrono::system_clock::time_point now,
                        std::string_view vhost_bucket = {});

// The decoded request body plus what arrives after it (aws-chunked trailers).
class PayloadReader : public BodyReader {
 public:
  // Trailer headers (names lowercase, values trimmed) received after the final chunk. Complete
  // once Read has returned end of body without error; always empty for non-trailer modes.
  virtual const std::vector<Header>& trailers() const = 0;
  // The value of trailer `name` (lowercase), or nullptr.
  const std::string* Trailer(std::string_view name) const;
  // Detail for the error document of the error Read last returned, or "" for the default.
  // Never contains secret-derived data (no expected signatures).
  virtual std::string_view error_message() const = 0;
};

// Wraps the raw body so that the payload protection in `auth` is enforced while it streams.
// Every mode decodes straight into the caller's buffer (one copy); a signed chunk is buffered
// whole (at most kMaxChunkSize) because its bytes may only be handed on once verified.
//  - kUnsigned → the bytes of `raw` unchanged.
//  - kSha256 → SHA-256 computed as bytes pass; a mismatch is XAmzContentSHA256Mismatch on the
//    Read that would return end of body.
//  - kStreamingSigned / kStreamingSignedTrailer (aws-chunked, "hex;chunk-signature=sig\r\n"):
//    each chunk's signature is checked, chained from auth.seed_signature, before any of its
//    bytes are returned → SignatureDoesNotMatch. With trailers, the trailer lines and
//    "x-amz-trailer-signature" are verified too (SignatureDoesNotMatch).
//    https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html
//  - kStreamingUnsignedTrailer ("hex\r\n" chunks, then trailers).
//    https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming-trailers.html
// Streaming errors: body ends early (any framing state) or decoded size differs from
// auth.decoded_content_length → IncompleteBody; a malformed chunk header, chunk line or trailer
// line (bad hex, missing CRLF, missing chunk-signature) → InvalidRequest; a chunk larger than
// kMaxChunkSize → InvalidRequest; a trailer named in x-amz-trailer absent, or one not named
// → InvalidRequest. Errors of `raw` pass through. After an error every Read repeats it.
inline constexpr size_t kMaxChunkSize = 16 << 20;
std::unique_ptr<PayloadReader> WrapBody(const AuthResult& auth, std::unique_ptr<BodyReader> raw);

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

// An aws-chunked body as a client sends it, for tests and the load generator.
struct ChunkedBodyInput {
  PayloadMode mode = PayloadMode::kStreamingSigned;  // one of the STREAMING-* modes
  std::string data;
  size_t chunk_size = 64 * 1024;  // > 0; the last data chunk may be shorter
  std::vector<Header> trailers;   // names lowercase; sent only in the *Trailer modes
  // Signed modes: as in the AuthResult of the request (the client derives them the same way).
  std::string signing_key;        // raw
  std::string amz_date;
  std::string scope;
  std::string seed_signature;
};
std::string EncodeChunkedBody(const ChunkedBodyInput& in);

}  // namespace cubby::s3api::auth
