// Pure validation for the COSI driver: names, the spec's size limits, and the parameters of
// BucketClass / BucketAccessClass. No I/O; every function is table-tested in
// test/cosi/params_test.cc. Errors are storage::Status kInvalidArgument whose message names the
// offending field or parameter key (never its value when it could be a secret; these never are).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "storage/records.h"
#include "storage/status.h"

namespace cubby::cosi {

// COSI spec, "Size Limits": a string field at most 128 bytes, a map<string,string> at most 4 KiB
// (counted as the sum of its keys' and values' bytes).
inline constexpr size_t kMaxStringBytes = 128;
inline constexpr size_t kMaxMapBytes = 4096;

// v1alpha2's DriverCreateBucketRequest.name and DriverGrantBucketAccessRequest.account_name:
// up to 253 characters of DNS-subdomain text (the field's own limit, overriding 128).
inline constexpr size_t kMaxLongNameBytes = 253;

// Parameter keys (case-sensitive, as Kubernetes passes them).
inline constexpr std::string_view kAnonymousAccessMode = "anonymousAccessMode";
inline constexpr std::string_view kForceDelete = "forceDelete";
inline constexpr std::string_view kAccessMode = "accessMode";
// The quota's BucketClass parameters (ParseBucketParameters says what each accepts).
inline constexpr std::string_view kQuotaBytes = "quotaBytes";
inline constexpr std::string_view kQuotaObjects = "quotaObjects";
inline constexpr std::string_view kVersioning = "versioning";
inline constexpr std::string_view kObjectLockEnabled = "objectLockEnabled";
inline constexpr std::string_view kObjectLockMode = "objectLockMode";
inline constexpr std::string_view kObjectLockDays = "objectLockDays";
inline constexpr std::string_view kExpireAfterDays = "expireAfterDays";
inline constexpr std::string_view kEncryption = "encryption";

// The id of the one lifecycle rule expireAfterDays makes (GetBucketLifecycleConfiguration shows
// it; a PutBucketLifecycleConfiguration through S3 replaces it like any other rule).
inline constexpr std::string_view kExpireRuleId = "cosi-expire-after-days";

// Bounds of the numeric parameters: S3's own where it has one (a default retention of at most
// 36500 days; lifecycle Days is a positive 32-bit integer).
inline constexpr uint32_t kMaxObjectLockDays = 36500;
inline constexpr uint32_t kMaxExpireAfterDays = 2147483647;

using Parameters = std::map<std::string, std::string, std::less<>>;

// OK if `value` fits the spec's string limit; otherwise kInvalidArgument naming `field`.
storage::Status CheckStringSize(std::string_view field, std::string_view value);
// OK if `map` fits the spec's map limit; otherwise kInvalidArgument naming `field`.
storage::Status CheckMapSize(std::string_view field, const Parameters& map);

// DriverGetInfoResponse.name rules: 1-63 characters, begins and ends with [A-Za-z0-9], with
// [A-Za-z0-9.-] between. kInvalidArgument saying which rule failed.
storage::Status ValidateDriverName(std::string_view name);

// Effective BucketClass parameters of a bucket: what the bucket does, in storage's own terms,
// so that a bucket compares by its configuration however it got it (COSI, S3, an older cubby).
// Defaults (all members default-constructed but `anonymous`, kNone) are what a bucket made
// through S3 CreateBucket has.
struct BucketParams {
  storage::AccessMode anonymous = storage::AccessMode::kNone;  // anonymousAccessMode
  bool force_delete = false;                                   // forceDelete
  // versioning; kEnabled also when objectLockEnabled is "true" and versioning is unset.
  storage::VersioningState versioning = storage::VersioningState::kUnversioned;
  // objectLockEnabled, with objectLockMode and objectLockDays as its default retention (days).
  storage::ObjectLockConfig object_lock;
  // expireAfterDays: ExpireRule(days), the only rule.
  storage::LifecycleConfig lifecycle;
  // encryption: SseS3Encryption(), the only rule.
  storage::BucketEncryption encryption;
  storage::BucketQuota quota;  // quotaBytes, quotaObjects
  friend bool operator==(const BucketParams&, const BucketParams&) = default;
};

// The lifecycle configuration expireAfterDays: `days` makes: one enabled rule, id
// kExpireRuleId, an empty filter (every object) and Expiration Days `days`.
storage::LifecycleConfig ExpireRule(uint32_t days);
// The default encryption encryption: SSE-S3 makes: one AES256 rule without a KMS key or bucket
// key (as PutBucketEncryption with SSEAlgorithm AES256 stores it).
storage::BucketEncryption SseS3Encryption();

// Parses BucketClass parameters (DriverCreateBucket parameters, DriverDeleteBucket
// delete_context / parameters, DriverGetExistingBucket parameters). Keys are case-sensitive;
// values are exactly as listed (no surrounding spaces, no other spellings):
//   anonymousAccessMode: Private (default) | ReadOnly | WriteOnly | ReadWrite
//   forceDelete:         false (default) | true
//   quotaBytes, quotaObjects: a decimal integer from 1 to 2^64-1, digits only (no sign, unit
//                        suffix such as "Gi", exponent or separator); leading zeros allowed.
//                        Unset: no limit.
//   versioning:          Enabled | Suspended. Unset: unversioned (Enabled with object lock).
//                        Suspended makes the bucket as S3 CreateBucket then
//                        PutBucketVersioning(Suspended) would, in one step.
//   objectLockEnabled:   false (default) | true. true needs versioning Enabled or unset.
//   objectLockMode:      GOVERNANCE | COMPLIANCE   } the default retention; both or neither,
//   objectLockDays:      1 .. 36500                } and only with objectLockEnabled "true"
//   expireAfterDays:     1 .. 2147483647: ExpireRule(days). Unset: no lifecycle rule.
//   encryption:          SSE-S3, or its S3 API name AES256: SseS3Encryption(). SSE-KMS
//                        (aws:kms, aws:kms:dsse, SSE-KMS) and SSE-C are refused. Unset: none.
// kInvalidArgument naming the key for an unknown key, a bad value or a combination above that
// is not allowed.
storage::Result<BucketParams> ParseBucketParameters(const Parameters& parameters);

// The parameters a bucket effectively has, as stored in BucketRecord.
BucketParams BucketParamsOf(const storage::BucketRecord& bucket);
// The parameters that make `params`: always anonymousAccessMode and forceDelete, the others only
// when not at their default, e.g. {anonymousAccessMode: Private, forceDelete: false,
// versioning: Enabled}. So a bucket without the newer settings (an older cubby's) renders as
// before. ParseBucketParameters(EffectiveParameters(p)) == p for every p it made. A
// configuration no parameter can make (set through S3: a lifecycle of other rules, SSE-KMS, a
// retention in years) renders as a description in angle brackets under the nearest key, e.g.
// expireAfterDays: "<2 lifecycle rules>", which no parameter value equals.
Parameters EffectiveParameters(const BucketParams& params);

// "k=v, k=v" of `parameters`, in key order (for messages; values are never secrets).
std::string DescribeParameters(const Parameters& parameters);

// For DriverGetExistingBucket: a bucket that exists keeps its own configuration, and only the
// parameters `stated` names must agree with the bucket's `actual` ones (`wanted` is
// ParseBucketParameters(stated)):
//   anonymousAccessMode, versioning, objectLockEnabled, quotaBytes, quotaObjects: equal;
//   objectLockMode, objectLockDays: the bucket's default retention is that mode and days;
//   expireAfterDays: some enabled rule of the bucket's lifecycle has an empty filter and
//     Expiration Days equal to it (other rules may exist beside it);
//   encryption: the bucket's default encryption is SSE-S3 (AES256);
//   forceDelete: not compared (it only matters when deleting).
// Returns "" when they agree, else what differs, e.g. "versioning is Suspended, not Enabled".
std::string StatedParametersMismatch(const Parameters& stated, const BucketParams& wanted,
                                     const BucketParams& actual);

// Parses BucketAccessClass parameters (DriverGrantBucketAccess parameters):
//   accessMode: ReadWrite (default) | ReadOnly | WriteOnly
// kInvalidArgument naming the key for an unknown key or a bad value.
storage::Result<storage::AccessMode> ParseAccessParameters(const Parameters& parameters);

// The S3 bucket a v1alpha2 suggested bucket name maps to (returned as bucket_id):
//  - a valid S3 bucket name (storage::ValidateBucketName) is used as it is;
//  - any other name becomes "<prefix>-<hash>": <hash> is the first 16 hex digits (64 bits) of
//    SHA-256(name), so the same name always maps to the same bucket and different names
//    practically never collide; <prefix> keeps the name readable: lower-cased, every character
//    other than [a-z0-9] replaced by '-', runs of '-' collapsed, no '-' at either end, cut to 46
//    characters (63 in all), "cosi" when nothing is left or the result would be refused.
// E.g. "bc-" + 250 characters → "bc-aaaa…-1f2e3d4c5b6a7980". Pure; the result always passes
// storage::ValidateBucketName and contains no '.'.
std::string DeriveBucketName(std::string_view name);

// True for a bucket name virtual-hosted-style requests can reach under a wildcard DNS name and
// certificate: a valid S3 bucket name without '.'.
bool IsDnsSafeBucketName(std::string_view name);

// Parses v1alpha2 BucketAccessClass parameters (DriverGrantBucketAccess parameters): none are
// defined yet (each bucket's access mode is in the request), so any key is kInvalidArgument
// naming it.
storage::Status ParseGrantParameters(const Parameters& parameters);

// "Private", "ReadOnly", "WriteOnly", "ReadWrite" (the names the parameters use).
std::string_view AnonymousModeName(storage::AccessMode mode);
// "None", "ReadOnly", "WriteOnly", "ReadWrite".
std::string_view AccessModeName(storage::AccessMode mode);

}  // namespace cubby::cosi
