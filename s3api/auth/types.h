// What the entry point (auth.h), each scheme's verifier, the body decoders and the signer share,
// so that no scheme needs the entry point: the caller's identity (AuthResult), how the body is
// protected (PayloadMode), the key table, and the request as every verifier sees it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "s3api/errors.h"
#include "s3api/http.h"
#include "storage/records.h"
#include "text/uri.h"

namespace cubby::s3api::auth {

using TimePoint = std::chrono::system_clock::time_point;

// Looks an access key up in the store; nullopt if unknown (→ InvalidAccessKeyId).
using KeyLookup =
    std::function<std::optional<storage::AccessKeyRecord>(std::string_view access_key_id)>;

// How the body is protected, from x-amz-content-sha256 (or query auth: always unsigned).
enum class PayloadMode {
  kUnsigned,                  // UNSIGNED-PAYLOAD, presigned URLs, anonymous, SigV2
  kSha256,                    // hex sha256 of the body in payload_sha256
  kStreamingSigned,           // STREAMING-AWS4-HMAC-SHA256-PAYLOAD
  kStreamingUnsignedTrailer,  // STREAMING-UNSIGNED-PAYLOAD-TRAILER
  kStreamingSignedTrailer,    // STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER
};

// The caller's identity and what its body must satisfy, or why the request is refused.
struct AuthResult {
  ErrorCode error = ErrorCode::kNone;  // kNone: authenticated (or anonymous)
  std::string error_message;           // detail for the error document; never secret material
  // The region the server expects, set when the request was signed for another one: the error
  // document carries it as <Region>, as AWS's does, so that a client (s3cmd signs for "US" by
  // default) can sign again for it.
  std::string error_region;
  bool anonymous = true;
  std::optional<storage::AccessKeyRecord> key;  // set when !anonymous
  PayloadMode payload = PayloadMode::kUnsigned;
  std::string payload_sha256;  // lowercase hex, for kSha256
  // For streaming modes: what chunk signatures chain from.
  std::string seed_signature;  // hex signature of the request
  std::string signing_key;     // raw derived key (kSigning); secret material, never log
  std::string amz_date;        // "20130524T000000Z"
  std::string scope;           // "20130524/us-east-1/s3/aws4_request"
  int signature_version = 4;   // 2 for "Authorization: AWS ..." / AWSAccessKeyId=
  // Streaming modes only (also for an anonymous STREAMING-UNSIGNED-PAYLOAD-TRAILER request):
  uint64_t decoded_content_length = 0;     // x-amz-decoded-content-length
  std::vector<std::string> trailer_names;  // x-amz-trailer, lowercase, in order
};

// A refusal: `code` with `message` as the error document's detail.
inline AuthResult Refuse(ErrorCode code, std::string message = {}) {
  AuthResult r;
  r.error = code;
  r.error_message = std::move(message);
  return r;
}

// An acceptance: the request is `key`'s, signed with `signature_version` (2 or 4).
inline AuthResult Accept(storage::AccessKeyRecord key, int signature_version) {
  AuthResult r;
  r.anonymous = false;
  r.key = std::move(key);
  r.signature_version = signature_version;
  return r;
}

// The request as every scheme verifies it. The target is split once by the entry point.
struct VerifyInput {
  const HttpRequest& request;
  std::string_view raw_path;                   // the target before '?', as sent
  std::string_view raw_query;                  // after '?', as sent
  const std::vector<text::NameValue>& params;  // raw_query split, decoded ('+' is a space)
  std::string_view region;                     // the server's SigV4 region
  std::string_view vhost_bucket;               // the bucket of a virtual-hosted request, or ""
  const KeyLookup& lookup;
  TimePoint now;
};

// The first header named `name` (lowercase), or nullptr. (Not HttpRequest::Find, so this
// library does not need s3api's objects.)
inline const std::string* FindHeader(const std::vector<Header>& headers, std::string_view name) {
  for (const Header& h : headers) {
    if (h.name == name) return &h.value;
  }
  return nullptr;
}

}  // namespace cubby::s3api::auth
