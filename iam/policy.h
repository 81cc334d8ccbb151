// The AWS access policy language: bucket policies (resource-based, S3's PutBucketPolicy) and user
// policies (identity-based, IAM's PutUserPolicy). Parse checks a document and compiles it once;
// Evaluate answers for one request whether the policy explicitly allows it, explicitly denies it,
// or says nothing; IsPublic is S3's "is this bucket policy public" test. Pure functions: no
// storage, no clock, no network; the caller supplies every fact about the request.
//   https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_grammar.html
//   https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements.html
//   https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html
//   https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-single-vs-multi-valued-context-keys.html
//   https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html
//   https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazons3.html
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/status.h"

namespace cubby::iam {

enum class PolicyKind {
  kBucket,    // a resource policy on one bucket: each statement names Principal or NotPrincipal
  kIdentity,  // a user's policy: no statement names a principal (the user is the principal)
};

// What a policy says about one request.
enum class Match {
  kNone,   // no statement applies (the policy neither allows nor denies)
  kAllow,  // an Allow statement applies and no Deny statement does
  kDeny,   // an explicit Deny statement applies (it beats every Allow, here and elsewhere)
};

// S3's largest bucket policy (20 KB) and IAM's largest inline user policy (2,048 characters,
// counted by IAM without whitespace; this reader counts bytes of the whole document, so a caller
// enforcing IAM's limit should do so on its own count).
inline constexpr size_t kMaxBucketPolicyBytes = 20 * 1024;

// Which condition keys a policy may name.
enum class KeyCheck {
  // What the language allows: in kBucket policies any "aws:..." key and S3's own keys, in
  // kIdentity policies any "<service>:<name>". For policies stored before cubby refused keys
  // it never fills: they keep evaluating as they did (such a key is absent).
  kLanguage,
  // Only the keys cubby fills from a request (README, "Policies"): what PutBucketPolicy and
  // PutUserPolicy accept. A key AWS defines but cubby never fills (aws:SourceVpc,
  // s3:DataAccessPointArn, ...) is refused as "Policy has a condition key cubby does not
  // support: <key>", any other as "Policy has an invalid condition key: <key>" (AWS accepts
  // some unknown keys, which then never match; a refusal says so at once).
  kFilled,
};

struct ParseOptions {
  PolicyKind kind = PolicyKind::kBucket;
  // kBucket: the bucket the policy is for. Every Resource must be "arn:aws:s3:::<bucket>" or
  // "arn:aws:s3:::<bucket>/<key pattern>" (AWS: "Policy has invalid resource"). Unused for
  // kIdentity.
  std::string_view bucket;
  size_t max_bytes = kMaxBucketPolicyBytes;
  KeyCheck keys = KeyCheck::kLanguage;
};

// The condition keys of one request, computed when a policy first asks for one (most requests
// meet no Condition, so nothing is computed for them).
class ConditionKeys {
 public:
  // The values of `key` for this request: empty when the request has no such key (or an empty
  // set, which AWS treats alike). `key` arrives normalized: lowercase up to its first '/', the
  // rest as the policy wrote it ("aws:sourceip", "s3:existingobjecttag/Project"). Values are
  // text as AWS renders them: "192.0.2.7" or "2001:db8::1" (aws:SourceIp), "true"/"false"
  // (aws:SecureTransport), "2026-11-26T05:31:13Z" (aws:CurrentTime), "1790000000"
  // (aws:EpochTime), "100" (s3:max-keys). The span and the strings must stay valid until
  // Evaluate returns; Evaluate may ask for the same key more than once.
  virtual std::span<const std::string_view> Values(std::string_view key) const = 0;

 protected:
  ~ConditionKeys() = default;
};

// The request a policy is asked about.
struct RequestContext {
  // Who asks: every id the caller is known by, e.g. the user ARN
  // "arn:aws:iam::123456789012:user/alice", its 64-hex canonical id, the account id
  // "123456789012". Empty: anonymous. Unused for kIdentity (the user is the principal).
  std::span<const std::string_view> principals;
  std::string_view action;              // "s3:GetObject" (matched case-insensitively)
  std::string_view resource;            // "arn:aws:s3:::bucket/key" (matched case-sensitively)
  const ConditionKeys* keys = nullptr;  // null: the request has no condition keys
};

// The compiled form (what Parse builds and Evaluate walks). Callers treat it as opaque.
namespace policy_internal {

// A Resource or condition value pattern: literal runs, '*', '?' and policy variables ${key}.
struct PatternPart {
  enum class Kind : uint8_t { kLiteral, kStar, kQuestion, kVariable };
  Kind kind = Kind::kLiteral;
  std::string text;                          // kLiteral: the text; kVariable: the normalized key
  std::optional<std::string> default_value;  // kVariable: ${key, 'default'}
};

struct Pattern {
  std::vector<PatternPart> parts;
  bool wildcard = false;  // has '*' or '?'
  bool variable = false;  // has a ${key}
};

enum class ConditionOp : uint8_t {
  kStringEquals,
  kStringNotEquals,
  kStringEqualsIgnoreCase,
  kStringNotEqualsIgnoreCase,
  kStringLike,
  kStringNotLike,
  kNumericEquals,
  kNumericNotEquals,
  kNumericLessThan,
  kNumericLessThanEquals,
  kNumericGreaterThan,
  kNumericGreaterThanEquals,
  kDateEquals,
  kDateNotEquals,
  kDateLessThan,
  kDateLessThanEquals,
  kDateGreaterThan,
  kDateGreaterThanEquals,
  kBool,
  kBinaryEquals,
  kIpAddress,
  kNotIpAddress,
  kArnEquals,
  kArnLike,
  kArnNotEquals,
  kArnNotLike,
  kNull,
};

enum class SetOp : uint8_t { kSingle, kForAnyValue, kForAllValues };

struct Cidr {
  uint8_t family = 4;  // 4 or 6
  uint8_t prefix = 0;  // bits
  uint8_t addr[16] = {};
};

struct ConditionValue {
  std::string text;          // as written (numbers and booleans as their JSON text)
  Pattern pattern;           // String*, Arn* (whole value), Bool, BinaryEquals
  std::vector<Pattern> arn;  // Arn*: the six colon-separated components
  double number = 0;         // Numeric*
  int64_t millis = 0;        // Date*: Unix epoch milliseconds
  Cidr cidr;                 // IpAddress, NotIpAddress
  bool flag = false;         // Null: true = "the key is absent"
};

struct Condition {
  ConditionOp op = ConditionOp::kStringEquals;
  SetOp set = SetOp::kSingle;
  bool if_exists = false;
  std::string key;  // normalized as ConditionKeys::Values receives it
  std::vector<ConditionValue> values;
};

struct Statement {
  std::string sid;
  bool deny = false;
  // Principal / NotPrincipal (kBucket only).
  bool not_principal = false;
  bool principal_any = false;           // "*" or {"AWS": "*"}
  std::vector<std::string> principals;  // account ids, user ARNs, canonical ids
  // Action / NotAction: the known actions each pattern matches (a bit per row of the table in
  // policy_actions.h), and the lowercased patterns for an action outside the table.
  bool not_action = false;
  std::vector<uint64_t> action_bits;
  std::vector<Pattern> action_patterns;
  // Resource / NotResource.
  bool not_resource = false;
  std::vector<Pattern> resources;
  std::vector<Condition> conditions;
};

}  // namespace policy_internal

// A parsed, checked, compiled policy. Immutable after Parse: safe to share between threads and
// to Evaluate concurrently.
class Policy {
 public:
  PolicyKind kind() const { return kind_; }
  // "2012-10-17" or "2008-10-17" (the default when the document names none; in it policy
  // variables are plain text, as AWS treats them).
  const std::string& version() const { return version_; }
  const std::string& id() const { return id_; }
  const std::vector<policy_internal::Statement>& statements() const { return statements_; }

 private:
  friend class PolicyParser;
  PolicyKind kind_ = PolicyKind::kBucket;
  std::string version_;
  std::string id_;
  std::vector<policy_internal::Statement> statements_;
};

// Reads and checks `text`. On success, the compiled policy. On failure a Status with code
// kInvalidArgument whose message says what is wrong (S3 answers it as 400 MalformedPolicy, IAM
// as 400 MalformedPolicyDocument). AWS's own messages where AWS has one:
//   "This policy contains invalid Json", "Policies must be valid JSON and the first byte must be
//   '{'", "The policy must contain a valid version string", "Missing required field Statement",
//   "Could not parse the policy: Statement is empty!", "Unknown field <name>",
//   "Missing required field Effect", "Invalid effect: <value>", "Missing required field
//   Principal", "Invalid principal in policy", "Policy document should not specify a principal."
//   (kIdentity), "Statement IDs (SID) in a single policy must be unique." (kIdentity; S3 keeps
//   repeated Sids), "Missing required field Action", "Policy has invalid action", "Missing
//   required field Resource", "Policy has invalid resource", "Action does not apply to any
//   resource(s) in statement", "Invalid Condition type : <operator>", "Policy has an invalid
//   condition key: <key>" (AWS's text, with the key named), "Invalid IP address in Conditions";
//   with KeyCheck::kFilled also "Policy has a condition key cubby does not support: <key>".
// cubby's own, where no AWS text is known: "Policy has duplicate field <name>" (a JSON object
// naming a member twice), "Policy has invalid Id", "Policy has invalid Sid", "Invalid value in
// Conditions for operator <operator>" (a number, date, Bool or Null value that does not parse, or
// a value that is not a string, number or boolean), "Policy exceeds the maximum allowed document
// size".
// Checks beyond the grammar: every action names or matches at least one action of S3 or of
// IAM's user, access key, user policy and user tag actions ("*", "s3:*", "s3:Get*" are fine);
// kBucket resources belong to options.bucket and every Action applies to one of them (object
// actions need an object resource, bucket actions the bucket); kBucket condition keys are
// "aws:..." or one of S3's own keys; principals are "*", 12-digit account ids,
// "arn:aws:iam::<account>:root|user/...|role/..." (no wildcards), assumed-role ARNs, or
// CanonicalUser ids (64 hex). Operators are matched exactly ("StringEquals", not
// "stringequals"); Effect is "Allow" or "Deny" exactly.
storage::Result<Policy> Parse(std::string_view text, const ParseOptions& options);

// What `policy` says about `request`: kDeny if any Deny statement applies, else kAllow if any
// Allow statement applies, else kNone. A statement applies when its principal (kBucket), action,
// resource and every condition match. "*" and {"AWS": "*"} match every caller including an
// anonymous one; NotPrincipal matches every caller not listed (anonymous too).
//
// Speed: Evaluate does not allocate. Action, resource and values were compiled by Parse into
// bitsets and patterns; Evaluate walks them with string_views and stack state only (the action
// is looked up once by binary search; IP addresses are decoded into stack buffers; numbers and
// dates are read with std::from_chars and arithmetic). The only calls out are to
// request.keys->Values(), whose cost is the caller's.
Match Evaluate(const Policy& policy, const RequestContext& request);

// S3's public-policy test (block public access, "The meaning of public"): true if some Allow
// statement grants a public principal ("*", {"AWS": "*"}, or any NotPrincipal) a "bad action"
// (s3:Get*, s3:List*, s3:Put*, s3:Delete*, s3:AbortMultipartUpload, s3:RestoreObject; any
// NotAction) without a condition that pins the request to fixed values: aws:SourceIp to CIDRs
// (other than /0), or an equality (no wildcard, no variable, no IfExists) on aws:SourceArn,
// aws:SourceVpc, aws:SourceVpce, aws:SourceOwner, aws:SourceAccount, aws:PrincipalAccount,
// aws:PrincipalArn, aws:PrincipalOrgID, aws:userid, s3:DataAccessPointArn,
// s3:DataAccessPointAccount or s3:x-amz-server-side-encryption-aws-kms-key-id.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/access-control-block-public-access.html#access-control-block-public-access-policy-status
bool IsPublic(const Policy& policy);

}  // namespace cubby::iam
