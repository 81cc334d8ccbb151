// Binary records of the bucket configurations in storage/bucket_config.h, written by
// bucket_config_codec.cc with the primitives of storage/codec.h's records: one version byte, then
// fields in a fixed order; integers are LEB128 varints (signed ones zigzag-encoded), strings are
// varint-length-prefixed bytes, lists a varint count and their elements. Decoding is strict: an
// unknown version, a truncated field, an out-of-range enum or flag, or trailing bytes yield
// kCorruption, and no decoder reads past its input or allocates more than its input can describe.
// Private to storage/ (and its tests).
#pragma once

#include <string>
#include <string_view>

#include "storage/bucket_config.h"
#include "storage/status.h"

namespace cubby::storage::codec {

std::string EncodeVersioning(VersioningState state);
Result<VersioningState> DecodeVersioning(std::string_view in);

std::string EncodeObjectLockConfig(const ObjectLockConfig& config);
Result<ObjectLockConfig> DecodeObjectLockConfig(std::string_view in);

std::string EncodeLifecycleConfig(const LifecycleConfig& config);
Result<LifecycleConfig> DecodeLifecycleConfig(std::string_view in);

std::string EncodeCorsConfig(const CorsConfig& config);
Result<CorsConfig> DecodeCorsConfig(std::string_view in);

std::string EncodeBucketEncryption(const BucketEncryption& config);
Result<BucketEncryption> DecodeBucketEncryption(std::string_view in);

// One object version's retention and legal hold.
std::string EncodeObjectLockState(const ObjectLockState& state);
Result<ObjectLockState> DecodeObjectLockState(std::string_view in);

}  // namespace cubby::storage::codec
