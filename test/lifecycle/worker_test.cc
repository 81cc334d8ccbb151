// The lifecycle worker against a real Store in a temp folder. A lifecycle day lasts 1 s and the
// worker's clock is a variable the test moves (no sleeps): objects are written with explicit
// last-modified times, delete markers and uploads carry the store's real time.
#include "lifecycle/worker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "test/storage/test_util.h"

namespace cubby::lifecycle {
namespace {

using namespace storage::testing;  // NOLINT: the storage test helpers
using std::chrono::seconds;
using storage::LifecycleRule;
using storage::ObjectVersion;
using storage::VersioningState;

int64_t RealNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

LifecycleRule Rule(std::string id) {
  LifecycleRule r;
  r.id = std::move(id);
  return r;
}

class WorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenOrDie(SmallOptions(dir_.path()));
    ASSERT_NE(store_, nullptr);
    options_.day = seconds(1);
    options_.now_ms = [this] { return now_; };
  }

  void MakeBucket(const std::string& name, std::vector<LifecycleRule> rules,
                  VersioningState versioning = VersioningState::kUnversioned) {
    ASSERT_OK(store_->CreateBucket(Bucket(name)));
    if (versioning != VersioningState::kUnversioned) {
      ASSERT_OK(store_->SetBucketVersioning(name, versioning));
    }
    ASSERT_OK(store_->UpdateBucket(name, [&](storage::BucketRecord* b) {
      b->lifecycle.rules = rules;
      return storage::Status::Ok();
    }));
  }

  // Writes `size` bytes at `key`, last modified at `modified_ms`; returns its version id.
  std::string Write(const std::string& bucket, const std::string& key, int64_t modified_ms,
                    size_t size = 3) {
    auto w = store_->NewObjectWriter(bucket);
    EXPECT_TRUE(w.ok());
    if (!w.ok()) return "";
    EXPECT_TRUE((*w)->Append(std::string(size, 'x')).ok());
    storage::ObjectMeta meta;
    meta.etag = "etag";
    meta.last_modified_ms = modified_ms;
    auto committed = (*w)->Commit(key, meta);
    EXPECT_TRUE(committed.ok()) << committed.status().ToString();
    return committed.ok() ? committed->version_id : "";
  }

  bool Exists(const std::string& bucket, const std::string& key) {
    return store_->HeadObject(bucket, key).ok();
  }

  std::vector<ObjectVersion> Versions(const std::string& bucket) {
    storage::VersionsQuery q;
    q.bucket = bucket;
    auto page = store_->ListObjectVersions(q);
    EXPECT_TRUE(page.ok());
    return page.ok() ? page->versions : std::vector<ObjectVersion>{};
  }

  PassStats Pass() { return RunPass(*store_, options_); }

  TempDir dir_;
  std::unique_ptr<storage::Store> store_;
  LifecycleOptions options_;
  const int64_t t0_ = RealNowMs();
  int64_t now_ = t0_;
};

// Unversioned: a due current version is deleted; not before its day, not outside the rule's
// prefix.
TEST_F(WorkerTest, ExpiresCurrentVersionsOfAnUnversionedBucket) {
  LifecycleRule r = Rule("logs");
  r.filter.prefix = "logs/";
  r.expiration_days = 2;
  MakeBucket("b", {r});
  Write("b", "logs/old", t0_);
  Write("b", "logs/new", t0_ + 5000);
  Write("b", "other", t0_);

  now_ = t0_ + 1999;
  PassStats early = Pass();
  EXPECT_EQ(early.actions(), 0u);
  EXPECT_EQ(early.buckets, 1u);
  EXPECT_TRUE(Exists("b", "logs/old"));

  now_ = t0_ + 2000;
  PassStats due = Pass();
  EXPECT_EQ(due.expired_current, 1u);
  EXPECT_EQ(due.errors, 0u) << due.first_error;
  EXPECT_FALSE(due.bounded);
  EXPECT_FALSE(Exists("b", "logs/old"));
  EXPECT_TRUE(Exists("b", "logs/new"));
  EXPECT_TRUE(Exists("b", "other"));
  EXPECT_TRUE(Versions("b").size() == 2);  // no delete marker in an unversioned bucket
}

// Size filters select by the version's size; disabled rules do nothing; a bucket without
// enabled rules is not walked.
TEST_F(WorkerTest, FiltersAndDisabledRules) {
  LifecycleRule big = Rule("big");
  big.filter.size_greater_than = 10;
  big.expiration_days = 1;
  LifecycleRule off = Rule("off");
  off.enabled = false;
  off.expiration_days = 1;
  MakeBucket("sized", {big, off});
  MakeBucket("disabled", {off});
  MakeBucket("none", {});
  Write("sized", "small", t0_, 10);
  Write("sized", "large", t0_, 11);
  Write("disabled", "k", t0_);
  Write("none", "k", t0_);

  now_ = t0_ + 100'000;
  PassStats stats = Pass();
  EXPECT_EQ(stats.buckets, 1u);
  EXPECT_EQ(stats.expired_current, 1u);
  EXPECT_TRUE(Exists("sized", "small"));
  EXPECT_FALSE(Exists("sized", "large"));
  EXPECT_TRUE(Exists("disabled", "k"));
  EXPECT_TRUE(Exists("none", "k"));
}

// Tag filters select by each version's own tags (all of the filter's, with their values):
// current versions, noncurrent ones, and a version tagged after it was written (in place).
TEST_F(WorkerTest, TagFiltersSelectTaggedVersions) {
  LifecycleRule current = Rule("tagged");
  current.filter.tags = {{"expire", "yes"}, {"team", "a"}};
  current.expiration_days = 1;
  MakeBucket("b", {current});
  Write("b", "both", t0_);
  Write("b", "one", t0_);
  Write("b", "wrong-value", t0_);
  Write("b", "later", t0_);
  Write("b", "none", t0_);
  ASSERT_OK(store_->PutObjectTags("b", "both", "", {{"team", "a"}, {"expire", "yes"}}).status());
  ASSERT_OK(store_->PutObjectTags("b", "one", "", {{"expire", "yes"}}).status());
  ASSERT_OK(
      store_->PutObjectTags("b", "wrong-value", "", {{"expire", "no"}, {"team", "a"}}).status());

  now_ = t0_ + 100'000;
  PassStats first = Pass();
  EXPECT_EQ(first.errors, 0u) << first.first_error;
  EXPECT_EQ(first.expired_current, 1u);
  EXPECT_FALSE(Exists("b", "both"));
  EXPECT_TRUE(Exists("b", "one"));
  EXPECT_TRUE(Exists("b", "wrong-value"));
  EXPECT_TRUE(Exists("b", "none"));
  // Tagged in place later: the next pass sees it.
  ASSERT_OK(store_->PutObjectTags("b", "later", "", {{"expire", "yes"}, {"team", "a"}}).status());
  EXPECT_EQ(Pass().expired_current, 1u);
  EXPECT_FALSE(Exists("b", "later"));

  // Noncurrent versions: only the tagged one goes.
  LifecycleRule noncurrent = Rule("old");
  noncurrent.filter.tags = {{"keep", "no"}};
  noncurrent.noncurrent_days = 1;
  MakeBucket("v", {noncurrent}, VersioningState::kEnabled);
  const std::string v1 = Write("v", "k", t0_);
  const std::string v2 = Write("v", "k", t0_ + 1);
  Write("v", "k", t0_ + 2);
  ASSERT_OK(store_->PutObjectTags("v", "k", v1, {{"keep", "no"}}).status());
  PassStats versions = Pass();
  EXPECT_EQ(versions.errors, 0u) << versions.first_error;
  EXPECT_EQ(versions.expired_noncurrent, 1u);
  std::vector<std::string> left;
  for (const ObjectVersion& v : Versions("v")) left.push_back(v.version_id);
  EXPECT_EQ(left.size(), 2u);
  EXPECT_EQ(std::count(left.begin(), left.end(), v1), 0);
  EXPECT_EQ(std::count(left.begin(), left.end(), v2), 1);
}

// The listing starts at the rules' common prefix ("logs/" for logs/a and logs/b, "" for a/ and
// b/); every rule still sees all of its keys.
TEST_F(WorkerTest, RulesWithDifferentPrefixes) {
  auto rule = [](std::string id, std::string prefix) {
    LifecycleRule r = Rule(std::move(id));
    r.filter.prefix = std::move(prefix);
    r.expiration_days = 1;
    return r;
  };
  MakeBucket("common", {rule("a", "logs/a"), rule("b", "logs/b")});
  MakeBucket("disjoint", {rule("a", "a/"), rule("b", "b/")});
  for (const std::string key : {"logs/a1", "logs/b1", "logs/c1", "a/1", "b/1", "c/1", "zzz"}) {
    Write("common", key, t0_);
    Write("disjoint", key, t0_);
  }
  now_ = t0_ + 100'000;
  PassStats stats = Pass();
  EXPECT_EQ(stats.expired_current, 4u);
  auto keys = [&](const std::string& bucket) {
    std::vector<std::string> out;
    for (const ObjectVersion& v : Versions(bucket)) out.push_back(v.key);
    return out;
  };
  EXPECT_EQ(keys("common"), (std::vector<std::string>{"a/1", "b/1", "c/1", "logs/c1", "zzz"}));
  EXPECT_EQ(keys("disjoint"),
            (std::vector<std::string>{"c/1", "logs/a1", "logs/b1", "logs/c1", "zzz"}));
}

// Enabled bucket: the current version gets a delete marker (and stays as a noncurrent
// version), then the noncurrent version goes, then the lone delete marker.
TEST_F(WorkerTest, VersionedBucketExpiresInSteps) {
  LifecycleRule current = Rule("current");
  current.expiration_days = 1;
  LifecycleRule noncurrent = Rule("noncurrent");
  noncurrent.noncurrent_days = 1;
  LifecycleRule markers = Rule("markers");
  markers.expired_object_delete_marker = true;
  MakeBucket("v", {current, noncurrent, markers}, VersioningState::kEnabled);
  const std::string id = Write("v", "k", t0_);
  ASSERT_FALSE(id.empty());

  now_ = t0_ + 1000;
  PassStats first = Pass();
  EXPECT_EQ(first.expired_current, 1u);
  EXPECT_EQ(first.errors, 0u) << first.first_error;
  EXPECT_FALSE(Exists("v", "k"));
  std::vector<ObjectVersion> versions = Versions("v");
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_TRUE(versions[0].delete_marker);
  EXPECT_EQ(versions[1].version_id, id);

  // The version became noncurrent when the marker was made (the real clock): one day later.
  now_ = RealNowMs() + 1000;
  PassStats second = Pass();
  EXPECT_EQ(second.expired_noncurrent, 1u);
  EXPECT_EQ(second.removed_markers, 0u);  // not alone yet when the key was looked at
  ASSERT_EQ(Versions("v").size(), 1u);

  PassStats third = Pass();
  EXPECT_EQ(third.removed_markers, 1u);
  EXPECT_TRUE(Versions("v").empty());
  EXPECT_EQ(Pass().actions(), 0u);
}

// NewerNoncurrentVersions keeps the newest noncurrent versions; listing pages of 2 entries
// split the key's versions, which are still judged together.
TEST_F(WorkerTest, NewerNoncurrentVersionsAcrossPages) {
  LifecycleRule r = Rule("keep2");
  r.noncurrent_days = 1;
  r.newer_noncurrent_versions = 2;
  MakeBucket("v", {r}, VersioningState::kEnabled);
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(Write("v", "k", t0_ + i * 1000));
  Write("v", "z", t0_);
  options_.page_size = 2;
  now_ = t0_ + 100'000;
  PassStats stats = Pass();
  EXPECT_EQ(stats.expired_noncurrent, 2u);  // the two oldest of four noncurrent versions
  EXPECT_EQ(stats.errors, 0u) << stats.first_error;
  std::vector<std::string> left;
  for (const ObjectVersion& v : Versions("v")) {
    if (v.key == "k") left.push_back(v.version_id);
  }
  EXPECT_EQ(left, (std::vector<std::string>{ids[4], ids[3], ids[2]}));
}

// Object lock: a noncurrent version under a legal hold stays (counted, not an error); the
// current locked version gets a delete marker, as S3's lifecycle does.
TEST_F(WorkerTest, LockedVersionsAreKept) {
  LifecycleRule r = Rule("all");
  r.expiration_days = 1;
  r.noncurrent_days = 1;
  MakeBucket("locked", {r}, VersioningState::kEnabled);
  const std::string held = Write("locked", "k", t0_);
  ASSERT_OK(store_->PutObjectLegalHold("locked", "k", held, storage::LegalHold::kOn));
  Write("locked", "k", t0_ + 1);
  now_ = t0_ + 100'000;
  PassStats stats = Pass();
  EXPECT_EQ(stats.locked, 1u);
  EXPECT_EQ(stats.expired_noncurrent, 0u);
  EXPECT_EQ(stats.errors, 0u) << stats.first_error;
  EXPECT_EQ(stats.expired_current, 1u);  // the delete marker
  storage::DeleteMarkerInfo marker;
  EXPECT_TRUE(store_->HeadObjectVersion("locked", "k", held, &marker).ok());
  // Once released, the next pass removes it.
  ASSERT_OK(store_->PutObjectLegalHold("locked", "k", held, storage::LegalHold::kOff));
  PassStats after = Pass();
  EXPECT_GE(after.expired_noncurrent, 1u);
  EXPECT_EQ(store_->HeadObjectVersion("locked", "k", held, &marker).status().code(),
            storage::Code::kNoSuchVersion);
}

// Suspended: the null current version is replaced by a null delete marker; a locked null
// version is kept.
TEST_F(WorkerTest, SuspendedBucket) {
  LifecycleRule r = Rule("all");
  r.expiration_days = 1;
  MakeBucket("s", {r}, VersioningState::kEnabled);
  ASSERT_OK(store_->SetBucketVersioning("s", VersioningState::kSuspended));
  Write("s", "plain", t0_);
  Write("s", "held", t0_);
  ASSERT_OK(store_->PutObjectLegalHold("s", "held", "", storage::LegalHold::kOn));
  now_ = t0_ + 100'000;
  PassStats stats = Pass();
  EXPECT_EQ(stats.expired_current, 1u);
  EXPECT_EQ(stats.locked, 1u);
  EXPECT_FALSE(Exists("s", "plain"));
  EXPECT_TRUE(Exists("s", "held"));
  storage::DeleteMarkerInfo marker;
  EXPECT_EQ(store_->HeadObjectVersion("s", "plain", "", &marker).status().code(),
            storage::Code::kNoSuchKey);
  EXPECT_TRUE(marker.delete_marker);
  EXPECT_TRUE(marker.version_id.empty());  // the null marker
}

TEST_F(WorkerTest, AbortsIncompleteUploads) {
  LifecycleRule r = Rule("uploads");
  r.filter.prefix = "tmp/";
  r.abort_incomplete_days = 2;
  MakeBucket("u", {r});
  storage::ObjectMeta meta;
  auto due = store_->CreateUpload("u", "tmp/a", meta);
  ASSERT_OK(due.status());
  auto other = store_->CreateUpload("u", "keep/b", meta);
  ASSERT_OK(other.status());
  now_ = due->initiated_ms + 1999;
  EXPECT_EQ(Pass().aborted_uploads, 0u);
  now_ = due->initiated_ms + 2000;
  PassStats stats = Pass();
  EXPECT_EQ(stats.aborted_uploads, 1u);
  EXPECT_EQ(store_->GetUpload("u", "tmp/a", due->upload_id).status().code(),
            storage::Code::kNoSuchUpload);
  EXPECT_TRUE(store_->GetUpload("u", "keep/b", other->upload_id).ok());
}

// At most max_actions_per_pass changes per pass; the next passes finish the work.
TEST_F(WorkerTest, PassIsBounded) {
  LifecycleRule r = Rule("all");
  r.expiration_days = 1;
  MakeBucket("b", {r});
  for (int i = 0; i < 5; ++i) Write("b", "k" + std::to_string(i), t0_);
  options_.max_actions_per_pass = 2;
  now_ = t0_ + 100'000;
  std::vector<uint64_t> done;
  std::vector<bool> bounded;
  for (int pass = 0; pass < 3; ++pass) {
    PassStats s = Pass();
    done.push_back(s.actions());
    bounded.push_back(s.bounded);
  }
  EXPECT_EQ(done, (std::vector<uint64_t>{2, 2, 1}));
  EXPECT_EQ(bounded, (std::vector<bool>{true, true, false}));
  EXPECT_TRUE(Versions("b").empty());
}

// A stop request ends the pass at its next step.
TEST_F(WorkerTest, StopEndsThePass) {
  LifecycleRule r = Rule("all");
  r.expiration_days = 1;
  MakeBucket("b", {r});
  for (int i = 0; i < 3; ++i) Write("b", "k" + std::to_string(i), t0_);
  now_ = t0_ + 100'000;
  PassStats s = RunPass(*store_, options_, [] { return true; });
  EXPECT_EQ(s.actions(), 0u);
  EXPECT_EQ(Versions("b").size(), 3u);
}

// The thread: passes run every interval and are reported; Stop returns at once even with a
// long interval.
TEST_F(WorkerTest, BackgroundThread) {
  LifecycleRule r = Rule("all");
  r.expiration_days = 1;
  MakeBucket("b", {r});
  Write("b", "k", t0_);
  now_ = t0_ + 100'000;
  options_.interval = std::chrono::milliseconds(10);
  std::mutex mu;
  std::condition_variable cv;
  uint64_t expired = 0;
  Worker worker(store_.get(), options_, [&](const PassStats& s) {
    std::lock_guard lock(mu);
    expired += s.expired_current;
    cv.notify_all();
  });
  worker.Start();
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, seconds(10), [&] { return expired > 0; }));
  }
  worker.Stop();
  EXPECT_FALSE(Exists("b", "k"));

  options_.interval = std::chrono::hours(1);
  Worker idle(store_.get(), options_, nullptr);
  idle.Start();
  const auto start = std::chrono::steady_clock::now();
  idle.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(1));
  idle.Stop();  // idempotent
}

}  // namespace
}  // namespace cubby::lifecycle
