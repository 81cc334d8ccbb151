// The client side of SigV4, for tests and the benchmark's load generator: signed headers,
// presigned URLs and aws-chunked bodies, built on the same canonicalization as the verifiers
// (sigv4.h). Its own library (cubby_s3api_signer), which the server does not link.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "s3api/auth/types.h"
#include "s3api/http.h"

namespace cubby::s3api::auth {

struct SignInput {
  std::string method;
  std::string host;                   // value of the Host header
  std::string path;                   // already URI-encoded, e.g. "/bucket/my%20key"
  std::string query;                  // already encoded "a=1&b=2" (any order), or empty
  std::vector<Header> extra_headers;  // signed too
  std::string payload_sha256;         // hex, or "UNSIGNED-PAYLOAD"
  std::string access_key_id;
  std::string secret_key;
  std::string region;
  std::chrono::system_clock::time_point now;
  std::string service = "s3";  // "iam" for the IAM query API
};
// Headers to add to the request: host, x-amz-date, x-amz-content-sha256, authorization.
std::vector<Header> SignV4(const SignInput& in);
// Full presigned target "path?query&X-Amz-...&X-Amz-Signature=..." valid for `expires_seconds`.
std::string PresignV4(const SignInput& in, int expires_seconds);

// An aws-chunked body as a client sends it.
struct ChunkedBodyInput {
  PayloadMode mode = PayloadMode::kStreamingSigned;  // one of the STREAMING-* modes
  std::string data;
  size_t chunk_size = 64 * 1024;  // > 0; the last data chunk may be shorter
  std::vector<Header> trailers;   // names lowercase; sent only in the *Trailer modes
  // Signed modes: as in the AuthResult of the request (the client derives them the same way).
  std::string signing_key;  // raw
  std::string amz_date;
  std::string scope;
  std::string seed_signature;
};
std::string EncodeChunkedBody(const ChunkedBodyInput& in);

}  // namespace cubby::s3api::auth
