// Tables for cosi/params.h and cosi/status_map.h: pure functions, no socket, no store.
#include "cosi/params.h"

#include <gtest/gtest.h>

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

struct BucketParamCase {
  Parameters in;
  bool valid;
  BucketParams want;
  std::string error_part;
};

TEST(ParamsTest, BucketParameters) {
  const std::vector<BucketParamCase> cases = {
      {{}, true, {AccessMode::kNone, false}, ""},
      {{{"anonymousAccessMode", "Private"}}, true, {AccessMode::kNone, false}, ""},
      {{{"anonymousAccessMode", "ReadOnly"}}, true, {AccessMode::kReadOnly, false}, ""},
      {{{"anonymousAccessMode", "WriteOnly"}}, true, {AccessMode::kWriteOnly, false}, ""},
      {{{"anonymousAccessMode", "ReadWrite"}}, true, {AccessMode::kReadWrite, false}, ""},
      {{{"forceDelete", "true"}}, true, {AccessMode::kNone, true}, ""},
      {{{"forceDelete", "false"}}, true, {AccessMode::kNone, false}, ""},
      {{{"anonymousAccessMode", "ReadOnly"}, {"forceDelete", "true"}},
       true,
       {AccessMode::kReadOnly, true},
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
  for (AccessMode mode : {AccessMode::kNone, AccessMode::kReadOnly, AccessMode::kWriteOnly,
                          AccessMode::kReadWrite}) {
    for (bool force : {false, true}) {
      BucketParams p{mode, force};
      Parameters effective = EffectiveParameters(p);
      EXPECT_EQ(effective.size(), 2u);
      storage::Result<BucketParams> back = ParseBucketParameters(effective);
      ASSERT_TRUE(back.ok());
      EXPECT_EQ(*back, p);
    }
  }
  storage::BucketRecord from_s3;  // a bucket made through S3: defaults
  EXPECT_EQ(BucketParamsOf(from_s3), (BucketParams{AccessMode::kNone, false}));
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
    grpc::Status s = ToGrpcStatus(code == Code::kOk ? storage::Status::Ok()
                                                    : storage::Status(code, "why"));
    EXPECT_EQ(s.error_code(), want);
    if (code != Code::kOk) {
      EXPECT_EQ(s.error_message(), "why");
    }
  }
}

}  // namespace
}  // namespace cubby::cosi
