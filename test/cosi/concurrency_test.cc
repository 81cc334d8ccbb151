// Many sidecar workers at once: 40 threads firing Create/Grant/Revoke/Delete on overlapping
// names through one real channel. The end state must be consistent: one bucket per name, one
// key per grant, nothing left of a deleted bucket. Also: what a call logs.
#include <gtest/gtest.h>

#include <latch>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "cosi/provisioner.h"
#include "cosi_fixture.h"

namespace cubby::cosi::testing {
namespace {

using storage::Code;

constexpr int kThreads = 40;

std::string BucketName(int i) { return "conc-bucket-" + std::to_string(i); }
std::string GrantName(int i) { return "ba-conc-" + std::to_string(i); }

struct Issued {
  std::string account_id;
  std::string secret;
};

class ConcurrencyTest : public CosiFixture {
 protected:
  // Runs fn(i) for i in [0, kThreads) on kThreads threads released at the same moment.
  template <typename Fn>
  void RunConcurrently(Fn fn) {
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        start.arrive_and_wait();
        fn(i);
      });
    }
    for (auto& t : threads) t.join();
  }
};

TEST_F(ConcurrencyTest, OverlappingCallsLeaveAConsistentState) {
  // Phase 1: 4 buckets × 5 grant names, every thread creates its bucket and grants one name;
  // each (bucket, name) is requested by two threads at once.
  std::mutex mu;
  std::map<std::pair<int, int>, std::vector<Issued>> issued;
  std::vector<grpc::Status> failures;
  RunConcurrently([&](int i) {
    const int b = i % 4, g = i % 5;
    grpc::Status created = Create(BucketName(b), {{"forceDelete", b >= 2 ? "true" : "false"}});
    v1::DriverGrantBucketAccessResponse response;
    grpc::Status granted = Grant(BucketName(b), GrantName(g), {}, &response);
    std::lock_guard<std::mutex> lock(mu);
    if (!created.ok()) failures.push_back(created);
    if (!granted.ok()) failures.push_back(granted);
    if (granted.ok()) {
      issued[std::make_pair(b, g)].push_back(
          {response.account_id(), response.credentials().at("s3").secrets().at("accessSecretKey")});
    }
  });
  for (const grpc::Status& s : failures) ADD_FAILURE() << s.error_code() << " " << s.error_message();

  auto buckets = store_->ListBuckets();
  ASSERT_TRUE(buckets.ok());
  ASSERT_EQ(buckets->size(), 4u);
  ASSERT_EQ(issued.size(), 20u);
  for (const auto& [where, list] : issued) {
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0].account_id, list[1].account_id);  // identical concurrent calls: one key
    EXPECT_EQ(list[0].secret, list[1].secret);
  }
  for (int b = 0; b < 4; ++b) {
    auto grants = store_->ListGrants(BucketName(b));
    ASSERT_TRUE(grants.ok());
    std::set<std::string> names;
    for (const auto& key : *grants) {
      names.insert(key.grant_name);
      const int g = std::stoi(key.grant_name.substr(std::string("ba-conc-").size()));
      EXPECT_EQ(key.access_key_id, issued[std::make_pair(b, g)][0].account_id);
    }
    EXPECT_EQ(grants->size(), 5u);  // one key per grant name
    EXPECT_EQ(names.size(), 5u);
  }

  // Phase 2: revoke every grant on buckets 0-1 (twice each, concurrently) while buckets 2-3
  // are force-deleted under concurrent grant retries and deletes.
  std::vector<std::string> late_keys;  // keys granted on buckets 2-3 during phase 2
  failures.clear();
  RunConcurrently([&](int i) {
    const int g = i % 5;
    grpc::Status s;
    if (i < 20) {
      const int b = (i / 5) % 2;
      s = Revoke(BucketName(b), issued[std::make_pair(b, g)][0].account_id);
      std::lock_guard<std::mutex> lock(mu);
      if (!s.ok()) failures.push_back(s);
    } else if (i < 30) {
      s = Delete(BucketName(2 + i % 2));
      std::lock_guard<std::mutex> lock(mu);
      if (!s.ok()) failures.push_back(s);
    } else {
      v1::DriverGrantBucketAccessResponse response;
      s = Grant(BucketName(2 + i % 2), GrantName(g), {}, &response);
      std::lock_guard<std::mutex> lock(mu);
      if (s.ok()) {
        late_keys.push_back(response.account_id());
      } else if (s.error_code() != grpc::StatusCode::NOT_FOUND &&
                 s.error_code() != grpc::StatusCode::ABORTED) {
        failures.push_back(s);  // only "bucket gone" or "try again" are acceptable here
      }
    }
  });
  for (const grpc::Status& s : failures) ADD_FAILURE() << s.error_code() << " " << s.error_message();

  buckets = store_->ListBuckets();
  ASSERT_TRUE(buckets.ok());
  ASSERT_EQ(buckets->size(), 2u);
  EXPECT_EQ((*buckets)[0].name, BucketName(0));
  EXPECT_EQ((*buckets)[1].name, BucketName(1));
  for (int b = 0; b < 4; ++b) {
    auto grants = store_->ListGrants(BucketName(b));
    if (grants.ok()) {
      EXPECT_TRUE(grants->empty()) << BucketName(b);
    } else {
      EXPECT_EQ(grants.status().code(), Code::kNoSuchBucket);
    }
    for (int g = 0; g < 5; ++g) {
      EXPECT_EQ(store_->GetAccessKey(issued[std::make_pair(b, g)][0].account_id).status().code(),
                Code::kNoSuchAccessKey);
    }
  }
  for (const std::string& id : late_keys) {
    EXPECT_EQ(store_->GetAccessKey(id).status().code(), Code::kNoSuchAccessKey) << id;
  }
}

TEST_F(ConcurrencyTest, RacingCreatesWithDifferentParametersAgreeOnOneWinner) {
  std::mutex mu;
  std::map<std::string, std::vector<grpc::StatusCode>> codes;  // forceDelete value → codes
  RunConcurrently([&](int i) {
    const std::string force = i % 2 ? "true" : "false";
    grpc::Status s = Create("contested", {{"forceDelete", force}});
    std::lock_guard<std::mutex> lock(mu);
    codes[force].push_back(s.error_code());
  });
  auto bucket = store_->GetBucket("contested");
  ASSERT_TRUE(bucket.ok());
  const std::string winner = bucket->force_delete ? "true" : "false";
  const std::string loser = bucket->force_delete ? "false" : "true";
  for (grpc::StatusCode c : codes[winner]) EXPECT_EQ(c, grpc::StatusCode::OK);
  for (grpc::StatusCode c : codes[loser]) EXPECT_EQ(c, grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(codes[winner].size() + codes[loser].size(), static_cast<size_t>(kThreads));
}

TEST(ProvisionerLogTest, LogsMethodBucketAndCodeButNoSecret) {
  const std::string dir = MakeTempDir();
  storage::StoreOptions store_options;
  store_options.path = dir + "/data";
  auto store = storage::Store::Open(store_options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  std::vector<std::string> lines;
  ProvisionerOptions options;
  options.region = kRegion;
  options.endpoint = kEndpoint;
  options.log = [&lines](std::string_view method, std::string_view bucket,
                         std::string_view code) {
    lines.push_back(std::string(method) + " bucket=" + std::string(bucket) + " code=" +
                    std::string(code));
  };
  ProvisionerService service(store->get(), options);

  v1::DriverCreateBucketRequest create;
  create.set_name("logged-bucket");
  v1::DriverCreateBucketResponse created;
  ASSERT_TRUE(service.DriverCreateBucket(nullptr, &create, &created).ok());
  v1::DriverGrantBucketAccessRequest grant;
  grant.set_bucket_id("logged-bucket");
  grant.set_name("ba-logged");
  grant.set_authentication_type(v1::Key);
  v1::DriverGrantBucketAccessResponse granted;
  ASSERT_TRUE(service.DriverGrantBucketAccess(nullptr, &grant, &granted).ok());
  v1::DriverDeleteBucketRequest bad_delete;
  v1::DriverDeleteBucketResponse deleted;
  EXPECT_FALSE(service.DriverDeleteBucket(nullptr, &bad_delete, &deleted).ok());

  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "DriverCreateBucket bucket=logged-bucket code=OK");
  EXPECT_EQ(lines[1], "DriverGrantBucketAccess bucket=logged-bucket code=OK");
  EXPECT_EQ(lines[2], "DriverDeleteBucket bucket= code=INVALID_ARGUMENT");
  const std::string secret = granted.credentials().at("s3").secrets().at("accessSecretKey");
  ASSERT_FALSE(secret.empty());
  for (const std::string& line : lines) {
    EXPECT_EQ(line.find(secret), std::string::npos);
    EXPECT_EQ(line.find(granted.account_id()), std::string::npos);
  }
  store->reset();
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace
}  // namespace cubby::cosi::testing
