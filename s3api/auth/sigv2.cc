#include "s3api/auth/sigv2.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <utility>

#include "s3api/auth/crypto.h"
#include "s3api/auth/sigv4.h"
#include "text/ascii.h"
#include "text/encoding.h"
#include "text/time.h"

namespace cubby::s3api::auth::sigv2 {
namespace {

// botocore's HmacV1Auth.QSAOfInterest, which follows the list on the AWS page.
constexpr std::string_view kSubResources[] = {
    "accelerate", "acl", "analytics", "cors", "defaultObjectAcl", "delete", "inventory",
    "lifecycle", "location", "logging", "metrics", "notification", "object-lock", "partNumber",
    "policy", "replication", "requestPayment", "response-cache-control",
    "response-content-disposition", "response-content-encoding", "response-content-language",
    "response-content-type", "response-expires", "restore", "select", "select-type",
    "storageClass", "tagging", "torrent", "uploadId", "uploads", "versionId", "versioning",
    "versions", "website"};

// One piece of a raw query: the name as sent, the value percent-decoded with '+' kept (a base64
// signature that was not encoded keeps its '+'), nullopt for a piece without '='. Not
// text::SplitUrlEncoded*: SigV2 signs "?acl" and "?acl=" differently and matches names as sent.
struct RawParam {
  std::string_view name;
  std::optional<std::string> value;
};

std::vector<RawParam> SplitRawQuery(std::string_view raw_query) {
  std::vector<RawParam> out;
  while (!raw_query.empty()) {
    const size_t amp = raw_query.find('&');
    const std::string_view piece = raw_query.substr(0, amp);
    raw_query = amp == std::string_view::npos ? std::string_view{} : raw_query.substr(amp + 1);
    const size_t eq = piece.find('=');
    RawParam p{piece.substr(0, eq), std::nullopt};
    if (eq != std::string_view::npos) {
      p.value = text::PercentDecodeLenient(piece.substr(eq + 1), text::Plus::kLiteral);
    }
    out.push_back(std::move(p));
  }
  return out;
}

// The value of the first parameter `name` ("" without '='), or nullopt.
std::optional<std::string> FindRaw(const std::vector<RawParam>& params, std::string_view name) {
  for (const RawParam& p : params) {
    if (p.name == name) return p.value.value_or("");
  }
  return std::nullopt;
}

// The strings to sign for each resource form the client may have used (CandidateResources).
std::vector<std::string> StringsToSign(const VerifyInput& in, std::string_view date) {
  const std::vector<Header>& headers = in.request.headers;
  const std::string* md5 = FindHeader(headers, "content-md5");
  const std::string* type = FindHeader(headers, "content-type");
  const std::string amz_headers = CanonicalAmzHeaders(headers);
  std::vector<std::string> out;
  for (const std::string& resource :
       CandidateResources(in.vhost_bucket, in.raw_path, in.raw_query)) {
    out.push_back(StringToSign(in.request.method, md5 ? *md5 : std::string_view{},
                               type ? *type : std::string_view{}, date, amz_headers, resource));
  }
  return out;
}

// Looks the key up and compares its signature of each candidate in constant time.
AuthResult VerifySignature(const VerifyInput& in, std::string_view access_key_id,
                           std::string_view signature,
                           const std::vector<std::string>& strings_to_sign) {
  std::optional<storage::AccessKeyRecord> key = in.lookup(access_key_id);
  if (!key) return Refuse(ErrorCode::kInvalidAccessKeyId);
  bool match = false;
  for (const std::string& string_to_sign : strings_to_sign) {
    const std::string expected = Signature(key->secret.reveal(), string_to_sign);
    match = ConstantTimeEquals(expected, signature) || match;
  }
  if (!match) return Refuse(ErrorCode::kSignatureDoesNotMatch);
  return Accept(std::move(*key), 2);
}

}  // namespace

AuthResult VerifyHeader(const VerifyInput& in, std::string_view authorization) {
  std::string_view credential = authorization.substr(4);  // after "AWS "
  while (!credential.empty() && credential.front() == ' ') credential.remove_prefix(1);
  const size_t colon = credential.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == credential.size()) {
    return Refuse(ErrorCode::kInvalidArgument,
                  "AWS authorization header is invalid.  Expected AwsAccessKeyId:signature");
  }
  // The date that was signed: x-amz-date takes the Date line's place as an x-amz-* header.
  // Dates before 1970 do not parse (AccessDenied, as S3 answers them).
  const std::string* amz_date = FindHeader(in.request.headers, sigv4::kAmzDate);
  const std::string* date = FindHeader(in.request.headers, sigv4::kDate);
  std::optional<TimePoint> when;
  if (amz_date != nullptr) {
    when = text::ParseImfFixdateOrUtcOffset(*amz_date);
    if (!when) when = text::ParseIso8601Basic(*amz_date);
  } else if (date != nullptr) {
    when = text::ParseImfFixdateOrUtcOffset(*date);
  }
  if (!when) {
    return Refuse(ErrorCode::kAccessDenied,
                  "AWS authentication requires a valid Date or x-amz-date header");
  }
  if (in.now - *when > sigv4::kMaxSkew || *when - in.now > sigv4::kMaxSkew) {
    return Refuse(ErrorCode::kRequestTimeTooSkewed);
  }
  const std::string_view signed_date =
      amz_date != nullptr ? std::string_view{} : std::string_view(*date);
  return VerifySignature(in, credential.substr(0, colon), credential.substr(colon + 1),
                         StringsToSign(in, signed_date));
}

AuthResult VerifyQuery(const VerifyInput& in) {
  const std::vector<RawParam> params = SplitRawQuery(in.raw_query);
  const std::optional<std::string> akid = FindRaw(params, "AWSAccessKeyId");
  const std::optional<std::string> signature = FindRaw(params, "Signature");
  const std::optional<std::string> expires = FindRaw(params, "Expires");
  int64_t expires_at = 0;
  bool expires_ok = false;
  if (expires) {
    const char* end = expires->data() + expires->size();
    const auto [stop, error] = std::from_chars(expires->data(), end, expires_at);
    expires_ok = !expires->empty() && error == std::errc() && stop == end;
  }
  if (!akid || !signature || akid->empty() || signature->empty() || !expires_ok) {
    return Refuse(ErrorCode::kAccessDenied,
                  "Query-string authentication requires the Signature, Expires and "
                  "AWSAccessKeyId parameters");
  }
  const int64_t now_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(in.now.time_since_epoch()).count();
  if (now_seconds > expires_at) return Refuse(ErrorCode::kAccessDenied, "Request has expired");
  return VerifySignature(in, *akid, *signature, StringsToSign(in, *expires));
}

bool IsSubResource(std::string_view name) {
  return std::find(std::begin(kSubResources), std::end(kSubResources), name) !=
         std::end(kSubResources);
}

namespace {

// CanonicalResource, with an empty value written as "name=" when `keep_empty_equals` (what a
// signer that copies the query as sent, botocore's HmacV1 among them, signs for "?uploads=").
std::string Resource(std::string_view vhost_bucket, std::string_view raw_path,
                     std::string_view raw_query, bool keep_empty_equals) {
  std::string out;
  if (!vhost_bucket.empty()) out = "/" + std::string(vhost_bucket);
  out += raw_path.empty() ? std::string_view("/") : raw_path;
  std::vector<RawParam> subs = SplitRawQuery(raw_query);
  std::erase_if(subs, [](const RawParam& p) { return !IsSubResource(p.name); });
  std::stable_sort(subs.begin(), subs.end(),
                   [](const RawParam& a, const RawParam& b) { return a.name < b.name; });
  for (size_t i = 0; i < subs.size(); ++i) {
    out += i == 0 ? "?" : "&";
    out += subs[i].name;
    if (subs[i].value && (keep_empty_equals || !subs[i].value->empty())) {
      out += "=" + *subs[i].value;
    }
  }
  return out;
}

}  // namespace

std::string CanonicalResource(std::string_view vhost_bucket, std::string_view raw_path,
                              std::string_view raw_query) {
  return Resource(vhost_bucket, raw_path, raw_query, /*keep_empty_equals=*/false);
}

std::vector<std::string> CandidateResources(std::string_view vhost_bucket,
                                            std::string_view raw_path,
                                            std::string_view raw_query) {
  std::vector<std::string> out = {CanonicalResource(vhost_bucket, raw_path, raw_query)};
  if (std::string with_equals = Resource(vhost_bucket, raw_path, raw_query, true);
      with_equals != out[0]) {
    out.push_back(std::move(with_equals));
  }
  const std::string full = vhost_bucket.empty()
                               ? std::string(raw_path)
                               : "/" + std::string(vhost_bucket) +
                                     std::string(raw_path.empty() ? "/" : raw_path);
  // Bucket-level: "/bucket" or "/bucket/".
  std::string_view bucket = full;
  if (bucket.ends_with('/')) bucket.remove_suffix(1);
  if (bucket.size() < 2 || bucket.find('/', 1) != std::string_view::npos) return out;
  const std::string subs = CanonicalResource("", "", raw_query).substr(1);  // "?acl" or ""
  for (const std::string& form : {std::string(bucket), std::string(bucket) + "/"}) {
    if (form + subs != out[0]) out.push_back(form + subs);
    if (!subs.empty()) out.push_back(form + subs + subs);
  }
  return out;
}

std::string CanonicalAmzHeaders(const std::vector<Header>& headers) {
  std::map<std::string, std::string> amz;
  for (const Header& h : headers) {
    std::string name = text::AsciiLowercase(h.name);
    if (!name.starts_with("x-amz-")) continue;
    auto [it, inserted] = amz.try_emplace(name, text::TrimOws(h.value));
    if (!inserted) it->second.append(",").append(text::TrimOws(h.value));
  }
  std::string out;
  for (const auto& [name, value] : amz) out += name + ":" + value + "\n";
  return out;
}

std::string StringToSign(std::string_view method, std::string_view content_md5,
                         std::string_view content_type, std::string_view date,
                         std::string_view amz_headers, std::string_view resource) {
  std::string out(method);
  out.append("\n").append(content_md5).append("\n").append(content_type).append("\n");
  out.append(date).append("\n").append(amz_headers).append(resource);
  return out;
}

std::string Signature(std::string_view secret, std::string_view string_to_sign) {
  return text::Base64Encode(HmacSha1(secret, string_to_sign));
}

}  // namespace cubby::s3api::auth::sigv2
