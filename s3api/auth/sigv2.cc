#include "s3api/auth/sigv2.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "s3api/auth/crypto.h"
#include "s3api/auth/sigv4.h"

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

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

bool IsSubResource(std::string_view name) {
  return std::find(std::begin(kSubResources), std::end(kSubResources), name) !=
         std::end(kSubResources);
}

std::string CanonicalResource(std::string_view vhost_bucket, std::string_view raw_path,
                              std::string_view raw_query) {
  std::string out;
  if (!vhost_bucket.empty()) out = "/" + std::string(vhost_bucket);
  out += raw_path.empty() ? std::string_view("/") : raw_path;
  std::vector<std::pair<std::string, std::optional<std::string>>> subs;
  while (!raw_query.empty()) {
    const size_t amp = raw_query.find('&');
    const std::string_view piece = raw_query.substr(0, amp);
    raw_query = amp == std::string_view::npos ? std::string_view{} : raw_query.substr(amp + 1);
    const size_t eq = piece.find('=');
    const std::string_view name = piece.substr(0, eq);
    if (!IsSubResource(name)) continue;
    if (eq == std::string_view::npos) {
      subs.emplace_back(std::string(name), std::nullopt);
    } else {
      subs.emplace_back(std::string(name),
                        sigv4::PercentDecode(piece.substr(eq + 1), /*plus_is_space=*/false));
    }
  }
  std::stable_sort(subs.begin(), subs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < subs.size(); ++i) {
    out += i == 0 ? "?" : "&";
    out += subs[i].first;
    if (subs[i].second) out += "=" + *subs[i].second;
  }
  return out;
}

std::vector<std::string> CandidateResources(std::string_view vhost_bucket,
                                            std::string_view raw_path,
                                            std::string_view raw_query) {
  std::vector<std::string> out = {CanonicalResource(vhost_bucket, raw_path, raw_query)};
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
    std::string name = h.name;
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (!name.starts_with("x-amz-")) continue;
    auto [it, inserted] = amz.try_emplace(name, Trim(h.value));
    if (!inserted) it->second.append(",").append(Trim(h.value));
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
  return Base64Encode(HmacSha1(secret, string_to_sign));
}

}  // namespace cubby::s3api::auth::sigv2
