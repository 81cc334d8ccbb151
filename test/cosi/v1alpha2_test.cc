// The sigs.k8s.io.cosi.v1alpha2 Identity and Provisioner services through a real gRPC client on
// the real UNIX socket, beside a v1alpha1 client on the same socket: every rule and error code
// of the v1alpha2 driver, shared data between the versions, and restart persistence.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cosi/params.h"
#include "cosi_fixture.h"
#include "storage/bucket_name.h"
#include "storage/users.h"

namespace cubby::cosi::testing {
namespace {

using storage::AccessMode;
using storage::Code;

using Modes = std::vector<std::pair<std::string, v2::AccessMode::Mode>>;

void ExpectCode(const grpc::Status& s, grpc::StatusCode code, const std::string& part = "") {
  EXPECT_EQ(s.error_code(), code) << s.error_message();
  EXPECT_NE(s.error_message().find(part), std::string::npos) << s.error_message();
}

class V1alpha2Test : public CosiFixture {
 protected:
  grpc::Status Create2(const std::string& name, const std::map<std::string, std::string>& params,
                       v2::DriverCreateBucketResponse* response = nullptr,
                       std::vector<v2::ObjectProtocol::Type> protocols = {}) {
    v2::DriverCreateBucketRequest request;
    request.set_name(name);
    for (v2::ObjectProtocol::Type type : protocols) request.add_protocols()->set_type(type);
    for (const auto& [k, v] : params) (*request.mutable_parameters())[k] = v;
    v2::DriverCreateBucketResponse ignored;
    return provisioner2_->DriverCreateBucket(Ctx().get(), request, response ? response : &ignored);
  }

  grpc::Status GetExisting(const std::string& id,
                           const std::map<std::string, std::string>& params = {},
                           v2::DriverGetExistingBucketResponse* response = nullptr,
                           std::vector<v2::ObjectProtocol::Type> protocols = {}) {
    v2::DriverGetExistingBucketRequest request;
    request.set_existing_bucket_id(id);
    for (v2::ObjectProtocol::Type type : protocols) request.add_protocols()->set_type(type);
    for (const auto& [k, v] : params) (*request.mutable_parameters())[k] = v;
    v2::DriverGetExistingBucketResponse ignored;
    return provisioner2_->DriverGetExistingBucket(Ctx().get(), request,
                                                  response ? response : &ignored);
  }

  grpc::Status Delete2(const std::string& id,
                       const std::map<std::string, std::string>& params = {}) {
    v2::DriverDeleteBucketRequest request;
    request.set_bucket_id(id);
    for (const auto& [k, v] : params) (*request.mutable_parameters())[k] = v;
    v2::DriverDeleteBucketResponse response;
    return provisioner2_->DriverDeleteBucket(Ctx().get(), request, &response);
  }

  static v2::DriverGrantBucketAccessRequest GrantRequest(const std::string& account,
                                                         const Modes& buckets) {
    v2::DriverGrantBucketAccessRequest request;
    request.set_account_name(account);
    request.mutable_protocol()->set_type(v2::ObjectProtocol::S3);
    request.mutable_authentication_type()->set_type(v2::AuthenticationType::KEY);
    for (const auto& [bucket, mode] : buckets) {
      auto* accessed = request.add_buckets();
      accessed->set_bucket_id(bucket);
      accessed->mutable_access_mode()->set_mode(mode);
    }
    return request;
  }

  grpc::Status Grant2(const v2::DriverGrantBucketAccessRequest& request,
                      v2::DriverGrantBucketAccessResponse* response = nullptr) {
    v2::DriverGrantBucketAccessResponse ignored;
    return provisioner2_->DriverGrantBucketAccess(Ctx().get(), request,
                                                  response ? response : &ignored);
  }

  grpc::Status Grant2(const std::string& account, const Modes& buckets,
                      v2::DriverGrantBucketAccessResponse* response = nullptr) {
    return Grant2(GrantRequest(account, buckets), response);
  }

  grpc::Status Revoke2(const std::string& account_id) {
    v2::DriverRevokeBucketAccessRequest request;
    request.set_account_id(account_id);
    v2::DriverRevokeBucketAccessResponse response;
    return provisioner2_->DriverRevokeBucketAccess(Ctx().get(), request, &response);
  }
};

std::string LongName(size_t size, char fill = 'a') {
  std::string name = "bc-" + std::string(size - 3, fill);
  return name;
}

TEST_F(V1alpha2Test, BothVersionsAnswerGetInfoOnTheSameSocket) {
  v1::DriverGetInfoResponse info1;
  v2::DriverGetInfoResponse info2;
  grpc::Status s1 = identity_->DriverGetInfo(Ctx().get(), {}, &info1);
  grpc::Status s2 = identity2_->DriverGetInfo(Ctx().get(), {}, &info2);
  ASSERT_TRUE(s1.ok()) << s1.error_message();
  ASSERT_TRUE(s2.ok()) << s2.error_message();
  EXPECT_EQ(info1.name(), "cubby.objectstorage.k8s.io");
  EXPECT_EQ(info2.name(), "cubby.objectstorage.k8s.io");
  ASSERT_EQ(info2.supported_protocols_size(), 1);
  EXPECT_EQ(info2.supported_protocols(0).type(), v2::ObjectProtocol::S3);
}

TEST_F(V1alpha2Test, CreateAnswersS3InfoWithPathStyleWithoutDomain) {
  v2::DriverCreateBucketResponse response;
  ASSERT_TRUE(Create2("bc-plain", {}, &response).ok());
  EXPECT_EQ(response.bucket_id(), "bc-plain");
  ASSERT_TRUE(response.protocols().has_s3());
  const v2::S3BucketInfo& s3 = response.protocols().s3();
  EXPECT_EQ(s3.bucket_id(), "bc-plain");
  EXPECT_EQ(s3.endpoint(), kEndpoint);
  EXPECT_EQ(s3.region(), kRegion);
  EXPECT_EQ(s3.addressing_style().style(), v2::S3AddressingStyle::PATH);
  EXPECT_FALSE(response.protocols().has_azure());
  EXPECT_FALSE(response.protocols().has_gcs());
  auto bucket = store_->GetBucket("bc-plain");
  ASSERT_TRUE(bucket.ok()) << bucket.status().ToString();
  EXPECT_TRUE(bucket->created_by_cosi);
  EXPECT_EQ(bucket->cosi_parameters.at("anonymousAccessMode"), "Private");
}

TEST_F(V1alpha2Test, AddressingStyleIsVirtualWithDomainForDnsSafeNames) {
  StopListener();
  options_.domain = "s3.example.test";
  StartListener();
  v2::DriverCreateBucketResponse plain, dotted;
  ASSERT_TRUE(Create2("bc-virtual", {}, &plain).ok());
  EXPECT_EQ(plain.protocols().s3().addressing_style().style(), v2::S3AddressingStyle::VIRTUAL);
  ASSERT_TRUE(Create2("bc.with.dots", {}, &dotted).ok());
  EXPECT_EQ(dotted.bucket_id(), "bc.with.dots");
  EXPECT_EQ(dotted.protocols().s3().addressing_style().style(), v2::S3AddressingStyle::PATH);
  v2::DriverGetExistingBucketResponse existing;
  ASSERT_TRUE(GetExisting("bc-virtual", {}, &existing).ok());
  EXPECT_EQ(existing.protocols().s3().addressing_style().style(), v2::S3AddressingStyle::VIRTUAL);
}

TEST_F(V1alpha2Test, CreateProtocols) {
  EXPECT_TRUE(Create2("bc-p1", {}, nullptr, {}).ok());
  EXPECT_TRUE(Create2("bc-p2", {}, nullptr, {v2::ObjectProtocol::S3}).ok());
  ExpectCode(Create2("bc-p3", {}, nullptr, {v2::ObjectProtocol::AZURE}),
             grpc::StatusCode::INVALID_ARGUMENT, "AZURE");
  ExpectCode(Create2("bc-p3", {}, nullptr, {v2::ObjectProtocol::GCS}),
             grpc::StatusCode::INVALID_ARGUMENT, "GCS");
  ExpectCode(Create2("bc-p3", {}, nullptr, {v2::ObjectProtocol::UNKNOWN}),
             grpc::StatusCode::INVALID_ARGUMENT, "UNKNOWN");
  ExpectCode(Create2("bc-p3", {}, nullptr, {v2::ObjectProtocol::S3, v2::ObjectProtocol::GCS}),
             grpc::StatusCode::INVALID_ARGUMENT, "GCS");
  ExpectCode(Create2("bc-p3", {}, nullptr, {static_cast<v2::ObjectProtocol::Type>(42)}),
             grpc::StatusCode::INVALID_ARGUMENT, "unknown value");
  EXPECT_EQ(store_->GetBucket("bc-p3").status().code(), Code::kNoSuchBucket);
}

TEST_F(V1alpha2Test, LongSuggestedNamesMapToADeterministicValidBucket) {
  const std::string name = LongName(253);
  v2::DriverCreateBucketResponse first, again;
  ASSERT_TRUE(Create2(name, {}, &first).ok());
  const std::string bucket = first.bucket_id();
  EXPECT_NE(bucket, name);
  EXPECT_TRUE(storage::ValidateBucketName(bucket).ok()) << bucket;
  EXPECT_EQ(bucket, DeriveBucketName(name));
  EXPECT_EQ(bucket.rfind("bc-aaaa", 0), 0u) << bucket;
  EXPECT_EQ(first.protocols().s3().bucket_id(), bucket);
  EXPECT_TRUE(store_->GetBucket(bucket).ok());
  // Same name → same bucket and answer; a name differing in one character → another bucket.
  ASSERT_TRUE(Create2(name, {}, &again).ok());
  EXPECT_EQ(again.SerializeAsString(), first.SerializeAsString());
  std::string other_name = name;
  other_name[200] = 'b';
  v2::DriverCreateBucketResponse other;
  ASSERT_TRUE(Create2(other_name, {}, &other).ok());
  EXPECT_NE(other.bucket_id(), bucket);
  // Different parameters under the same long name → ALREADY_EXISTS.
  ExpectCode(Create2(name, {{"forceDelete", "true"}}), grpc::StatusCode::ALREADY_EXISTS,
             "forceDelete=false");
  // Other names that S3 refuses: upper case, underscores, too short.
  for (const std::string& bad : {std::string("Bucket_Claim.Name"), std::string("ab")}) {
    v2::DriverCreateBucketResponse derived;
    ASSERT_TRUE(Create2(bad, {}, &derived).ok()) << bad;
    EXPECT_TRUE(storage::ValidateBucketName(derived.bucket_id()).ok()) << derived.bucket_id();
  }
  // Beyond the field's 253 characters → INVALID_ARGUMENT.
  ExpectCode(Create2(LongName(254), {}), grpc::StatusCode::INVALID_ARGUMENT, "name");
}

TEST_F(V1alpha2Test, CreateIdempotencyAndParameterErrors) {
  v2::DriverCreateBucketResponse a, b;
  ASSERT_TRUE(Create2("bc-idem", {{"anonymousAccessMode", "ReadOnly"}}, &a).ok());
  ASSERT_TRUE(Create2("bc-idem", {{"anonymousAccessMode", "ReadOnly"}}, &b).ok());
  EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString());
  ExpectCode(Create2("bc-idem", {}), grpc::StatusCode::ALREADY_EXISTS, "anonymousAccessMode");
  ExpectCode(Create2("", {}), grpc::StatusCode::INVALID_ARGUMENT, "name is required");
  ExpectCode(Create2("bc-x", {{"color", "blue"}}), grpc::StatusCode::INVALID_ARGUMENT, "color");
  ExpectCode(Create2("bc-x", {{"forceDelete", "yes"}}), grpc::StatusCode::INVALID_ARGUMENT,
             "forceDelete");
  ExpectCode(Create2("bc-x", {{"k", std::string(5000, 'v')}}), grpc::StatusCode::INVALID_ARGUMENT,
             "parameters");
}

TEST_F(V1alpha2Test, BucketsAreSharedBetweenVersions) {
  ASSERT_TRUE(Create("bc-from-v1", {{"forceDelete", "true"}}).ok());
  v2::DriverCreateBucketResponse response;
  ASSERT_TRUE(Create2("bc-from-v1", {{"forceDelete", "true"}}, &response).ok());
  EXPECT_EQ(response.bucket_id(), "bc-from-v1");
  ExpectCode(Create2("bc-from-v1", {}), grpc::StatusCode::ALREADY_EXISTS);
  ASSERT_TRUE(Create2("bc-from-v2", {}).ok());
  EXPECT_TRUE(Create("bc-from-v2", {}).ok());
}

TEST_F(V1alpha2Test, GetExistingBucket) {
  // Made through S3 (the store directly, as CreateBucket does), through v1alpha1, through v2.
  storage::BucketRecord s3_bucket;
  s3_bucket.name = "bc-static";
  ASSERT_TRUE(store_->CreateBucket(s3_bucket).ok());
  ASSERT_TRUE(Create("bc-v1", {}).ok());
  for (const std::string id : {"bc-static", "bc-v1"}) {
    v2::DriverGetExistingBucketResponse response;
    grpc::Status s = GetExisting(id, {}, &response, {v2::ObjectProtocol::S3});
    ASSERT_TRUE(s.ok()) << id << ": " << s.error_message();
    EXPECT_EQ(response.bucket_id(), id);
    EXPECT_EQ(response.protocols().s3().bucket_id(), id);
    EXPECT_EQ(response.protocols().s3().endpoint(), kEndpoint);
    EXPECT_EQ(response.protocols().s3().region(), kRegion);
    EXPECT_EQ(response.protocols().s3().addressing_style().style(), v2::S3AddressingStyle::PATH);
  }
  EXPECT_TRUE(
      GetExisting("bc-static", {{"anonymousAccessMode", "Private"}, {"forceDelete", "true"}}).ok());
  ExpectCode(GetExisting("bc-static", {{"anonymousAccessMode", "ReadWrite"}}),
             grpc::StatusCode::ALREADY_EXISTS, "anonymousAccessMode");
  ExpectCode(GetExisting("bc-missing"), grpc::StatusCode::NOT_FOUND, "bc-missing");
  ExpectCode(GetExisting(""), grpc::StatusCode::INVALID_ARGUMENT, "existing_bucket_id");
  ExpectCode(GetExisting("bc-static", {{"color", "blue"}}), grpc::StatusCode::INVALID_ARGUMENT,
             "color");
  ExpectCode(GetExisting("bc-static", {}, nullptr, {v2::ObjectProtocol::AZURE}),
             grpc::StatusCode::INVALID_ARGUMENT, "AZURE");
}

// Issue 17 through v1alpha2: the same settings as v1alpha1, in the bucket from its creation.
TEST_F(V1alpha2Test, CreateAppliesIssue17ParametersAndComparesThem) {
  const std::map<std::string, std::string> params = {{"objectLockEnabled", "true"},
                                                     {"objectLockMode", "GOVERNANCE"},
                                                     {"objectLockDays", "2"},
                                                     {"expireAfterDays", "14"},
                                                     {"encryption", "AES256"}};
  v2::DriverCreateBucketResponse first, again;
  ASSERT_TRUE(Create2("Claim_With_Settings", params, &first).ok());
  const std::string bucket = first.bucket_id();
  auto record = store_->GetBucket(bucket);
  ASSERT_TRUE(record.ok()) << record.status().ToString();
  EXPECT_EQ(record->versioning, storage::VersioningState::kEnabled);
  EXPECT_TRUE(record->object_lock.enabled);
  EXPECT_EQ(record->object_lock.default_retention,
            (storage::DefaultRetention{storage::RetentionMode::kGovernance, 2, 0}));
  EXPECT_EQ(record->lifecycle, ExpireRule(14));
  EXPECT_EQ(record->encryption, SseS3Encryption());
  EXPECT_EQ(record->cosi_parameters.at("encryption"), "SSE-S3");   // canonical name
  EXPECT_EQ(record->cosi_parameters.at("versioning"), "Enabled");  // implied by object lock
  ASSERT_TRUE(Create2("Claim_With_Settings", params, &again).ok());
  EXPECT_EQ(again.SerializeAsString(), first.SerializeAsString());
  std::map<std::string, std::string> changed = params;
  changed["expireAfterDays"] = "15";
  ExpectCode(Create2("Claim_With_Settings", changed), grpc::StatusCode::ALREADY_EXISTS,
             "expireAfterDays=15");
  // The same bucket through v1alpha1: same parameters OK, others ALREADY_EXISTS.
  EXPECT_TRUE(Create(bucket, params).ok());
  ExpectCode(Create(bucket, {}), grpc::StatusCode::ALREADY_EXISTS, "objectLockEnabled=true");
  ExpectCode(Create2("bc-x", {{"objectLockDays", "1"}}), grpc::StatusCode::INVALID_ARGUMENT,
             "objectLockMode");
  ExpectCode(Create2("bc-x", {{"encryption", "SSE-KMS"}}), grpc::StatusCode::INVALID_ARGUMENT,
             "encryption");
  EXPECT_EQ(store_->GetBucket("bc-x").status().code(), Code::kNoSuchBucket);
  ASSERT_TRUE(Create2("bc-suspended", {{"versioning", "Suspended"}}).ok());
  EXPECT_EQ(store_->BucketVersioning("bc-suspended"), storage::VersioningState::kSuspended);
}

// A static bucket keeps its own configuration: the stated parameters must agree, and the call
// never changes the bucket.
TEST_F(V1alpha2Test, GetExistingComparesStatedIssue17Parameters) {
  storage::BucketRecord s3_bucket;
  s3_bucket.name = "bc-configured";
  s3_bucket.versioning = storage::VersioningState::kSuspended;
  s3_bucket.lifecycle = ExpireRule(30);
  s3_bucket.lifecycle.rules[0].id = "made-through-s3";
  s3_bucket.encryption = SseS3Encryption();
  ASSERT_TRUE(store_->CreateBucket(s3_bucket).ok());
  EXPECT_TRUE(GetExisting("bc-configured", {{"versioning", "Suspended"}}).ok());
  EXPECT_TRUE(GetExisting("bc-configured", {{"expireAfterDays", "30"}}).ok());
  EXPECT_TRUE(GetExisting("bc-configured", {{"encryption", "SSE-S3"}}).ok());
  EXPECT_TRUE(GetExisting("bc-configured", {{"objectLockEnabled", "false"}}).ok());
  EXPECT_TRUE(GetExisting("bc-configured", {{"forceDelete", "true"}}).ok());
  // Unstated settings are the bucket's own business.
  EXPECT_TRUE(GetExisting("bc-configured", {{"anonymousAccessMode", "Private"}}).ok());
  ExpectCode(GetExisting("bc-configured", {{"versioning", "Enabled"}}),
             grpc::StatusCode::ALREADY_EXISTS, "versioning is Suspended, not Enabled");
  ExpectCode(GetExisting("bc-configured", {{"expireAfterDays", "31"}}),
             grpc::StatusCode::ALREADY_EXISTS, "expireAfterDays");
  ExpectCode(GetExisting("bc-configured", {{"objectLockEnabled", "true"}}),
             grpc::StatusCode::ALREADY_EXISTS, "objectLockEnabled is false, not true");
  ExpectCode(GetExisting("bc-configured", {{"quotaObjects", "10"}}),
             grpc::StatusCode::ALREADY_EXISTS, "quotaObjects is unset, not 10");
  ExpectCode(GetExisting("bc-configured", {{"quotaBytes", "1T"}}),
             grpc::StatusCode::INVALID_ARGUMENT, "quotaBytes");
  storage::BucketRecord plain;
  plain.name = "bc-plain-static";
  ASSERT_TRUE(store_->CreateBucket(plain).ok());
  ExpectCode(GetExisting("bc-plain-static", {{"encryption", "SSE-S3"}}),
             grpc::StatusCode::ALREADY_EXISTS, "encryption is unset, not SSE-S3");
  // Nothing was changed by any of it.
  auto record = store_->GetBucket("bc-configured");
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->versioning, storage::VersioningState::kSuspended);
  EXPECT_EQ(record->lifecycle.rules.at(0).id, "made-through-s3");
  EXPECT_FALSE(record->object_lock.enabled);
  EXPECT_TRUE(store_->GetBucket("bc-plain-static")->encryption.rules.empty());
}

TEST_F(V1alpha2Test, DeleteBucket) {
  EXPECT_TRUE(Delete2("bc-never-made").ok());
  ExpectCode(Delete2(""), grpc::StatusCode::INVALID_ARGUMENT, "bucket_id");
  ASSERT_TRUE(Create2("bc-del", {}).ok());
  PutObject("bc-del", "k", "v");
  ExpectCode(Delete2("bc-del"), grpc::StatusCode::FAILED_PRECONDITION, "forceDelete");
  EXPECT_TRUE(store_->GetBucket("bc-del").ok());
  ExpectCode(Delete2("bc-del", {{"forceDelete", "maybe"}}), grpc::StatusCode::INVALID_ARGUMENT,
             "forceDelete");
  EXPECT_TRUE(Delete2("bc-del", {{"forceDelete", "true"}}).ok());
  EXPECT_EQ(store_->GetBucket("bc-del").status().code(), Code::kNoSuchBucket);
  EXPECT_TRUE(Delete2("bc-del").ok());  // idempotent
  // forceDelete from the create parameters.
  ASSERT_TRUE(Create2("bc-del2", {{"forceDelete", "true"}}).ok());
  PutObject("bc-del2", "k", "v");
  EXPECT_TRUE(Delete2("bc-del2").ok());
}

TEST_F(V1alpha2Test, MultiBucketGrantIsOneKeyConfinedToThoseBucketsAndModes) {
  for (const char* b : {"bc-rw", "bc-ro", "bc-wo", "bc-other"}) ASSERT_TRUE(Create2(b, {}).ok());
  v2::DriverGrantBucketAccessResponse response;
  grpc::Status s = Grant2("ba-multi",
                          {{"bc-rw", v2::AccessMode::READ_WRITE},
                           {"bc-ro", v2::AccessMode::READ_ONLY},
                           {"bc-wo", v2::AccessMode::WRITE_ONLY}},
                          &response);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_FALSE(response.account_id().empty());
  EXPECT_EQ(response.credentials().s3().access_key_id(), response.account_id());
  EXPECT_FALSE(response.credentials().s3().access_secret_key().empty());
  ASSERT_EQ(response.buckets_size(), 3);
  const char* order[] = {"bc-rw", "bc-ro", "bc-wo"};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(response.buckets(i).bucket_id(), order[i]);
    EXPECT_EQ(response.buckets(i).bucket_info().s3().bucket_id(), order[i]);
    EXPECT_EQ(response.buckets(i).bucket_info().s3().endpoint(), kEndpoint);
  }
  auto key = store_->GetAccessKey(response.account_id());
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  EXPECT_FALSE(key->all_buckets);
  EXPECT_EQ(key->grant_name, "ba-multi");
  EXPECT_EQ(key->secret.reveal(), response.credentials().s3().access_secret_key());
  const std::map<std::string, AccessMode> expected = {{"bc-rw", AccessMode::kReadWrite},
                                                      {"bc-ro", AccessMode::kReadOnly},
                                                      {"bc-wo", AccessMode::kWriteOnly}};
  EXPECT_EQ(key->grants, expected);
  // Each bucket lists it; the other bucket does not.
  for (const char* b : order) {
    auto grants = store_->ListGrants(b);
    ASSERT_TRUE(grants.ok());
    ASSERT_EQ(grants->size(), 1u) << b;
    EXPECT_EQ((*grants)[0].access_key_id, response.account_id());
  }
  EXPECT_TRUE(store_->ListGrants("bc-other")->empty());
}

TEST_F(V1alpha2Test, GrantIdempotencyIsKeyedOnAccountName) {
  for (const char* b : {"bc-g1", "bc-g2", "bc-g3"}) ASSERT_TRUE(Create2(b, {}).ok());
  const Modes modes = {{"bc-g1", v2::AccessMode::READ_WRITE}, {"bc-g2", v2::AccessMode::READ_ONLY}};
  v2::DriverGrantBucketAccessResponse first, again;
  ASSERT_TRUE(Grant2("ba-idem", modes, &first).ok());
  ASSERT_TRUE(Grant2("ba-idem", modes, &again).ok());
  EXPECT_EQ(again.SerializeAsString(), first.SerializeAsString());
  // Same buckets in another order: the same grant.
  ASSERT_TRUE(Grant2("ba-idem", {modes[1], modes[0]}, &again).ok());
  EXPECT_EQ(again.account_id(), first.account_id());
  EXPECT_EQ(again.credentials().s3().access_secret_key(),
            first.credentials().s3().access_secret_key());
  // Any difference → ALREADY_EXISTS, and the key is unchanged.
  const std::vector<Modes> different = {
      {{"bc-g1", v2::AccessMode::READ_WRITE}, {"bc-g2", v2::AccessMode::READ_WRITE}},
      {{"bc-g1", v2::AccessMode::READ_WRITE}},
      {{"bc-g1", v2::AccessMode::READ_WRITE},
       {"bc-g2", v2::AccessMode::READ_ONLY},
       {"bc-g3", v2::AccessMode::READ_ONLY}},
      {{"bc-g3", v2::AccessMode::READ_ONLY}},  // no bucket in common
  };
  for (const Modes& m : different) {
    v2::DriverGrantBucketAccessResponse refused;
    ExpectCode(Grant2("ba-idem", m, &refused), grpc::StatusCode::ALREADY_EXISTS, "ba-idem");
    EXPECT_TRUE(refused.account_id().empty());
    EXPECT_FALSE(refused.has_credentials());  // no secret in a refusal
  }
  auto key = store_->GetAccessKey(first.account_id());
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(key->grants.size(), 2u);
  EXPECT_TRUE(store_->ListGrants("bc-g3")->empty());
}

// An account name that cannot name an IAM user (longer than 64 characters) or whose name a
// user already has is found again by name too: a retry on buckets that share none with the
// grant is ALREADY_EXISTS, never a second key.
TEST_F(V1alpha2Test, GrantIdempotencyHoldsForNamesNoUserCanHave) {
  for (const char* b : {"bc-l1", "bc-l2"}) ASSERT_TRUE(Create2(b, {}).ok());
  storage::UserRecord alice;
  alice.name = "ba-taken";
  ASSERT_TRUE(store_->CreateUser(alice).ok());
  for (const std::string& name : {"ba-" + std::string(250, 'x'), std::string("ba-taken")}) {
    SCOPED_TRACE(name.substr(0, 20));
    const Modes one = {{"bc-l1", v2::AccessMode::READ_WRITE}};
    v2::DriverGrantBucketAccessResponse first, again, refused;
    ASSERT_TRUE(Grant2(name, one, &first).ok());
    ASSERT_TRUE(Grant2(name, one, &again).ok());
    EXPECT_EQ(again.account_id(), first.account_id());
    ExpectCode(Grant2(name, {{"bc-l2", v2::AccessMode::READ_ONLY}}, &refused),
               grpc::StatusCode::ALREADY_EXISTS, "ba-");
    EXPECT_TRUE(store_->ListGrants("bc-l2")->empty());
    auto key = store_->GetAccessKey(first.account_id());
    ASSERT_TRUE(key.ok());
    auto user = store_->GetUserById(key->user_id);
    ASSERT_TRUE(user.ok());
    EXPECT_EQ(user->name, storage::GrantUserName(name));
    ASSERT_TRUE(Revoke2(first.account_id()).ok());
  }
}

TEST_F(V1alpha2Test, GrantErrors) {
  ASSERT_TRUE(Create2("bc-ge", {}).ok());
  const Modes one = {{"bc-ge", v2::AccessMode::READ_WRITE}};

  auto service_account = GrantRequest("ba-e", one);
  service_account.mutable_authentication_type()->set_type(v2::AuthenticationType::SERVICE_ACCOUNT);
  service_account.set_service_account_name("sa");
  ExpectCode(Grant2(service_account), grpc::StatusCode::INVALID_ARGUMENT, "SERVICE_ACCOUNT");
  auto no_auth = GrantRequest("ba-e", one);
  no_auth.mutable_authentication_type()->set_type(v2::AuthenticationType::UNKNOWN);
  ExpectCode(Grant2(no_auth), grpc::StatusCode::INVALID_ARGUMENT, "authentication_type");
  auto odd_auth = GrantRequest("ba-e", one);
  odd_auth.mutable_authentication_type()->set_type(static_cast<v2::AuthenticationType::Type>(9));
  ExpectCode(Grant2(odd_auth), grpc::StatusCode::INVALID_ARGUMENT, "authentication_type");
  auto azure = GrantRequest("ba-e", one);
  azure.mutable_protocol()->set_type(v2::ObjectProtocol::AZURE);
  ExpectCode(Grant2(azure), grpc::StatusCode::INVALID_ARGUMENT, "AZURE");
  auto unset_protocol = GrantRequest("ba-unset", one);
  unset_protocol.clear_protocol();
  EXPECT_TRUE(Grant2(unset_protocol).ok());  // read as S3
  auto params = GrantRequest("ba-e", one);
  (*params.mutable_parameters())["accessMode"] = "ReadOnly";
  ExpectCode(Grant2(params), grpc::StatusCode::INVALID_ARGUMENT, "accessMode");

  ExpectCode(Grant2("ba-e", {}), grpc::StatusCode::INVALID_ARGUMENT, "buckets");
  ExpectCode(Grant2("", one), grpc::StatusCode::INVALID_ARGUMENT, "account_name");
  ExpectCode(Grant2("ba-e", {{"", v2::AccessMode::READ_ONLY}}), grpc::StatusCode::INVALID_ARGUMENT,
             "bucket_id");
  ExpectCode(Grant2("ba-e", {{"bc-ge", v2::AccessMode::UNKNOWN}}),
             grpc::StatusCode::INVALID_ARGUMENT, "access_mode");
  ExpectCode(
      Grant2("ba-e", {{"bc-ge", v2::AccessMode::READ_ONLY}, {"bc-ge", v2::AccessMode::READ_ONLY}}),
      grpc::StatusCode::INVALID_ARGUMENT, "twice");
  ExpectCode(Grant2("ba-e", {{"bc-ge", v2::AccessMode::READ_ONLY},
                             {"bc-missing", v2::AccessMode::READ_ONLY}}),
             grpc::StatusCode::NOT_FOUND, "bc-missing");
  // None of these left a key behind.
  auto grants = store_->ListGrants("bc-ge");
  ASSERT_TRUE(grants.ok());
  ASSERT_EQ(grants->size(), 1u);
  EXPECT_EQ((*grants)[0].grant_name, "ba-unset");
  // account_name may be 253 characters (a DNS subdomain), not more.
  EXPECT_TRUE(Grant2(LongName(253), one).ok());
  EXPECT_TRUE(Grant2(LongName(253), one).ok());
  ExpectCode(Grant2(LongName(254), one), grpc::StatusCode::INVALID_ARGUMENT, "account_name");
}

TEST_F(V1alpha2Test, RevokeDeletesTheKeyAndIsIdempotent) {
  ASSERT_TRUE(Create2("bc-rv1", {}).ok());
  ASSERT_TRUE(Create2("bc-rv2", {}).ok());
  v2::DriverGrantBucketAccessResponse granted;
  ASSERT_TRUE(
      Grant2("ba-rv",
             {{"bc-rv1", v2::AccessMode::READ_WRITE}, {"bc-rv2", v2::AccessMode::READ_ONLY}},
             &granted)
          .ok());
  ASSERT_TRUE(Revoke2(granted.account_id()).ok());
  EXPECT_EQ(store_->GetAccessKey(granted.account_id()).status().code(), Code::kNoSuchAccessKey);
  EXPECT_TRUE(store_->ListGrants("bc-rv1")->empty());
  EXPECT_TRUE(store_->ListGrants("bc-rv2")->empty());
  EXPECT_TRUE(Revoke2(granted.account_id()).ok());
  EXPECT_TRUE(Revoke2("CBNOSUCHKEY0000").ok());
  ExpectCode(Revoke2(""), grpc::StatusCode::INVALID_ARGUMENT, "account_id");
  // The name is free again: a new grant gets a new key.
  v2::DriverGrantBucketAccessResponse fresh;
  ASSERT_TRUE(Grant2("ba-rv", {{"bc-rv1", v2::AccessMode::READ_ONLY}}, &fresh).ok());
  EXPECT_NE(fresh.account_id(), granted.account_id());
}

TEST_F(V1alpha2Test, RevokeLeavesKeysCosiDidNotIssue) {
  storage::AccessKeyRecord root;
  root.access_key_id = "CBROOTKEY000001";
  root.all_buckets = true;
  ASSERT_TRUE(store_->PutAccessKey(root).ok());
  EXPECT_TRUE(Revoke2(root.access_key_id).ok());
  EXPECT_TRUE(store_->GetAccessKey(root.access_key_id).ok());
}

TEST_F(V1alpha2Test, DeletingOneBucketOfAGrantKeepsTheOthers) {
  ASSERT_TRUE(Create2("bc-keep", {}).ok());
  ASSERT_TRUE(Create2("bc-drop", {}).ok());
  v2::DriverGrantBucketAccessResponse granted;
  ASSERT_TRUE(
      Grant2("ba-split",
             {{"bc-keep", v2::AccessMode::READ_WRITE}, {"bc-drop", v2::AccessMode::READ_WRITE}},
             &granted)
          .ok());
  ASSERT_TRUE(Delete2("bc-drop").ok());
  auto key = store_->GetAccessKey(granted.account_id());
  ASSERT_TRUE(key.ok());
  const std::map<std::string, AccessMode> left = {{"bc-keep", AccessMode::kReadWrite}};
  EXPECT_EQ(key->grants, left);
  // A bucket made again under the dropped name is not reachable with the old key.
  ASSERT_TRUE(Create2("bc-drop", {}).ok());
  EXPECT_FALSE(store_->GetAccessKey(granted.account_id())->grants.contains("bc-drop"));
  ASSERT_TRUE(Delete2("bc-keep").ok());
  EXPECT_EQ(store_->GetAccessKey(granted.account_id()).status().code(), Code::kNoSuchAccessKey);
}

TEST_F(V1alpha2Test, KeysFromEitherVersionAreRevocableThroughTheirOwn) {
  ASSERT_TRUE(Create("bc-mixed", {}).ok());
  v1::DriverGrantBucketAccessResponse g1;
  ASSERT_TRUE(Grant("bc-mixed", "ba-v1", {}, &g1).ok());
  v2::DriverGrantBucketAccessResponse g2;
  ASSERT_TRUE(Grant2("ba-v2", {{"bc-mixed", v2::AccessMode::READ_ONLY}}, &g2).ok());
  EXPECT_NE(g1.account_id(), g2.account_id());
  EXPECT_EQ(store_->ListGrants("bc-mixed")->size(), 2u);
  ASSERT_TRUE(Revoke2(g2.account_id()).ok());
  ASSERT_TRUE(Revoke("bc-mixed", g1.account_id()).ok());
  EXPECT_TRUE(store_->ListGrants("bc-mixed")->empty());
}

TEST_F(V1alpha2Test, RestartKeepsBucketsAndGrants) {
  const std::string name = LongName(253, 'r');
  v2::DriverCreateBucketResponse created;
  ASSERT_TRUE(Create2(name, {{"forceDelete", "true"}}, &created).ok());
  ASSERT_TRUE(Create2("bc-restart", {}).ok());
  const Modes modes = {{created.bucket_id(), v2::AccessMode::READ_WRITE},
                       {"bc-restart", v2::AccessMode::WRITE_ONLY}};
  v2::DriverGrantBucketAccessResponse granted;
  ASSERT_TRUE(Grant2("ba-restart", modes, &granted).ok());

  Restart();

  v2::DriverCreateBucketResponse created_again;
  ASSERT_TRUE(Create2(name, {{"forceDelete", "true"}}, &created_again).ok());
  EXPECT_EQ(created_again.SerializeAsString(), created.SerializeAsString());
  v2::DriverGrantBucketAccessResponse granted_again;
  ASSERT_TRUE(Grant2("ba-restart", modes, &granted_again).ok());
  EXPECT_EQ(granted_again.SerializeAsString(), granted.SerializeAsString());
  ExpectCode(Grant2("ba-restart", {modes[0]}), grpc::StatusCode::ALREADY_EXISTS);
  ASSERT_TRUE(Revoke2(granted.account_id()).ok());
  EXPECT_EQ(store_->GetAccessKey(granted.account_id()).status().code(), Code::kNoSuchAccessKey);
}

TEST_F(V1alpha2Test, LogLinesCarryNoSecret) {
  std::mutex mu;
  std::vector<std::string> lines;
  StopListener();
  options_.log = [&](std::string_view method, std::string_view name, std::string_view code) {
    std::lock_guard lock(mu);
    lines.push_back(std::string(method) + " " + std::string(name) + " " + std::string(code));
  };
  StartListener();
  ASSERT_TRUE(Create2("bc-log", {}).ok());
  v2::DriverGrantBucketAccessResponse granted;
  ASSERT_TRUE(Grant2("ba-log", {{"bc-log", v2::AccessMode::READ_WRITE}}, &granted).ok());
  ASSERT_TRUE(Revoke2(granted.account_id()).ok());
  StopListener();  // every call's log line is written before its answer; none is in flight
  std::lock_guard lock(mu);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "DriverCreateBucket bc-log OK");
  EXPECT_EQ(lines[1], "DriverGrantBucketAccess ba-log OK");
  for (const std::string& line : lines) {
    EXPECT_EQ(line.find(granted.credentials().s3().access_secret_key()), std::string::npos);
  }
}

TEST_F(V1alpha2Test, BothVersionsAtTheSameTime) {
  constexpr int kPerVersion = 8;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kPerVersion; ++i) {
    threads.emplace_back([&, i] {
      const std::string bucket = "bc-conc1-" + std::to_string(i % 2);
      if (!Create(bucket, {}).ok()) ++failures;
      v1::DriverGrantBucketAccessResponse g;
      if (!Grant(bucket, "ba-conc1-" + std::to_string(i), {}, &g).ok()) ++failures;
    });
    threads.emplace_back([&, i] {
      const std::string bucket = "bc-conc2-" + std::to_string(i % 2);
      if (!Create2(bucket, {}).ok()) ++failures;
      v2::DriverGrantBucketAccessResponse g;
      // Four threads per account name, same bucket and mode: one key, every answer OK.
      const std::string account = "ba-conc2-" + std::to_string(i % 2);
      if (!Grant2(account, {{bucket, v2::AccessMode::READ_ONLY}}, &g).ok()) ++failures;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  for (const char* b : {"bc-conc1-0", "bc-conc1-1", "bc-conc2-0", "bc-conc2-1"}) {
    EXPECT_TRUE(store_->GetBucket(b).ok()) << b;
  }
  EXPECT_EQ(store_->ListGrants("bc-conc1-0")->size(), 4u);
  EXPECT_EQ(store_->ListGrants("bc-conc1-1")->size(), 4u);
  EXPECT_EQ(store_->ListGrants("bc-conc2-0")->size(), 1u);
  EXPECT_EQ(store_->ListGrants("bc-conc2-1")->size(), 1u);
}

// The storage call under DriverGrantBucketAccess, on the paths the service never takes.
TEST_F(V1alpha2Test, GetOrCreateMultiGrantRefusesBadCandidates) {
  ASSERT_TRUE(Create2("bc-store", {}).ok());
  auto candidate = [] {
    storage::AccessKeyRecord key;
    key.access_key_id = "CBMULTI00000001";
    key.grant_name = "ba-store";
    key.grants = {{"bc-store", AccessMode::kReadOnly}};
    return key;
  };
  struct Case {
    std::string name;
    storage::AccessKeyRecord key;
  } cases[] = {
      {"other grant name",
       [&] {
         auto k = candidate();
         k.grant_name = "ba-else";
         return k;
       }()},
      {"no grants",
       [&] {
         auto k = candidate();
         k.grants.clear();
         return k;
       }()},
      {"all buckets",
       [&] {
         auto k = candidate();
         k.all_buckets = true;
         return k;
       }()},
      {"no id",
       [&] {
         auto k = candidate();
         k.access_key_id.clear();
         return k;
       }()},
  };
  bool created = true;
  for (const Case& c : cases) {
    EXPECT_EQ(store_->GetOrCreateMultiGrant("ba-store", c.key, &created).status().code(),
              Code::kInvalidArgument)
        << c.name;
    EXPECT_FALSE(created);
  }
  EXPECT_EQ(store_->GetOrCreateMultiGrant("", candidate(), &created).status().code(),
            Code::kInvalidArgument);
  // An id another key already has is a conflict, never an overwrite.
  storage::AccessKeyRecord root;
  root.access_key_id = "CBMULTI00000001";
  root.all_buckets = true;
  ASSERT_TRUE(store_->PutAccessKey(root).ok());
  EXPECT_EQ(store_->GetOrCreateMultiGrant("ba-store", candidate(), &created).status().code(),
            Code::kAborted);
  EXPECT_TRUE(store_->GetAccessKey("CBMULTI00000001")->all_buckets);
}

}  // namespace
}  // namespace cubby::cosi::testing
