// The fixed world the authentication targets run in: one access key (AWS's documentation
// example) and one clock, so seeds signed by fuzz/make_seeds.cc verify and the fuzzer explores
// past the signature check.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "s3api/auth/types.h"
#include "storage/records.h"

namespace cubby::fuzz {

inline constexpr std::string_view kAccessKeyId = "AKIAIOSFODNN7EXAMPLE";
inline constexpr std::string_view kSecretKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
inline constexpr std::string_view kRegion = "us-east-1";

// 2013-05-24T00:00:00Z, the date of AWS's SigV4 examples.
inline std::chrono::system_clock::time_point Now() {
  return std::chrono::system_clock::time_point(std::chrono::seconds(1369353600));
}

inline s3api::auth::KeyLookup Lookup() {
  return [](std::string_view id) -> std::optional<storage::AccessKeyRecord> {
    if (id != kAccessKeyId) return std::nullopt;
    storage::AccessKeyRecord record;
    record.access_key_id = std::string(kAccessKeyId);
    record.secret = storage::SecretKey(std::string(kSecretKey));
    record.all_buckets = true;
    return record;
  };
}

}  // namespace cubby::fuzz
