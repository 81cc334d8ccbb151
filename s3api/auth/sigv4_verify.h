// The verification steps that SigV4's two forms share (sigv4_header.cc, sigv4_presigned.cc):
// what x-amz-content-sha256 says about the body, the headers that must be signed, and the last
// steps of every SigV4 check: look the key up, rebuild the canonical request and the string to
// sign, take the signing key from the cache, compare in constant time. Private to s3api/auth.
// Steps that can refuse take the result built so far and return it, or a refusal (Refuse).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "s3api/auth/sigv4.h"
#include "s3api/auth/types.h"

namespace cubby::s3api::auth::sigv4 {

// x-amz-content-sha256 (or X-Amz-Content-Sha256) → result->payload (and payload_sha256,
// lowercased); false if the value is neither 64 hex digits, UNSIGNED-PAYLOAD nor (with
// `allow_streaming`) one of the STREAMING-* modes SigV4 signs with HMAC-SHA256.
bool ClassifyPayload(std::string_view value, bool allow_streaming, AuthResult* result);

// For the STREAMING-* modes, x-amz-decoded-content-length and x-amz-trailer into `result`:
//  - no x-amz-decoded-content-length → MissingContentLength
//  - one that is not a decimal number → InvalidArgument
// Other modes: `result` unchanged.
AuthResult ReadStreamingHeaders(const std::vector<Header>& headers, AuthResult result);

// Host, and every x-amz-* header the request carries (but x-amz-content-sha256, covered as the
// payload hash), must be in `signed_names`; otherwise AccessDenied naming those that are not.
AuthResult RequireSigned(const std::vector<Header>& headers,
                         const std::vector<std::string>& signed_names, AuthResult result);

// What a SigV4 request claims, parsed from either form.
struct SignedRequest {
  Credential credential;
  std::vector<std::string> signed_headers;
  std::string signature;        // as the client sent it
  std::string amz_date;         // "20130524T000000Z"
  std::string hashed_payload;   // last line of the canonical request
  std::string canonical_query;  // built by the form (the presigned one leaves out its signature)
};

// The last steps of both forms. Unknown key → InvalidAccessKeyId; a signature other than the
// one the key gives for this request → SignatureDoesNotMatch. On success `result` becomes the
// key's identity; for the STREAMING-* modes it also carries the seed signature and signing key.
AuthResult VerifySignature(const VerifyInput& in, const SignedRequest& s, AuthResult result);

}  // namespace cubby::s3api::auth::sigv4
