#include "iam/policy.h"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <utility>

#include "iam/policy_actions.h"
#include "text/ascii.h"
#include "text/iso8601.h"
#include "text/json.h"
#include "text/utf8.h"

namespace cubby::iam {

using namespace policy_internal;

namespace {

using text::AsciiLower;
using text::JsonType;
using text::JsonValue;
using Kind = PatternPart::Kind;

constexpr std::string_view kVersion2012 = "2012-10-17";
constexpr std::string_view kVersion2008 = "2008-10-17";

// ---- Condition keys -------------------------------------------------------------------------

// Condition key names are case-insensitive; what follows a '/' (a tag key) is kept as written.
std::string NormalizeKey(std::string_view key) {
  std::string out(key);
  size_t end = std::min(out.find('/'), out.size());
  for (size_t i = 0; i < end; ++i) out[i] = AsciiLower(out[i]);
  return out;
}

// Every condition key AWS defines for S3 requests (the Service Authorization Reference, "Condition
// keys for Amazon S3", and the global keys), normalized, and whether cubby's Authorizer fills it
// (iam/authorize.cc RequestKeys). A key ending in '/' takes any non-empty suffix (a tag key).
struct KeyInfo {
  std::string_view name;
  bool filled;
};

constexpr KeyInfo kConditionKeys[] = {
    // Global keys S3 requests carry.
    {"aws:currenttime", true},
    {"aws:epochtime", true},
    {"aws:principalaccount", true},
    {"aws:principalarn", true},
    {"aws:principaltag/", true},
    {"aws:principaltype", true},
    {"aws:referer", true},
    {"aws:resourceaccount", true},
    {"aws:securetransport", true},
    {"aws:sourceip", true},
    {"aws:useragent", true},
    {"aws:userid", true},
    {"aws:username", true},
    // Global keys of AWS's that cubby has nothing to fill with (no VPCs, no organizations, no
    // MFA, no temporary credentials, no service principals, no request or resource tags on IAM).
    {"aws:assumedroot", false},
    {"aws:calledvia", false},
    {"aws:calledviafirst", false},
    {"aws:calledvialast", false},
    {"aws:ec2instancesourceprivateipv4", false},
    {"aws:ec2instancesourcevpc", false},
    {"aws:federatedprovider", false},
    {"aws:multifactorauthage", false},
    {"aws:multifactorauthpresent", false},
    {"aws:principalisawsservice", false},
    {"aws:principalorgid", false},
    {"aws:principalorgpaths", false},
    {"aws:principalservicename", false},
    {"aws:principalservicenameslist", false},
    {"aws:requestedregion", false},
    {"aws:requesttag/", false},
    {"aws:resourceorgid", false},
    {"aws:resourceorgpaths", false},
    {"aws:resourcetag/", false},
    {"aws:sourceaccount", false},
    {"aws:sourcearn", false},
    {"aws:sourceidentity", false},
    {"aws:sourceorgid", false},
    {"aws:sourceorgpaths", false},
    {"aws:sourcevpc", false},
    {"aws:sourcevpcarn", false},
    {"aws:sourcevpce", false},
    {"aws:tagkeys", false},
    {"aws:tokenissuetime", false},
    {"aws:viaawsservice", false},
    {"aws:vpcsourceip", false},
    // S3's own.
    {"s3:accessgrantsinstancearn", false},   // no access grants
    {"s3:accesspointnetworkorigin", false},  // no access points
    {"s3:authtype", true},
    {"s3:buckettag/", true},
    {"s3:dataaccesspointaccount", false},
    {"s3:dataaccesspointarn", false},
    {"s3:delimiter", true},
    {"s3:existingjoboperation", false},  // no batch operations
    {"s3:existingjobpriority", false},
    {"s3:existingobjecttag/", true},
    {"s3:if-match", true},
    {"s3:if-none-match", true},
    {"s3:jobsuspendedcause", false},
    {"s3:locationconstraint", true},
    {"s3:max-keys", true},
    {"s3:object-lock-legal-hold", true},
    {"s3:object-lock-mode", true},
    {"s3:object-lock-remaining-retention-days", true},
    {"s3:object-lock-retain-until-date", true},
    {"s3:objectcreationoperation", false},
    {"s3:prefix", true},
    {"s3:requestjoboperation", false},
    {"s3:requestjobpriority", false},
    {"s3:requestobjecttag/", true},
    {"s3:requestobjecttagkeys", true},
    {"s3:resourceaccount", true},
    {"s3:signatureage", true},
    {"s3:signatureversion", true},
    {"s3:tlsversion", true},
    {"s3:versionid", true},
    {"s3:x-amz-acl", true},
    {"s3:x-amz-content-sha256", true},
    {"s3:x-amz-copy-source", true},
    {"s3:x-amz-grant-full-control", true},
    {"s3:x-amz-grant-read", true},
    {"s3:x-amz-grant-read-acp", true},
    {"s3:x-amz-grant-write", true},
    {"s3:x-amz-grant-write-acp", true},
    {"s3:x-amz-metadata-directive", true},
    {"s3:x-amz-object-ownership", true},
    {"s3:x-amz-server-side-encryption", true},
    {"s3:x-amz-server-side-encryption-aws-kms-key-id", true},
    {"s3:x-amz-server-side-encryption-customer-algorithm", true},
    {"s3:x-amz-storage-class", true},
    {"s3:x-amz-website-redirect-location", true},
};

// The row of `normalized` in kConditionKeys, or null for a key AWS does not define.
const KeyInfo* FindConditionKey(std::string_view normalized) {
  for (const KeyInfo& known : kConditionKeys) {
    if (known.name.back() == '/') {
      if (normalized.size() > known.name.size() && normalized.starts_with(known.name)) {
        return &known;
      }
    } else if (normalized == known.name) {
      return &known;
    }
  }
  return nullptr;
}

// What the language accepts in a bucket policy: any global key ("aws:...": AWS accepts unknown
// ones too) and S3's own.
bool IsBucketConditionKey(std::string_view normalized) {
  if (normalized.starts_with("aws:") && normalized.size() > 4) return true;
  return normalized.starts_with("s3:") && FindConditionKey(normalized) != nullptr;
}

// ---- Patterns -------------------------------------------------------------------------------

// Compiles `s`: '*' and '?' are wildcards when `wildcards`; "${key}", "${key, 'default'}",
// "${*}", "${?}" and "${$}" are policy variables when `variables`; every other byte is literal
// (lowercased when `lower`). A "${" without a closing '}' is literal text, as AWS treats it.
Pattern CompilePattern(std::string_view s, bool wildcards, bool variables, bool lower) {
  Pattern p;
  auto literal = [&](char c) {
    if (p.parts.empty() || p.parts.back().kind != Kind::kLiteral) p.parts.emplace_back();
    p.parts.back().text.push_back(lower ? AsciiLower(c) : c);
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (wildcards && (c == '*' || c == '?')) {
      p.wildcard = true;
      Kind kind = c == '*' ? Kind::kStar : Kind::kQuestion;
      if (kind == Kind::kStar && !p.parts.empty() && p.parts.back().kind == Kind::kStar) continue;
      p.parts.push_back({kind, "", std::nullopt});
      continue;
    }
    if (variables && c == '$' && i + 1 < s.size() && s[i + 1] == '{') {
      size_t close = s.find('}', i + 2);
      if (close != std::string_view::npos) {
        std::string_view inner = s.substr(i + 2, close - i - 2);
        if (inner == "*" || inner == "?" || inner == "$") {
          literal(inner[0]);
          i = close;
          continue;
        }
        std::string_view key = inner;
        std::optional<std::string> fallback;
        bool ok = true;
        if (size_t comma = inner.find(','); comma != std::string_view::npos) {
          key = inner.substr(0, comma);
          std::string_view rest = text::TrimSpaces(inner.substr(comma + 1));
          if (rest.size() >= 2 && rest.front() == '\'' && rest.back() == '\'') {
            fallback = std::string(rest.substr(1, rest.size() - 2));
          } else {
            ok = false;
          }
        }
        key = text::TrimSpaces(key);
        if (ok && !key.empty()) {
          p.variable = true;
          p.parts.push_back({Kind::kVariable, NormalizeKey(key), std::move(fallback)});
          i = close;
          continue;
        }
      }
    }
    literal(c);
  }
  return p;
}

// The length of the character at s[i] (a UTF-8 sequence, or one byte if it is not one).
size_t CharLength(std::string_view s, size_t i) {
  char32_t cp;
  size_t n = text::DecodeUtf8(s.substr(i, 4), &cp);
  return n == 0 ? 1 : n;
}

// Matches one compiled pattern against a text without allocating: the classic wildcard walk
// that remembers the last '*' and retries from it, over the pattern's parts (a variable part is
// resolved from the request's keys when the walk enters it). '?' takes one character.
class Matcher {
 public:
  Matcher(const Pattern& pattern, const ConditionKeys* keys, bool fold)
      : parts_(pattern.parts), variable_(pattern.variable), keys_(keys), fold_(fold) {}

  bool Match(std::string_view s) const {
    if (variable_) {  // a variable with no value makes the pattern match nothing
      for (const PatternPart& part : parts_) {
        if (part.kind == Kind::kVariable && !Resolve(part)) return false;
      }
    } else if (parts_.size() == 1 && parts_[0].kind == Kind::kLiteral) {
      return Equal(parts_[0].text, s);
    } else if (parts_.size() == 2 && parts_[0].kind == Kind::kLiteral &&
               parts_[1].kind == Kind::kStar) {  // "arn:aws:s3:::bucket/prefix*"
      return s.size() >= parts_[0].text.size() &&
             Equal(parts_[0].text, s.substr(0, parts_[0].text.size()));
    }
    Cursor c;
    if (!Settle(&c)) return false;
    bool have_star = false;
    Cursor after_star;
    size_t star_at = 0;
    size_t i = 0;
    while (i < s.size()) {
      if (c.part < parts_.size()) {
        Kind kind = parts_[c.part].kind;
        if (kind == Kind::kStar) {
          if (!Next(&c)) return false;
          have_star = true;
          after_star = c;
          star_at = i;
          continue;
        }
        if (kind == Kind::kQuestion) {
          i += CharLength(s, i);
          if (!Next(&c)) return false;
          continue;
        }
        if (Same(c.lit[c.off], s[i])) {
          ++c.off;
          ++i;
          if (!Settle(&c)) return false;
          continue;
        }
      }
      if (!have_star) return false;
      i = ++star_at;
      c = after_star;
    }
    while (c.part < parts_.size() && parts_[c.part].kind == Kind::kStar) {
      if (!Next(&c)) return false;
    }
    return c.part == parts_.size();
  }

 private:
  struct Cursor {
    size_t part = 0;
    size_t off = 0;
    std::string_view lit;
    bool resolved = false;
  };

  std::optional<std::string_view> Resolve(const PatternPart& part) const {
    if (keys_ != nullptr) {
      std::span<const std::string_view> values = keys_->Values(part.text);
      if (!values.empty()) return values.front();
    }
    if (part.default_value) return std::string_view(*part.default_value);
    return std::nullopt;
  }

  bool Same(char a, char b) const { return fold_ ? AsciiLower(a) == AsciiLower(b) : a == b; }

  bool Equal(std::string_view a, std::string_view b) const {
    return fold_ ? text::EqualsIgnoreCase(a, b) : a == b;
  }

  // Moves the cursor onto a wildcard or an unconsumed character, past exhausted literals.
  bool Settle(Cursor* c) const {
    while (c->part < parts_.size()) {
      const PatternPart& part = parts_[c->part];
      if (part.kind == Kind::kStar || part.kind == Kind::kQuestion) return true;
      if (!c->resolved) {
        if (part.kind == Kind::kLiteral) {
          c->lit = part.text;
        } else {
          std::optional<std::string_view> value = Resolve(part);
          if (!value) return false;
          c->lit = *value;
        }
        c->resolved = true;
      }
      if (c->off < c->lit.size()) return true;
      ++c->part;
      c->off = 0;
      c->resolved = false;
    }
    return true;
  }

  bool Next(Cursor* c) const {
    ++c->part;
    c->off = 0;
    c->resolved = false;
    return Settle(c);
  }

  const std::vector<PatternPart>& parts_;
  bool variable_;
  const ConditionKeys* keys_;
  bool fold_;
};

// Splits an ARN into its six colon-separated components (the last keeps any further colons).
// With `skip_variables`, a ':' inside "${...}" does not split. False if there are fewer than six.
bool SplitArn(std::string_view s, std::string_view out[6], bool skip_variables) {
  size_t start = 0;
  int n = 0;
  for (size_t i = 0; i < s.size() && n < 5; ++i) {
    if (skip_variables && s[i] == '$' && i + 1 < s.size() && s[i + 1] == '{') {
      size_t close = s.find('}', i + 2);
      if (close != std::string_view::npos) {
        i = close;
        continue;
      }
    }
    if (s[i] == ':') {
      out[n++] = s.substr(start, i - start);
      start = i + 1;
    }
  }
  if (n < 5) return false;
  out[5] = s.substr(start);
  return true;
}

// ---- Values: numbers, dates, IP addresses ---------------------------------------------------

bool ParseNumber(std::string_view s, double* out) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

struct IpAddress {
  uint8_t family = 4;
  uint8_t addr[16] = {};
};

// An IPv4 or IPv6 address in its text form (inet_pton's grammar); an IPv4-mapped IPv6 address
// ("::ffff:192.0.2.1") is read as the IPv4 address.
bool ParseIp(std::string_view s, IpAddress* out) {
  char buffer[INET6_ADDRSTRLEN + 1];
  if (s.empty() || s.size() >= sizeof(buffer)) return false;
  std::memcpy(buffer, s.data(), s.size());
  buffer[s.size()] = '\0';
  if (s.find(':') == std::string_view::npos) {
    out->family = 4;
    return inet_pton(AF_INET, buffer, out->addr) == 1;
  }
  if (inet_pton(AF_INET6, buffer, out->addr) != 1) return false;
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(out->addr, kMapped, 12) == 0) {
    out->family = 4;
    std::memmove(out->addr, out->addr + 12, 4);
    return true;
  }
  out->family = 6;
  return true;
}

// "203.0.113.0/24", "2001:DB8:1234:5678::/64", or an address alone (all its bits).
bool ParseCidr(std::string_view s, Cidr* out) {
  std::string_view address = s;
  std::optional<int> prefix;
  if (size_t slash = s.find('/'); slash != std::string_view::npos) {
    address = s.substr(0, slash);
    uint64_t bits = 0;
    if (!text::ParseUint64(s.substr(slash + 1), &bits) || bits > 128) return false;
    prefix = static_cast<int>(bits);
  }
  IpAddress ip;
  if (!ParseIp(address, &ip)) return false;
  int max = ip.family == 4 ? 32 : 128;
  if (prefix && *prefix > max) return false;
  out->family = ip.family;
  out->prefix = static_cast<uint8_t>(prefix.value_or(max));
  std::memcpy(out->addr, ip.addr, sizeof(out->addr));
  return true;
}

bool InCidr(const Cidr& cidr, const IpAddress& ip) {
  if (cidr.family != ip.family) return false;
  int bits = cidr.prefix;
  for (int i = 0; bits > 0; ++i, bits -= 8) {
    uint8_t mask = bits >= 8 ? 0xff : static_cast<uint8_t>(0xff << (8 - bits));
    if ((cidr.addr[i] & mask) != (ip.addr[i] & mask)) return false;
  }
  return true;
}

// ---- Operators ------------------------------------------------------------------------------

enum class ValueType { kString, kNumber, kDate, kBool, kBinary, kIp, kArn, kNull };
// How an ordered operator compares a (the request's value) with b (the policy's).
enum class Order { kUnordered, kEqual, kLess, kLessEqual, kGreater, kGreaterEqual };

// One row per ConditionOp, in the enum's order: its name in a policy, the type of its values,
// its comparison, and whether it is negated (a negated operator matches when no policy value
// matches its positive form, and matches a key that is absent).
struct OperatorInfo {
  ConditionOp op;
  std::string_view name;
  ValueType type;
  Order order;
  bool negated;
};

using Op = ConditionOp;
using enum ValueType;
using enum Order;
constexpr OperatorInfo kOperators[] = {
    {Op::kStringEquals, "StringEquals", kString, kUnordered, false},
    {Op::kStringNotEquals, "StringNotEquals", kString, kUnordered, true},
    {Op::kStringEqualsIgnoreCase, "StringEqualsIgnoreCase", kString, kUnordered, false},
    {Op::kStringNotEqualsIgnoreCase, "StringNotEqualsIgnoreCase", kString, kUnordered, true},
    {Op::kStringLike, "StringLike", kString, kUnordered, false},
    {Op::kStringNotLike, "StringNotLike", kString, kUnordered, true},
    {Op::kNumericEquals, "NumericEquals", kNumber, kEqual, false},
    {Op::kNumericNotEquals, "NumericNotEquals", kNumber, kEqual, true},
    {Op::kNumericLessThan, "NumericLessThan", kNumber, kLess, false},
    {Op::kNumericLessThanEquals, "NumericLessThanEquals", kNumber, kLessEqual, false},
    {Op::kNumericGreaterThan, "NumericGreaterThan", kNumber, kGreater, false},
    {Op::kNumericGreaterThanEquals, "NumericGreaterThanEquals", kNumber, kGreaterEqual, false},
    {Op::kDateEquals, "DateEquals", kDate, kEqual, false},
    {Op::kDateNotEquals, "DateNotEquals", kDate, kEqual, true},
    {Op::kDateLessThan, "DateLessThan", kDate, kLess, false},
    {Op::kDateLessThanEquals, "DateLessThanEquals", kDate, kLessEqual, false},
    {Op::kDateGreaterThan, "DateGreaterThan", kDate, kGreater, false},
    {Op::kDateGreaterThanEquals, "DateGreaterThanEquals", kDate, kGreaterEqual, false},
    {Op::kBool, "Bool", kBool, kUnordered, false},
    {Op::kBinaryEquals, "BinaryEquals", kBinary, kUnordered, false},
    {Op::kIpAddress, "IpAddress", kIp, kUnordered, false},
    {Op::kNotIpAddress, "NotIpAddress", kIp, kUnordered, true},
    {Op::kArnEquals, "ArnEquals", kArn, kUnordered, false},
    {Op::kArnLike, "ArnLike", kArn, kUnordered, false},
    {Op::kArnNotEquals, "ArnNotEquals", kArn, kUnordered, true},
    {Op::kArnNotLike, "ArnNotLike", kArn, kUnordered, true},
    {Op::kNull, "Null", kNull, kUnordered, false},
};

constexpr bool RowsFollowTheEnum() {
  for (size_t i = 0; i < std::size(kOperators); ++i) {
    if (static_cast<size_t>(kOperators[i].op) != i) return false;
  }
  return std::size(kOperators) == static_cast<size_t>(Op::kNull) + 1;
}
static_assert(RowsFollowTheEnum(), "one kOperators row per ConditionOp, in the enum's order");

const OperatorInfo& Info(ConditionOp op) { return kOperators[static_cast<size_t>(op)]; }

template <typename T>
bool Compare(Order order, T a, T b) {
  switch (order) {
    case kEqual:
      return a == b;
    case kLess:
      return a < b;
    case kLessEqual:
      return a <= b;
    case kGreater:
      return a > b;
    case kGreaterEqual:
      return a >= b;
    case kUnordered:
      return false;  // ValueMatches never asks
  }
  return false;
}

bool ArnMatches(const ConditionValue& v, std::string_view arn, const ConditionKeys* keys) {
  if (v.arn.empty()) return Matcher(v.pattern, keys, false).Match(arn);
  std::string_view parts[6];
  if (!SplitArn(arn, parts, false)) return false;
  for (int i = 0; i < 6; ++i) {
    if (!Matcher(v.arn[i], keys, false).Match(parts[i])) return false;
  }
  return true;
}

// Whether the request's value `c` matches the policy's value `v` under the operator's positive
// form (StringNotEquals asks StringEquals; the caller negates).
bool ValueMatches(ConditionOp op, const ConditionValue& v, std::string_view c,
                  const ConditionKeys* keys) {
  switch (Info(op).type) {
    case ValueType::kString: {
      bool fold = op == ConditionOp::kStringEqualsIgnoreCase ||
                  op == ConditionOp::kStringNotEqualsIgnoreCase;
      return Matcher(v.pattern, keys, fold).Match(c);
    }
    case ValueType::kNumber: {
      double n = 0;
      return ParseNumber(c, &n) && Compare(Info(op).order, n, v.number);
    }
    case ValueType::kDate: {
      int64_t ms = 0;
      return text::ParseIso8601OrEpochSeconds(c, &ms) && Compare(Info(op).order, ms, v.millis);
    }
    case ValueType::kBool:
      return text::EqualsIgnoreCase(c, v.text);
    case ValueType::kBinary:
      return c == v.text;
    case ValueType::kIp: {
      IpAddress ip;
      return ParseIp(c, &ip) && InCidr(v.cidr, ip);
    }
    case ValueType::kArn:
      return ArnMatches(v, c, keys);
    case ValueType::kNull:
      return false;  // handled by ConditionHolds
  }
  return false;
}

bool ConditionHolds(const Condition& cond, const ConditionKeys* keys) {
  std::span<const std::string_view> values;
  if (keys != nullptr) values = keys->Values(cond.key);
  if (cond.op == ConditionOp::kNull) {
    // "true": the key is absent; "false": it is present. Several values are OR'ed.
    for (const ConditionValue& v : cond.values) {
      if (v.flag == values.empty()) return true;
    }
    return false;
  }
  bool negated = Info(cond.op).negated;
  if (values.empty()) {
    if (cond.if_exists) return true;
    switch (cond.set) {
      case SetOp::kSingle:
        return negated;
      case SetOp::kForAnyValue:
        return false;
      case SetOp::kForAllValues:
        return true;  // every value of an empty set matches
    }
  }
  auto matches_any_value = [&](std::string_view c) {
    for (const ConditionValue& v : cond.values) {
      if (ValueMatches(cond.op, v, c, keys)) return true;
    }
    return false;
  };
  switch (cond.set) {
    case SetOp::kSingle:
      if (!negated) {
        return std::any_of(values.begin(), values.end(), matches_any_value);
      }
      return std::none_of(values.begin(), values.end(), matches_any_value);
    case SetOp::kForAnyValue:
      return std::any_of(values.begin(), values.end(),
                         [&](std::string_view c) { return matches_any_value(c) != negated; });
    case SetOp::kForAllValues:
      return std::all_of(values.begin(), values.end(),
                         [&](std::string_view c) { return matches_any_value(c) != negated; });
  }
  return false;
}

bool TestBit(const std::vector<uint64_t>& bits, size_t i) {
  return i / 64 < bits.size() && ((bits[i / 64] >> (i % 64)) & 1) != 0;
}

void SetBit(std::vector<uint64_t>* bits, size_t i) {
  if (bits->size() <= i / 64) bits->resize(i / 64 + 1);
  (*bits)[i / 64] |= uint64_t{1} << (i % 64);
}

bool IsAccountId(std::string_view s) { return s.size() == 12 && text::IsDecimalDigits(s); }

bool IsHex64(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    char l = AsciiLower(c);
    if (!((l >= '0' && l <= '9') || (l >= 'a' && l <= 'f'))) return false;
  }
  return true;
}

}  // namespace

// ---- Parse ----------------------------------------------------------------------------------

class PolicyParser {
 public:
  explicit PolicyParser(const ParseOptions& options) : options_(options) {}

  storage::Result<Policy> Run(std::string_view text) {
    if (!Document(text)) return storage::Status(storage::Code::kInvalidArgument, error_);
    return std::move(policy_);
  }

 private:
  bool Fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  bool NoDuplicates(const JsonValue& object) {
    if (std::optional<std::string_view> dup = object.FindDuplicate()) {
      return Fail("Policy has duplicate field " + std::string(*dup));
    }
    return true;
  }

  bool Document(std::string_view text) {
    if (text.size() > options_.max_bytes) {
      return Fail("Policy exceeds the maximum allowed document size");
    }
    size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos || text[first] != '{') {
      return Fail("Policies must be valid JSON and the first byte must be '{'");
    }
    JsonValue root;
    if (!text::ParseJson(text, options_.max_bytes, &root, nullptr)) {
      return Fail("This policy contains invalid Json");
    }
    if (!NoDuplicates(root)) return false;
    policy_.kind_ = options_.kind;
    policy_.version_ = std::string(kVersion2008);
    const JsonValue* statement = nullptr;
    for (const text::JsonMember& m : root.members) {
      if (m.name == "Version") {
        if (m.value.type != JsonType::kString ||
            (m.value.text != kVersion2012 && m.value.text != kVersion2008)) {
          return Fail("The policy must contain a valid version string");
        }
        policy_.version_ = m.value.text;
      } else if (m.name == "Id") {
        if (m.value.type != JsonType::kString) return Fail("Policy has invalid Id");
        policy_.id_ = m.value.text;
      } else if (m.name == "Statement") {
        statement = &m.value;
      } else {
        return Fail("Unknown field " + m.name);
      }
    }
    variables_ = policy_.version_ == kVersion2012;
    if (statement == nullptr) return Fail("Missing required field Statement");
    if (statement->type == JsonType::kObject) return Statement(*statement);
    if (statement->type != JsonType::kArray) return Fail("This policy contains invalid Json");
    if (statement->items.empty()) return Fail("Could not parse the policy: Statement is empty!");
    for (const JsonValue& item : statement->items) {
      if (item.type != JsonType::kObject) return Fail("This policy contains invalid Json");
      if (!Statement(item)) return false;
    }
    return true;
  }

  bool Statement(const JsonValue& object) {
    if (!NoDuplicates(object)) return false;
    policy_internal::Statement st;
    const JsonValue* effect = nullptr;
    const JsonValue* principal = nullptr;
    const JsonValue* action = nullptr;
    const JsonValue* resource = nullptr;
    const JsonValue* condition = nullptr;
    for (const text::JsonMember& m : object.members) {
      if (m.name == "Sid") {
        if (m.value.type != JsonType::kString) return Fail("Policy has invalid Sid");
        st.sid = m.value.text;
      } else if (m.name == "Effect") {
        effect = &m.value;
      } else if (m.name == "Principal" || m.name == "NotPrincipal") {
        if (principal != nullptr) return Fail("Invalid principal in policy");
        principal = &m.value;
        st.not_principal = m.name == "NotPrincipal";
      } else if (m.name == "Action" || m.name == "NotAction") {
        if (action != nullptr) return Fail("Policy has invalid action");
        action = &m.value;
        st.not_action = m.name == "NotAction";
      } else if (m.name == "Resource" || m.name == "NotResource") {
        if (resource != nullptr) return Fail("Policy has invalid resource");
        resource = &m.value;
        st.not_resource = m.name == "NotResource";
      } else if (m.name == "Condition") {
        condition = &m.value;
      } else {
        return Fail("Unknown field " + m.name);
      }
    }
    // IAM refuses a repeated Sid; S3 keeps bucket policies that repeat one.
    if (options_.kind == PolicyKind::kIdentity && !st.sid.empty()) {
      for (const policy_internal::Statement& other : policy_.statements_) {
        if (other.sid == st.sid) {
          return Fail("Statement IDs (SID) in a single policy must be unique.");
        }
      }
    }
    if (effect == nullptr) return Fail("Missing required field Effect");
    if (effect->type != JsonType::kString || (effect->text != "Allow" && effect->text != "Deny")) {
      return Fail("Invalid effect: " +
                  (effect->type == JsonType::kString ? effect->text : std::string("")));
    }
    st.deny = effect->text == "Deny";
    switch (options_.kind) {
      case PolicyKind::kBucket:
        if (principal == nullptr) return Fail("Missing required field Principal");
        if (!Principal(*principal, &st)) return false;
        break;
      case PolicyKind::kIdentity:
        if (principal != nullptr) return Fail("Policy document should not specify a principal.");
        break;
    }
    if (action == nullptr) return Fail("Missing required field Action");
    std::vector<std::vector<uint64_t>> per_pattern;
    if (!Actions(*action, &st, &per_pattern)) return false;
    if (resource == nullptr) return Fail("Missing required field Resource");
    bool has_bucket = false;
    bool has_object = false;
    if (!Resources(*resource, &st, &has_bucket, &has_object)) return false;
    if (options_.kind == PolicyKind::kBucket && !st.not_action && !st.not_resource) {
      // Each action (or each pattern, through one of the actions it matches) must apply to
      // one of the statement's resources.
      std::span<const ActionInfo> known = KnownActions();
      for (const std::vector<uint64_t>& bits : per_pattern) {
        bool applies = false;
        for (size_t i = 0; i < known.size() && !applies; ++i) {
          if (!TestBit(bits, i)) continue;
          applies = (known[i].resource == ActionResource::kBucket && has_bucket) ||
                    (known[i].resource == ActionResource::kObject && has_object);
        }
        if (!applies) return Fail("Action does not apply to any resource(s) in statement");
      }
    }
    if (condition != nullptr && !Conditions(*condition, &st)) return false;
    policy_.statements_.push_back(std::move(st));
    return true;
  }

  // A string or a non-empty list of strings.
  static bool StringList(const JsonValue& v, std::vector<const std::string*>* out) {
    if (v.type == JsonType::kString) {
      out->push_back(&v.text);
      return true;
    }
    if (v.type != JsonType::kArray || v.items.empty()) return false;
    for (const JsonValue& item : v.items) {
      if (item.type != JsonType::kString) return false;
      out->push_back(&item.text);
    }
    return true;
  }

  // "*", or {"AWS": ..., "CanonicalUser": ..., "Service": ..., "Federated": ...} with a string
  // or a list of strings each. AWS values: "*", an account id, an account's root ARN (both kept
  // as the account id), or a user, role or assumed-role ARN (kept as written).
  bool Principal(const JsonValue& v, policy_internal::Statement* st) {
    constexpr std::string_view kInvalid = "Invalid principal in policy";
    if (v.type == JsonType::kString) {
      if (v.text != "*") return Fail(std::string(kInvalid));
      st->principal_any = true;
      return true;
    }
    if (v.type != JsonType::kObject || v.members.empty()) return Fail(std::string(kInvalid));
    if (!NoDuplicates(v)) return false;
    for (const text::JsonMember& m : v.members) {
      std::vector<const std::string*> values;
      if (!StringList(m.value, &values)) return Fail(std::string(kInvalid));
      for (const std::string* value : values) {
        std::string_view s = *value;
        if (m.name == "AWS") {
          if (s == "*") {
            st->principal_any = true;
          } else if (IsAccountId(s)) {
            st->principals.emplace_back(s);
          } else if (s.starts_with("arn:aws:iam::") && s.size() > 13 + 12 &&
                     IsAccountId(s.substr(13, 12)) && s[25] == ':') {
            std::string_view rest = s.substr(26);
            if (rest == "root") {
              st->principals.emplace_back(s.substr(13, 12));
            } else if ((rest.starts_with("user/") || rest.starts_with("role/")) &&
                       rest.size() > 5 && rest.back() != '/' &&
                       rest.find_first_of("*?") == std::string_view::npos) {
              st->principals.emplace_back(s);
            } else {
              return Fail(std::string(kInvalid));
            }
          } else if (s.starts_with("arn:aws:sts::") && s.size() > 26 &&
                     IsAccountId(s.substr(13, 12)) && s.substr(25).starts_with(":assumed-role/")) {
            st->principals.emplace_back(s);
          } else {
            return Fail(std::string(kInvalid));
          }
        } else if (m.name == "CanonicalUser") {
          if (!IsHex64(s)) return Fail(std::string(kInvalid));
          st->principals.push_back(text::AsciiLowercase(s));
        } else if (m.name == "Service" || m.name == "Federated") {
          // Valid, but no caller of cubby is an AWS service or a federated identity.
          if (s.empty()) return Fail(std::string(kInvalid));
        } else {
          return Fail(std::string(kInvalid));
        }
      }
    }
    return true;
  }

  bool Actions(const JsonValue& v, policy_internal::Statement* st,
               std::vector<std::vector<uint64_t>>* per_pattern) {
    constexpr std::string_view kInvalid = "Policy has invalid action";
    std::vector<const std::string*> values;
    if (!StringList(v, &values)) return Fail(std::string(kInvalid));
    std::span<const ActionInfo> known = KnownActions();
    for (const std::string* value : values) {
      std::string_view s = *value;
      if (s != "*") {
        size_t colon = s.find(':');
        if (colon == 0 || colon == std::string_view::npos || colon + 1 == s.size()) {
          return Fail(std::string(kInvalid));
        }
      }
      Pattern pattern = CompilePattern(s, true, false, true);
      std::vector<uint64_t>& bits = per_pattern->emplace_back();
      Matcher matcher(pattern, nullptr, true);
      for (size_t i = 0; i < known.size(); ++i) {
        if (matcher.Match(known[i].name)) {
          SetBit(&bits, i);
          SetBit(&st->action_bits, i);
        }
      }
      if (bits.empty()) return Fail(std::string(kInvalid));
      st->action_patterns.push_back(std::move(pattern));
    }
    return true;
  }

  bool Resources(const JsonValue& v, policy_internal::Statement* st, bool* has_bucket,
                 bool* has_object) {
    constexpr std::string_view kInvalid = "Policy has invalid resource";
    std::vector<const std::string*> values;
    if (!StringList(v, &values)) return Fail(std::string(kInvalid));
    for (const std::string* value : values) {
      std::string_view s = *value;
      switch (options_.kind) {
        case PolicyKind::kBucket: {
          std::string bucket_arn = "arn:aws:s3:::" + std::string(options_.bucket);
          if (options_.bucket.empty() || !s.starts_with(bucket_arn)) {
            return Fail(std::string(kInvalid));
          }
          std::string_view rest = s.substr(bucket_arn.size());
          if (rest.empty()) {
            *has_bucket = true;
          } else if (rest.front() == '/') {
            *has_object = true;
          } else {
            return Fail(std::string(kInvalid));
          }
          break;
        }
        case PolicyKind::kIdentity: {
          std::string_view parts[6];
          if (s != "*" && (!s.starts_with("arn:") || !SplitArn(s, parts, true))) {
            return Fail(std::string(kInvalid));
          }
          break;
        }
      }
      st->resources.push_back(CompilePattern(s, true, variables_, false));
    }
    return true;
  }

  bool Conditions(const JsonValue& v, policy_internal::Statement* st) {
    if (v.type != JsonType::kObject) return Fail("This policy contains invalid Json");
    if (!NoDuplicates(v)) return false;
    for (const text::JsonMember& m : v.members) {
      Condition base;
      std::string_view name = m.name;
      if (name.starts_with("ForAnyValue:")) {
        base.set = SetOp::kForAnyValue;
        name.remove_prefix(12);
      } else if (name.starts_with("ForAllValues:")) {
        base.set = SetOp::kForAllValues;
        name.remove_prefix(13);
      }
      if (name.ends_with("IfExists")) {
        base.if_exists = true;
        name.remove_suffix(8);
      }
      auto found = std::find_if(std::begin(kOperators), std::end(kOperators),
                                [&](const OperatorInfo& o) { return o.name == name; });
      if (found == std::end(kOperators) ||
          (found->op == ConditionOp::kNull && (base.if_exists || base.set != SetOp::kSingle))) {
        return Fail("Invalid Condition type : " + m.name);
      }
      base.op = found->op;
      if (m.value.type != JsonType::kObject || m.value.members.empty()) {
        return Fail("Invalid value in Conditions for operator " + m.name);
      }
      if (!NoDuplicates(m.value)) return false;
      for (const text::JsonMember& k : m.value.members) {
        Condition cond = base;
        cond.key = NormalizeKey(k.name);
        if (!ConditionKey(cond.key, k.name)) return false;
        std::vector<const JsonValue*> values;
        if (k.value.type == JsonType::kArray) {
          for (const JsonValue& item : k.value.items) values.push_back(&item);
        } else {
          values.push_back(&k.value);
        }
        for (const JsonValue* value : values) {
          ConditionValue cv;
          if (value->type == JsonType::kString || value->type == JsonType::kNumber) {
            cv.text = value->text;
          } else if (value->type == JsonType::kBool) {
            cv.text = value->boolean ? "true" : "false";
          } else {
            return Fail("Invalid value in Conditions for operator " + m.name);
          }
          if (!ConditionValueFor(cond.op, m.name, &cv)) return false;
          cond.values.push_back(std::move(cv));
        }
        st->conditions.push_back(std::move(cond));
      }
    }
    return true;
  }

  // Whether a condition may name `key` (normalized; `written`: as the policy wrote it, for the
  // message).
  bool ConditionKey(const std::string& key, const std::string& written) {
    const std::string invalid = "Policy has an invalid condition key: " + written;
    switch (options_.keys) {
      case KeyCheck::kLanguage:
        if (options_.kind == PolicyKind::kBucket && !IsBucketConditionKey(key)) {
          return Fail(invalid);
        }
        if (options_.kind == PolicyKind::kIdentity &&
            (key.find(':') == std::string::npos || key.front() == ':')) {
          return Fail(invalid);
        }
        return true;
      case KeyCheck::kFilled: {
        const KeyInfo* info = FindConditionKey(key);
        if (info == nullptr) return Fail(invalid);
        if (!info->filled) {
          return Fail("Policy has a condition key cubby does not support: " + written);
        }
        return true;
      }
    }
    return Fail(invalid);
  }

  bool ConditionValueFor(ConditionOp op, const std::string& op_name, ConditionValue* cv) {
    std::string bad = "Invalid value in Conditions for operator " + op_name;
    switch (Info(op).type) {
      case ValueType::kString: {
        bool like = op == ConditionOp::kStringLike || op == ConditionOp::kStringNotLike;
        cv->pattern = CompilePattern(cv->text, like, variables_, false);
        return true;
      }
      case ValueType::kNumber:
        if (!ParseNumber(cv->text, &cv->number)) return Fail(bad);
        return true;
      case ValueType::kDate:
        if (!text::ParseIso8601OrEpochSeconds(cv->text, &cv->millis)) return Fail(bad);
        return true;
      case ValueType::kBool:
      case ValueType::kNull:
        if (!text::EqualsIgnoreCase(cv->text, "true") &&
            !text::EqualsIgnoreCase(cv->text, "false")) {
          return Fail(bad);
        }
        cv->flag = text::EqualsIgnoreCase(cv->text, "true");
        return true;
      case ValueType::kBinary:
        return true;
      case ValueType::kIp:
        if (!ParseCidr(cv->text, &cv->cidr)) return Fail("Invalid IP address in Conditions");
        return true;
      case ValueType::kArn: {
        // ArnEquals and ArnLike both take wildcards, component by component.
        cv->pattern = CompilePattern(cv->text, true, variables_, false);
        std::string_view parts[6];
        if (SplitArn(cv->text, parts, variables_)) {
          for (std::string_view part : parts) {
            cv->arn.push_back(CompilePattern(part, true, variables_, false));
          }
        }
        return true;
      }
    }
    return Fail(bad);
  }

  const ParseOptions& options_;
  Policy policy_;
  bool variables_ = false;
  std::string error_;
};

storage::Result<Policy> Parse(std::string_view text, const ParseOptions& options) {
  return PolicyParser(options).Run(text);
}

// ---- Evaluate -------------------------------------------------------------------------------

namespace {

bool PrincipalMatches(const policy_internal::Statement& st, std::span<const std::string_view> ids) {
  bool listed = st.principal_any;
  for (size_t i = 0; i < st.principals.size() && !listed; ++i) {
    for (std::string_view id : ids) {
      if (id == st.principals[i]) {
        listed = true;
        break;
      }
    }
  }
  return st.not_principal ? !listed : listed;
}

bool ActionMatches(const policy_internal::Statement& st, std::optional<size_t> index,
                   std::string_view action) {
  bool listed = false;
  if (index) {
    listed = TestBit(st.action_bits, *index);
  } else {
    for (const Pattern& p : st.action_patterns) {
      if (Matcher(p, nullptr, true).Match(action)) {
        listed = true;
        break;
      }
    }
  }
  return st.not_action ? !listed : listed;
}

bool ResourceMatches(const policy_internal::Statement& st, const RequestContext& request) {
  bool listed = false;
  for (const Pattern& p : st.resources) {
    if (Matcher(p, request.keys, false).Match(request.resource)) {
      listed = true;
      break;
    }
  }
  return st.not_resource ? !listed : listed;
}

}  // namespace

Match Evaluate(const Policy& policy, const RequestContext& request) {
  std::optional<size_t> index = FindKnownAction(request.action);
  Match result = Match::kNone;
  for (const policy_internal::Statement& st : policy.statements()) {
    if (result == Match::kAllow && !st.deny) continue;  // cannot change the answer
    if (policy.kind() == PolicyKind::kBucket && !PrincipalMatches(st, request.principals)) {
      continue;
    }
    if (!ActionMatches(st, index, request.action)) continue;
    if (!ResourceMatches(st, request)) continue;
    bool holds = true;
    for (const Condition& cond : st.conditions) {
      if (!ConditionHolds(cond, request.keys)) {
        holds = false;
        break;
      }
    }
    if (!holds) continue;
    if (st.deny) return Match::kDeny;
    result = Match::kAllow;
  }
  return result;
}

// ---- IsPublic -------------------------------------------------------------------------------

namespace {

// The keys whose fixed value makes a statement non-public (the AWS page above).
constexpr std::string_view kFixingKeys[] = {
    "aws:sourcearn",
    "aws:sourcevpc",
    "aws:sourcevpce",
    "aws:sourceowner",
    "aws:sourceaccount",
    "aws:principalaccount",
    "aws:principalarn",
    "aws:principalorgid",
    "aws:userid",
    "s3:dataaccesspointarn",
    "s3:dataaccesspointaccount",
    "s3:x-amz-server-side-encryption-aws-kms-key-id",
};

bool IsBadAction(std::string_view name) {
  return text::StartsWithIgnoreCase(name, "s3:get") ||
         text::StartsWithIgnoreCase(name, "s3:list") ||
         text::StartsWithIgnoreCase(name, "s3:put") ||
         text::StartsWithIgnoreCase(name, "s3:delete") ||
         text::EqualsIgnoreCase(name, "s3:abortmultipartupload") ||
         text::EqualsIgnoreCase(name, "s3:restoreobject");
}

bool Fixed(const Pattern& p) { return !p.wildcard && !p.variable; }

bool Pins(const Condition& cond) {
  if (cond.if_exists || cond.set == SetOp::kForAllValues || cond.values.empty()) return false;
  if (cond.op == ConditionOp::kIpAddress && cond.key == "aws:sourceip") {
    return std::all_of(cond.values.begin(), cond.values.end(),
                       [](const ConditionValue& v) { return v.cidr.prefix > 0; });
  }
  bool equality = cond.op == ConditionOp::kStringEquals ||
                  cond.op == ConditionOp::kStringEqualsIgnoreCase ||
                  cond.op == ConditionOp::kStringLike || cond.op == ConditionOp::kArnEquals ||
                  cond.op == ConditionOp::kArnLike;
  if (!equality) return false;
  if (std::find(std::begin(kFixingKeys), std::end(kFixingKeys), cond.key) ==
      std::end(kFixingKeys)) {
    return false;
  }
  return std::all_of(cond.values.begin(), cond.values.end(),
                     [](const ConditionValue& v) { return Fixed(v.pattern); });
}

}  // namespace

bool IsPublic(const Policy& policy) {
  std::span<const ActionInfo> known = KnownActions();
  for (const policy_internal::Statement& st : policy.statements()) {
    if (st.deny) continue;
    if (!st.not_principal && !st.principal_any) continue;
    bool bad = st.not_action;
    for (size_t i = 0; i < known.size() && !bad; ++i) {
      bad = TestBit(st.action_bits, i) && IsBadAction(known[i].name);
    }
    if (!bad) continue;
    if (std::any_of(st.conditions.begin(), st.conditions.end(), Pins)) continue;
    return true;
  }
  return false;
}

}  // namespace cubby::iam
