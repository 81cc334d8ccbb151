// Pure validation for the COSI driver: names, the spec's size limits, and the parameters of
// BucketClass / BucketAccessClass. No I/O; every function is table-tested in
// test/cosi/params_test.cc. Errors are storage::Status kInvalidArgument whose message names the
// offending field or parameter key (never its value when it could be a secret; these never are).
#pragma once

#include <cstddef>
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

using Parameters = std::map<std::string, std::string, std::less<>>;

// OK if `value` fits the spec's string limit; otherwise kInvalidArgument naming `field`.
storage::Status CheckStringSize(std::string_view field, std::string_view value);
// OK if `map` fits the spec's map limit; otherwise kInvalidArgument naming `field`.
storage::Status CheckMapSize(std::string_view field, const Parameters& map);

// DriverGetInfoResponse.name rules: 1-63 characters, begins and ends with [A-Za-z0-9], with
// [A-Za-z0-9.-] between. kInvalidArgument saying which rule failed.
storage::Status ValidateDriverName(std::string_view name);

// Effective BucketClass parameters of a bucket.
struct BucketParams {
  storage::AccessMode anonymous = storage::AccessMode::kNone;  // anonymousAccessMode
  bool force_delete = false;                                   // forceDelete
  friend bool operator==(const BucketParams&, const BucketParams&) = default;
};

// Parses BucketClass parameters (DriverCreateBucket parameters, DriverDeleteBucket
// delete_context):
//   anonymousAccessMode: Private (default) | ReadOnly | WriteOnly | ReadWrite
//   forceDelete:         false (default) | true
// kInvalidArgument naming the key for an unknown key or a bad value.
storage::Result<BucketParams> ParseBucketParameters(const Parameters& parameters);

// The parameters a bucket effectively has, as stored in BucketRecord: e.g.
// {anonymousAccessMode: Private, forceDelete: false}.
BucketParams BucketParamsOf(const storage::BucketRecord& bucket);
Parameters EffectiveParameters(const BucketParams& params);

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
