#include "s3api/auth/sigv4_verify.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "s3api/auth/crypto.h"
#include "text/ascii.h"
#include "text/encoding.h"

namespace cubby::s3api::auth::sigv4 {
namespace {

bool IsHex64(std::string_view s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return text::HexDigitValue(c) >= 0; });
}

bool IsStreaming(PayloadMode mode) {
  switch (mode) {
    case PayloadMode::kUnsigned:
    case PayloadMode::kSha256:
      return false;
    case PayloadMode::kStreamingSigned:
    case PayloadMode::kStreamingUnsignedTrailer:
    case PayloadMode::kStreamingSignedTrailer:
      return true;
  }
  return false;
}

// x-amz-trailer's comma-separated names, lowercase; spaces (only) around each are dropped.
void AddTrailerNames(std::string_view list, std::vector<std::string>* names) {
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view name = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    const size_t first = name.find_first_not_of(' ');
    if (first == std::string_view::npos) continue;
    name = name.substr(first, name.find_last_not_of(' ') - first + 1);
    names->push_back(text::AsciiLowercase(name));
  }
}

// The canonical request of `in` as `s` says it was signed.
std::string CanonicalRequestOf(const VerifyInput& in, const SignedRequest& s) {
  return CanonicalRequest(in.request.method, CanonicalUri(in.raw_path), s.canonical_query,
                          CanonicalHeaders(in.request.headers, s.signed_headers),
                          JoinSignedHeaders(s.signed_headers), s.hashed_payload);
}

}  // namespace

bool ClassifyPayload(std::string_view value, bool allow_streaming, AuthResult* result) {
  if (IsHex64(value)) {
    result->payload = PayloadMode::kSha256;
    result->payload_sha256 = text::AsciiLowercase(value);
    return true;
  }
  if (value == kUnsignedPayload) {
    result->payload = PayloadMode::kUnsigned;
    return true;
  }
  if (!allow_streaming) return false;
  if (value == kStreamingSignedPayload) {
    result->payload = PayloadMode::kStreamingSigned;
  } else if (value == kStreamingUnsignedTrailer) {
    result->payload = PayloadMode::kStreamingUnsignedTrailer;
  } else if (value == kStreamingSignedTrailer) {
    result->payload = PayloadMode::kStreamingSignedTrailer;
  } else {
    return false;
  }
  return true;
}

AuthResult ReadStreamingHeaders(const std::vector<Header>& headers, AuthResult result) {
  if (!IsStreaming(result.payload)) return result;
  const std::string* decoded = FindHeader(headers, "x-amz-decoded-content-length");
  if (decoded == nullptr) {
    return Refuse(ErrorCode::kMissingContentLength,
                  "x-amz-decoded-content-length is required for aws-chunked uploads.");
  }
  if (!text::ParseUint64(*decoded, &result.decoded_content_length)) {
    return Refuse(ErrorCode::kInvalidArgument,
                  "x-amz-decoded-content-length must be a decimal number.");
  }
  for (const Header& h : headers) {
    if (h.name == "x-amz-trailer") AddTrailerNames(h.value, &result.trailer_names);
  }
  return result;
}

AuthResult RequireSigned(const std::vector<Header>& headers,
                         const std::vector<std::string>& signed_names, AuthResult result) {
  // Otherwise anyone holding a signed request could add e.g. x-amz-meta-* or
  // x-amz-copy-source to it.
  auto is_signed = [&](std::string_view name) {
    return std::find(signed_names.begin(), signed_names.end(), name) != signed_names.end();
  };
  std::string missing;
  auto add = [&](std::string_view name) {
    if (missing.find(std::string(name) + ",") != std::string::npos) return;
    missing.append(name).push_back(',');
  };
  if (!is_signed(kHost)) add(kHost);
  for (const Header& h : headers) {
    if (h.name.starts_with("x-amz-") && h.name != kAmzContentSha256 && !is_signed(h.name)) {
      add(h.name);
    }
  }
  if (missing.empty()) return result;
  missing.pop_back();
  return Refuse(ErrorCode::kAccessDenied,
                "There were headers present in the request which were not signed: " + missing);
}

AuthResult VerifySignature(const VerifyInput& in, const SignedRequest& s, AuthResult result) {
  std::optional<storage::AccessKeyRecord> key = in.lookup(s.credential.access_key_id);
  if (!key) return Refuse(ErrorCode::kInvalidAccessKeyId);
  const std::string scope = s.credential.Scope();
  const std::string string_to_sign = StringToSign(s.amz_date, scope, CanonicalRequestOf(in, s));
  std::string signing_key = CachedSigningKey(key->secret.reveal(), s.credential.date,
                                             s.credential.region, s.credential.service);
  const std::string expected = Signature(signing_key, string_to_sign);
  if (!ConstantTimeEquals(expected, s.signature)) return Refuse(ErrorCode::kSignatureDoesNotMatch);

  result.error = ErrorCode::kNone;
  result.anonymous = false;
  result.key = std::move(key);
  result.amz_date = s.amz_date;
  result.scope = scope;
  if (IsStreaming(result.payload)) {
    result.seed_signature = expected;
    result.signing_key = std::move(signing_key);
  }
  return result;
}

}  // namespace cubby::s3api::auth::sigv4
