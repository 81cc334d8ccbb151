// Tables for cosi/params.h and cosi/status_map.h: pure functions, no socket, no store.
#include "cosi/params.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "cosi/status_map.h"
#include "storage/bucket_name.h"

namespace cubby::cosi {
namespace {

using storage::AccessMode;
using storage::Code;

struct NameCase {
  std::string name;
  bool valid;
  std::string error_part;  // expected in the message when invalid
};

// storage::ValidateBucketName is the one rule set for S3 CreateBucket and the COSI driver.
TEST(ParamsTest, BucketNames) {
  const std::vector<NameCase> cases = {
      {"bucket-0b7c9d1e-4f2a-4c3b-9d8e-1a2b3c4d5e6f", true, ""},
      {"abc", true, ""},
      {"a.b-c", true, ""},
      {"123", true, ""},
      {std::string(63, 'a'), true, ""},
      {"", false, "required"},
      {"ab", false, "3 to 63"},
      {std::string(64, 'a'), false, "3 to 63"},
      {"Bucket", false, "lowercase"},
      {"bucket_1", false, "lowercase"},
      {"buck et", false, "lowercase"},
      {"-bucket", false, "begin and end"},
      {"bucket-", false, "begin and end"},
      {".bucket", false, "begin and end"},
      {"bucket.", false, "begin and end"},
      {"my..bucket", false, "adjacent periods"},
      {"my.-bucket", false, "period next to a hyphen"},
      {"my-.bucket", false, "period next to a hyphen"},
      {"192.168.5.4", false, "IP address"},
      {"xn--bucket", false, "xn--"},
      {"sthree-bucket", false, "sthree-"},
      {"amzn-s3-demo-bucket", false, "amzn-s3-demo-"},
      {"bucket-s3alias", false, "-s3alias"},
      {"bucket--ol-s3", false, "--ol-s3"},
      {"bucket.mrap", false, ".mrap"},
      {"bucket--x-s3", false, "--x-s3"},
      {"bucket--table-s3", false, "--table-s3"},
      {"192.168.5", true, ""},  // not four parts: not an IP address
  };
  for (const NameCase& c : cases) {
    storage::Status s = storage::ValidateBucketName(c.name);
    EXPECT_EQ(s.ok(), c.valid) << c.name << ": " << s.message();
    if (!c.valid) {
      EXPECT_EQ(s.code(), Code::kInvalidArgument) << c.name;
      EXPECT_NE(s.message().find(c.error_part), std::string::npos) << c.name << ": " << s.message();
    }
  }
}

TEST(ParamsTest, DriverNames) {
  const std::vector<NameCase> cases = {
      {"cubby.objectstorage.k8s.io", true, ""},
      {"a", true, ""},
      {"Org.Foo-Bar.9", true, ""},
      {std::string(63, 'x'), true, ""},
      {"", false, "empty"},
      {std::string(64, 'x'), false, "63"},
      {"-cubby", false, "begin and end"},
      {"cubby.", false, "begin and end"},
      {".cubby", false, "begin and end"},
      {"cubby_driver", false, "only letters"},
      {"cubby/driver", false, "only letters"},
      {"cubby driver", false, "only letters"},
  };
  for (const NameCase& c : cases) {
    storage::Status s = ValidateDriverName(c.name);
    EXPECT_EQ(s.ok(), c.valid) << c.name << ": " << s.message();
    if (!c.valid) {
      EXPECT_NE(s.message().find(c.error_part), std::string::npos) << c.name << ": " << s.message();
    }
  }
}

TEST(ParamsTest, SizeLimits) {
  EXPECT_TRUE(CheckStringSize("name", std::string(128, 'a')).ok());
  storage::Status too_long = CheckStringSize("name", std::string(129, 'a'));
  EXPECT_EQ(too_long.code(), Code::kInvalidArgument);
  EXPECT_NE(too_long.message().find("name"), std::string::npos);

  Parameters at_limit = {{"k", std::string(kMaxMapBytes - 1, 'v')}};
  EXPECT_TRUE(CheckMapSize("parameters", at_limit).ok());
  Parameters over = {{"k", std::string(kMaxMapBytes, 'v')}};
  storage::Status big = CheckMapSize("parameters", over);
  EXPECT_EQ(big.code(), Code::kInvalidArgument);
  EXPECT_NE(big.message().find("parameters"), std::string::npos);
  // Many small entries count too.
  Parameters many;
  for (int i = 0; i < 500; ++i) many["key" + std::to_string(i)] = "value";
  EXPECT_EQ(CheckMapSize("parameters", many).code(), Code::kInvalidArgument);
}

// BucketParams with only the two pre-issue-17 settings given.
BucketParams Basic(AccessMode anonymous, bool force_delete) {
  BucketParams p;
  p.anonymous = anonymous;
  p.force_delete = force_delete;
  return p;
}

struct BucketParamCase {
  Parameters in;
  bool valid;
  BucketParams want;
  std::string error_part;
};

TEST(ParamsTest, BucketParameters) {
  const std::vector<BucketParamCase> cases = {
      {{}, true, Basic(AccessMode::kNone, false), ""},
      {{{"anonymousAccessMode", "Private"}}, true, Basic(AccessMode::kNone, false), ""},
      {{{"anonymousAccessMode", "ReadOnly"}}, true, Basic(AccessMode::kReadOnly, false), ""},
      {{{"anonymousAccessMode", "WriteOnly"}}, true, Basic(AccessMode::kWriteOnly, false), ""},
      {{{"anonymousAccessMode", "ReadWrite"}}, true, Basic(AccessMode::kReadWrite, false), ""},
      {{{"forceDelete", "true"}}, true, Basic(AccessMode::kNone, true), ""},
      {{{"forceDelete", "false"}}, true, Basic(AccessMode::kNone, false), ""},
      {{{"anonymousAccessMode", "ReadOnly"}, {"forceDelete", "true"}},
       true,
       Basic(AccessMode::kReadOnly, true),
       ""},
      {{{"anonymousAccessMode", "public"}}, false, {}, "anonymousAccessMode"},
      {{{"anonymousAccessMode", "readonly"}}, false, {}, "anonymousAccessMode"},
      {{{"anonymousAccessMode", ""}}, false, {}, "anonymousAccessMode"},
      {{{"forceDelete", "yes"}}, false, {}, "forceDelete"},
      {{{"forceDelete", "True"}}, false, {}, "forceDelete"},
      {{{"replicas", "3"}}, false, {}, "replicas"},
      {{{"forcedelete", "true"}}, false, {}, "forcedelete"},
  };
  for (const BucketParamCase& c : cases) {
    storage::Result<BucketParams> got = ParseBucketParameters(c.in);
    ASSERT_EQ(got.ok(), c.valid) << (c.in.empty() ? "{}" : c.in.begin()->first);
    if (c.valid) {
      EXPECT_EQ(got->anonymous, c.want.anonymous);
      EXPECT_EQ(got->force_delete, c.want.force_delete);
    } else {
      EXPECT_EQ(got.status().code(), Code::kInvalidArgument);
      EXPECT_NE(got.status().message().find(c.error_part), std::string::npos)
          << got.status().message();
    }
  }
}

TEST(ParamsTest, EffectiveParametersRoundTrip) {
  for (AccessMode mode :
       {AccessMode::kNone, AccessMode::kReadOnly, AccessMode::kWriteOnly, AccessMode::kReadWrite}) {
    for (bool force : {false, true}) {
      BucketParams p = Basic(mode, force);
      Parameters effective = EffectiveParameters(p);
      EXPECT_EQ(effective.size(), 2u);
      storage::Result<BucketParams> back = ParseBucketParameters(effective);
      ASSERT_TRUE(back.ok());
      EXPECT_EQ(*back, p);
    }
  }
  storage::BucketRecord from_s3;  // a bucket made through S3: defaults
  EXPECT_EQ(BucketParamsOf(from_s3), Basic(AccessMode::kNone, false));
}

// Issue 17's keys: every accepted value and every refusal, each naming the key.
TEST(ParamsTest, Issue17BucketParameters) {
  using storage::RetentionMode;
  using storage::VersioningState;
  auto with = [](auto&& edit) {
    BucketParams p;
    edit(p);
    return p;
  };
  auto quota = [&](std::optional<uint64_t> bytes, std::optional<uint64_t> objects) {
    return with([&](BucketParams& p) { p.quota = {bytes, objects}; });
  };
  auto versioning = [&](VersioningState state) {
    return with([&](BucketParams& p) { p.versioning = state; });
  };
  auto locked = [&](std::optional<storage::DefaultRetention> retention) {
    return with([&](BucketParams& p) {
      p.versioning = VersioningState::kEnabled;
      p.object_lock = {.enabled = true, .default_retention = retention};
    });
  };
  auto expire = [&](uint32_t days) {
    return with([&](BucketParams& p) { p.lifecycle = ExpireRule(days); });
  };
  const BucketParams sse_s3 = with([](BucketParams& p) { p.encryption = SseS3Encryption(); });
  const std::vector<BucketParamCase> cases = {
      // quotaBytes, quotaObjects
      {{{"quotaBytes", "1"}}, true, quota(1, {}), ""},
      {{{"quotaBytes", "1073741824"}}, true, quota(1073741824, {}), ""},
      {{{"quotaBytes", "0010"}}, true, quota(10, {}), ""},
      {{{"quotaBytes", "18446744073709551615"}}, true, quota(UINT64_MAX, {}), ""},
      {{{"quotaObjects", "1000"}}, true, quota({}, 1000), ""},
      {{{"quotaBytes", "5"}, {"quotaObjects", "7"}}, true, quota(5, 7), ""},
      {{{"quotaBytes", "0"}}, false, {}, "quotaBytes"},
      {{{"quotaBytes", "18446744073709551616"}}, false, {}, "quotaBytes"},
      {{{"quotaBytes", "1Gi"}}, false, {}, "no unit suffix"},
      {{{"quotaBytes", "1G"}}, false, {}, "quotaBytes"},
      {{{"quotaBytes", "-1"}}, false, {}, "quotaBytes"},
      {{{"quotaBytes", "+1"}}, false, {}, "quotaBytes"},
      {{{"quotaBytes", " 1"}}, false, {}, "quotaBytes"},
      {{{"quotaBytes", "1e9"}}, false, {}, "quotaBytes"},
      {{{"quotaBytes", "1,000"}}, false, {}, "quotaBytes"},
      {{{"quotaBytes", ""}}, false, {}, "quotaBytes"},
      {{{"quotaObjects", "0"}}, false, {}, "quotaObjects"},
      {{{"quotaObjects", "ten"}}, false, {}, "quotaObjects"},
      {{{"QuotaBytes", "1"}}, false, {}, "QuotaBytes"},
      // versioning
      {{{"versioning", "Enabled"}}, true, versioning(VersioningState::kEnabled), ""},
      {{{"versioning", "Suspended"}}, true, versioning(VersioningState::kSuspended), ""},
      {{{"versioning", "enabled"}}, false, {}, "versioning"},
      {{{"versioning", "Disabled"}}, false, {}, "versioning"},
      {{{"versioning", ""}}, false, {}, "versioning"},
      // objectLockEnabled, objectLockMode, objectLockDays
      {{{"objectLockEnabled", "false"}}, true, {}, ""},
      {{{"objectLockEnabled", "false"}, {"versioning", "Suspended"}},
       true,
       versioning(VersioningState::kSuspended),
       ""},
      {{{"objectLockEnabled", "true"}}, true, locked({}), ""},
      {{{"objectLockEnabled", "true"}, {"versioning", "Enabled"}}, true, locked({}), ""},
      {{{"objectLockEnabled", "true"}, {"objectLockMode", "GOVERNANCE"}, {"objectLockDays", "1"}},
       true,
       locked(storage::DefaultRetention{RetentionMode::kGovernance, 1, 0}),
       ""},
      {{{"objectLockEnabled", "true"},
        {"objectLockMode", "COMPLIANCE"},
        {"objectLockDays", "36500"}},
       true,
       locked(storage::DefaultRetention{RetentionMode::kCompliance, 36500, 0}),
       ""},
      {{{"objectLockEnabled", "yes"}}, false, {}, "objectLockEnabled"},
      {{{"objectLockEnabled", "true"}, {"versioning", "Suspended"}}, false, {}, "versioning"},
      {{{"objectLockEnabled", "true"}, {"objectLockMode", "GOVERNANCE"}},
       false,
       {},
       "\"objectLockDays\" is required"},
      {{{"objectLockEnabled", "true"}, {"objectLockDays", "3"}},
       false,
       {},
       "\"objectLockMode\" is required"},
      {{{"objectLockMode", "GOVERNANCE"}, {"objectLockDays", "3"}}, false, {}, "objectLockEnabled"},
      {{{"objectLockEnabled", "false"}, {"objectLockMode", "GOVERNANCE"}, {"objectLockDays", "3"}},
       false,
       {},
       "objectLockEnabled"},
      {{{"objectLockEnabled", "true"}, {"objectLockMode", "governance"}, {"objectLockDays", "3"}},
       false,
       {},
       "objectLockMode"},
      {{{"objectLockEnabled", "true"}, {"objectLockMode", "GOVERNANCE"}, {"objectLockDays", "0"}},
       false,
       {},
       "objectLockDays"},
      {{{"objectLockEnabled", "true"},
        {"objectLockMode", "GOVERNANCE"},
        {"objectLockDays", "36501"}},
       false,
       {},
       "objectLockDays"},
      {{{"objectLockEnabled", "true"}, {"objectLockMode", "GOVERNANCE"}, {"objectLockDays", "1y"}},
       false,
       {},
       "objectLockDays"},
      // expireAfterDays
      {{{"expireAfterDays", "1"}}, true, expire(1), ""},
      {{{"expireAfterDays", "2147483647"}}, true, expire(2147483647), ""},
      {{{"expireAfterDays", "0"}}, false, {}, "expireAfterDays"},
      {{{"expireAfterDays", "2147483648"}}, false, {}, "expireAfterDays"},
      {{{"expireAfterDays", "30d"}}, false, {}, "expireAfterDays"},
      // encryption
      {{{"encryption", "SSE-S3"}}, true, sse_s3, ""},
      {{{"encryption", "AES256"}}, true, sse_s3, ""},
      {{{"encryption", "aws:kms"}}, false, {}, "SSE-KMS needs a KMS key"},
      {{{"encryption", "aws:kms:dsse"}}, false, {}, "SSE-KMS needs a KMS key"},
      {{{"encryption", "SSE-KMS"}}, false, {}, "SSE-KMS needs a KMS key"},
      {{{"encryption", "SSE-C"}}, false, {}, "SSE-C"},
      {{{"encryption", "sse-s3"}}, false, {}, "encryption"},
      {{{"encryption", "none"}}, false, {}, "encryption"},
      // all at once
      {{{"anonymousAccessMode", "ReadOnly"},
        {"forceDelete", "true"},
        {"quotaBytes", "100"},
        {"quotaObjects", "10"},
        {"versioning", "Enabled"},
        {"objectLockEnabled", "true"},
        {"objectLockMode", "GOVERNANCE"},
        {"objectLockDays", "7"},
        {"expireAfterDays", "30"},
        {"encryption", "SSE-S3"}},
       true,
       BucketParams{
           .anonymous = AccessMode::kReadOnly,
           .force_delete = true,
           .versioning = VersioningState::kEnabled,
           .object_lock = {true, storage::DefaultRetention{RetentionMode::kGovernance, 7, 0}},
           .lifecycle = ExpireRule(30),
           .encryption = SseS3Encryption(),
           .quota = {100, 10}},
       ""},
  };
  for (const BucketParamCase& c : cases) {
    const std::string label = DescribeParameters(c.in);
    storage::Result<BucketParams> got = ParseBucketParameters(c.in);
    ASSERT_EQ(got.ok(), c.valid) << label << ": " << got.status().message();
    if (c.valid) {
      EXPECT_EQ(*got, c.want) << label;
      // Every parsed set renders back to parameters that parse to it.
      storage::Result<BucketParams> back = ParseBucketParameters(EffectiveParameters(*got));
      ASSERT_TRUE(back.ok()) << label << ": " << back.status().message();
      EXPECT_EQ(*back, *got) << label;
    } else {
      EXPECT_EQ(got.status().code(), Code::kInvalidArgument) << label;
      EXPECT_NE(got.status().message().find(c.error_part), std::string::npos)
          << label << ": " << got.status().message();
    }
  }
}

TEST(ParamsTest, ExpireRuleAndSseS3Shapes) {
  const storage::LifecycleConfig rule = ExpireRule(30);
  ASSERT_EQ(rule.rules.size(), 1u);
  EXPECT_EQ(rule.rules[0].id, "cosi-expire-after-days");
  EXPECT_TRUE(rule.rules[0].enabled);
  EXPECT_EQ(rule.rules[0].filter, storage::LifecycleFilter{});
  EXPECT_EQ(rule.rules[0].expiration_days, 30u);
  EXPECT_FALSE(rule.rules[0].expiration_date_ms.has_value());
  EXPECT_FALSE(rule.rules[0].noncurrent_days.has_value());
  const storage::BucketEncryption sse = SseS3Encryption();
  ASSERT_EQ(sse.rules.size(), 1u);
  EXPECT_EQ(sse.rules[0].algorithm, storage::SseAlgorithm::kAes256);
  EXPECT_TRUE(sse.rules[0].kms_master_key_id.empty());
  EXPECT_FALSE(sse.rules[0].bucket_key_enabled);
}

// A bucket an older cubby made (or S3 CreateBucket) renders as before issue 17; what no
// parameter can make renders as a description no parameter value equals.
TEST(ParamsTest, EffectiveParametersOfBucketsFromS3) {
  storage::BucketRecord old;
  old.name = "old";
  old.created_by_cosi = true;
  EXPECT_EQ(EffectiveParameters(BucketParamsOf(old)),
            (Parameters{{"anonymousAccessMode", "Private"}, {"forceDelete", "false"}}));

  storage::BucketRecord s3;
  s3.versioning = storage::VersioningState::kEnabled;
  s3.object_lock = {true, storage::DefaultRetention{storage::RetentionMode::kCompliance, 0, 2}};
  s3.lifecycle = ExpireRule(10);
  s3.lifecycle.rules.push_back(s3.lifecycle.rules[0]);
  s3.lifecycle.rules[1].id = "other";
  s3.encryption.rules = {{storage::SseAlgorithm::kAwsKms, "alias/x", true}};
  s3.quota.objects = 3;
  const Parameters effective = EffectiveParameters(BucketParamsOf(s3));
  EXPECT_EQ(effective, (Parameters{{"anonymousAccessMode", "Private"},
                                   {"forceDelete", "false"},
                                   {"versioning", "Enabled"},
                                   {"objectLockEnabled", "true"},
                                   {"objectLockMode", "COMPLIANCE"},
                                   {"objectLockDays", "<2 years>"},
                                   {"expireAfterDays", "<2 lifecycle rules>"},
                                   {"encryption", "<aws:kms default encryption>"},
                                   {"quotaObjects", "3"}}));
  EXPECT_FALSE(ParseBucketParameters(effective).ok());
  // A lifecycle rule like the COSI one under another id is not the COSI rule.
  storage::BucketRecord renamed;
  renamed.lifecycle = ExpireRule(10);
  renamed.lifecycle.rules[0].id = "mine";
  EXPECT_EQ(EffectiveParameters(BucketParamsOf(renamed)).at("expireAfterDays"),
            "<1 lifecycle rules>");
}

struct StatedCase {
  Parameters stated;
  std::string mismatch_part;  // empty: agrees
};

// DriverGetExistingBucket's per-parameter agreement with a bucket set up through S3.
TEST(ParamsTest, StatedParametersMismatch) {
  storage::BucketRecord bucket;
  bucket.anonymous = AccessMode::kReadOnly;
  bucket.force_delete = false;
  bucket.versioning = storage::VersioningState::kEnabled;
  bucket.object_lock = {true, storage::DefaultRetention{storage::RetentionMode::kGovernance, 5, 0}};
  bucket.lifecycle = ExpireRule(30);
  bucket.lifecycle.rules[0].id = "set-through-s3";
  storage::LifecycleRule logs;
  logs.id = "logs";
  logs.filter.prefix = "logs/";
  logs.expiration_days = 7;
  bucket.lifecycle.rules.push_back(logs);
  bucket.encryption.rules = {{storage::SseAlgorithm::kAes256, "", true}};
  bucket.quota = {100, std::nullopt};
  const std::vector<StatedCase> cases = {
      {{}, ""},
      {{{"anonymousAccessMode", "ReadOnly"}}, ""},
      {{{"anonymousAccessMode", "Private"}}, "anonymousAccessMode is ReadOnly, not Private"},
      {{{"forceDelete", "true"}}, ""},
      {{{"versioning", "Enabled"}}, ""},
      {{{"versioning", "Suspended"}}, "versioning is Enabled, not Suspended"},
      {{{"objectLockEnabled", "true"}}, ""},
      {{{"objectLockEnabled", "false"}}, "objectLockEnabled is true, not false"},
      {{{"objectLockEnabled", "true"}, {"objectLockMode", "GOVERNANCE"}, {"objectLockDays", "5"}},
       ""},
      {{{"objectLockEnabled", "true"}, {"objectLockMode", "COMPLIANCE"}, {"objectLockDays", "5"}},
       "objectLockMode is GOVERNANCE, not COMPLIANCE"},
      {{{"objectLockEnabled", "true"}, {"objectLockMode", "GOVERNANCE"}, {"objectLockDays", "6"}},
       "objectLockDays is 5, not 6"},
      {{{"expireAfterDays", "30"}}, ""},  // an enabled whole-bucket rule of 30 days is there
      {{{"expireAfterDays", "7"}}, "expireAfterDays"},  // only under a prefix
      {{{"encryption", "SSE-S3"}}, ""},                 // bucket key or not: SSE-S3
      {{{"quotaBytes", "100"}}, ""},
      {{{"quotaBytes", "101"}}, "quotaBytes is 100, not 101"},
      {{{"quotaObjects", "1"}}, "quotaObjects is unset, not 1"},
      {{{"versioning", "Suspended"}, {"quotaBytes", "1"}},
       "quotaBytes is 100, not 1; versioning is Enabled, not Suspended"},
  };
  for (const StatedCase& c : cases) {
    storage::Result<BucketParams> wanted = ParseBucketParameters(c.stated);
    ASSERT_TRUE(wanted.ok()) << DescribeParameters(c.stated);
    const std::string got = StatedParametersMismatch(c.stated, *wanted, BucketParamsOf(bucket));
    if (c.mismatch_part.empty()) {
      EXPECT_EQ(got, "") << DescribeParameters(c.stated);
    } else {
      EXPECT_NE(got.find(c.mismatch_part), std::string::npos)
          << DescribeParameters(c.stated) << ": " << got;
    }
  }
  // A bucket without any of it: every stated setting but the defaults differs.
  const storage::BucketRecord plain;
  for (const Parameters& stated : std::vector<Parameters>{{{"versioning", "Enabled"}},
                                                          {{"objectLockEnabled", "true"}},
                                                          {{"expireAfterDays", "1"}},
                                                          {{"encryption", "SSE-S3"}},
                                                          {{"quotaObjects", "1"}}}) {
    storage::Result<BucketParams> wanted = ParseBucketParameters(stated);
    ASSERT_TRUE(wanted.ok());
    EXPECT_NE(StatedParametersMismatch(stated, *wanted, BucketParamsOf(plain)), "")
        << DescribeParameters(stated);
  }
  EXPECT_EQ(StatedParametersMismatch({{"objectLockEnabled", "false"}}, {}, BucketParamsOf(plain)),
            "");
}

struct AccessCase {
  Parameters in;
  bool valid;
  AccessMode want;
  std::string error_part;
};

TEST(ParamsTest, AccessParameters) {
  const std::vector<AccessCase> cases = {
      {{}, true, AccessMode::kReadWrite, ""},
      {{{"accessMode", "ReadWrite"}}, true, AccessMode::kReadWrite, ""},
      {{{"accessMode", "ReadOnly"}}, true, AccessMode::kReadOnly, ""},
      {{{"accessMode", "WriteOnly"}}, true, AccessMode::kWriteOnly, ""},
      {{{"accessMode", "Private"}}, false, {}, "accessMode"},
      {{{"accessMode", "rw"}}, false, {}, "accessMode"},
      {{{"accessMode", ""}}, false, {}, "accessMode"},
      {{{"anonymousAccessMode", "ReadOnly"}}, false, {}, "anonymousAccessMode"},
      {{{"AccessMode", "ReadOnly"}}, false, {}, "AccessMode"},
  };
  for (const AccessCase& c : cases) {
    storage::Result<AccessMode> got = ParseAccessParameters(c.in);
    ASSERT_EQ(got.ok(), c.valid) << (c.in.empty() ? "{}" : c.in.begin()->second);
    if (c.valid) {
      EXPECT_EQ(*got, c.want);
    } else {
      EXPECT_EQ(got.status().code(), Code::kInvalidArgument);
      EXPECT_NE(got.status().message().find(c.error_part), std::string::npos)
          << got.status().message();
    }
  }
}

// v1alpha2 suggested names → buckets. The expected values pin the scheme: a name must map to
// the same bucket in every later version, or a retried DriverCreateBucket would make another.
TEST(ParamsTest, DeriveBucketName) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bucket-claim-1", "bucket-claim-1"},  // valid: itself
      {"bc.with.dots", "bc.with.dots"},
      {"Bucket_Claim.Name", "bucket-claim-name-c2bd4359bc22a4f7"},
      {"ab", "ab-fb8e20fc2e4c3f24"},
      {"bc-" + std::string(250, 'a'), "bc-" + std::string(43, 'a') + "-9218277731c6465a"},
      {"---", "cosi-cb3f91d54eee30e5"},
      {"xn--abc..DEF", "xn-abc-def-244d034ff3638029"},
      {"sthree-x_y", "cosi-c720922b53e43c23"},  // "sthree-" is reserved by AWS
      {"bc.with.dots.but.UPPER", "bc-with-dots-but-upper-07fd1233c0f1d5d2"},
  };
  for (const auto& [name, expected] : cases) {
    const std::string derived = DeriveBucketName(name);
    EXPECT_EQ(derived, expected) << name;
    EXPECT_TRUE(storage::ValidateBucketName(derived).ok()) << derived;
    EXPECT_LE(derived.size(), 63u);
    EXPECT_EQ(DeriveBucketName(name), derived);  // deterministic
  }
}

TEST(ParamsTest, DnsSafeBucketNames) {
  EXPECT_TRUE(IsDnsSafeBucketName("bucket-1"));
  EXPECT_FALSE(IsDnsSafeBucketName("bucket.1"));
  EXPECT_FALSE(IsDnsSafeBucketName("Bucket"));
  EXPECT_FALSE(IsDnsSafeBucketName(""));
}

TEST(ParamsTest, GrantParameters) {
  EXPECT_TRUE(ParseGrantParameters({}).ok());
  storage::Status s = ParseGrantParameters({{"accessMode", "ReadOnly"}});
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("accessMode"), std::string::npos) << s.message();
}

TEST(StatusMapTest, EveryCode) {
  const std::vector<std::pair<Code, grpc::StatusCode>> cases = {
      {Code::kOk, grpc::StatusCode::OK},
      {Code::kNoSuchBucket, grpc::StatusCode::NOT_FOUND},
      {Code::kNoSuchKey, grpc::StatusCode::NOT_FOUND},
      {Code::kNoSuchUpload, grpc::StatusCode::NOT_FOUND},
      {Code::kNoSuchAccessKey, grpc::StatusCode::NOT_FOUND},
      {Code::kBucketAlreadyExists, grpc::StatusCode::ALREADY_EXISTS},
      {Code::kBucketNotEmpty, grpc::StatusCode::FAILED_PRECONDITION},
      {Code::kPreconditionFailed, grpc::StatusCode::FAILED_PRECONDITION},
      {Code::kInvalidArgument, grpc::StatusCode::INVALID_ARGUMENT},
      {Code::kInvalidPart, grpc::StatusCode::INVALID_ARGUMENT},
      {Code::kAborted, grpc::StatusCode::ABORTED},
      {Code::kIOError, grpc::StatusCode::UNAVAILABLE},
      {Code::kCorruption, grpc::StatusCode::DATA_LOSS},
      {Code::kNoSpace, grpc::StatusCode::RESOURCE_EXHAUSTED},
      {Code::kNoSuchEntity, grpc::StatusCode::NOT_FOUND},
      {Code::kEntityAlreadyExists, grpc::StatusCode::ALREADY_EXISTS},
      {Code::kDeleteConflict, grpc::StatusCode::FAILED_PRECONDITION},
      {Code::kLimitExceeded, grpc::StatusCode::RESOURCE_EXHAUSTED},
  };
  for (const auto& [code, want] : cases) {
    EXPECT_EQ(ToGrpcCode(code), want) << storage::CodeName(code);
    grpc::Status s =
        ToGrpcStatus(code == Code::kOk ? storage::Status::Ok() : storage::Status(code, "why"));
    EXPECT_EQ(s.error_code(), want);
    if (code != Code::kOk) {
      EXPECT_EQ(s.error_message(), "why");
    }
  }
}

}  // namespace
}  // namespace cubby::cosi
