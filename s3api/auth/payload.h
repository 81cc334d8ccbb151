// The request body as authentication protects it: WrapBody enforces the payload mode that
// Authenticate found (a sha256 of the whole body, or aws-chunked framing with signed chunks
// and trailers) while the body streams.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming-trailers.html
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "s3api/auth/types.h"
#include "s3api/http.h"

namespace cubby::s3api::auth {

// The decoded request body plus what arrives after it (aws-chunked trailers).
class PayloadReader : public BodyReader {
 public:
  // Trailer headers (names lowercase, values trimmed) received after the final chunk. Complete
  // once Read has returned end of body without error; always empty for non-trailer modes.
  virtual const std::vector<Header>& trailers() const = 0;
  // The value of trailer `name` (lowercase), or nullptr.
  const std::string* Trailer(std::string_view name) const { return FindHeader(trailers(), name); }
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
//  - kStreamingUnsignedTrailer ("hex\r\n" chunks, then trailers).
// Streaming errors: body ends early (any framing state) or decoded size differs from
// auth.decoded_content_length → IncompleteBody; a malformed chunk header, chunk line or trailer
// line (bad hex, missing CRLF, missing chunk-signature) → InvalidRequest; a chunk larger than
// kMaxChunkSize → InvalidRequest; a trailer named in x-amz-trailer absent, or one not named
// → InvalidRequest. Errors of `raw` pass through. After an error every Read repeats it.
inline constexpr size_t kMaxChunkSize = 16 << 20;
std::unique_ptr<PayloadReader> WrapBody(const AuthResult& auth, std::unique_ptr<BodyReader> raw);

}  // namespace cubby::s3api::auth
