// The Identity and Provisioner services through a real gRPC client on the real UNIX socket,
// over a real Store: every rule of the COSI driver and every error code it answers.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cosi/params.h"
#include "cosi_fixture.h"

namespace cubby::cosi::testing {
namespace {

using storage::AccessMode;
using storage::Code;

constexpr char kBucket[] = "bucket-8f14e45f-ceea-467f-a0e6-1a2b3c4d5e6f";

// INVALID_ARGUMENT whose message contains `part`.
void ExpectInvalid(const grpc::Status& s, const std::string& part) {
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find(part), std::string::npos) << s.error_message();
}

class ProvisionerTest : public CosiFixture {};

TEST_F(ProvisionerTest, DriverGetInfoAnswersTheDriverName) {
  v1::DriverGetInfoRequest request;
  v1::DriverGetInfoResponse response;
  grpc::Status s = identity_->DriverGetInfo(Ctx().get(), request, &response);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(response.name(), "cubby.objectstorage.k8s.io");
}

TEST_F(ProvisionerTest, CreateMakesTheBucketNamedExactlyName) {
  v1::DriverCreateBucketResponse response;
  ASSERT_TRUE(Create(kBucket, {}, &response).ok());
  EXPECT_EQ(response.bucket_id(), kBucket);
  ASSERT_TRUE(response.bucket_info().has_s3());
  EXPECT_EQ(response.bucket_info().s3().region(), kRegion);
  EXPECT_EQ(response.bucket_info().s3().signature_version(), v1::S3V4);
  auto bucket = store_->GetBucket(kBucket);
  ASSERT_TRUE(bucket.ok()) << bucket.status().ToString();
  EXPECT_EQ(bucket->anonymous, AccessMode::kNone);
  EXPECT_FALSE(bucket->force_delete);
  EXPECT_TRUE(bucket->created_by_cosi);
  EXPECT_EQ(bucket->cosi_parameters.at("anonymousAccessMode"), "Private");
  EXPECT_EQ(bucket->cosi_parameters.at("forceDelete"), "false");
}

TEST_F(ProvisionerTest, CreateStoresAnonymousModeAndForceDelete) {
  const std::vector<std::pair<std::string, AccessMode>> modes = {
      {"Private", AccessMode::kNone},
      {"ReadOnly", AccessMode::kReadOnly},
      {"WriteOnly", AccessMode::kWriteOnly},
      {"ReadWrite", AccessMode::kReadWrite}};
  int i = 0;
  for (const auto& [name, mode] : modes) {
    const std::string bucket = "bucket-mode-" + std::to_string(i++);
    ASSERT_TRUE(Create(bucket, {{"anonymousAccessMode", name}, {"forceDelete", "true"}}).ok());
    auto record = store_->GetBucket(bucket);
    ASSERT_TRUE(record.ok());
    EXPECT_EQ(record->anonymous, mode) << name;
    EXPECT_TRUE(record->force_delete);
  }
}

TEST_F(ProvisionerTest, CreateIsIdempotentForSameParameters) {
  v1::DriverCreateBucketResponse first, second;
  ASSERT_TRUE(Create(kBucket, {{"anonymousAccessMode", "ReadOnly"}}, &first).ok());
  // Explicit defaults are the same effective parameters.
  ASSERT_TRUE(
      Create(kBucket, {{"anonymousAccessMode", "ReadOnly"}, {"forceDelete", "false"}}, &second)
          .ok());
  EXPECT_EQ(first.bucket_id(), second.bucket_id());
  auto buckets = store_->ListBuckets();
  ASSERT_TRUE(buckets.ok());
  EXPECT_EQ(buckets->size(), 1u);
}

TEST_F(ProvisionerTest, CreateDifferentParametersIsAlreadyExists) {
  ASSERT_TRUE(Create(kBucket, {}).ok());
  grpc::Status s = Create(kBucket, {{"anonymousAccessMode", "ReadWrite"}});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::ALREADY_EXISTS) << s.error_message();
  s = Create(kBucket, {{"forceDelete", "true"}});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::ALREADY_EXISTS) << s.error_message();
  auto record = store_->GetBucket(kBucket);
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->anonymous, AccessMode::kNone);  // unchanged
  EXPECT_FALSE(record->force_delete);
}

TEST_F(ProvisionerTest, CreateAdoptsBucketMadeThroughS3WithDefaultParameters) {
  storage::BucketRecord s3_bucket;
  s3_bucket.name = "made-through-s3";
  ASSERT_TRUE(store_->CreateBucket(s3_bucket).ok());
  v1::DriverCreateBucketResponse response;
  grpc::Status s = Create("made-through-s3", {}, &response);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(response.bucket_id(), "made-through-s3");
  s = Create("made-through-s3", {{"anonymousAccessMode", "Private"}, {"forceDelete", "false"}});
  EXPECT_TRUE(s.ok()) << s.error_message();
  s = Create("made-through-s3", {{"forceDelete", "true"}});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::ALREADY_EXISTS);

  storage::BucketRecord public_bucket;
  public_bucket.name = "public-through-s3";
  public_bucket.anonymous = AccessMode::kReadOnly;
  ASSERT_TRUE(store_->CreateBucket(public_bucket).ok());
  EXPECT_EQ(Create("public-through-s3", {}).error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_TRUE(Create("public-through-s3", {{"anonymousAccessMode", "ReadOnly"}}).ok());
}

TEST_F(ProvisionerTest, CreateRejectsBadNamesAndParameters) {
  ExpectInvalid(Create("", {}), "name is required");
  ExpectInvalid(Create("Bucket-Upper", {}), "lowercase");
  ExpectInvalid(Create("ab", {}), "3 to 63");
  ExpectInvalid(Create("10.0.0.1", {}), "IP address");
  ExpectInvalid(Create("a..b", {}), "adjacent periods");
  ExpectInvalid(Create("xn--abc", {}), "xn--");
  ExpectInvalid(Create("abc-s3alias", {}), "-s3alias");
  ExpectInvalid(Create(std::string(129, 'a'), {}), "128 bytes");
  ExpectInvalid(Create(kBucket, {{"anonymousAccessMode", "Public"}}), "anonymousAccessMode");
  ExpectInvalid(Create(kBucket, {{"forceDelete", "1"}}), "forceDelete");
  ExpectInvalid(Create(kBucket, {{"storageClass", "GLACIER"}}), "storageClass");
  std::map<std::string, std::string> huge;
  for (int i = 0; i < 100; ++i) huge["k" + std::to_string(i)] = std::string(60, 'v');
  ExpectInvalid(Create(kBucket, huge), "4096 bytes");
  auto buckets = store_->ListBuckets();
  ASSERT_TRUE(buckets.ok());
  EXPECT_TRUE(buckets->empty());  // nothing was created by a rejected call
}

// Issue 17: every setting is in the bucket from its first moment, and survives a restart.
TEST_F(ProvisionerTest, CreateAppliesVersioningLockLifecycleEncryptionAndQuota) {
  const std::map<std::string, std::string> params = {
      {"versioning", "Enabled"}, {"objectLockEnabled", "true"}, {"objectLockMode", "COMPLIANCE"},
      {"objectLockDays", "3"},   {"expireAfterDays", "30"},     {"encryption", "SSE-S3"},
      {"quotaBytes", "1048576"}, {"quotaObjects", "100"}};
  ASSERT_TRUE(Create(kBucket, params).ok());
  auto check = [&] {
    auto bucket = store_->GetBucket(kBucket);
    ASSERT_TRUE(bucket.ok()) << bucket.status().ToString();
    EXPECT_EQ(bucket->versioning, storage::VersioningState::kEnabled);
    EXPECT_EQ(store_->BucketVersioning(kBucket), storage::VersioningState::kEnabled);
    EXPECT_TRUE(bucket->object_lock.enabled);
    ASSERT_TRUE(bucket->object_lock.default_retention.has_value());
    EXPECT_EQ(bucket->object_lock.default_retention->mode, storage::RetentionMode::kCompliance);
    EXPECT_EQ(bucket->object_lock.default_retention->days, 3u);
    EXPECT_EQ(bucket->lifecycle, ExpireRule(30));
    EXPECT_EQ(bucket->encryption, SseS3Encryption());
    for (const auto& [key, value] : params) {
      EXPECT_EQ(bucket->cosi_parameters.at(key), value) << key;
    }
  };
  check();
  Restart();
  check();
  // Same parameters after the restart: the same bucket, OK (quota compared once storage keeps
  // it: see CreateWithQuotaIsIdempotent).
  std::map<std::string, std::string> without_quota = params;
  without_quota.erase("quotaBytes");
  without_quota.erase("quotaObjects");
  ASSERT_TRUE(Create("bucket-no-quota", without_quota).ok());
  Restart();
  grpc::Status again = Create("bucket-no-quota", without_quota);
  EXPECT_TRUE(again.ok()) << again.error_message();
}

TEST_F(ProvisionerTest, CreateSuspendedAndLockImpliesEnabled) {
  ASSERT_TRUE(Create("bucket-suspended", {{"versioning", "Suspended"}}).ok());
  EXPECT_EQ(store_->GetBucket("bucket-suspended")->versioning,
            storage::VersioningState::kSuspended);
  EXPECT_EQ(store_->BucketVersioning("bucket-suspended"), storage::VersioningState::kSuspended);
  ASSERT_TRUE(Create("bucket-locked", {{"objectLockEnabled", "true"}}).ok());
  auto locked = store_->GetBucket("bucket-locked");
  ASSERT_TRUE(locked.ok());
  EXPECT_EQ(locked->versioning, storage::VersioningState::kEnabled);
  EXPECT_TRUE(locked->object_lock.enabled);
  EXPECT_FALSE(locked->object_lock.default_retention.has_value());
  // Stating the implied versioning is the same effective parameters.
  EXPECT_TRUE(
      Create("bucket-locked", {{"objectLockEnabled", "true"}, {"versioning", "Enabled"}}).ok());
  // Object lock needs versioning: S3 refuses to suspend a locked bucket's versioning.
  EXPECT_FALSE(
      store_->SetBucketVersioning("bucket-locked", storage::VersioningState::kSuspended).ok());
}

// The quota is kept with the bucket (bucket record format 8) and compared like every other
// parameter.
TEST_F(ProvisionerTest, CreateWithQuotaIsIdempotent) {
  ASSERT_TRUE(Create(kBucket, {{"quotaBytes", "1000"}}).ok());
  auto bucket = store_->GetBucket(kBucket);
  ASSERT_TRUE(bucket.ok());
  EXPECT_EQ(bucket->cosi_parameters.at("quotaBytes"), "1000");
  EXPECT_EQ(bucket->quota.bytes, 1000u);
  EXPECT_FALSE(bucket->quota.objects.has_value());
  EXPECT_TRUE(Create(kBucket, {{"quotaBytes", "1000"}}).ok());
  EXPECT_TRUE(Create(kBucket, {{"quotaBytes", "01000"}}).ok());
  EXPECT_EQ(Create(kBucket, {{"quotaBytes", "1001"}}).error_code(),
            grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(Create(kBucket, {}).error_code(), grpc::StatusCode::ALREADY_EXISTS);
}

TEST_F(ProvisionerTest, CreateWithAChangedIssue17ValueIsAlreadyExists) {
  const std::map<std::string, std::string> base = {
      {"versioning", "Enabled"}, {"objectLockEnabled", "true"}, {"objectLockMode", "GOVERNANCE"},
      {"objectLockDays", "1"},   {"expireAfterDays", "30"},     {"encryption", "SSE-S3"}};
  ASSERT_TRUE(Create(kBucket, base).ok());
  // AES256 is the same encryption as SSE-S3.
  std::map<std::string, std::string> alias = base;
  alias["encryption"] = "AES256";
  EXPECT_TRUE(Create(kBucket, alias).ok());
  const std::vector<std::pair<std::string, std::string>> changes = {
      {"objectLockMode", "COMPLIANCE"},
      {"objectLockDays", "2"},
      {"expireAfterDays", "31"},
      {"quotaBytes", "5"},
      {"quotaObjects", "5"},
  };
  for (const auto& [key, value] : changes) {
    std::map<std::string, std::string> changed = base;
    changed[key] = value;
    grpc::Status s = Create(kBucket, changed);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::ALREADY_EXISTS) << key << ": " << s.error_message();
    EXPECT_NE(s.error_message().find(key + "=" + value), std::string::npos) << s.error_message();
  }
  for (const std::string dropped : {"expireAfterDays", "encryption"}) {
    std::map<std::string, std::string> changed = base;
    changed.erase(dropped);
    grpc::Status s = Create(kBucket, changed);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::ALREADY_EXISTS) << dropped;
    EXPECT_NE(s.error_message().find(dropped + " unset"), std::string::npos) << s.error_message();
  }
  // Without object lock at all: everything lock-related differs.
  grpc::Status s = Create(kBucket, {{"expireAfterDays", "30"}, {"encryption", "SSE-S3"}});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_NE(s.error_message().find("objectLockEnabled unset"), std::string::npos)
      << s.error_message();

  ASSERT_TRUE(Create("bucket-versioned", {{"versioning", "Enabled"}}).ok());
  s = Create("bucket-versioned", {{"versioning", "Suspended"}});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_NE(s.error_message().find("versioning=Suspended"), std::string::npos) << s.error_message();
  EXPECT_EQ(Create("bucket-versioned", {}).error_code(), grpc::StatusCode::ALREADY_EXISTS);
  // Nothing of the refused calls reached the buckets.
  auto bucket = store_->GetBucket(kBucket);
  ASSERT_TRUE(bucket.ok());
  EXPECT_EQ(bucket->lifecycle, ExpireRule(30));
  EXPECT_EQ(bucket->object_lock.default_retention->days, 1u);
  EXPECT_EQ(store_->BucketVersioning("bucket-versioned"), storage::VersioningState::kEnabled);
}

// A bucket an older cubby made through COSI (its record has none of issue 17's settings)
// answers a request without them as before, and one with them as different.
TEST_F(ProvisionerTest, BucketOfAnOlderCubbyComparesEqualWithoutTheNewParameters) {
  storage::BucketRecord old;
  old.name = "bucket-from-older-cubby";
  old.created_by_cosi = true;
  old.cosi_parameters = {{"anonymousAccessMode", "Private"}, {"forceDelete", "false"}};
  ASSERT_TRUE(store_->CreateBucket(old).ok());
  EXPECT_TRUE(Create(old.name, {}).ok());
  EXPECT_TRUE(Create(old.name, {{"objectLockEnabled", "false"}}).ok());
  EXPECT_EQ(Create(old.name, {{"versioning", "Enabled"}}).error_code(),
            grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(Create(old.name, {{"encryption", "SSE-S3"}}).error_code(),
            grpc::StatusCode::ALREADY_EXISTS);
  // A configuration changed through S3 since is what the bucket has now.
  ASSERT_TRUE(store_
                  ->UpdateBucket(old.name,
                                 [](storage::BucketRecord* b) {
                                   b->lifecycle = ExpireRule(9);
                                   return storage::Status::Ok();
                                 })
                  .ok());
  EXPECT_TRUE(Create(old.name, {{"expireAfterDays", "9"}}).ok());
  grpc::Status s = Create(old.name, {});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_NE(s.error_message().find("expireAfterDays=9"), std::string::npos) << s.error_message();
}

TEST_F(ProvisionerTest, CreateRejectsBadIssue17ParametersAndCreatesNothing) {
  ExpectInvalid(Create(kBucket, {{"quotaBytes", "10Gi"}}), "quotaBytes");
  ExpectInvalid(Create(kBucket, {{"quotaObjects", "0"}}), "quotaObjects");
  ExpectInvalid(Create(kBucket, {{"versioning", "On"}}), "versioning");
  ExpectInvalid(Create(kBucket, {{"objectLockEnabled", "1"}}), "objectLockEnabled");
  ExpectInvalid(Create(kBucket, {{"objectLockEnabled", "true"}, {"versioning", "Suspended"}}),
                "versioning");
  ExpectInvalid(Create(kBucket, {{"objectLockMode", "GOVERNANCE"}, {"objectLockDays", "1"}}),
                "objectLockEnabled");
  ExpectInvalid(Create(kBucket, {{"objectLockEnabled", "true"}, {"objectLockDays", "1"}}),
                "objectLockMode");
  ExpectInvalid(Create(kBucket, {{"objectLockEnabled", "true"},
                                 {"objectLockMode", "GOVERNANCE"},
                                 {"objectLockDays", "40000"}}),
                "objectLockDays");
  ExpectInvalid(Create(kBucket, {{"expireAfterDays", "-1"}}), "expireAfterDays");
  ExpectInvalid(Create(kBucket, {{"encryption", "aws:kms"}}), "encryption");
  auto buckets = store_->ListBuckets();
  ASSERT_TRUE(buckets.ok());
  EXPECT_TRUE(buckets->empty());
}

// delete_context carries the whole BucketClass: its issue 17 keys are parsed (and a bad one
// refused) but only forceDelete decides.
TEST_F(ProvisionerTest, DeleteContextWithIssue17Parameters) {
  ASSERT_TRUE(Create(kBucket, {{"versioning", "Enabled"}, {"expireAfterDays", "1"}}).ok());
  ExpectInvalid(Delete(kBucket, {{"versioning", "Sometimes"}}), "versioning");
  EXPECT_TRUE(store_->GetBucket(kBucket).ok());
  EXPECT_TRUE(Delete(kBucket, {{"versioning", "Enabled"}, {"expireAfterDays", "1"}}).ok());
  EXPECT_EQ(store_->GetBucket(kBucket).status().code(), Code::kNoSuchBucket);
}

TEST_F(ProvisionerTest, DeleteUnknownBucketIsOk) {
  EXPECT_TRUE(Delete("no-such-bucket").ok());
  ASSERT_TRUE(Create(kBucket, {}).ok());
  ASSERT_TRUE(Delete(kBucket).ok());
  EXPECT_TRUE(Delete(kBucket).ok());  // retried after success
}

TEST_F(ProvisionerTest, DeleteRejectsMissingOrBadFields) {
  ExpectInvalid(Delete(""), "bucket_id is required");
  ExpectInvalid(Delete(std::string(129, 'a')), "bucket_id");
  ASSERT_TRUE(Create(kBucket, {}).ok());
  ExpectInvalid(Delete(kBucket, {{"forceDelete", "maybe"}}), "forceDelete");
  ExpectInvalid(Delete(kBucket, {{"retain", "true"}}), "retain");
  std::map<std::string, std::string> huge;
  for (int i = 0; i < 100; ++i) huge["k" + std::to_string(i)] = std::string(60, 'v');
  ExpectInvalid(Delete(kBucket, huge), "delete_context");
  EXPECT_TRUE(store_->GetBucket(kBucket).ok());  // still there
}

TEST_F(ProvisionerTest, DeleteEmptyBucket) {
  ASSERT_TRUE(Create(kBucket, {}).ok());
  ASSERT_TRUE(Delete(kBucket, {{"anonymousAccessMode", "Private"}}).ok());
  EXPECT_EQ(store_->GetBucket(kBucket).status().code(), Code::kNoSuchBucket);
}

TEST_F(ProvisionerTest, DeleteNonEmptyWithoutForceIsFailedPreconditionAndTouchesNothing) {
  ASSERT_TRUE(Create(kBucket, {}).ok());
  PutObject(kBucket, "a.txt", "hello");
  v1::DriverGrantBucketAccessResponse grant;
  ASSERT_TRUE(Grant(kBucket, "ba-1", {}, &grant).ok());

  grpc::Status s = Delete(kBucket, {{"forceDelete", "false"}});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(s.error_message().find("not empty"), std::string::npos) << s.error_message();
  EXPECT_TRUE(store_->GetBucket(kBucket).ok());
  EXPECT_TRUE(store_->HeadObject(kBucket, "a.txt").ok());
  EXPECT_TRUE(store_->GetAccessKey(grant.account_id()).ok());  // grant untouched too
}

TEST_F(ProvisionerTest, ForceDeleteFromDeleteContext) {
  ASSERT_TRUE(Create(kBucket, {}).ok());
  PutObject(kBucket, "a.txt", "hello");
  PutObject(kBucket, "dir/b.txt", std::string(100000, 'x'));
  ASSERT_TRUE(Delete(kBucket, {{"forceDelete", "true"}}).ok());
  EXPECT_EQ(store_->GetBucket(kBucket).status().code(), Code::kNoSuchBucket);
  EXPECT_EQ(store_->HeadObject(kBucket, "a.txt").status().code(), Code::kNoSuchBucket);
}

// forceDelete never overrides object lock: a version under a legal hold (or retention)
// keeps the bucket, its objects and its grants.
TEST_F(ProvisionerTest, ForceDeleteOfALockedBucketIsFailedPreconditionAndTouchesNothing) {
  ASSERT_TRUE(Create(kBucket, {{"forceDelete", "true"}}).ok());
  PutObject(kBucket, "a.txt", "hello");
  ASSERT_TRUE(store_->PutObjectLegalHold(kBucket, "a.txt", "", storage::LegalHold::kOn).ok());
  v1::DriverGrantBucketAccessResponse grant;
  ASSERT_TRUE(Grant(kBucket, "ba-1", {}, &grant).ok());

  grpc::Status s = Delete(kBucket, {{"forceDelete", "true"}});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(s.error_message().find("object lock"), std::string::npos) << s.error_message();
  EXPECT_TRUE(store_->HeadObject(kBucket, "a.txt").ok());
  EXPECT_TRUE(store_->GetAccessKey(grant.account_id()).ok());
  // Once the hold is lifted the same request goes through.
  ASSERT_TRUE(store_->PutObjectLegalHold(kBucket, "a.txt", "", storage::LegalHold::kOff).ok());
  ASSERT_TRUE(Delete(kBucket, {{"forceDelete", "true"}}).ok());
  EXPECT_EQ(store_->GetBucket(kBucket).status().code(), Code::kNoSuchBucket);
}

TEST_F(ProvisionerTest, ForceDeleteFromCreateParameters) {
  ASSERT_TRUE(Create(kBucket, {{"forceDelete", "true"}}).ok());
  PutObject(kBucket, "a.txt", "hello");
  // The BucketClass changed meanwhile: the create parameters still allow it.
  ASSERT_TRUE(Delete(kBucket, {{"forceDelete", "false"}}).ok());
  EXPECT_EQ(store_->GetBucket(kBucket).status().code(), Code::kNoSuchBucket);
  // A recreated bucket of the same name is empty.
  ASSERT_TRUE(Create(kBucket, {}).ok());
  auto empty = store_->BucketIsEmpty(kBucket);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(*empty);
}

TEST_F(ProvisionerTest, KeysGrantedOnABucketStopWorkingAfterDelete) {
  ASSERT_TRUE(Create(kBucket, {}).ok());
  v1::DriverGrantBucketAccessResponse a, b;
  ASSERT_TRUE(Grant(kBucket, "ba-a", {}, &a).ok());
  ASSERT_TRUE(Grant(kBucket, "ba-b", {{"accessMode", "ReadOnly"}}, &b).ok());
  ASSERT_TRUE(Delete(kBucket).ok());
  EXPECT_EQ(store_->GetAccessKey(a.account_id()).status().code(), Code::kNoSuchAccessKey);
  EXPECT_EQ(store_->GetAccessKey(b.account_id()).status().code(), Code::kNoSuchAccessKey);
  // Revokes that arrive after the delete are fine.
  EXPECT_TRUE(Revoke(kBucket, a.account_id()).ok());
  EXPECT_TRUE(Revoke(kBucket, b.account_id()).ok());
}

TEST_F(ProvisionerTest, GrantIssuesAKeyForThatBucketOnly) {
  ASSERT_TRUE(Create(kBucket, {}).ok());
  v1::DriverGrantBucketAccessResponse response;
  grpc::Status s = Grant(kBucket, "ba-1", {}, &response);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_EQ(response.credentials().size(), 1u);
  ASSERT_EQ(response.credentials().count("s3"), 1u);
  const auto& secrets = response.credentials().at("s3").secrets();
  EXPECT_EQ(secrets.size(), 4u);
  EXPECT_EQ(secrets.at("accessKeyID"), response.account_id());
  EXPECT_EQ(secrets.at("endpoint"), kEndpoint);
  EXPECT_EQ(secrets.at("region"), kRegion);
  EXPECT_EQ(secrets.at("accessSecretKey").size(), 40u);

  auto key = store_->GetAccessKey(response.account_id());
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  EXPECT_EQ(key->secret.reveal(), secrets.at("accessSecretKey"));
  EXPECT_FALSE(key->all_buckets);
  EXPECT_EQ(key->grant_name, "ba-1");
  ASSERT_EQ(key->grants.size(), 1u);
  EXPECT_EQ(key->grants.at(kBucket), AccessMode::kReadWrite);
}

TEST_F(ProvisionerTest, GrantAccessModes) {
  ASSERT_TRUE(Create(kBucket, {}).ok());
  const std::vector<std::pair<std::string, AccessMode>> modes = {
      {"ReadWrite", AccessMode::kReadWrite},
      {"ReadOnly", AccessMode::kReadOnly},
      {"WriteOnly", AccessMode::kWriteOnly}};
  for (const auto& [name, mode] : modes) {
    v1::DriverGrantBucketAccessResponse response;
    ASSERT_TRUE(Grant(kBucket, "ba-" + name, {{"accessMode", name}}, &response).ok());
    auto key = store_->GetAccessKey(response.account_id());
    ASSERT_TRUE(key.ok());
    EXPECT_EQ(key->grants.at(kBucket), mode) << name;
  }
}

TEST_F(ProvisionerTest, GrantRetryReturnsTheSameKeys) {
  ASSERT_TRUE(Create(kBucket, {}).ok());
  v1::DriverGrantBucketAccessResponse first, second;
  ASSERT_TRUE(Grant(kBucket, "ba-1", {{"accessMode", "ReadOnly"}}, &first).ok());
  ASSERT_TRUE(Grant(kBucket, "ba-1", {{"accessMode", "ReadOnly"}}, &second).ok());
  EXPECT_EQ(first.account_id(), second.account_id());
  EXPECT_EQ(first.credentials().at("s3").secrets().at("accessSecretKey"),
            second.credentials().at("s3").secrets().at("accessSecretKey"));
  auto grants = store_->ListGrants(kBucket);
  ASSERT_TRUE(grants.ok());
  EXPECT_EQ(grants->size(), 1u);
  // A different name is a different grant.
  v1::DriverGrantBucketAccessResponse other;
  ASSERT_TRUE(Grant(kBucket, "ba-2", {}, &other).ok());
  EXPECT_NE(other.account_id(), first.account_id());
}

TEST_F(ProvisionerTest, GrantWithChangedModeIsFailedPreconditionNeverAlreadyExists) {
  ASSERT_TRUE(Create(kBucket, {}).ok());
  v1::DriverGrantBucketAccessResponse first, second;
  ASSERT_TRUE(Grant(kBucket, "ba-1", {{"accessMode", "ReadOnly"}}, &first).ok());
  grpc::Status s = Grant(kBucket, "ba-1", {{"accessMode", "ReadWrite"}}, &second);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << s.error_message();
  EXPECT_NE(s.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_NE(s.error_message().find("ReadOnly"), std::string::npos);
  EXPECT_TRUE(second.account_id().empty());
  auto key = store_->GetAccessKey(first.account_id());
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(key->grants.at(kBucket), AccessMode::kReadOnly);  // unchanged
}

TEST_F(ProvisionerTest, GrantToUnknownBucketIsNotFound) {
  grpc::Status s = Grant("no-such-bucket", "ba-1");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND) << s.error_message();
  EXPECT_NE(s.error_message().find("no-such-bucket"), std::string::npos);
}

TEST_F(ProvisionerTest, GrantRejectsMissingOrBadFields) {
  ASSERT_TRUE(Create(kBucket, {}).ok());
  ExpectInvalid(Grant("", "ba-1"), "bucket_id is required");
  ExpectInvalid(Grant(kBucket, ""), "name is required");
  ExpectInvalid(Grant(std::string(129, 'b'), "ba-1"), "bucket_id");
  ExpectInvalid(Grant(kBucket, std::string(129, 'n')), "name");
  ExpectInvalid(Grant(kBucket, "ba-1", {}, nullptr, v1::UnknownAuthenticationType),
                "authentication_type is required");
  ExpectInvalid(Grant(kBucket, "ba-1", {}, nullptr, v1::IAM), "IAM is not supported");
  ExpectInvalid(Grant(kBucket, "ba-1", {}, nullptr, static_cast<v1::AuthenticationType>(7)),
                "authentication_type");
  ExpectInvalid(Grant(kBucket, "ba-1", {{"accessMode", "Admin"}}), "accessMode");
  ExpectInvalid(Grant(kBucket, "ba-1", {{"policy", "x"}}), "policy");
  std::map<std::string, std::string> huge;
  for (int i = 0; i < 100; ++i) huge["k" + std::to_string(i)] = std::string(60, 'v');
  ExpectInvalid(Grant(kBucket, "ba-1", huge), "parameters");
  auto grants = store_->ListGrants(kBucket);
  ASSERT_TRUE(grants.ok());
  EXPECT_TRUE(grants->empty());  // no key was issued by a rejected call
}

TEST_F(ProvisionerTest, RevokeDeletesTheKey) {
  ASSERT_TRUE(Create(kBucket, {}).ok());
  v1::DriverGrantBucketAccessResponse grant;
  ASSERT_TRUE(Grant(kBucket, "ba-1", {}, &grant).ok());
  ASSERT_TRUE(store_->GetAccessKey(grant.account_id()).ok());
  ASSERT_TRUE(Revoke(kBucket, grant.account_id()).ok());
  EXPECT_EQ(store_->GetAccessKey(grant.account_id()).status().code(), Code::kNoSuchAccessKey);
  auto grants = store_->ListGrants(kBucket);
  ASSERT_TRUE(grants.ok());
  EXPECT_TRUE(grants->empty());
  EXPECT_TRUE(Revoke(kBucket, grant.account_id()).ok());  // retried
  // A grant under the same name afterwards is a new key.
  v1::DriverGrantBucketAccessResponse again;
  ASSERT_TRUE(Grant(kBucket, "ba-1", {}, &again).ok());
  EXPECT_NE(again.account_id(), grant.account_id());
}

TEST_F(ProvisionerTest, RevokeEmptyOrUnknownIsOk) {
  EXPECT_TRUE(Revoke(kBucket, "").ok());  // grant never completed
  EXPECT_TRUE(Revoke("", "").ok());
  EXPECT_TRUE(Revoke(kBucket, "CBNOSUCHKEY0000000000").ok());
  EXPECT_TRUE(Revoke("no-such-bucket", "CBNOSUCHKEY0000000000").ok());
  ExpectInvalid(Revoke("", "CBNOSUCHKEY0000000000"), "bucket_id is required");
  ExpectInvalid(Revoke(kBucket, std::string(129, 'K')), "account_id");
}

TEST_F(ProvisionerTest, RevokeLeavesKeysThatAreNotAGrantOnThatBucket) {
  ASSERT_TRUE(Create(kBucket, {}).ok());
  ASSERT_TRUE(Create("other-bucket", {}).ok());
  v1::DriverGrantBucketAccessResponse grant;
  ASSERT_TRUE(Grant("other-bucket", "ba-1", {}, &grant).ok());
  EXPECT_TRUE(Revoke(kBucket, grant.account_id()).ok());
  EXPECT_TRUE(store_->GetAccessKey(grant.account_id()).ok());

  storage::AccessKeyRecord root;
  root.access_key_id = "CBROOTKEY00000000000";
  root.secret = storage::SecretKey("root-secret-root-secret-root-secret-0000");
  root.all_buckets = true;
  ASSERT_TRUE(store_->PutAccessKey(root).ok());
  EXPECT_TRUE(Revoke(kBucket, root.access_key_id).ok());
  EXPECT_TRUE(store_->GetAccessKey(root.access_key_id).ok());
}

}  // namespace
}  // namespace cubby::cosi::testing
