#include "storage/bucket_config_codec.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cubby::storage::codec {
namespace {

using namespace std::string_literals;

std::vector<ObjectLockConfig> LockConfigs() {
  ObjectLockConfig governance_days{true, DefaultRetention{RetentionMode::kGovernance, 1, 0}};
  ObjectLockConfig compliance_years{true, DefaultRetention{RetentionMode::kCompliance, 0, 100}};
  ObjectLockConfig huge{true, DefaultRetention{RetentionMode::kCompliance, UINT32_MAX, 0}};
  return {ObjectLockConfig{}, ObjectLockConfig{true, {}}, governance_days, compliance_years, huge};
}

std::vector<LifecycleConfig> LifecycleConfigs() {
  LifecycleRule minimal;
  minimal.id = "r";
  minimal.expiration_days = 1;
  LifecycleRule full;
  full.id = std::string(255, 'x');
  full.enabled = false;
  full.filter.prefix = "logs/\0bin\xff"s;
  full.filter.tags = {{"a", "1"}, {"", ""}, {"k\0"s, "\xff"}};
  full.filter.size_greater_than = 0;
  full.filter.size_less_than = UINT64_MAX;
  full.expiration_date_ms = 1767225600000;  // 2026-01-01T00:00:00Z
  full.noncurrent_days = UINT32_MAX;
  full.newer_noncurrent_versions = 100;
  full.abort_incomplete_days = 7;
  LifecycleRule legacy;
  legacy.id = "legacy";
  legacy.legacy_prefix = true;
  legacy.filter.prefix = "tmp/";
  legacy.expired_object_delete_marker = true;
  LifecycleRule negative_date;
  negative_date.id = "old";
  negative_date.expiration_date_ms = -86400000;
  return {LifecycleConfig{}, LifecycleConfig{{minimal}},
          LifecycleConfig{{full, legacy, negative_date, minimal}}};
}

std::vector<CorsConfig> CorsConfigs() {
  CorsRule minimal;
  minimal.allowed_methods = {"GET"};
  minimal.allowed_origins = {"*"};
  CorsRule full;
  full.id = std::string(255, 'c');
  full.allowed_methods = {"GET", "PUT", "POST", "DELETE", "HEAD", "GET"};
  full.allowed_origins = {"https://*.example.com", "", "http://h\0x"s};
  full.allowed_headers = {"*", "X-Amz-*"};
  full.expose_headers = {"ETag", "x-amz-request-id"};
  full.max_age_seconds = 2147483647;
  CorsRule empty_id;  // <ID/> is kept apart from no ID
  empty_id.id = "";
  empty_id.allowed_methods = {"HEAD"};
  empty_id.allowed_origins = {"http://localhost:3000"};
  empty_id.max_age_seconds = 0;
  return {CorsConfig{}, CorsConfig{{minimal}}, CorsConfig{{full, empty_id, minimal}}};
}

std::vector<BucketEncryption> Encryptions() {
  BucketEncryptionRule s3;
  BucketEncryptionRule kms{SseAlgorithm::kAwsKms, "alias/app", true};
  BucketEncryptionRule dsse{SseAlgorithm::kAwsKmsDsse, std::string(300, 'k'), false};
  return {BucketEncryption{}, BucketEncryption{{s3}}, BucketEncryption{{kms}},
          BucketEncryption{{dsse, s3}}};
}

std::vector<ObjectLockState> LockStates() {
  return {ObjectLockState{},
          ObjectLockState{{RetentionMode::kGovernance, 1893456000000}, LegalHold::kNever},
          ObjectLockState{{RetentionMode::kCompliance, INT64_MAX}, LegalHold::kOn},
          ObjectLockState{{RetentionMode::kNone, 0}, LegalHold::kOff},
          ObjectLockState{{RetentionMode::kGovernance, -1}, LegalHold::kOn}};
}

TEST(BucketConfigCodecTest, VersioningRoundTrips) {
  for (VersioningState s :
       {VersioningState::kUnversioned, VersioningState::kEnabled, VersioningState::kSuspended}) {
    Result<VersioningState> back = DecodeVersioning(EncodeVersioning(s));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, s);
  }
}

TEST(BucketConfigCodecTest, ObjectLockConfigRoundTrips) {
  for (const ObjectLockConfig& c : LockConfigs()) {
    Result<ObjectLockConfig> back = DecodeObjectLockConfig(EncodeObjectLockConfig(c));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, c);
  }
}

TEST(BucketConfigCodecTest, LifecycleConfigRoundTrips) {
  for (const LifecycleConfig& c : LifecycleConfigs()) {
    Result<LifecycleConfig> back = DecodeLifecycleConfig(EncodeLifecycleConfig(c));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, c);
  }
}

TEST(BucketConfigCodecTest, CorsConfigRoundTrips) {
  for (const CorsConfig& c : CorsConfigs()) {
    Result<CorsConfig> back = DecodeCorsConfig(EncodeCorsConfig(c));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, c);
  }
}

TEST(BucketConfigCodecTest, BucketEncryptionRoundTrips) {
  for (const BucketEncryption& c : Encryptions()) {
    Result<BucketEncryption> back = DecodeBucketEncryption(EncodeBucketEncryption(c));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, c);
  }
}

TEST(BucketConfigCodecTest, ObjectLockStateRoundTrips) {
  for (const ObjectLockState& s : LockStates()) {
    Result<ObjectLockState> back = DecodeObjectLockState(EncodeObjectLockState(s));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, s);
  }
}

// The stored bytes are a format: these pin it, so a layout change has to bump the version.
TEST(BucketConfigCodecTest, FormatIsPinned) {
  EXPECT_EQ(EncodeVersioning(VersioningState::kSuspended), "\x01\x02"s);
  EXPECT_EQ(EncodeObjectLockConfig(LockConfigs()[2]), "\x01\x01\x01\x01\x01\x00"s);
  EXPECT_EQ(EncodeObjectLockState(LockStates()[3]), "\x01\x00\x00\x01"s);
  EXPECT_EQ(EncodeLifecycleConfig(LifecycleConfigs()[1]),
            "\x01\x01"     // version, one rule
            "\x01r"        // id
            "\x01"         // flags: enabled
            "\x00\x00"     // prefix, no tags
            "\x04\x01"s);  // expiration days 1
  EXPECT_EQ(EncodeCorsConfig(CorsConfigs()[1]),
            "\x01\x01"      // version, one rule
            "\x00"          // no id, no max age
            "\x01\x03GET"   // methods
            "\x01\x01*"     // origins
            "\x00\x00"s);   // no allowed or exposed headers
  // Three rules; the first has an id (255 bytes: a two-byte varint) and a max age.
  EXPECT_EQ(EncodeCorsConfig(CorsConfigs()[2]).substr(0, 5), "\x01\x03\x03\xff\x01"s);
  EXPECT_EQ(EncodeBucketEncryption(Encryptions()[2]),
            "\x01\x01"  // version, one rule
            "\x02"      // aws:kms
            "\x09"      // key id: 9 bytes
            "alias/app"
            "\x01"s);  // bucket key enabled
}

// Every encoding, cut short anywhere or with a byte appended, is kCorruption.
template <typename T, typename Encode, typename Decode>
void ExpectStrict(const std::vector<T>& values, Encode encode, Decode decode) {
  for (const T& v : values) {
    const std::string enc = encode(v);
    for (size_t n = 0; n < enc.size(); ++n) {
      auto r = decode(std::string_view(enc).substr(0, n));
      ASSERT_FALSE(r.ok()) << "prefix of " << n << " bytes decoded";
      EXPECT_EQ(r.status().code(), Code::kCorruption);
    }
    auto r = decode(enc + "x");
    ASSERT_FALSE(r.ok()) << "trailing byte accepted";
    EXPECT_EQ(r.status().code(), Code::kCorruption);
    std::string bad_version = enc;
    bad_version[0] = 2;
    EXPECT_FALSE(decode(bad_version).ok());
  }
}

TEST(BucketConfigCodecTest, TruncatedTrailingOrUnknownVersionIsCorruption) {
  ExpectStrict(std::vector<VersioningState>{VersioningState::kEnabled}, EncodeVersioning,
               DecodeVersioning);
  ExpectStrict(LockConfigs(), EncodeObjectLockConfig, DecodeObjectLockConfig);
  ExpectStrict(LifecycleConfigs(), EncodeLifecycleConfig, DecodeLifecycleConfig);
  ExpectStrict(LockStates(), EncodeObjectLockState, DecodeObjectLockState);
  ExpectStrict(CorsConfigs(), EncodeCorsConfig, DecodeCorsConfig);
  ExpectStrict(Encryptions(), EncodeBucketEncryption, DecodeBucketEncryption);
}

TEST(BucketConfigCodecTest, OutOfRangeValuesAreCorruption) {
  struct Case {
    const char* name;
    std::string bytes;
    bool (*decodes)(std::string_view);
  };
  auto versioning = [](std::string_view in) { return DecodeVersioning(in).ok(); };
  auto lock = [](std::string_view in) { return DecodeObjectLockConfig(in).ok(); };
  auto lifecycle = [](std::string_view in) { return DecodeLifecycleConfig(in).ok(); };
  auto state = [](std::string_view in) { return DecodeObjectLockState(in).ok(); };
  auto cors = [](std::string_view in) { return DecodeCorsConfig(in).ok(); };
  auto encryption = [](std::string_view in) { return DecodeBucketEncryption(in).ok(); };
  const Case cases[] = {
      {"versioning state 3", "\x01\x03"s, versioning},
      {"lock enabled 2", "\x01\x02\x00"s, lock},
      {"lock has-default 2", "\x01\x01\x02"s, lock},
      {"lock mode 3", "\x01\x01\x01\x03\x01\x00"s, lock},
      {"lock days above 32 bits", "\x01\x01\x01\x01\x80\x80\x80\x80\x10\x00"s, lock},
      {"lifecycle rule count past input", "\x01\x05\x01r\x01\x00\x00\x04\x01"s, lifecycle},
      {"lifecycle unknown rule flag", "\x01\x01\x01r\x08\x00\x00\x04\x01"s, lifecycle},
      {"lifecycle unknown presence bit", "\x01\x01\x01r\x01\x00\x00\x80"s, lifecycle},
      {"lifecycle tag count past input", "\x01\x01\x01r\x01\x00\x7f\x04\x01"s, lifecycle},
      {"lifecycle id length past input", "\x01\x01\x09r\x01\x00\x00\x04\x01"s, lifecycle},
      {"lifecycle varint overflow",
       "\x01\x01\x01r\x01\x00\x00\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02"s, lifecycle},
      {"state mode 3", "\x01\x03\x00\x00"s, state},
      {"state legal hold 3", "\x01\x00\x00\x03"s, state},
      {"empty", "", state},
      {"cors unknown presence bit", "\x01\x01\x04\x00\x00\x00\x00"s, cors},
      {"cors rule count past input", "\x01\x02\x00\x00\x00\x00\x00"s, cors},
      {"cors max age above 32 bits", "\x01\x01\x02\x80\x80\x80\x80\x10\x00\x00\x00\x00"s,
       cors},
      {"cors origin count past input", "\x01\x01\x00\x00\x09\x00\x00"s, cors},
      {"encryption algorithm 0", "\x01\x01\x00\x00\x00"s, encryption},
      {"encryption algorithm 4", "\x01\x01\x04\x00\x00"s, encryption},
      {"encryption bucket key 2", "\x01\x01\x01\x00\x02"s, encryption},
      {"encryption rule count past input", "\x01\x02\x01\x00\x00"s, encryption},
      {"encryption key id past input", "\x01\x01\x02\x05k\x00"s, encryption},
  };
  for (const Case& c : cases) EXPECT_FALSE(c.decodes(c.bytes)) << c.name;
  // The same shapes with in-range values decode (so the cases above fail for their reason).
  EXPECT_TRUE(versioning("\x01\x02"s));
  EXPECT_TRUE(lock("\x01\x01\x01\x02\x01\x00"s));
  EXPECT_TRUE(lifecycle("\x01\x01\x01r\x07\x00\x00\x04\x01"s));
  EXPECT_TRUE(state("\x01\x02\x00\x02"s));
  EXPECT_TRUE(cors("\x01\x01\x03\x00\x7f\x00\x00\x00\x00"s));
  EXPECT_TRUE(encryption("\x01\x01\x03\x00\x01"s));
  EXPECT_TRUE(encryption("\x01\x01\x02\x01k\x00"s));
}

}  // namespace
}  // namespace cubby::storage::codec
