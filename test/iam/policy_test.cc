#include "iam/policy.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "iam/policy_actions.h"
#include "text/ascii.h"

namespace cubby::iam {
namespace {

constexpr std::string_view kBucket = "examplebucket";
constexpr std::string_view kAliceArn = "arn:aws:iam::123456789012:user/alice";
constexpr std::string_view kAccount = "123456789012";
constexpr std::string_view kAliceCanonical =
    "79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be";
constexpr std::string_view kBobArn = "arn:aws:iam::210987654321:user/bob";

// The condition keys of one test request: names as ConditionKeys receives them (normalized).
class Keys final : public ConditionKeys {
 public:
  using Entries = std::vector<std::pair<std::string, std::vector<std::string>>>;
  explicit Keys(Entries entries) : entries_(std::move(entries)) {
    for (const auto& [name, values] : entries_) {
      views_.emplace_back(values.begin(), values.end());
    }
  }
  std::span<const std::string_view> Values(std::string_view key) const override {
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].first == key) return views_[i];
    }
    return {};
  }

 private:
  Entries entries_;
  std::vector<std::vector<std::string_view>> views_;
};

enum class Who { kAnonymous, kAlice, kBob };

struct Request {
  Who who = Who::kAlice;
  std::string action = "s3:GetObject";
  std::string key = "photo.jpg";  // the object key; "" means the bucket itself
  Keys::Entries keys;
};

struct Check {
  Request request;
  Match want;
};

struct EvalCase {
  std::string name;
  std::string policy;
  std::vector<Check> checks;
  PolicyKind kind = PolicyKind::kBucket;
};

Match Ask(const Policy& policy, const Request& r) {
  std::vector<std::string_view> ids;
  switch (r.who) {
    case Who::kAnonymous:
      break;
    case Who::kAlice:
      ids = {kAliceArn, kAliceCanonical, kAccount};
      break;
    case Who::kBob:
      ids = {kBobArn, "210987654321"};
      break;
  }
  std::string resource = "arn:aws:s3:::" + std::string(kBucket);
  if (!r.key.empty()) resource += "/" + r.key;
  Keys keys(r.keys);
  RequestContext context;
  context.principals = ids;
  context.action = r.action;
  context.resource = resource;
  context.keys = &keys;
  return Evaluate(policy, context);
}

// A 2012-10-17 policy of the given statements (each the inside of a JSON object).
std::string Policy12(std::vector<std::string> statements) {
  std::string out = R"({"Version":"2012-10-17","Statement":[)";
  for (size_t i = 0; i < statements.size(); ++i) {
    out += (i ? ",{" : "{") + statements[i] + "}";
  }
  return out + "]}";
}

// One Allow statement for everyone on every object, with a condition.
std::string AllowIf(std::string condition, std::string action = "s3:GetObject") {
  return Policy12({R"("Effect":"Allow","Principal":"*","Action":")" + action +
                   R"(","Resource":"arn:aws:s3:::examplebucket/*","Condition":)" + condition});
}

Request Anon(std::string action = "s3:GetObject", std::string key = "photo.jpg") {
  return {Who::kAnonymous, std::move(action), std::move(key), {}};
}
Request Alice(std::string action = "s3:GetObject", std::string key = "photo.jpg") {
  return {Who::kAlice, std::move(action), std::move(key), {}};
}
Request Bob(std::string action = "s3:GetObject", std::string key = "photo.jpg") {
  return {Who::kBob, std::move(action), std::move(key), {}};
}
Request With(Keys::Entries keys, Request r = Alice()) {
  r.keys = std::move(keys);
  return r;
}

// A key as ConditionKeys receives it: lowercase up to its first '/'.
std::string NormalizeForTest(std::string_view key) {
  std::string out(key);
  for (size_t i = 0; i < out.size() && out[i] != '/'; ++i) out[i] = text::AsciiLower(out[i]);
  return out;
}

constexpr Match kNone = Match::kNone;
constexpr Match kAllow = Match::kAllow;
constexpr Match kDeny = Match::kDeny;

const std::vector<EvalCase>& EvalCases() {
  static const std::vector<EvalCase> cases = {
      // Principals.
      {"public read (AWS docs: granting read-only permission to anonymous users)",
       R"({"Version":"2012-10-17","Statement":[{"Sid":"PublicRead","Effect":"Allow",
          "Principal":"*","Action":["s3:GetObject","s3:GetObjectVersion"],
          "Resource":["arn:aws:s3:::examplebucket/*"]}]})",
       {{Anon(), kAllow},
        {Alice(), kAllow},
        {Anon("s3:GetObjectVersion"), kAllow},
        {Anon("s3:PutObject"), kNone},
        {Anon("s3:ListBucket", ""), kNone},
        {Anon("s3:GetObject", "a/b/c"), kAllow}}},
      {"AWS * is everyone",
       Policy12({R"("Effect":"Allow","Principal":{"AWS":"*"},"Action":"s3:GetObject",
                   "Resource":"arn:aws:s3:::examplebucket/*")"}),
       {{Anon(), kAllow}, {Bob(), kAllow}}},
      {"one user by ARN",
       Policy12({R"("Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:user/alice"},
                   "Action":"s3:*","Resource":["arn:aws:s3:::examplebucket",
                   "arn:aws:s3:::examplebucket/*"])"}),
       {{Alice(), kAllow},
        {Alice("s3:ListBucket", ""), kAllow},
        {Bob(), kNone},
        {Anon(), kNone},
        {Alice("iam:GetUser"), kNone}}},
      {"account root ARN and bare account id name the account",
       Policy12({R"("Effect":"Allow","Principal":{"AWS":["arn:aws:iam::123456789012:root"]},
                   "Action":"s3:GetObject","Resource":"arn:aws:s3:::examplebucket/*")",
                 R"("Effect":"Allow","Principal":{"AWS":"210987654321"},
                   "Action":"s3:PutObject","Resource":"arn:aws:s3:::examplebucket/*")"}),
       {{Alice(), kAllow},
        {Bob(), kNone},
        {Bob("s3:PutObject"), kAllow},
        {Alice("s3:PutObject"), kNone}}},
      {"canonical user id (case-insensitive hex)",
       Policy12({R"("Effect":"Allow","Principal":{"CanonicalUser":
                   "79A59DF900B949E55D96A1E698FBACEDFD6E09D98EACF8F8D5218E7CD47EF2BE"},
                   "Action":"s3:GetObject","Resource":"arn:aws:s3:::examplebucket/*")"}),
       {{Alice(), kAllow}, {Bob(), kNone}, {Anon(), kNone}}},
      {"a service principal names no cubby caller",
       Policy12({R"("Effect":"Allow","Principal":{"Service":"logging.s3.amazonaws.com"},
                   "Action":"s3:PutObject","Resource":"arn:aws:s3:::examplebucket/*")"}),
       {{Alice("s3:PutObject"), kNone}, {Anon("s3:PutObject"), kNone}}},
      {"NotPrincipal with Deny: everyone but alice, anonymous included",
       Policy12({R"("Effect":"Deny","NotPrincipal":{"AWS":"arn:aws:iam::123456789012:user/alice"},
                   "Action":"s3:*","Resource":"arn:aws:s3:::examplebucket/*")",
                 R"("Effect":"Allow","Principal":"*","Action":"s3:GetObject",
                   "Resource":"arn:aws:s3:::examplebucket/*")"}),
       {{Alice(), kAllow}, {Bob(), kDeny}, {Anon(), kDeny}}},
      // Effects.
      {"explicit deny beats allow, in either order",
       Policy12({R"("Effect":"Allow","Principal":"*","Action":"s3:*",
                   "Resource":"arn:aws:s3:::examplebucket/*")",
                 R"("Effect":"Deny","Principal":{"AWS":"arn:aws:iam::210987654321:user/bob"},
                   "Action":"s3:DeleteObject","Resource":"arn:aws:s3:::examplebucket/*")",
                 R"("Effect":"Allow","Principal":{"AWS":"arn:aws:iam::210987654321:user/bob"},
                   "Action":"s3:DeleteObject","Resource":"arn:aws:s3:::examplebucket/*")"}),
       {{Bob("s3:DeleteObject"), kDeny},
        {Bob("s3:GetObject"), kAllow},
        {Alice("s3:DeleteObject"), kAllow}}},
      // Actions.
      {"actions: case-insensitive, * and ? wildcards",
       Policy12({R"("Effect":"Allow","Principal":"*","Action":["S3:getobject","s3:List*",
                   "s3:?utObjectAcl"],"Resource":["arn:aws:s3:::examplebucket",
                   "arn:aws:s3:::examplebucket/*"])"}),
       {{Anon("s3:GetObject"), kAllow},
        {Anon("S3:GETOBJECT"), kAllow},
        {Anon("s3:GetObjectAcl"), kNone},
        {Anon("s3:ListBucket", ""), kAllow},
        {Anon("s3:ListBucketVersions", ""), kAllow},
        {Anon("s3:PutObjectAcl"), kAllow},
        {Anon("s3:PutObject"), kNone}}},
      {"an action outside the table still meets the patterns",
       Policy12({R"("Effect":"Allow","Principal":"*","Action":"s3:*",
                   "Resource":"arn:aws:s3:::examplebucket/*")"}),
       {{Anon("s3:SomeFutureAction"), kAllow}, {Anon("iam:Whatever"), kNone}}},
      {"* is every action",
       Policy12({R"("Effect":"Allow","Principal":"*","Action":"*",
                   "Resource":"arn:aws:s3:::examplebucket/*")"}),
       {{Anon("s3:GetObject"), kAllow}, {Anon("iam:CreateUser"), kAllow}}},
      {"NotAction",
       Policy12({R"("Effect":"Allow","Principal":"*","NotAction":"s3:DeleteObject",
                   "Resource":"arn:aws:s3:::examplebucket/*")"}),
       {{Anon("s3:GetObject"), kAllow}, {Anon("s3:DeleteObject"), kNone}}},
      // Resources.
      {"resources are case-sensitive",
       Policy12({R"("Effect":"Allow","Principal":"*","Action":"s3:GetObject",
                   "Resource":"arn:aws:s3:::examplebucket/Photos/*")"}),
       {{Anon("s3:GetObject", "Photos/a.jpg"), kAllow},
        {Anon("s3:GetObject", "photos/a.jpg"), kNone}}},
      {"? takes exactly one character (a UTF-8 one too)",
       Policy12({R"("Effect":"Allow","Principal":"*","Action":"s3:GetObject",
                   "Resource":"arn:aws:s3:::examplebucket/file?.txt")"}),
       {{Anon("s3:GetObject", "file1.txt"), kAllow},
        {Anon("s3:GetObject", "file\xC3\xA9.txt"), kAllow},
        {Anon("s3:GetObject", "file12.txt"), kNone},
        {Anon("s3:GetObject", "file.txt"), kNone}}},
      {"* backtracks",
       Policy12({R"("Effect":"Allow","Principal":"*","Action":"s3:GetObject",
                   "Resource":"arn:aws:s3:::examplebucket/a*b*c")"}),
       {{Anon("s3:GetObject", "abc"), kAllow},
        {Anon("s3:GetObject", "aXbYbZc"), kAllow},
        {Anon("s3:GetObject", "abcb"), kNone},
        {Anon("s3:GetObject", "ab"), kNone}}},
      {"NotResource",
       Policy12({R"("Effect":"Deny","Principal":"*","Action":"s3:GetObject",
                   "NotResource":"arn:aws:s3:::examplebucket/public/*")",
                 R"("Effect":"Allow","Principal":"*","Action":"s3:GetObject",
                   "Resource":"arn:aws:s3:::examplebucket/*")"}),
       {{Anon("s3:GetObject", "public/a"), kAllow}, {Anon("s3:GetObject", "secret"), kDeny}}},
      {"the bucket ARN is not its objects and the reverse",
       Policy12({R"("Effect":"Allow","Principal":"*","Action":"s3:ListBucket",
                   "Resource":"arn:aws:s3:::examplebucket")"}),
       {{Anon("s3:ListBucket", ""), kAllow}, {Anon("s3:ListBucket", "x"), kNone}}},
      // Policy variables.
      {"${aws:username} in a resource (AWS docs: home folders)",
       Policy12({R"("Effect":"Allow","Principal":"*","Action":"s3:GetObject",
                   "Resource":"arn:aws:s3:::examplebucket/home/${aws:username}/*")"}),
       {{With({{"aws:username", {"alice"}}}, Alice("s3:GetObject", "home/alice/a")), kAllow},
        {With({{"aws:username", {"alice"}}}, Alice("s3:GetObject", "home/bob/a")), kNone},
        {Anon("s3:GetObject", "home/alice/a"), kNone},  // key absent: no match
        {Anon("s3:GetObject", "home/${aws:username}/a"), kNone}}},
      {"variables are plain text in 2008-10-17 (and when Version is absent)",
       R"({"Statement":{"Effect":"Allow","Principal":"*","Action":"s3:GetObject",
          "Resource":"arn:aws:s3:::examplebucket/home/${aws:username}/*"}})",
       {{With({{"aws:username", {"alice"}}}, Alice("s3:GetObject", "home/alice/a")), kNone},
        {Anon("s3:GetObject", "home/${aws:username}/a"), kAllow}}},
      {"${*}, ${?}, ${$} are literal characters; a default fills an absent key",
       Policy12({R"("Effect":"Allow","Principal":"*","Action":"s3:GetObject",
                   "Resource":["arn:aws:s3:::examplebucket/a${*}b${?}${$}",
                   "arn:aws:s3:::examplebucket/t/${aws:PrincipalTag/team, 'none'}/*"])"}),
       {{Anon("s3:GetObject", "a*b?$"), kAllow},
        {Anon("s3:GetObject", "axbc$"), kNone},
        {Anon("s3:GetObject", "t/none/x"), kAllow},
        {With({{"aws:principaltag/team", {"red"}}}, Alice("s3:GetObject", "t/red/x")), kAllow},
        {With({{"aws:principaltag/team", {"red"}}}, Alice("s3:GetObject", "t/none/x")), kNone}}},
      // String conditions (AWS docs examples).
      {"StringEquals: values OR, keys AND",
       AllowIf(R"({"StringEquals":{"s3:prefix":["home/","projects/"],"s3:delimiter":"/"}})",
               "s3:GetObject"),
       {{With({{"s3:prefix", {"home/"}}, {"s3:delimiter", {"/"}}}), kAllow},
        {With({{"s3:prefix", {"projects/"}}, {"s3:delimiter", {"/"}}}), kAllow},
        {With({{"s3:prefix", {"other/"}}, {"s3:delimiter", {"/"}}}), kNone},
        {With({{"s3:prefix", {"home/"}}}), kNone},
        {With({{"s3:prefix", {"HOME/"}}, {"s3:delimiter", {"/"}}}), kNone},
        {Alice(), kNone}}},
      {"several operators AND",
       AllowIf(R"({"StringEquals":{"s3:x-amz-acl":"public-read"},
                   "Bool":{"aws:SecureTransport":"true"}})"),
       {{With({{"s3:x-amz-acl", {"public-read"}}, {"aws:securetransport", {"true"}}}), kAllow},
        {With({{"s3:x-amz-acl", {"public-read"}}, {"aws:securetransport", {"false"}}}), kNone}}},
      {"StringNotEquals: a missing key matches",
       AllowIf(R"({"StringNotEquals":{"s3:x-amz-acl":["public-read","public-read-write"]}})"),
       {{Alice(), kAllow},
        {With({{"s3:x-amz-acl", {"private"}}}), kAllow},
        {With({{"s3:x-amz-acl", {"public-read"}}}), kNone}}},
      {"StringEqualsIgnoreCase and StringNotEqualsIgnoreCase",
       AllowIf(R"({"StringEqualsIgnoreCase":{"aws:UserAgent":"Example-Agent"},
                   "StringNotEqualsIgnoreCase":{"aws:Referer":"EVIL.example"}})"),
       {{With({{"aws:useragent", {"EXAMPLE-agent"}}}), kAllow},
        {With({{"aws:useragent", {"example-agent"}}, {"aws:referer", {"evil.EXAMPLE"}}}), kNone},
        {With({{"aws:useragent", {"other"}}}), kNone}}},
      {"StringLike and StringNotLike",
       AllowIf(R"({"StringLike":{"aws:Referer":["http://www.example.com/*",
                   "http://example.com/*"]},"StringNotLike":{"s3:prefix":"private/*"}})"),
       {{With({{"aws:referer", {"http://www.example.com/page"}}}), kAllow},
        {With({{"aws:referer", {"http://example.com/"}}}), kAllow},
        {With({{"aws:referer", {"http://evil.com/"}}}), kNone},
        {With({{"aws:referer", {"http://example.com/"}}, {"s3:prefix", {"private/x"}}}), kNone},
        {Alice(), kNone}}},
      {"StringEquals is not a wildcard match",
       AllowIf(R"({"StringEquals":{"s3:prefix":"home/*"}})"),
       {{With({{"s3:prefix", {"home/*"}}}), kAllow}, {With({{"s3:prefix", {"home/x"}}}), kNone}}},
      {"a variable in a condition value",
       AllowIf(R"({"StringLike":{"s3:prefix":["home/${aws:username}/*"]}})"),
       {{With({{"s3:prefix", {"home/alice/x"}}, {"aws:username", {"alice"}}}), kAllow},
        {With({{"s3:prefix", {"home/bob/x"}}, {"aws:username", {"alice"}}}), kNone},
        {With({{"s3:prefix", {"home/alice/x"}}}), kNone}}},
      {"condition key names are case-insensitive; tag keys keep their case",
       AllowIf(R"({"StringEquals":{"S3:ExistingObjectTag/Project":"X","AWS:USERNAME":"alice"}})"),
       {{With({{"s3:existingobjecttag/Project", {"X"}}, {"aws:username", {"alice"}}}), kAllow},
        {With({{"s3:existingobjecttag/project", {"X"}}, {"aws:username", {"alice"}}}), kNone}}},
      // Numeric.
      {"numeric operators",
       AllowIf(R"({"NumericEquals":{"s3:max-keys":[10,"20.5"]},
                   "NumericNotEquals":{"s3:signatureage":"5"}})"),
       {{With({{"s3:max-keys", {"10"}}}), kAllow},
        {With({{"s3:max-keys", {"20.5"}}}), kAllow},
        {With({{"s3:max-keys", {"10.0"}}}), kAllow},
        {With({{"s3:max-keys", {"11"}}}), kNone},
        {With({{"s3:max-keys", {"ten"}}}), kNone},
        {With({{"s3:max-keys", {"10"}}, {"s3:signatureage", {"5"}}}), kNone}}},
      {"numeric order",
       Policy12({R"("Effect":"Allow","Principal":"*","Action":"s3:GetObject",
                   "Resource":"arn:aws:s3:::examplebucket/lt/*",
                   "Condition":{"NumericLessThan":{"s3:max-keys":"10"}})",
                 R"("Effect":"Allow","Principal":"*","Action":"s3:GetObject",
                   "Resource":"arn:aws:s3:::examplebucket/le/*",
                   "Condition":{"NumericLessThanEquals":{"s3:max-keys":"10"}})",
                 R"("Effect":"Allow","Principal":"*","Action":"s3:GetObject",
                   "Resource":"arn:aws:s3:::examplebucket/gt/*",
                   "Condition":{"NumericGreaterThan":{"s3:max-keys":"10"}})",
                 R"("Effect":"Allow","Principal":"*","Action":"s3:GetObject",
                   "Resource":"arn:aws:s3:::examplebucket/ge/*",
                   "Condition":{"NumericGreaterThanEquals":{"s3:max-keys":"-1.5"}})"}),
       {{With({{"s3:max-keys", {"9"}}}, Alice("s3:GetObject", "lt/a")), kAllow},
        {With({{"s3:max-keys", {"10"}}}, Alice("s3:GetObject", "lt/a")), kNone},
        {With({{"s3:max-keys", {"10"}}}, Alice("s3:GetObject", "le/a")), kAllow},
        {With({{"s3:max-keys", {"11"}}}, Alice("s3:GetObject", "le/a")), kNone},
        {With({{"s3:max-keys", {"11"}}}, Alice("s3:GetObject", "gt/a")), kAllow},
        {With({{"s3:max-keys", {"10"}}}, Alice("s3:GetObject", "gt/a")), kNone},
        {With({{"s3:max-keys", {"-1.5"}}}, Alice("s3:GetObject", "ge/a")), kAllow},
        {With({{"s3:max-keys", {"-2"}}}, Alice("s3:GetObject", "ge/a")), kNone}}},
      // Dates.
      {"date operators, ISO 8601 and epoch seconds",
       Policy12({R"("Effect":"Allow","Principal":"*","Action":"s3:GetObject",
                   "Resource":"arn:aws:s3:::examplebucket/*",
                   "Condition":{"DateGreaterThan":{"aws:CurrentTime":"2020-01-01T00:00:00Z"},
                   "DateLessThan":{"aws:CurrentTime":"2030-01-01"}})",
                 R"("Effect":"Deny","Principal":"*","Action":"s3:GetObject",
                   "Resource":"arn:aws:s3:::examplebucket/*",
                   "Condition":{"DateEquals":{"aws:EpochTime":"1600000000"}})"}),
       {{With({{"aws:currenttime", {"2026-11-26T05:31:13Z"}}}), kAllow},
        {With({{"aws:currenttime", {"2026-11-26T05:31:13.250+02:00"}}}), kAllow},
        {With({{"aws:currenttime", {"2019-12-31T23:59:59Z"}}}), kNone},
        {With({{"aws:currenttime", {"2020-01-01T00:00:00Z"}}}), kNone},
        {With({{"aws:currenttime", {"2020-01-01T01:00:00+01:00"}}}), kNone},  // the same instant
        {With({{"aws:currenttime", {"2030-01-01T00:00:00Z"}}}), kNone},
        {With({{"aws:currenttime", {"tomorrow"}}}), kNone},
        {With({{"aws:currenttime", {"2026-01-01T00:00:00Z"}}, {"aws:epochtime", {"1600000000"}}}),
         kDeny},
        {With({{"aws:currenttime", {"2026-01-01T00:00:00Z"}},
               {"aws:epochtime", {"2020-09-13T12:26:40Z"}}}),
         kDeny}}},
      {"DateNotEquals, LessThanEquals, GreaterThanEquals",
       AllowIf(R"({"DateNotEquals":{"aws:CurrentTime":"2026-01-01T00:00:00Z"},
                   "DateLessThanEquals":{"aws:CurrentTime":"2027-01-01T00:00:00Z"},
                   "DateGreaterThanEquals":{"aws:CurrentTime":"1767225600"}})"),
       {{With({{"aws:currenttime", {"2026-06-01T00:00:00Z"}}}), kAllow},
        {With({{"aws:currenttime", {"2027-01-01T00:00:00Z"}}}), kAllow},
        {With({{"aws:currenttime", {"2026-01-01T00:00:00Z"}}}), kNone},
        {With({{"aws:currenttime", {"2027-01-01T00:00:01Z"}}}), kNone}}},
      // Bool and Binary.
      {"Bool (AWS docs: deny requests that are not HTTPS)",
       Policy12({R"("Effect":"Allow","Principal":"*","Action":"s3:GetObject",
                   "Resource":"arn:aws:s3:::examplebucket/*")",
                 R"("Sid":"AllowSSLRequestsOnly","Effect":"Deny","Principal":"*","Action":"s3:*",
                   "Resource":["arn:aws:s3:::examplebucket","arn:aws:s3:::examplebucket/*"],
                   "Condition":{"Bool":{"aws:SecureTransport":"false"}})"}),
       {{With({{"aws:securetransport", {"false"}}}), kDeny},
        {With({{"aws:securetransport", {"FALSE"}}}), kDeny},
        {With({{"aws:securetransport", {"true"}}}), kAllow},
        {Alice(), kAllow}}},
      {"Bool with a JSON boolean; BinaryEquals",
       AllowIf(R"({"Bool":{"aws:MultiFactorAuthPresent":true},
                   "BinaryEquals":{"s3:x-amz-content-sha256":"QmluYXJ5VmFsdWU="}})"),
       {{With({{"aws:multifactorauthpresent", {"true"}},
               {"s3:x-amz-content-sha256", {"QmluYXJ5VmFsdWU="}}}),
         kAllow},
        {With({{"aws:multifactorauthpresent", {"true"}},
               {"s3:x-amz-content-sha256", {"qmluyxJ5VmFsdWU="}}}),
         kNone}}},
      // IP addresses.
      {"IpAddress and NotIpAddress (AWS docs: 54.240.143.0/24 except .188)",
       R"({"Version":"2012-10-17","Id":"S3PolicyId1","Statement":[{"Sid":"IPAllow",
          "Effect":"Allow","Principal":"*","Action":"s3:*",
          "Resource":"arn:aws:s3:::examplebucket/*","Condition":{
          "IpAddress":{"aws:SourceIp":"54.240.143.0/24"},
          "NotIpAddress":{"aws:SourceIp":"54.240.143.188/32"}}}]})",
       {{With({{"aws:sourceip", {"54.240.143.1"}}}), kAllow},
        {With({{"aws:sourceip", {"54.240.143.188"}}}), kNone},
        {With({{"aws:sourceip", {"54.240.144.1"}}}), kNone},
        {With({{"aws:sourceip", {"::ffff:54.240.143.7"}}}), kAllow},
        {With({{"aws:sourceip", {"not-an-ip"}}}), kNone},
        {Alice(), kNone}}},
      {"IPv6 CIDR (AWS docs: mixing IPv4 and IPv6)",
       AllowIf(R"({"IpAddress":{"aws:SourceIp":["54.240.143.0/24",
                   "2001:DB8:1234:5678::/64"]}})"),
       {{With({{"aws:sourceip", {"2001:db8:1234:5678::1"}}}), kAllow},
        {With({{"aws:sourceip", {"2001:db8:1234:5678:ffff:ffff:ffff:ffff"}}}), kAllow},
        {With({{"aws:sourceip", {"2001:db8:1234:5679::1"}}}), kNone},
        {With({{"aws:sourceip", {"54.240.143.255"}}}), kAllow},
        {With({{"aws:sourceip", {"10.0.0.1"}}}), kNone}}},
      {"a bare address is /32; a prefix off the byte boundary",
       AllowIf(R"({"IpAddress":{"aws:SourceIp":["192.0.2.7","198.51.100.64/27"]}})"),
       {{With({{"aws:sourceip", {"192.0.2.7"}}}), kAllow},
        {With({{"aws:sourceip", {"192.0.2.8"}}}), kNone},
        {With({{"aws:sourceip", {"198.51.100.95"}}}), kAllow},
        {With({{"aws:sourceip", {"198.51.100.96"}}}), kNone},
        {With({{"aws:sourceip", {"198.51.100.63"}}}), kNone}}},
      // ARNs.
      {"ArnLike and ArnEquals match component by component",
       AllowIf(R"({"ArnLike":{"aws:SourceArn":"arn:aws:cloudtrail:*:111122223333:trail/*"},
                   "ArnEquals":{"aws:PrincipalArn":"arn:aws:iam::111122223333:user/*"}})"),
       {{With({{"aws:sourcearn", {"arn:aws:cloudtrail:us-east-1:111122223333:trail/t"}},
               {"aws:principalarn", {"arn:aws:iam::111122223333:user/x"}}}),
         kAllow},
        // '*' does not reach across a colon into the account
        {With({{"aws:sourcearn", {"arn:aws:cloudtrail:us-east-1:9:111122223333:trail/t"}},
               {"aws:principalarn", {"arn:aws:iam::111122223333:user/x"}}}),
         kNone},
        {With({{"aws:sourcearn", {"arn:aws:cloudtrail:us-east-1:111122223333:trail/t"}},
               {"aws:principalarn", {"arn:aws:iam::111122223333:role/x"}}}),
         kNone},
        {With({{"aws:sourcearn", {"not an arn"}},
               {"aws:principalarn", {"arn:aws:iam::111122223333:user/x"}}}),
         kNone}}},
      {"ArnNotEquals and ArnNotLike",
       AllowIf(R"({"ArnNotEquals":{"aws:SourceArn":"arn:aws:sns:us-east-1:111122223333:t"},
                   "ArnNotLike":{"aws:PrincipalArn":"arn:aws:iam::*:role/admin"}})"),
       {{Alice(), kAllow},
        {With({{"aws:sourcearn", {"arn:aws:sns:us-east-1:111122223333:u"}}}), kAllow},
        {With({{"aws:sourcearn", {"arn:aws:sns:us-east-1:111122223333:t"}}}), kNone},
        {With({{"aws:principalarn", {"arn:aws:iam::1:role/admin"}}}), kNone}}},
      // Null, IfExists, sets.
      {"Null true and false",
       Policy12({R"("Effect":"Allow","Principal":"*","Action":"s3:GetObject",
                   "Resource":"arn:aws:s3:::examplebucket/absent/*",
                   "Condition":{"Null":{"aws:TokenIssueTime":"true"}})",
                 R"("Effect":"Allow","Principal":"*","Action":"s3:GetObject",
                   "Resource":"arn:aws:s3:::examplebucket/present/*",
                   "Condition":{"Null":{"aws:TokenIssueTime":false}})"}),
       {{Alice("s3:GetObject", "absent/a"), kAllow},
        {With({{"aws:tokenissuetime", {"x"}}}, Alice("s3:GetObject", "absent/a")), kNone},
        {Alice("s3:GetObject", "present/a"), kNone},
        {With({{"aws:tokenissuetime", {"x"}}}, Alice("s3:GetObject", "present/a")), kAllow}}},
      {"IfExists: a missing key matches, a present one is compared",
       AllowIf(R"({"StringEqualsIfExists":{"s3:x-amz-storage-class":"STANDARD"},
                   "NumericLessThanIfExists":{"s3:max-keys":"5"}})"),
       {{Alice(), kAllow},
        {With({{"s3:x-amz-storage-class", {"STANDARD"}}}), kAllow},
        {With({{"s3:x-amz-storage-class", {"GLACIER"}}}), kNone},
        {With({{"s3:max-keys", {"7"}}}), kNone}}},
      {"ForAllValues: every request value in the set; an empty set is true",
       AllowIf(R"({"ForAllValues:StringEquals":{"s3:RequestObjectTagKeys":["Project","Team"]}})"),
       {{Alice(), kAllow},
        {With({{"s3:requestobjecttagkeys", {"Project"}}}), kAllow},
        {With({{"s3:requestobjecttagkeys", {"Project", "Team"}}}), kAllow},
        {With({{"s3:requestobjecttagkeys", {"Project", "Cost"}}}), kNone}}},
      {"ForAnyValue: at least one request value; an empty set is false",
       AllowIf(R"({"ForAnyValue:StringLike":{"s3:RequestObjectTagKeys":["Proj*"]}})"),
       {{Alice(), kNone},
        {With({{"s3:requestobjecttagkeys", {"Cost", "Project"}}}), kAllow},
        {With({{"s3:requestobjecttagkeys", {"Cost"}}}), kNone}}},
      {"ForAnyValue with a negated operator",
       AllowIf(R"({"ForAnyValue:StringNotEquals":{"s3:RequestObjectTagKeys":["A","B"]}})"),
       {{Alice(), kNone},
        {With({{"s3:requestobjecttagkeys", {"A", "B"}}}), kNone},
        {With({{"s3:requestobjecttagkeys", {"A", "C"}}}), kAllow}}},
      {"ForAllValues with a negated operator",
       AllowIf(R"({"ForAllValues:StringNotLike":{"s3:RequestObjectTagKeys":["secret*"]}})"),
       {{Alice(), kAllow},
        {With({{"s3:requestobjecttagkeys", {"a", "b"}}}), kAllow},
        {With({{"s3:requestobjecttagkeys", {"a", "secret-x"}}}), kNone}}},
      {"ForAnyValue...IfExists on a missing key",
       AllowIf(R"({"ForAnyValue:StringEqualsIfExists":{"s3:RequestObjectTagKeys":["A"]}})"),
       {{Alice(), kAllow}, {With({{"s3:requestobjecttagkeys", {"B"}}}), kNone}}},
      {"a single-valued operator against several request values",
       AllowIf(R"({"StringEquals":{"aws:PrincipalTag/dept":"eng"},
                   "StringNotEquals":{"aws:PrincipalTag/role":"intern"}})"),
       {{With({{"aws:principaltag/dept", {"sales", "eng"}}}), kAllow},
        {With({{"aws:principaltag/dept", {"eng"}}, {"aws:principaltag/role", {"dev", "intern"}}}),
         kNone}}},
  };
  return cases;
}

Policy MustParse(std::string_view text, PolicyKind kind = PolicyKind::kBucket) {
  ParseOptions options;
  options.kind = kind;
  options.bucket = kBucket;
  storage::Result<Policy> policy = Parse(text, options);
  EXPECT_TRUE(policy.ok()) << policy.status().message() << "\n" << text;
  if (!policy.ok()) return Policy();
  return std::move(policy).value();
}

TEST(PolicyTest, Evaluate) {
  for (const EvalCase& c : EvalCases()) {
    SCOPED_TRACE(c.name);
    Policy policy = MustParse(c.policy, c.kind);
    for (size_t i = 0; i < c.checks.size(); ++i) {
      EXPECT_EQ(Ask(policy, c.checks[i].request), c.checks[i].want) << "check " << i;
    }
  }
}

TEST(PolicyTest, MaxKeysOnTheBucket) {
  // AWS docs: limit the number of keys a ListBucket answers.
  Policy policy = MustParse(Policy12({R"("Effect":"Allow","Principal":"*",
      "Action":"s3:ListBucket","Resource":"arn:aws:s3:::examplebucket",
      "Condition":{"NumericLessThanEquals":{"s3:max-keys":"10"}})"}));
  EXPECT_EQ(Ask(policy, With({{"s3:max-keys", {"10"}}}, Alice("s3:ListBucket", ""))), kAllow);
  EXPECT_EQ(Ask(policy, With({{"s3:max-keys", {"11"}}}, Alice("s3:ListBucket", ""))), kNone);
  EXPECT_EQ(Ask(policy, Alice("s3:ListBucket", "")), kNone);
}

TEST(PolicyTest, IdentityPoliciesIgnoreThePrincipal) {
  Policy policy = MustParse(
      R"({"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:ListBucket"],
          "Resource":["arn:aws:s3:::*"]},{"Effect":"Allow","Action":"iam:*AccessKey*",
          "Resource":"arn:aws:iam::*:user/${aws:username}"},{"Effect":"Deny","Action":"s3:*",
          "Resource":"arn:aws:s3:::secret*"}]})",
      PolicyKind::kIdentity);
  EXPECT_EQ(Ask(policy, Anon("s3:ListBucket", "")), kAllow);
  EXPECT_EQ(Ask(policy, Bob("s3:ListBucket", "")), kAllow);
  RequestContext context;
  Keys keys(Keys::Entries{{"aws:username", {"alice"}}});
  context.keys = &keys;
  context.action = "iam:CreateAccessKey";
  context.resource = "arn:aws:iam::123456789012:user/alice";
  EXPECT_EQ(Evaluate(policy, context), kAllow);
  context.resource = "arn:aws:iam::123456789012:user/bob";
  EXPECT_EQ(Evaluate(policy, context), kNone);
  context.action = "s3:GetObject";
  context.resource = "arn:aws:s3:::secretbucket/x";
  EXPECT_EQ(Evaluate(policy, context), kDeny);
  context.keys = nullptr;  // no keys at all
  EXPECT_EQ(Evaluate(policy, context), kDeny);
}

TEST(PolicyTest, TwentyStatements) {
  std::vector<std::string> statements;
  for (int i = 0; i < 19; ++i) {
    statements.push_back(
        R"("Sid":"s)" + std::to_string(i) +
        R"(","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:user/u)" +
        std::to_string(i) +
        R"("},"Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::examplebucket/u)" +
        std::to_string(i) + R"(/*")");
  }
  statements.push_back(
      R"("Sid":"last","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:user/alice"},
      "Action":"s3:GetObject","Resource":"arn:aws:s3:::examplebucket/*")");
  Policy policy = MustParse(Policy12(statements));
  ASSERT_EQ(policy.statements().size(), 20u);
  EXPECT_EQ(Ask(policy, Alice()), kAllow);
  EXPECT_EQ(Ask(policy, Bob()), kNone);
}

TEST(PolicyTest, KeepsVersionAndId) {
  Policy policy = MustParse(R"({"Id":"P1","Statement":{"Effect":"Allow","Principal":"*",
      "Action":"s3:GetObject","Resource":"arn:aws:s3:::examplebucket/*"}})");
  EXPECT_EQ(policy.version(), "2008-10-17");
  EXPECT_EQ(policy.id(), "P1");
  EXPECT_EQ(policy.kind(), PolicyKind::kBucket);
}

struct Malformed {
  std::string policy;
  std::string message;
  PolicyKind kind = PolicyKind::kBucket;
};

// A bucket statement with one field replaced: the rest is a valid public read.
std::string Stmt(std::string_view effect, std::string_view principal, std::string_view action,
                 std::string_view resource, std::string_view extra = "") {
  std::string out = R"({"Version":"2012-10-17","Statement":[{)";
  std::vector<std::string> fields;
  if (!effect.empty()) fields.push_back(R"("Effect":)" + std::string(effect));
  if (!principal.empty()) fields.push_back(R"("Principal":)" + std::string(principal));
  if (!action.empty()) fields.push_back(R"("Action":)" + std::string(action));
  if (!resource.empty()) fields.push_back(R"("Resource":)" + std::string(resource));
  if (!extra.empty()) fields.push_back(std::string(extra));
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + fields[i];
  return out + "}]}";
}

constexpr std::string_view kObjects = R"("arn:aws:s3:::examplebucket/*")";
constexpr std::string_view kGet = R"("s3:GetObject")";
constexpr std::string_view kAllowJ = R"("Allow")";
constexpr std::string_view kStar = R"("*")";

std::string WithCondition(std::string_view condition) {
  return Stmt(kAllowJ, kStar, kGet, kObjects, R"("Condition":)" + std::string(condition));
}

const std::vector<Malformed>& MalformedCases() {
  static const std::vector<Malformed> cases = {
      // The document.
      {"not json", "Policies must be valid JSON and the first byte must be '{'"},
      {"", "Policies must be valid JSON and the first byte must be '{'"},
      {"[]", "Policies must be valid JSON and the first byte must be '{'"},
      {"{", "This policy contains invalid Json"},
      {R"({"Statement":[],})", "This policy contains invalid Json"},
      {"{\"Statement\":\"\xC3\x28\"}", "This policy contains invalid Json"},
      {R"({"Version":"2012-10-18","Statement":[]})",
       "The policy must contain a valid version string"},
      {R"({"Version":2012,"Statement":[]})", "The policy must contain a valid version string"},
      {R"({"Version":"2012-10-17"})", "Missing required field Statement"},
      {R"({"Version":"2012-10-17","Statement":[]})",
       "Could not parse the policy: Statement is empty!"},
      {R"({"Version":"2012-10-17","Statement":"x"})", "This policy contains invalid Json"},
      {R"({"Version":"2012-10-17","Statement":["x"]})", "This policy contains invalid Json"},
      {R"({"Version":"2012-10-17","Foo":1,"Statement":[]})", "Unknown field Foo"},
      {R"({"Version":"2012-10-17","Version":"2012-10-17","Statement":[]})",
       "Policy has duplicate field Version"},
      {R"({"Id":5,"Statement":[]})", "Policy has invalid Id"},
      {"{\"Statement\":\"" + std::string(kMaxBucketPolicyBytes, 'x') + "\"}",
       "Policy exceeds the maximum allowed document size"},
      // Statement fields.
      {Stmt(kAllowJ, kStar, kGet, kObjects, R"("Actions":"s3:GetObject")"),
       "Unknown field Actions"},
      {Stmt(kAllowJ, kStar, kGet, kObjects, R"("Effect":"Allow")"),
       "Policy has duplicate field Effect"},
      {Stmt(kAllowJ, kStar, kGet, kObjects, R"("Sid":7)"), "Policy has invalid Sid"},
      {R"({"Statement":[{"Sid":"a","Effect":"Allow","Action":"s3:GetObject","Resource":"*"},
          {"Sid":"a","Effect":"Deny","Action":"s3:GetObject","Resource":"*"}]})",
       "Statement IDs (SID) in a single policy must be unique.", PolicyKind::kIdentity},
      {Stmt("", kStar, kGet, kObjects), "Missing required field Effect"},
      {Stmt(R"("allow")", kStar, kGet, kObjects), "Invalid effect: allow"},
      {Stmt("true", kStar, kGet, kObjects), "Invalid effect: "},
      // Principals.
      {Stmt(kAllowJ, "", kGet, kObjects), "Missing required field Principal"},
      {Stmt(kAllowJ, R"("alice")", kGet, kObjects), "Invalid principal in policy"},
      {Stmt(kAllowJ, R"({"AWS":"alice"})", kGet, kObjects), "Invalid principal in policy"},
      {Stmt(kAllowJ, R"({"AWS":[]})", kGet, kObjects), "Invalid principal in policy"},
      {Stmt(kAllowJ, R"({})", kGet, kObjects), "Invalid principal in policy"},
      {Stmt(kAllowJ, R"({"AWS":"arn:aws:iam::123:user/x"})", kGet, kObjects),
       "Invalid principal in policy"},
      {Stmt(kAllowJ, R"({"AWS":"arn:aws:iam::123456789012:group/x"})", kGet, kObjects),
       "Invalid principal in policy"},
      {Stmt(kAllowJ, R"({"AWS":"arn:aws:iam::123456789012:user/"})", kGet, kObjects),
       "Invalid principal in policy"},
      {Stmt(kAllowJ, R"({"CanonicalUser":"abc"})", kGet, kObjects), "Invalid principal in policy"},
      {Stmt(kAllowJ, R"({"Bogus":"x"})", kGet, kObjects), "Invalid principal in policy"},
      {Stmt(kAllowJ, R"({"Service":""})", kGet, kObjects), "Invalid principal in policy"},
      {Stmt(kAllowJ, R"({"AWS":"arn:aws:iam::123456789012:user/*"})", kGet, kObjects),
       "Invalid principal in policy"},
      {Stmt(kAllowJ, R"({"AWS":"arn:aws:sts::123456789012:federated-user/x"})", kGet, kObjects),
       "Invalid principal in policy"},
      {Stmt(kAllowJ, R"({"AWS":5})", kGet, kObjects), "Invalid principal in policy"},
      {Stmt(kAllowJ, R"({"AWS":"*","AWS":"*"})", kGet, kObjects), "Policy has duplicate field AWS"},
      {Stmt(kAllowJ, kStar, kGet, kObjects, R"("NotPrincipal":"*")"),
       "Invalid principal in policy"},
      {Stmt(kAllowJ, kStar, kGet, R"("*")"), "Policy document should not specify a principal.",
       PolicyKind::kIdentity},
      // Actions.
      {Stmt(kAllowJ, kStar, "", kObjects), "Missing required field Action"},
      {Stmt(kAllowJ, kStar, R"("invalid_action")", kObjects), "Policy has invalid action"},
      {Stmt(kAllowJ, kStar, R"("s3:GetObjekt")", kObjects), "Policy has invalid action"},
      {Stmt(kAllowJ, kStar, R"("s3:Get*Foo")", kObjects), "Policy has invalid action"},
      {Stmt(kAllowJ, kStar, R"("ec2:RunInstances")", kObjects), "Policy has invalid action"},
      {Stmt(kAllowJ, kStar, R"("s3:")", kObjects), "Policy has invalid action"},
      {Stmt(kAllowJ, kStar, R"(":GetObject")", kObjects), "Policy has invalid action"},
      {Stmt(kAllowJ, kStar, R"("")", kObjects), "Policy has invalid action"},
      {Stmt(kAllowJ, kStar, R"([])", kObjects), "Policy has invalid action"},
      {Stmt(kAllowJ, kStar, R"(["s3:GetObject",5])", kObjects), "Policy has invalid action"},
      {Stmt(kAllowJ, kStar, kGet, kObjects, R"("NotAction":"s3:PutObject")"),
       "Policy has invalid action"},
      // Resources.
      {Stmt(kAllowJ, kStar, kGet, ""), "Missing required field Resource"},
      {Stmt(kAllowJ, kStar, kGet, R"("examplebucket/*")"), "Policy has invalid resource"},
      {Stmt(kAllowJ, kStar, kGet, R"("arn:aws:s3:::otherbucket/*")"),
       "Policy has invalid resource"},
      {Stmt(kAllowJ, kStar, kGet, R"("arn:aws:s3:::examplebucket2/*")"),
       "Policy has invalid resource"},
      {Stmt(kAllowJ, kStar, kGet, R"("*")"), "Policy has invalid resource"},
      {Stmt(kAllowJ, kStar, kGet, R"([])"), "Policy has invalid resource"},
      {Stmt(kAllowJ, kStar, kGet, kObjects, R"("NotResource":"arn:aws:s3:::examplebucket")"),
       "Policy has invalid resource"},
      {Stmt(kAllowJ, "", kGet, R"("examplebucket")"), "Policy has invalid resource",
       PolicyKind::kIdentity},
      {Stmt(kAllowJ, "", kGet, R"("arn:aws:s3")"), "Policy has invalid resource",
       PolicyKind::kIdentity},
      // Actions against resources (bucket policies).
      {Stmt(kAllowJ, kStar, R"("s3:PutObject")", R"("arn:aws:s3:::examplebucket")"),
       "Action does not apply to any resource(s) in statement"},
      {Stmt(kAllowJ, kStar, R"("s3:ListBucket")", kObjects),
       "Action does not apply to any resource(s) in statement"},
      {Stmt(kAllowJ, kStar, R"(["s3:GetObject","s3:ListBucket"])", kObjects),
       "Action does not apply to any resource(s) in statement"},
      {Stmt(kAllowJ, kStar, R"("s3:ListAllMyBuckets")",
            R"(["arn:aws:s3:::examplebucket","arn:aws:s3:::examplebucket/*"])"),
       "Action does not apply to any resource(s) in statement"},
      {Stmt(kAllowJ, kStar, R"("iam:GetUser")", kObjects),
       "Action does not apply to any resource(s) in statement"},
      // Conditions.
      {WithCondition(R"({"StringEqualz":{"s3:prefix":"a"}})"),
       "Invalid Condition type : StringEqualz"},
      {WithCondition(R"({"ForSomeValues:StringEquals":{"s3:prefix":"a"}})"),
       "Invalid Condition type : ForSomeValues:StringEquals"},
      {WithCondition(R"({"NullIfExists":{"s3:prefix":"true"}})"),
       "Invalid Condition type : NullIfExists"},
      {WithCondition(R"({"StringEquals":{"s3:x-acl":"private"}})"),
       "Policy has an invalid condition key: s3:x-acl"},
      {WithCondition(R"({"StringEquals":{"foo":"bar"}})"),
       "Policy has an invalid condition key: foo"},
      {WithCondition(R"({"StringEquals":{"aws:":"bar"}})"),
       "Policy has an invalid condition key: aws:"},
      {WithCondition(R"({"StringEquals":{"s3:ExistingObjectTag/":"x"}})"),
       "Policy has an invalid condition key: s3:ExistingObjectTag/"},
      {WithCondition(R"({"IpAddress":{"aws:SourceIp":"123"}})"),
       "Invalid IP address in Conditions"},
      {WithCondition(R"({"IpAddress":{"aws:SourceIp":"10.0.0.0/33"}})"),
       "Invalid IP address in Conditions"},
      {WithCondition(R"({"NotIpAddress":{"aws:SourceIp":"2001:db8::/129"}})"),
       "Invalid IP address in Conditions"},
      {WithCondition(R"({"NumericEquals":{"s3:max-keys":"ten"}})"),
       "Invalid value in Conditions for operator NumericEquals"},
      {WithCondition(R"({"DateLessThan":{"aws:CurrentTime":"yesterday"}})"),
       "Invalid value in Conditions for operator DateLessThan"},
      {WithCondition(R"({"DateLessThan":{"aws:CurrentTime":"2026-02-30"}})"),
       "Invalid value in Conditions for operator DateLessThan"},
      {WithCondition(R"({"Bool":{"aws:SecureTransport":"yes"}})"),
       "Invalid value in Conditions for operator Bool"},
      {WithCondition(R"({"Null":{"aws:SecureTransport":"maybe"}})"),
       "Invalid value in Conditions for operator Null"},
      {WithCondition(R"({"StringEquals":{"s3:prefix":{"a":"b"}}})"),
       "Invalid value in Conditions for operator StringEquals"},
      {WithCondition(R"({"StringEquals":{"s3:prefix":[null]}})"),
       "Invalid value in Conditions for operator StringEquals"},
      {WithCondition(R"({"StringEquals":{}})"),
       "Invalid value in Conditions for operator StringEquals"},
      {WithCondition(R"({"StringEquals":"x"})"),
       "Invalid value in Conditions for operator StringEquals"},
      {WithCondition(R"("x")"), "This policy contains invalid Json"},
      {WithCondition(R"({"StringEquals":{"s3:prefix":"a"},"StringEquals":{"s3:prefix":"b"}})"),
       "Policy has duplicate field StringEquals"},
      {WithCondition(R"({"StringEquals":{"s3:prefix":"a","s3:prefix":"b"}})"),
       "Policy has duplicate field s3:prefix"},
      {Stmt(kAllowJ, "", kGet, R"("*")", R"("Condition":{"StringEquals":{"nocolon":"x"}})"),
       "Policy has an invalid condition key: nocolon", PolicyKind::kIdentity},
  };
  return cases;
}

TEST(PolicyTest, RefusesMalformedPolicies) {
  for (const Malformed& c : MalformedCases()) {
    ParseOptions options;
    options.kind = c.kind;
    options.bucket = kBucket;
    storage::Result<Policy> policy = Parse(c.policy, options);
    ASSERT_FALSE(policy.ok()) << c.policy;
    EXPECT_EQ(policy.status().code(), storage::Code::kInvalidArgument);
    EXPECT_EQ(policy.status().message(), c.message) << c.policy;
  }
}

TEST(PolicyTest, BucketPoliciesNeedTheBucket) {
  ParseOptions options;  // kBucket with no bucket: no resource can be right
  storage::Result<Policy> policy = Parse(Stmt(kAllowJ, kStar, kGet, kObjects), options);
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.status().message(), "Policy has invalid resource");
}

TEST(PolicyTest, AcceptsWhatAwsAccepts) {
  const std::string good[] = {
      Stmt(kAllowJ, kStar, R"("s3:*")", R"("arn:aws:s3:::examplebucket")"),
      Stmt(kAllowJ, kStar, R"("s3:Get*")", R"("arn:aws:s3:::examplebucket")"),
      Stmt(kAllowJ, kStar, R"("*")", kObjects),
      Stmt(kAllowJ, R"({"AWS":["arn:aws:iam::123456789012:role/r","123456789012"]})", kGet,
           kObjects),
      Stmt(kAllowJ, R"({"AWS":"arn:aws:sts::123456789012:assumed-role/r/s"})", kGet, kObjects),
      Stmt(kAllowJ, R"({"Federated":"cognito-identity.amazonaws.com"})", kGet, kObjects),
      Stmt(kAllowJ, kStar, kGet, kObjects, R"("Sid":"")"),
      // S3 keeps a bucket policy that repeats a Sid (IAM does not: see the malformed cases).
      R"({"Statement":[{"Sid":"a","Effect":"Allow","Principal":"*","Action":"s3:GetObject",
          "Resource":"arn:aws:s3:::examplebucket/*"},{"Sid":"a","Effect":"Deny","Principal":"*",
          "Action":"s3:GetObject","Resource":"arn:aws:s3:::examplebucket/*"}]})",
      Stmt(R"("Deny")", kStar, R"("s3:DeleteObject")", kObjects,
           R"("Condition":{"StringLikeIfExists":{"s3:versionid":"*"}})"),
      Stmt(kAllowJ, kStar, R"("s3:ListBucket")", R"("arn:aws:s3:::examplebucket")",
           R"("Condition":{"StringEquals":{"s3:Prefix":"x","s3:ExistingObjectTag/a":"b"}})"),
      Stmt(kAllowJ, kStar, kGet, kObjects,
           R"("Condition":{"StringEquals":{"aws:AnythingGlobal":"x"}})"),
  };
  for (const std::string& policy : good) MustParse(policy);
  MustParse(Stmt(kAllowJ, "", R"(["iam:CreateUser","s3:GetObject"])",
                 R"(["arn:aws:iam::123456789012:user/*","*"])"),
            PolicyKind::kIdentity);
}

// The operators on a present and an absent key, as AWS's IAM guide defines them
// (reference_policies_elements_condition_operators, ..._condition-single-vs-multi-valued-
// context-keys): an absent key makes a negated operator and any ...IfExists true, the positive
// ones false; ForAllValues over an absent (or empty) set is true, ForAnyValue false; Null tests
// presence.
TEST(PolicyTest, OperatorsOnPresentAndAbsentKeys) {
  struct Row {
    std::string op;                  // the operator as written
    std::string key;                 // as written in the policy
    std::string value;               // the policy's value (JSON)
    std::vector<std::string> given;  // the request's values; empty: the key is absent
    Match want;
  };
  const Row rows[] = {
      // String, single-valued key: present and matching, present and not, absent.
      {"StringEquals", "s3:x-amz-server-side-encryption", R"("AES256")", {"AES256"}, kAllow},
      {"StringEquals", "s3:x-amz-server-side-encryption", R"("AES256")", {"aws:kms"}, kNone},
      {"StringEquals", "s3:x-amz-server-side-encryption", R"("AES256")", {}, kNone},
      {"StringNotEquals", "s3:x-amz-server-side-encryption", R"("AES256")", {"AES256"}, kNone},
      {"StringNotEquals", "s3:x-amz-server-side-encryption", R"("AES256")", {"aws:kms"}, kAllow},
      {"StringNotEquals", "s3:x-amz-server-side-encryption", R"("AES256")", {}, kAllow},
      {"StringEqualsIfExists", "s3:x-amz-server-side-encryption", R"("AES256")", {}, kAllow},
      {"StringEqualsIfExists",
       "s3:x-amz-server-side-encryption",
       R"("AES256")",
       {"aws:kms"},
       kNone},
      {"StringNotEqualsIfExists",
       "s3:x-amz-server-side-encryption",
       R"("AES256")",
       {"AES256"},
       kNone},
      {"StringEqualsIgnoreCase", "s3:x-amz-metadata-directive", R"("copy")", {"COPY"}, kAllow},
      {"StringNotEqualsIgnoreCase", "s3:x-amz-metadata-directive", R"("copy")", {}, kAllow},
      {"StringLike", "s3:x-amz-copy-source", R"("src/public/*")", {"src/public/a"}, kAllow},
      {"StringLike", "s3:x-amz-copy-source", R"("src/public/*")", {}, kNone},
      {"StringNotLike", "s3:x-amz-copy-source", R"("src/public/*")", {"src/private/a"}, kAllow},
      {"StringNotLike", "s3:x-amz-copy-source", R"("src/public/*")", {}, kAllow},
      {"StringLikeIfExists", "s3:x-amz-copy-source", R"("src/public/*")", {}, kAllow},
      // Numbers and dates.
      {"NumericLessThan", "s3:max-keys", R"("10")", {"5"}, kAllow},
      {"NumericLessThan", "s3:max-keys", R"("10")", {}, kNone},
      {"NumericLessThanIfExists", "s3:max-keys", R"("10")", {}, kAllow},
      {"NumericNotEquals", "s3:max-keys", R"("10")", {}, kAllow},
      {"NumericGreaterThan", "s3:object-lock-remaining-retention-days", R"("30")", {"31"}, kAllow},
      {"DateGreaterThan",
       "s3:object-lock-retain-until-date",
       R"("2030-01-01T00:00:00Z")",
       {"2031-01-01T00:00:00Z"},
       kAllow},
      {"DateGreaterThan",
       "s3:object-lock-retain-until-date",
       R"("2030-01-01T00:00:00Z")",
       {},
       kNone},
      {"DateNotEquals",
       "s3:object-lock-retain-until-date",
       R"("2030-01-01T00:00:00Z")",
       {},
       kAllow},
      {"DateLessThanIfExists", "aws:CurrentTime", R"("2030-01-01T00:00:00Z")", {}, kAllow},
      // Bool and IP addresses.
      {"Bool", "aws:SecureTransport", R"("true")", {"true"}, kAllow},
      {"Bool", "aws:SecureTransport", R"("true")", {}, kNone},
      {"BoolIfExists", "aws:SecureTransport", R"("true")", {}, kAllow},
      {"IpAddress", "aws:SourceIp", R"("10.0.0.0/8")", {"10.1.2.3"}, kAllow},
      {"IpAddress", "aws:SourceIp", R"("10.0.0.0/8")", {}, kNone},
      {"NotIpAddress", "aws:SourceIp", R"("10.0.0.0/8")", {"10.1.2.3"}, kNone},
      {"NotIpAddress", "aws:SourceIp", R"("10.0.0.0/8")", {"192.0.2.1"}, kAllow},
      {"NotIpAddress", "aws:SourceIp", R"("10.0.0.0/8")", {}, kAllow},
      {"IpAddressIfExists", "aws:SourceIp", R"("10.0.0.0/8")", {}, kAllow},
      // ARNs.
      {"ArnEquals",
       "aws:PrincipalArn",
       R"("arn:aws:iam::123456789012:user/alice")",
       {"arn:aws:iam::123456789012:user/alice"},
       kAllow},
      {"ArnEquals", "aws:PrincipalArn", R"("arn:aws:iam::123456789012:user/alice")", {}, kNone},
      {"ArnLike",
       "aws:PrincipalArn",
       R"("arn:aws:iam::*:user/a*")",
       {"arn:aws:iam::123456789012:user/alice"},
       kAllow},
      {"ArnNotEquals", "aws:PrincipalArn", R"("arn:aws:iam::123456789012:user/alice")", {}, kAllow},
      {"ArnNotLike", "aws:PrincipalArn", R"("arn:aws:iam::*:user/a*")", {}, kAllow},
      {"ArnNotLike",
       "aws:PrincipalArn",
       R"("arn:aws:iam::*:user/a*")",
       {"arn:aws:iam::123456789012:user/alice"},
       kNone},
      {"ArnLikeIfExists", "aws:PrincipalArn", R"("arn:aws:iam::*:user/a*")", {}, kAllow},
      // Multi-valued keys: the set operators.
      {"ForAllValues:StringEquals", "s3:RequestObjectTagKeys", R"(["a","b"])", {"a"}, kAllow},
      {"ForAllValues:StringEquals", "s3:RequestObjectTagKeys", R"(["a","b"])", {"a", "c"}, kNone},
      {"ForAllValues:StringEquals", "s3:RequestObjectTagKeys", R"(["a","b"])", {}, kAllow},
      {"ForAnyValue:StringEquals", "s3:RequestObjectTagKeys", R"(["a","b"])", {"c", "b"}, kAllow},
      {"ForAnyValue:StringEquals", "s3:RequestObjectTagKeys", R"(["a","b"])", {"c"}, kNone},
      {"ForAnyValue:StringEquals", "s3:RequestObjectTagKeys", R"(["a","b"])", {}, kNone},
      {"ForAnyValue:StringEqualsIfExists", "s3:RequestObjectTagKeys", R"(["a"])", {}, kAllow},
      {"ForAllValues:StringNotEquals", "s3:RequestObjectTagKeys", R"(["a"])", {"b", "c"}, kAllow},
      {"ForAllValues:StringNotEquals", "s3:RequestObjectTagKeys", R"(["a"])", {"a", "c"}, kNone},
      {"ForAnyValue:StringNotEquals", "s3:RequestObjectTagKeys", R"(["a"])", {"a", "c"}, kAllow},
      {"ForAnyValue:StringNotEquals", "s3:RequestObjectTagKeys", R"(["a"])", {}, kNone},
      // Null: "true" asks the key to be absent, "false" present.
      {"Null", "s3:x-amz-server-side-encryption", "true", {}, kAllow},
      {"Null", "s3:x-amz-server-side-encryption", "true", {"AES256"}, kNone},
      {"Null", "s3:x-amz-server-side-encryption", "false", {"AES256"}, kAllow},
      {"Null", "s3:x-amz-server-side-encryption", "false", {}, kNone},
      {"Null", "s3:RequestObjectTagKeys", "true", {}, kAllow},
  };
  for (const Row& row : rows) {
    const std::string condition = "{\"" + row.op + "\":{\"" + row.key + "\":" + row.value + "}}";
    SCOPED_TRACE(condition + " given " + std::to_string(row.given.size()) + " values");
    Keys::Entries entries;
    if (!row.given.empty()) entries.push_back({NormalizeForTest(row.key), row.given});
    EXPECT_EQ(Ask(MustParse(AllowIf(condition)), With(entries)), row.want);
  }
}

// PutBucketPolicy and PutUserPolicy parse with KeyCheck::kFilled: every key cubby fills is
// accepted; a key of AWS's that cubby cannot fill, and a key that is no AWS key at all, are
// refused with the key named; stored policies (KeyCheck::kLanguage) still parse.
TEST(PolicyTest, OnlyFilledKeysInNewPolicies) {
  struct Row {
    std::string key;      // as written
    std::string message;  // empty: accepted
  };
  const std::string unsupported = "Policy has a condition key cubby does not support: ";
  const std::string invalid = "Policy has an invalid condition key: ";
  const Row rows[] = {
      {"aws:SourceIp", ""},
      {"aws:SecureTransport", ""},
      {"aws:CurrentTime", ""},
      {"aws:EpochTime", ""},
      {"aws:username", ""},
      {"aws:userid", ""},
      {"aws:PrincipalTag/team", ""},
      {"aws:PrincipalType", ""},
      {"aws:PrincipalArn", ""},
      {"aws:PrincipalAccount", ""},
      {"aws:Referer", ""},
      {"aws:UserAgent", ""},
      {"aws:ResourceAccount", ""},
      {"s3:x-amz-server-side-encryption", ""},
      {"s3:x-amz-server-side-encryption-aws-kms-key-id", ""},
      {"s3:x-amz-server-side-encryption-customer-algorithm", ""},
      {"s3:x-amz-acl", ""},
      {"s3:x-amz-grant-read", ""},
      {"s3:x-amz-grant-write", ""},
      {"s3:x-amz-grant-read-acp", ""},
      {"s3:x-amz-grant-write-acp", ""},
      {"s3:x-amz-grant-full-control", ""},
      {"s3:x-amz-copy-source", ""},
      {"s3:x-amz-metadata-directive", ""},
      {"s3:x-amz-storage-class", ""},
      {"s3:x-amz-content-sha256", ""},
      {"s3:x-amz-website-redirect-location", ""},
      {"s3:RequestObjectTag/Project", ""},
      {"s3:RequestObjectTagKeys", ""},
      {"s3:ExistingObjectTag/Project", ""},
      {"s3:BucketTag/Project", ""},
      {"s3:VersionId", ""},
      {"s3:object-lock-mode", ""},
      {"s3:object-lock-retain-until-date", ""},
      {"s3:object-lock-remaining-retention-days", ""},
      {"s3:object-lock-legal-hold", ""},
      {"s3:LocationConstraint", ""},
      {"s3:prefix", ""},
      {"s3:delimiter", ""},
      {"s3:max-keys", ""},
      {"s3:signatureversion", ""},
      {"s3:authType", ""},
      {"s3:signatureAge", ""},
      {"s3:TlsVersion", ""},
      {"s3:x-amz-object-ownership", ""},
      {"s3:ResourceAccount", ""},
      {"s3:if-match", ""},
      {"s3:if-none-match", ""},
      {"aws:SourceVpc", unsupported + "aws:SourceVpc"},
      {"aws:SourceVpce", unsupported + "aws:SourceVpce"},
      {"aws:SourceArn", unsupported + "aws:SourceArn"},
      {"aws:MultiFactorAuthPresent", unsupported + "aws:MultiFactorAuthPresent"},
      {"aws:PrincipalOrgID", unsupported + "aws:PrincipalOrgID"},
      {"aws:RequestTag/x", unsupported + "aws:RequestTag/x"},
      {"s3:AccessGrantsInstanceArn", unsupported + "s3:AccessGrantsInstanceArn"},
      {"s3:DataAccessPointArn", unsupported + "s3:DataAccessPointArn"},
      {"s3:DataAccessPointAccount", unsupported + "s3:DataAccessPointAccount"},
      {"s3:AccessPointNetworkOrigin", unsupported + "s3:AccessPointNetworkOrigin"},
      {"s3:RequestJobPriority", unsupported + "s3:RequestJobPriority"},
      {"s3:ObjectCreationOperation", unsupported + "s3:ObjectCreationOperation"},
      {"aws:AnythingGlobal", invalid + "aws:AnythingGlobal"},
      {"s3:x-acl", invalid + "s3:x-acl"},
      {"s3:RequestObjectTag/", invalid + "s3:RequestObjectTag/"},
      {"iam:PolicyARN", invalid + "iam:PolicyARN"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.key);
    const std::string condition = R"({"StringLikeIfExists":{")" + row.key + R"(":"x"}})";
    for (PolicyKind kind : {PolicyKind::kBucket, PolicyKind::kIdentity}) {
      std::string text = AllowIf(condition);
      if (kind == PolicyKind::kIdentity) {
        text = Stmt(kAllowJ, "", kGet, R"("*")", R"("Condition":)" + condition);
      }
      ParseOptions options;
      options.kind = kind;
      options.bucket = kBucket;
      options.keys = KeyCheck::kFilled;
      storage::Result<Policy> policy = Parse(text, options);
      if (row.message.empty()) {
        EXPECT_TRUE(policy.ok()) << policy.status().message();
      } else {
        ASSERT_FALSE(policy.ok());
        EXPECT_EQ(policy.status().code(), storage::Code::kInvalidArgument);
        EXPECT_EQ(policy.status().message(), row.message);
      }
      // What was stored before keeps parsing (known keys only: kLanguage refuses the rest).
      if (row.message.starts_with(unsupported) && kind == PolicyKind::kBucket) {
        options.keys = KeyCheck::kLanguage;
        EXPECT_TRUE(Parse(text, options).ok());
      }
    }
  }
}

TEST(PolicyTest, IsPublic) {
  struct Row {
    std::string policy;
    bool is_public;
  };
  const Row rows[] = {
      {Stmt(kAllowJ, kStar, kGet, kObjects), true},
      {Stmt(kAllowJ, R"({"AWS":"*"})", kGet, kObjects), true},
      {Stmt(kAllowJ, R"({"AWS":"arn:aws:iam::123456789012:user/alice"})", kGet, kObjects), false},
      {Stmt(R"("Deny")", kStar, kGet, kObjects), false},
      {Stmt(kAllowJ, R"({"AWS":"*"})", kGet, kObjects, R"("Sid":"x")"), true},
      {R"({"Statement":[{"Effect":"Allow","NotPrincipal":{"AWS":"123456789012"},
          "Action":"s3:GetObject","Resource":"arn:aws:s3:::examplebucket/*"}]})",
       true},
      {Stmt(kAllowJ, kStar, R"("s3:GetBucketLocation")", R"("arn:aws:s3:::examplebucket")"), true},
      {Stmt(kAllowJ, kStar, R"("s3:CreateBucket")", R"("arn:aws:s3:::examplebucket")"), false},
      {R"({"Statement":[{"Effect":"Allow","Principal":"*","NotAction":"s3:CreateBucket",
          "Resource":"arn:aws:s3:::examplebucket/*"}]})",
       true},
      {WithCondition(R"({"IpAddress":{"aws:SourceIp":["192.0.2.0/24","2001:db8::/32"]}})"), false},
      {WithCondition(R"({"IpAddress":{"aws:SourceIp":"0.0.0.0/0"}})"), true},
      {WithCondition(R"({"NotIpAddress":{"aws:SourceIp":"192.0.2.0/24"}})"), true},
      {WithCondition(R"({"IpAddressIfExists":{"aws:SourceIp":"192.0.2.0/24"}})"), true},
      {WithCondition(R"({"StringEquals":{"aws:SourceVpc":"vpc-111bbb22"}})"), false},
      {WithCondition(R"({"StringEquals":{"AWS:SourceAccount":"123456789012"}})"), false},
      {WithCondition(R"({"ArnEquals":{"aws:SourceArn":"arn:aws:sns:us-east-1:1:t"}})"), false},
      {WithCondition(R"({"ArnLike":{"aws:SourceArn":"arn:aws:sns:*:1:t"}})"), true},
      {WithCondition(R"({"StringEquals":{"aws:PrincipalAccount":"${aws:username}"}})"), true},
      {WithCondition(R"({"ForAllValues:StringEquals":{"aws:SourceVpc":"vpc-1"}})"), true},
      {WithCondition(R"({"StringEquals":{"s3:prefix":"home/"}})"), true},
      {WithCondition(R"({"StringEquals":{"aws:userid":"AIDAEXAMPLE"}})"), false},
  };
  for (const Row& row : rows) {
    EXPECT_EQ(IsPublic(MustParse(row.policy)), row.is_public) << row.policy;
  }
}

TEST(PolicyActionsTest, TableIsSortedAndFound) {
  std::span<const ActionInfo> actions = KnownActions();
  ASSERT_GT(actions.size(), 150u);
  for (size_t i = 1; i < actions.size(); ++i) {
    EXPECT_LT(text::AsciiLowercase(actions[i - 1].name), text::AsciiLowercase(actions[i].name));
  }
  for (size_t i = 0; i < actions.size(); ++i) {
    EXPECT_EQ(FindKnownAction(actions[i].name), i);
    EXPECT_EQ(FindKnownAction(text::AsciiLowercase(actions[i].name)), i);
  }
  EXPECT_EQ(FindKnownAction("s3:NoSuchAction"), std::nullopt);
  EXPECT_EQ(FindKnownAction(""), std::nullopt);
  ASSERT_TRUE(FindKnownAction("s3:GetObject"));
  EXPECT_EQ(actions[*FindKnownAction("s3:GetObject")].resource, ActionResource::kObject);
  EXPECT_EQ(actions[*FindKnownAction("s3:ListBucket")].resource, ActionResource::kBucket);
  EXPECT_EQ(actions[*FindKnownAction("s3:ListAllMyBuckets")].resource, ActionResource::kOther);
  EXPECT_TRUE(FindKnownAction("iam:CreateAccessKey"));
}

}  // namespace
}  // namespace cubby::iam
