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

// "Private", "ReadOnly", "WriteOnly", "ReadWrite" (the names the parameters use).
std::string_view AnonymousModeName(storage::AccessMode mode);
// "None", "ReadOnly", "WriteOnly", "ReadWrite".
std::string_view AccessModeName(storage::AccessMode mode);

}  // namespace cubby::cosi
