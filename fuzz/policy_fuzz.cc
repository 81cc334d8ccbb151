// Fuzzes the policy language: text::ParseJson, then iam::Parse as a bucket policy (for the bucket
// kBucket) and as a user policy. A policy that parses is evaluated against a handful of requests
// (anonymous and signed, several actions and resources, condition keys with realistic values and
// with the document's own strings, so wildcard, variable, date, number, IP and ARN matching all
// run) and asked IsPublic. Besides not crashing: Evaluate gives the same answer twice, and a user
// policy's answer does not depend on who asks (it has no principal).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "iam/policy.h"
#include "text/json.h"

namespace {

using namespace cubby;

constexpr std::string_view kBucket = "amzn-s3-demo-bucket";
constexpr size_t kMaxStrings = 8;

// Up to kMaxStrings string values and member names of the document, depth first.
void Collect(const text::JsonValue& v, std::vector<std::string_view>* out) {
  if (out->size() >= kMaxStrings) return;
  switch (v.type) {
    case text::JsonType::kString:
    case text::JsonType::kNumber:
      out->push_back(v.text);
      return;
    case text::JsonType::kArray:
      for (const text::JsonValue& item : v.items) Collect(item, out);
      return;
    case text::JsonType::kObject:
      for (const text::JsonMember& m : v.members) {
        if (out->size() < kMaxStrings) out->push_back(m.name);
        Collect(m.value, out);
      }
      return;
    case text::JsonType::kNull:
    case text::JsonType::kBool:
      return;
  }
}

// Realistic values for the common keys; nothing for others.
class FixedKeys final : public iam::ConditionKeys {
 public:
  explicit FixedKeys(bool ipv6) : ipv6_(ipv6) {}
  std::span<const std::string_view> Values(std::string_view key) const override {
    static constexpr std::string_view kIp[] = {"192.0.2.7"};
    static constexpr std::string_view kIp6[] = {"2001:db8:1234:5678::9"};
    static constexpr std::string_view kTime[] = {"2026-11-26T05:31:13Z"};
    static constexpr std::string_view kEpoch[] = {"1795066273"};
    static constexpr std::string_view kTrue[] = {"true"};
    static constexpr std::string_view kUser[] = {"alice"};
    static constexpr std::string_view kPrefix[] = {"home/alice/"};
    static constexpr std::string_view kMaxKeys[] = {"100"};
    static constexpr std::string_view kTags[] = {"Project", "Team", "cost-center"};
    static constexpr std::string_view kArn[] = {"arn:aws:iam::123456789012:user/alice"};
    if (key == "aws:sourceip") return ipv6_ ? std::span(kIp6) : std::span(kIp);
    if (key == "aws:currenttime") return kTime;
    if (key == "aws:epochtime") return kEpoch;
    if (key == "aws:securetransport" || key == "aws:multifactorauthpresent") return kTrue;
    if (key == "aws:username") return kUser;
    if (key == "s3:prefix") return kPrefix;
    if (key == "s3:max-keys") return kMaxKeys;
    if (key == "s3:requestobjecttagkeys") return kTags;
    if (key == "aws:principalarn" || key == "aws:sourcearn") return kArn;
    return {};
  }

 private:
  bool ipv6_;
};

// Every key has the document's own strings as its values.
class EchoKeys final : public iam::ConditionKeys {
 public:
  explicit EchoKeys(std::span<const std::string_view> values) : values_(values) {}
  std::span<const std::string_view> Values(std::string_view) const override { return values_; }

 private:
  std::span<const std::string_view> values_;
};

void Exercise(const iam::Policy& policy, std::span<const std::string_view> strings) {
  (void)iam::IsPublic(policy);
  static constexpr std::string_view kAlice[] = {"arn:aws:iam::123456789012:user/alice",
                                                "123456789012"};
  static constexpr std::string_view kActions[] = {"s3:GetObject", "s3:ListBucket", "s3:PutObject",
                                                  "iam:CreateUser", "s3:NotInTheTable"};
  std::vector<std::string> resources = {"arn:aws:s3:::" + std::string(kBucket),
                                        "arn:aws:s3:::" + std::string(kBucket) + "/home/alice/x"};
  for (std::string_view s : strings.first(std::min<size_t>(strings.size(), 3))) {
    resources.push_back("arn:aws:s3:::" + std::string(kBucket) + "/" + std::string(s));
    resources.emplace_back(s);
  }
  FixedKeys fixed(false);
  FixedKeys fixed6(true);
  EchoKeys echo(strings);
  const iam::ConditionKeys* key_sets[] = {nullptr, &fixed, &fixed6, &echo};
  std::vector<std::string_view> actions(std::begin(kActions), std::end(kActions));
  for (std::string_view s : strings.first(std::min<size_t>(strings.size(), 3))) {
    actions.push_back(s);
  }
  for (std::string_view action : actions) {
    for (const std::string& resource : resources) {
      for (const iam::ConditionKeys* keys : key_sets) {
        iam::RequestContext request;
        request.action = action;
        request.resource = resource;
        request.keys = keys;
        iam::Match anonymous = iam::Evaluate(policy, request);
        if (iam::Evaluate(policy, request) != anonymous) std::abort();
        request.principals = kAlice;
        iam::Match alice = iam::Evaluate(policy, request);
        if (policy.kind() == iam::PolicyKind::kIdentity && alice != anonymous) std::abort();
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view doc(reinterpret_cast<const char*>(data), size);
  text::JsonValue root;
  std::vector<std::string_view> strings;
  if (text::ParseJson(doc, iam::kMaxBucketPolicyBytes, &root, nullptr)) Collect(root, &strings);
  for (iam::PolicyKind kind : {iam::PolicyKind::kBucket, iam::PolicyKind::kIdentity}) {
    iam::ParseOptions options;
    options.kind = kind;
    options.bucket = kBucket;
    storage::Result<iam::Policy> policy = iam::Parse(doc, options);
    if (policy.ok()) Exercise(*policy, strings);
  }
  return 0;
}
