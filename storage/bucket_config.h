// The S3 bucket configurations storage keeps for versioning, object lock, lifecycle, CORS and
// default encryption, and the object-lock facts each object version carries. Plain values: what
// the XML looks like is s3api/bucket_config_xml.h's, what a lifecycle rule does is
// lifecycle/lifecycle.h's, and the binary records are storage/bucket_config_codec.h's.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/Versioning.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lifecycle-mgmt.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/default-bucket-encryption.html
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text/names.h"

namespace cubby::storage {

// A bucket's versioning state. A bucket starts unversioned; once Enabled it can only move
// between Enabled and Suspended. The numbers are stored: never renumber.
enum class VersioningState : uint8_t {
  kUnversioned = 0,
  kEnabled = 1,
  kSuspended = 2,
};

// An object-lock retention mode. kNone: no retention. The numbers are stored: never renumber.
enum class RetentionMode : uint8_t {
  kNone = 0,
  kGovernance = 1,
  kCompliance = 2,
};

// A bucket's default retention: a mode (not kNone) and exactly one of days and years (> 0).
struct DefaultRetention {
  RetentionMode mode = RetentionMode::kGovernance;
  uint32_t days = 0;
  uint32_t years = 0;
  bool operator==(const DefaultRetention&) const = default;
};

// A bucket's object-lock configuration. `enabled` is set at CreateBucket
// (x-amz-bucket-object-lock-enabled) or by PutObjectLockConfiguration on a versioning-enabled
// bucket, and is never cleared. No default retention: versions get no retention unless a write
// asks for one.
struct ObjectLockConfig {
  bool enabled = false;
  std::optional<DefaultRetention> default_retention;
  bool operator==(const ObjectLockConfig&) const = default;
};

// A lifecycle rule's filter: every condition set must hold (an And of them). Empty prefix, no
// tags and no sizes: every object. Sizes are exclusive bounds in bytes.
struct LifecycleFilter {
  std::string prefix;
  std::vector<std::pair<std::string, std::string>> tags;  // key, value; keys unique
  std::optional<uint64_t> size_greater_than;
  std::optional<uint64_t> size_less_than;
  bool operator==(const LifecycleFilter&) const = default;
};

// One lifecycle rule: its id (1 to 255 characters, unique in the configuration), whether it is
// enabled, which objects it selects and its actions (at least one is set).
struct LifecycleRule {
  std::string id;
  bool enabled = true;
  // The rule was given with the old top-level <Prefix> instead of <Filter>; it is rendered back
  // the same way (filter.prefix holds the prefix, nothing else of the filter is set).
  bool legacy_prefix = false;
  LifecycleFilter filter;
  // Expiration: at most one of days, date and expired_object_delete_marker.
  std::optional<uint32_t> expiration_days;    // > 0
  std::optional<int64_t> expiration_date_ms;  // midnight UTC, Unix epoch milliseconds
  bool expired_object_delete_marker = false;
  // NoncurrentVersionExpiration.
  std::optional<uint32_t> noncurrent_days;            // > 0
  std::optional<uint32_t> newer_noncurrent_versions;  // 1..100, only with noncurrent_days
  // AbortIncompleteMultipartUpload.
  std::optional<uint32_t> abort_incomplete_days;  // > 0
  bool operator==(const LifecycleRule&) const = default;
};

// A bucket's lifecycle configuration: 1 to 1000 rules, in the order given. No rules: none set.
struct LifecycleConfig {
  std::vector<LifecycleRule> rules;
  bool operator==(const LifecycleConfig&) const = default;
};

// One CORS rule, stored as PutBucketCors gave it (s3api/bucket_config_xml.h checks it: methods
// among GET PUT POST DELETE HEAD, at least one method and one origin, at most one '*' in each
// origin and allowed header, none in an exposed header). Values keep their case, order and
// repeats; what a rule matches is s3api/cors.h's.
struct CorsRule {
  std::optional<std::string> id;                // <ID>, up to 255 characters; may be empty
  std::vector<std::string> allowed_methods;     // "GET", "PUT", "POST", "DELETE", "HEAD"
  std::vector<std::string> allowed_origins;     // "*", "https://*.example.com", ...
  std::vector<std::string> allowed_headers;     // request headers a preflight may name
  std::vector<std::string> expose_headers;      // response headers a page may read
  std::optional<uint32_t> max_age_seconds;      // 0 .. 2^31-1
  bool operator==(const CorsRule&) const = default;
};

// A bucket's CORS configuration: 1 to 100 rules, in the order given (the first that matches
// answers). No rules: none set.
struct CorsConfig {
  std::vector<CorsRule> rules;
  bool operator==(const CorsConfig&) const = default;
};

// A default-encryption algorithm (PutBucketEncryption's SSEAlgorithm). The numbers are stored:
// never renumber.
enum class SseAlgorithm : uint8_t {
  kAes256 = 1,      // "AES256": SSE-S3
  kAwsKms = 2,      // "aws:kms": SSE-KMS
  kAwsKmsDsse = 3,  // "aws:kms:dsse": dual-layer SSE-KMS (s3api refuses it today)
};

// The algorithm's name in S3's API (SSEAlgorithm, x-amz-server-side-encryption): "AES256",
// "aws:kms" or "aws:kms:dsse".
inline constexpr text::Named<SseAlgorithm> kSseAlgorithms[] = {
    {SseAlgorithm::kAes256, "AES256"},
    {SseAlgorithm::kAwsKms, "aws:kms"},
    {SseAlgorithm::kAwsKmsDsse, "aws:kms:dsse"},
};
constexpr std::string_view SseAlgorithmName(SseAlgorithm algorithm) {
  return text::NameOf(kSseAlgorithms, algorithm, "AES256");
}

// One default-encryption rule, stored as PutBucketEncryption gave it (s3api checks it).
struct BucketEncryptionRule {
  SseAlgorithm algorithm = SseAlgorithm::kAes256;
  // KMSMasterKeyID exactly as given (key id, key ARN, alias name or alias ARN); empty: none
  // (SSE-KMS then uses the AWS-managed key). Only with kAwsKms and kAwsKmsDsse.
  std::string kms_master_key_id;
  bool bucket_key_enabled = false;
  bool operator==(const BucketEncryptionRule&) const = default;
};

// A bucket's default-encryption configuration (S3 allows exactly one rule). No rules: none set.
struct BucketEncryption {
  std::vector<BucketEncryptionRule> rules;
  bool operator==(const BucketEncryption&) const = default;
};

// One object version's retention. mode kNone: none (retain_until_ms is then 0).
struct ObjectRetention {
  RetentionMode mode = RetentionMode::kNone;
  int64_t retain_until_ms = 0;  // Unix epoch milliseconds
  bool operator==(const ObjectRetention&) const = default;
};

// One object version's legal hold. kNever: no legal hold was ever set (GetObjectLegalHold and the
// x-amz-object-lock-legal-hold header then answer none). The numbers are stored: never renumber.
enum class LegalHold : uint8_t {
  kNever = 0,
  kOff = 1,
  kOn = 2,
};

// The object-lock facts of one object version.
struct ObjectLockState {
  ObjectRetention retention;
  LegalHold legal_hold = LegalHold::kNever;
  bool operator==(const ObjectLockState&) const = default;
};

}  // namespace cubby::storage
