// Object versioning in storage (store.h's top, store_versions.cc): versions of Enabled buckets,
// the null version of Suspended ones, delete markers, reads and deletes by version id,
// ListObjectVersions and its pagination, emptiness, space, durability and the format 3 upgrade.
// Real RocksDB in a temp folder.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "storage/codec.h"
#include "storage/format.h"
#include "test/storage/test_util.h"

namespace cubby::storage {
namespace {

using testing::OpenOrDie;
using testing::Pattern;
using testing::Pieces;
using testing::PutObject;
using testing::ReadObject;
using testing::SmallOptions;
using testing::TempDir;

// One listed entry as a short string: key, id ("null" for the null version), flags.
std::string Describe(const ObjectVersion& v) {
  return v.key + "@" + (v.version_id.empty() ? "null" : v.version_id) +
         (v.delete_marker ? "[dm]" : "") + (v.is_latest ? "[latest]" : "");
}

class VersionsTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }

  void Open() {
    store_.reset();
    store_ = OpenOrDie(SmallOptions(dir_.path() + "/store"));
    ASSERT_NE(store_, nullptr);
    bool created = false;
    ASSERT_OK(store_->GetOrCreateBucket(testing::Bucket("b"), &created).status());
  }

  // Puts `data` at key; returns its version id ("null" for the null version).
  std::string Put(const std::string& key, const std::string& data) {
    Result<ObjectMeta> m = PutObject(*store_, "b", key, data, {}, 37, "etag-" + data.substr(0, 8));
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    if (!m.ok()) return "";
    return m->version_id.empty() ? "null" : m->version_id;
  }

  // The data of a version (empty version_id: the latest).
  Result<std::string> Read(const std::string& key, const std::string& version_id) {
    DeleteMarkerInfo marker;
    Result<std::unique_ptr<ObjectReader>> r =
        store_->OpenObjectVersion("b", key, version_id, &marker);
    if (!r.ok()) return r.status();
    std::string out, buf(64, '\0');
    for (;;) {
      Result<size_t> n = (*r)->Read(buf.data(), buf.size());
      if (!n.ok()) return n.status();
      if (*n == 0) return out;
      out.append(buf.data(), *n);
    }
  }

  // Every version of the bucket, in one page.
  std::vector<ObjectVersion> AllVersions(const std::string& prefix = "") {
    VersionsQuery q;
    q.bucket = "b";
    q.prefix = prefix;
    Result<VersionsPage> page = store_->ListObjectVersions(q);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    if (!page.ok()) return {};
    EXPECT_FALSE(page->truncated);
    return page->versions;
  }

  std::vector<std::string> Described(const std::string& prefix = "") {
    std::vector<std::string> out;
    for (const ObjectVersion& v : AllVersions(prefix)) out.push_back(Describe(v));
    return out;
  }

  void SetState(VersioningState state) { ASSERT_OK(store_->SetBucketVersioning("b", state)); }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(VersionsTest, EnabledWritesAccumulateVersionsNewestFirst) {
  SetState(VersioningState::kEnabled);
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(Put("k", Pattern(50 + 200 * i, i)));  // inline..file
  std::set<std::string> distinct(ids.begin(), ids.end());
  EXPECT_EQ(distinct.size(), ids.size());
  for (const std::string& id : ids) {
    EXPECT_EQ(id.size(), 32u) << id;
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
  }
  // Listed newest first, the newest alone latest.
  std::vector<ObjectVersion> all = AllVersions();
  ASSERT_EQ(all.size(), ids.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].version_id, ids[ids.size() - 1 - i]);
    EXPECT_EQ(all[i].is_latest, i == 0);
    EXPECT_FALSE(all[i].delete_marker);
    EXPECT_EQ(all[i].size, 50 + 200 * (ids.size() - 1 - i));
  }
  // Each version reads back as written; the latest without an id.
  for (size_t i = 0; i < ids.size(); ++i) {
    Result<std::string> data = Read("k", ids[i]);
    ASSERT_OK(data.status());
    EXPECT_EQ(*data, Pattern(50 + 200 * i, i));
    DeleteMarkerInfo marker;
    Result<ObjectMeta> head = store_->HeadObjectVersion("b", "k", ids[i], &marker);
    ASSERT_OK(head.status());
    EXPECT_EQ(head->version_id, ids[i]);
    EXPECT_FALSE(marker.delete_marker);
  }
  Result<ObjectMeta> latest = store_->HeadObject("b", "k");
  ASSERT_OK(latest.status());
  EXPECT_EQ(latest->version_id, ids.back());
  // ListObjects and the stats see the current version only.
  ListQuery lq;
  lq.bucket = "b";
  Result<ListPage> page = store_->ListObjects(lq);
  ASSERT_OK(page.status());
  ASSERT_EQ(page->objects.size(), 1u);
  EXPECT_EQ(page->objects[0].size, 50 + 200 * 4u);
  Result<BucketStats> stats = store_->GetBucketStats("b");
  ASSERT_OK(stats.status());
  EXPECT_EQ(stats->objects, 1u);
  EXPECT_EQ(stats->bytes, 50 + 200 * 4u);
}

TEST_F(VersionsTest, UnversionedBucketWritesTheNullVersionAsBefore) {
  EXPECT_EQ(Put("k", "one"), "null");
  EXPECT_EQ(Put("k", "two"), "null");
  EXPECT_EQ(Described(), std::vector<std::string>{"k@null[latest]"});
  Result<std::string> data = Read("k", "null");
  ASSERT_OK(data.status());
  EXPECT_EQ(*data, "two");
  // A plain delete deletes: no marker.
  Result<DeleteResult> del = store_->DeleteObjectVersioned("b", "k");
  ASSERT_OK(del.status());
  EXPECT_FALSE(del->delete_marker);
  EXPECT_TRUE(Described().empty());
  Result<bool> empty = store_->BucketIsEmpty("b");
  ASSERT_OK(empty.status());
  EXPECT_TRUE(*empty);
}

TEST_F(VersionsTest, SuspendedWritesReplaceTheNullVersionAndKeepRealOnes) {
  const std::string old_null = Pattern(300, 1);  // a data file: its release is visible
  EXPECT_EQ(Put("k", old_null), "null");         // written before versioning: the null version
  SetState(VersioningState::kEnabled);
  const std::string v1 = Put("k", Pattern(120, 2));
  EXPECT_EQ(Described(), (std::vector<std::string>{"k@" + v1 + "[latest]", "k@null"}));
  const uint64_t pieces_with_old_null = Pieces(*store_);

  SetState(VersioningState::kSuspended);
  // Replaces the noncurrent null version (its data released), keeps v1.
  EXPECT_EQ(Put("k", "s1"), "null");
  EXPECT_EQ(Described(), (std::vector<std::string>{"k@null[latest]", "k@" + v1}));
  EXPECT_EQ(Pieces(*store_), pieces_with_old_null - 1);
  // Replaces the current null version.
  EXPECT_EQ(Put("k", "s2"), "null");
  EXPECT_EQ(Described(), (std::vector<std::string>{"k@null[latest]", "k@" + v1}));
  Result<std::string> data = Read("k", "null");
  ASSERT_OK(data.status());
  EXPECT_EQ(*data, "s2");
  data = Read("k", v1);
  ASSERT_OK(data.status());
  EXPECT_EQ(*data, Pattern(120, 2));

  // Enabled again: the null version becomes noncurrent, and stays one until replaced.
  SetState(VersioningState::kEnabled);
  const std::string v2 = Put("k", "e2");
  EXPECT_EQ(Described(), (std::vector<std::string>{"k@" + v2 + "[latest]", "k@null", "k@" + v1}));
}

TEST_F(VersionsTest, DeleteMarkersHideTheKeyAndTellTheirId) {
  SetState(VersioningState::kEnabled);
  const std::string v1 = Put("k", "one");
  Result<DeleteResult> del = store_->DeleteObjectVersioned("b", "k");
  ASSERT_OK(del.status());
  EXPECT_TRUE(del->delete_marker);
  ASSERT_EQ(del->version_id.size(), 32u);
  const std::string dm = del->version_id;
  EXPECT_EQ(Described(), (std::vector<std::string>{"k@" + dm + "[dm][latest]", "k@" + v1}));

  // Without a version id: not found, and the caller learns it is a marker, with its id.
  EXPECT_EQ(store_->HeadObject("b", "k").status().code(), Code::kNoSuchKey);
  EXPECT_EQ(testing::ReadObject(*store_, "b", "k").status().code(), Code::kNoSuchKey);
  for (const std::string& id : {std::string(), dm}) {
    DeleteMarkerInfo marker;
    EXPECT_EQ(store_->HeadObjectVersion("b", "k", id, &marker).status().code(), Code::kNoSuchKey);
    EXPECT_TRUE(marker.delete_marker) << id;
    EXPECT_EQ(marker.version_id, dm);
    marker = {};
    EXPECT_EQ(store_->OpenObjectVersion("b", "k", id, &marker).status().code(), Code::kNoSuchKey);
    EXPECT_TRUE(marker.delete_marker) << id;
    EXPECT_EQ(marker.version_id, dm);
  }
  // A key that never existed is not found without a marker.
  DeleteMarkerInfo none;
  EXPECT_EQ(store_->HeadObjectVersion("b", "other", "", &none).status().code(), Code::kNoSuchKey);
  EXPECT_FALSE(none.delete_marker);
  // The old version still reads by id; ListObjects does not list the key.
  Result<std::string> data = Read("k", v1);
  ASSERT_OK(data.status());
  EXPECT_EQ(*data, "one");
  ListQuery lq;
  lq.bucket = "b";
  Result<ListPage> page = store_->ListObjects(lq);
  ASSERT_OK(page.status());
  EXPECT_TRUE(page->objects.empty());
  Result<BucketStats> stats = store_->GetBucketStats("b");
  ASSERT_OK(stats.status());
  EXPECT_EQ(stats->objects, 0u);

  // A second delete stacks another marker; a delete of a key that never existed makes one too.
  Result<DeleteResult> again = store_->DeleteObjectVersioned("b", "k");
  ASSERT_OK(again.status());
  Result<DeleteResult> fresh = store_->DeleteObjectVersioned("b", "never");
  ASSERT_OK(fresh.status());
  EXPECT_TRUE(fresh->delete_marker);
  EXPECT_EQ(Described(),
            (std::vector<std::string>{"k@" + again->version_id + "[dm][latest]", "k@" + dm + "[dm]",
                                      "k@" + v1, "never@" + fresh->version_id + "[dm][latest]"}));

  // Removing the latest marker leaves the older marker latest; removing that one undeletes.
  Result<DeleteResult> removed = store_->DeleteObjectVersion("b", "k", again->version_id);
  ASSERT_OK(removed.status());
  EXPECT_TRUE(removed->delete_marker);
  EXPECT_EQ(removed->version_id, again->version_id);
  EXPECT_EQ(store_->HeadObject("b", "k").status().code(), Code::kNoSuchKey);
  ASSERT_OK(store_->DeleteObjectVersion("b", "k", dm).status());
  Result<ObjectMeta> head = store_->HeadObject("b", "k");
  ASSERT_OK(head.status());
  EXPECT_EQ(head->version_id, v1);
  EXPECT_EQ(Described("k"), std::vector<std::string>{"k@" + v1 + "[latest]"});
  stats = store_->GetBucketStats("b");
  ASSERT_OK(stats.status());
  EXPECT_EQ(stats->objects, 1u);
  EXPECT_EQ(stats->bytes, 3u);
}

TEST_F(VersionsTest, SuspendedDeleteMakesANullMarkerReplacingTheNullVersion) {
  SetState(VersioningState::kEnabled);
  const std::string v1 = Put("k", "one");
  SetState(VersioningState::kSuspended);
  EXPECT_EQ(Put("k", "null-data"), "null");
  Result<DeleteResult> del = store_->DeleteObjectVersioned("b", "k");
  ASSERT_OK(del.status());
  EXPECT_TRUE(del->delete_marker);
  EXPECT_EQ(del->version_id, "");
  EXPECT_EQ(Described(), (std::vector<std::string>{"k@null[dm][latest]", "k@" + v1}));
  DeleteMarkerInfo marker;
  EXPECT_EQ(store_->HeadObjectVersion("b", "k", "null", &marker).status().code(), Code::kNoSuchKey);
  EXPECT_TRUE(marker.delete_marker);
  EXPECT_EQ(marker.version_id, "");
  // Deleting again replaces the null marker with a new one: still two entries.
  ASSERT_OK(store_->DeleteObjectVersioned("b", "k").status());
  EXPECT_EQ(Described(), (std::vector<std::string>{"k@null[dm][latest]", "k@" + v1}));
  // A write replaces the null marker too.
  EXPECT_EQ(Put("k", "back"), "null");
  EXPECT_EQ(Described(), (std::vector<std::string>{"k@null[latest]", "k@" + v1}));
  // Removing the null marker by id "null" (when it is the latest) undeletes v1.
  ASSERT_OK(store_->DeleteObjectVersioned("b", "k").status());
  Result<DeleteResult> removed = store_->DeleteObjectVersion("b", "k", "null");
  ASSERT_OK(removed.status());
  EXPECT_TRUE(removed->delete_marker);
  EXPECT_EQ(removed->version_id, "");
  Result<ObjectMeta> head = store_->HeadObject("b", "k");
  ASSERT_OK(head.status());
  EXPECT_EQ(head->version_id, v1);
}

TEST_F(VersionsTest, DeleteByIdOfCurrentNoncurrentAndNull) {
  Put("k", "null-data");  // before versioning
  SetState(VersioningState::kEnabled);
  const std::string v1 = Put("k", "one");
  const std::string v2 = Put("k", "two");
  const std::string v3 = Put("k", "three");
  // The current version: the next newer-by-order becomes current.
  Result<DeleteResult> del = store_->DeleteObjectVersion("b", "k", v3);
  ASSERT_OK(del.status());
  EXPECT_FALSE(del->delete_marker);
  EXPECT_EQ(del->version_id, v3);
  Result<std::string> data = Read("k", "");
  ASSERT_OK(data.status());
  EXPECT_EQ(*data, "two");
  // A noncurrent one.
  ASSERT_OK(store_->DeleteObjectVersion("b", "k", v1).status());
  EXPECT_EQ(Described(), (std::vector<std::string>{"k@" + v2 + "[latest]", "k@null"}));
  // The noncurrent null version.
  del = store_->DeleteObjectVersion("b", "k", "null");
  ASSERT_OK(del.status());
  EXPECT_EQ(del->version_id, "");
  EXPECT_EQ(Described(), std::vector<std::string>{"k@" + v2 + "[latest]"});
  // Current whose next version is a marker: the key reads as deleted.
  const std::string v4 = Put("k", "four");
  ASSERT_OK(store_->DeleteObjectVersion("b", "k", v2).status());  // noncurrent now
  Result<DeleteResult> dm = store_->DeleteObjectVersioned("b", "k");
  ASSERT_OK(dm.status());
  const std::string v5 = Put("k", "five");
  ASSERT_OK(store_->DeleteObjectVersion("b", "k", v5).status());
  DeleteMarkerInfo marker;
  EXPECT_EQ(store_->HeadObjectVersion("b", "k", "", &marker).status().code(), Code::kNoSuchKey);
  EXPECT_TRUE(marker.delete_marker);
  EXPECT_EQ(marker.version_id, dm->version_id);
  EXPECT_EQ(Described(),
            (std::vector<std::string>{"k@" + dm->version_id + "[dm][latest]", "k@" + v4}));
  // The last version goes: nothing is left, and deleting it again is kNoSuchVersion.
  ASSERT_OK(store_->DeleteObjectVersion("b", "k", dm->version_id).status());
  ASSERT_OK(store_->DeleteObjectVersion("b", "k", v4).status());
  EXPECT_TRUE(Described().empty());
  EXPECT_EQ(store_->DeleteObjectVersion("b", "k", v4).status().code(), Code::kNoSuchVersion);
  // In an unversioned bucket "null" deletes the object.
  bool created = false;
  ASSERT_OK(store_->GetOrCreateBucket(testing::Bucket("plain"), &created).status());
  ASSERT_OK(PutObject(*store_, "plain", "k", "x").status());
  ASSERT_OK(store_->DeleteObjectVersion("plain", "k", "null").status());
  EXPECT_EQ(store_->HeadObject("plain", "k").status().code(), Code::kNoSuchKey);
}

TEST_F(VersionsTest, MalformedAndUnknownVersionIds) {
  SetState(VersioningState::kEnabled);
  const std::string v1 = Put("k", "one");
  std::string same_seq_other_random = v1;
  same_seq_other_random[31] = same_seq_other_random[31] == '0' ? '1' : '0';
  struct Case {
    std::string id;
    Code code;
  };
  const std::vector<Case> cases = {
      {"abc", Code::kInvalidArgument},
      {std::string(31, 'a'), Code::kInvalidArgument},
      {std::string(33, 'a'), Code::kInvalidArgument},
      {std::string(32, 'A'), Code::kInvalidArgument},                         // upper case
      {std::string(32, 'g'), Code::kInvalidArgument},                         // not hex
      {std::string(16, '0') + std::string(16, 'a'), Code::kInvalidArgument},  // sequence 0
      {"NULL", Code::kInvalidArgument},
      {std::string(16, '1') + std::string(16, 'a'), Code::kNoSuchVersion},  // well formed
      {same_seq_other_random, Code::kNoSuchVersion},
      {"null", Code::kNoSuchVersion},  // no null version of k
  };
  for (const Case& c : cases) {
    DeleteMarkerInfo marker;
    EXPECT_EQ(store_->HeadObjectVersion("b", "k", c.id, &marker).status().code(), c.code) << c.id;
    EXPECT_EQ(store_->OpenObjectVersion("b", "k", c.id, &marker).status().code(), c.code) << c.id;
    EXPECT_EQ(store_->DeleteObjectVersion("b", "k", c.id).status().code(), c.code) << c.id;
  }
  EXPECT_EQ(store_->DeleteObjectVersion("b", "k", "").status().code(), Code::kInvalidArgument);
  // Unknown key, unknown bucket.
  DeleteMarkerInfo marker;
  EXPECT_EQ(store_->HeadObjectVersion("b", "nokey", v1, &marker).status().code(),
            Code::kNoSuchVersion);
  EXPECT_EQ(store_->HeadObjectVersion("nob", "k", v1, &marker).status().code(),
            Code::kNoSuchBucket);
  EXPECT_EQ(store_->OpenObjectVersion("nob", "k", v1, &marker).status().code(),
            Code::kNoSuchBucket);
  EXPECT_EQ(store_->DeleteObjectVersion("nob", "k", v1).status().code(), Code::kNoSuchBucket);
  EXPECT_EQ(store_->DeleteObjectVersioned("nob", "k").status().code(), Code::kNoSuchBucket);
  // Nothing changed.
  EXPECT_EQ(Described(), std::vector<std::string>{"k@" + v1 + "[latest]"});
}

TEST_F(VersionsTest, SetBucketVersioningRules) {
  // Unversioned to unversioned changes nothing; there is no way back once versioned.
  ASSERT_OK(store_->SetBucketVersioning("b", VersioningState::kUnversioned));
  SetState(VersioningState::kSuspended);
  EXPECT_EQ(store_->SetBucketVersioning("b", VersioningState::kUnversioned).code(),
            Code::kInvalidArgument);
  SetState(VersioningState::kEnabled);
  EXPECT_EQ(store_->SetBucketVersioning("nob", VersioningState::kEnabled).code(),
            Code::kNoSuchBucket);
  Result<BucketRecord> record = store_->GetBucket("b");
  ASSERT_OK(record.status());
  EXPECT_EQ(record->versioning, VersioningState::kEnabled);
  // UpdateBucket keeps the stored state whatever the change says.
  ASSERT_OK(store_->UpdateBucket("b", [](BucketRecord* b) {
    b->policy = "{}";
    b->versioning = VersioningState::kUnversioned;
    return Status::Ok();
  }));
  record = store_->GetBucket("b");
  ASSERT_OK(record.status());
  EXPECT_EQ(record->versioning, VersioningState::kEnabled);
  EXPECT_EQ(record->policy, "{}");
  EXPECT_EQ(Put("k", "x").size(), 32u);
  // A bucket created versioned (object lock) versions from its first write.
  BucketRecord locked = testing::Bucket("locked");
  locked.versioning = VersioningState::kEnabled;
  locked.object_lock.enabled = true;
  ASSERT_OK(store_->CreateBucket(locked));
  Result<ObjectMeta> m = PutObject(*store_, "locked", "k", "x");
  ASSERT_OK(m.status());
  EXPECT_EQ(m->version_id.size(), 32u);
  // The old DeleteObject makes a delete marker in a versioned bucket.
  ASSERT_OK(store_->DeleteObject("locked", "k"));
  DeleteMarkerInfo marker;
  EXPECT_EQ(store_->HeadObjectVersion("locked", "k", "", &marker).status().code(),
            Code::kNoSuchKey);
  EXPECT_TRUE(marker.delete_marker);
  Result<ObjectMeta> kept = store_->HeadObjectVersion("locked", "k", m->version_id, &marker);
  ASSERT_OK(kept.status());
  EXPECT_FALSE(marker.delete_marker);
}

TEST_F(VersionsTest, WriteConditionsSeeTheLatestVersion) {
  SetState(VersioningState::kEnabled);
  Put("k", "one");
  WriteCondition none_match;
  none_match.if_none_match_any = true;
  EXPECT_EQ(PutObject(*store_, "b", "k", "two", none_match).status().code(),
            Code::kPreconditionFailed);
  ASSERT_OK(store_->DeleteObjectVersioned("b", "k").status());
  // A latest delete marker counts as no object.
  ASSERT_OK(PutObject(*store_, "b", "k", "three", none_match).status());
  WriteCondition match;
  match.if_match = "nope";
  EXPECT_EQ(PutObject(*store_, "b", "k", "four", match).status().code(), Code::kPreconditionFailed);
  EXPECT_EQ(AllVersions().size(), 3u);
}

TEST_F(VersionsTest, CompletedUploadIsANewVersion) {
  SetState(VersioningState::kEnabled);
  const std::string v1 = Put("k", "one");
  Result<UploadRecord> u = store_->CreateUpload("b", "k", ObjectMeta());
  ASSERT_OK(u.status());
  Result<std::unique_ptr<PartWriter>> w = store_->NewPartWriter("b", "k", u->upload_id);
  ASSERT_OK(w.status());
  ASSERT_OK((*w)->Append(Pattern(300, 7)));
  PartRecord part;
  part.etag = "p1";
  ASSERT_OK((*w)->Commit(1, part).status());
  ObjectMeta meta;
  meta.etag = "mp-1";
  Result<ObjectMeta> done = store_->CompleteUpload("b", "k", u->upload_id, {1}, meta);
  ASSERT_OK(done.status());
  ASSERT_EQ(done->version_id.size(), 32u);
  EXPECT_EQ(Described(),
            (std::vector<std::string>{"k@" + done->version_id + "[latest]", "k@" + v1}));
  Result<std::string> data = Read("k", done->version_id);
  ASSERT_OK(data.status());
  EXPECT_EQ(*data, Pattern(300, 7));
  // UpdateObjectMeta (a copy onto itself) keeps the current version's identity.
  ObjectMeta replaced;
  replaced.content_type = "text/plain";
  Result<ObjectMeta> updated = store_->UpdateObjectMeta("b", "k", replaced);
  ASSERT_OK(updated.status());
  EXPECT_EQ(updated->version_id, done->version_id);
  EXPECT_EQ(Described(),
            (std::vector<std::string>{"k@" + done->version_id + "[latest]", "k@" + v1}));
}

// Pages of every size over keys with many versions, markers, a null version and common
// prefixes: their concatenation is the one-page listing, each entry once, in order.
TEST_F(VersionsTest, ListObjectVersionsPagesThroughEverythingOnce) {
  Put("a", "a-null");
  Put("c", "c-null");
  SetState(VersioningState::kEnabled);
  Put("a", "a1");
  for (int i = 0; i < 23; ++i) {
    Put("c", "c" + std::to_string(i));
    if (i % 5 == 0) ASSERT_OK(store_->DeleteObjectVersioned("b", "c").status());
  }
  Put("d/1", "x");
  Put("d/2", "x");
  ASSERT_OK(store_->DeleteObjectVersioned("b", "d/2").status());
  Put("e", "e1");
  Put(std::string("e\0z", 3), "nul in key");
  ASSERT_OK(store_->DeleteObjectVersioned("b", "f").status());

  for (const std::string delimiter : {"", "/"}) {
    VersionsQuery q;
    q.bucket = "b";
    q.delimiter = delimiter;
    q.max_keys = 1000;
    Result<VersionsPage> whole = store_->ListObjectVersions(q);
    ASSERT_OK(whole.status());
    ASSERT_FALSE(whole->truncated);
    std::vector<std::string> want;
    for (const ObjectVersion& v : whole->versions) want.push_back(Describe(v));
    for (const std::string& p : whole->common_prefixes) want.push_back("prefix " + p);
    std::sort(want.begin(), want.end());
    if (delimiter.empty()) {
      // a: null, a1; c: null, 23 versions, 5 markers; d/1; d/2 and its marker; e; e\0z; f's
      // marker.
      EXPECT_EQ(whole->versions.size(), 2u + 29 + 1 + 2 + 1 + 1 + 1);
      EXPECT_TRUE(whole->common_prefixes.empty());
    } else {
      EXPECT_EQ(whole->common_prefixes, std::vector<std::string>{"d/"});
    }
    // Keys ascending, and each key's versions newest first with one latest at its head.
    for (size_t i = 1; i < whole->versions.size(); ++i) {
      const ObjectVersion& prev = whole->versions[i - 1];
      const ObjectVersion& cur = whole->versions[i];
      ASSERT_LE(prev.key, cur.key);
      if (prev.key == cur.key) {
        EXPECT_FALSE(cur.is_latest);
        EXPECT_GE(prev.last_modified_ms, cur.last_modified_ms);
      } else {
        EXPECT_TRUE(cur.is_latest) << cur.key;
      }
    }
    for (size_t page_size : {1, 2, 3, 7, 1000}) {
      VersionsQuery pq = q;
      pq.max_keys = page_size;
      std::vector<std::string> got;
      for (int pages = 0; pages < 200; ++pages) {
        Result<VersionsPage> page = store_->ListObjectVersions(pq);
        ASSERT_OK(page.status());
        ASSERT_LE(page->versions.size() + page->common_prefixes.size(), page_size);
        for (const ObjectVersion& v : page->versions) got.push_back(Describe(v));
        for (const std::string& p : page->common_prefixes) got.push_back("prefix " + p);
        if (!page->truncated) {
          EXPECT_TRUE(page->next_key_marker.empty());
          break;
        }
        ASSERT_FALSE(page->next_key_marker.empty());
        pq.key_marker = page->next_key_marker;
        pq.version_id_marker = page->next_version_id_marker;
      }
      std::vector<std::string> sorted = got;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_EQ(sorted, want) << "page size " << page_size << " delimiter '" << delimiter << "'";
    }
  }
  // A prefix.
  EXPECT_EQ(Described("d/").size(), 3u);
  // A page of one ends on a version: the markers name it.
  VersionsQuery one;
  one.bucket = "b";
  one.max_keys = 1;
  Result<VersionsPage> first = store_->ListObjectVersions(one);
  ASSERT_OK(first.status());
  ASSERT_TRUE(first->truncated);
  EXPECT_EQ(first->next_key_marker, "a");
  EXPECT_EQ(first->next_version_id_marker, first->versions[0].version_id);
  one.key_marker = "a";
  one.version_id_marker = first->versions[0].version_id;
  Result<VersionsPage> second = store_->ListObjectVersions(one);
  ASSERT_OK(second.status());
  ASSERT_EQ(second->versions.size(), 1u);
  EXPECT_EQ(second->versions[0].version_id, "");  // a's null version
  EXPECT_EQ(second->next_version_id_marker, "null");
  // max-keys 0: an empty page, not truncated.
  one.max_keys = 0;
  Result<VersionsPage> empty = store_->ListObjectVersions(one);
  ASSERT_OK(empty.status());
  EXPECT_TRUE(empty->versions.empty());
  EXPECT_FALSE(empty->truncated);
}

TEST_F(VersionsTest, ListObjectVersionsErrors) {
  VersionsQuery q;
  q.bucket = "b";
  q.version_id_marker = "null";
  EXPECT_EQ(store_->ListObjectVersions(q).status().code(),
            Code::kInvalidArgument);  // no key marker
  q.key_marker = "k";
  q.version_id_marker = "bad";
  EXPECT_EQ(store_->ListObjectVersions(q).status().code(), Code::kInvalidArgument);
  q.bucket = "nob";
  q.version_id_marker.clear();
  EXPECT_EQ(store_->ListObjectVersions(q).status().code(), Code::kNoSuchBucket);
}

TEST_F(VersionsTest, ListObjectsIgnoresNoncurrentVersions) {
  SetState(VersioningState::kEnabled);
  for (int k = 0; k < 5; ++k) {
    for (int v = 0; v < 20; ++v) Put("key" + std::to_string(k), "v" + std::to_string(v));
  }
  ASSERT_OK(store_->DeleteObjectVersioned("b", "key2").status());
  ListQuery lq;
  lq.bucket = "b";
  lq.max_keys = 2;
  std::vector<std::string> keys;
  for (;;) {
    Result<ListPage> page = store_->ListObjects(lq);
    ASSERT_OK(page.status());
    for (const ListEntry& e : page->objects) {
      keys.push_back(e.key);
      EXPECT_EQ(e.size, 3u);  // "v19"
    }
    if (!page->truncated) break;
    lq.start_after = page->last;
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"key0", "key1", "key3", "key4"}));
}

TEST_F(VersionsTest, DeleteBucketRefusesWhileAnyVersionOrMarkerRemains) {
  SetState(VersioningState::kEnabled);
  const std::string v1 = Put("k", "one");
  Result<DeleteResult> dm = store_->DeleteObjectVersioned("b", "k");
  ASSERT_OK(dm.status());
  // No current object, but a version and a marker.
  Result<bool> empty = store_->BucketIsEmpty("b");
  ASSERT_OK(empty.status());
  EXPECT_FALSE(*empty);
  EXPECT_EQ(store_->DeleteBucket("b", false).code(), Code::kBucketNotEmpty);
  ASSERT_OK(store_->DeleteObjectVersion("b", "k", v1).status());
  EXPECT_EQ(store_->DeleteBucket("b", false).code(), Code::kBucketNotEmpty);  // the marker
  ASSERT_OK(store_->DeleteObjectVersion("b", "k", dm->version_id).status());
  ASSERT_OK(store_->DeleteBucket("b", false));
  // A bucket of the same name starts unversioned.
  bool created = false;
  ASSERT_OK(store_->GetOrCreateBucket(testing::Bucket("b"), &created).status());
  EXPECT_EQ(Put("k", "x"), "null");
}

TEST_F(VersionsTest, DeletingEveryVersionReleasesAllData) {
  const uint64_t before = Pieces(*store_);
  Put("k", Pattern(1000, 1));  // a data file, written as the null version
  SetState(VersioningState::kEnabled);
  std::vector<std::string> ids = {"null"};
  for (int i = 0; i < 4; ++i) ids.push_back(Put("k", Pattern(150 + 400 * (i % 2), i)));
  ids.push_back(Put("j", Pattern(700, 9)));
  Result<DeleteResult> dm = store_->DeleteObjectVersioned("b", "k");
  ASSERT_OK(dm.status());
  EXPECT_GT(Pieces(*store_), before + 4);
  for (const ObjectVersion& v : AllVersions()) {
    ASSERT_OK(store_->DeleteObjectVersion("b", v.key, v.version_id.empty() ? "null" : v.version_id)
                  .status());
  }
  EXPECT_TRUE(AllVersions().empty());
  EXPECT_EQ(Pieces(*store_), before);
  EXPECT_TRUE(testing::BlobIds(dir_.path() + "/store").empty());
  Result<BucketStats> stats = store_->GetBucketStats("b");
  ASSERT_OK(stats.status());
  EXPECT_EQ(stats->objects, 0u);
  EXPECT_EQ(stats->bytes, 0u);
  ASSERT_OK(store_->DeleteBucket("b", false));
}

TEST_F(VersionsTest, ForceDeleteOfAVersionedBucketReleasesEveryVersion) {
  const uint64_t before = Pieces(*store_);
  SetState(VersioningState::kEnabled);
  for (int i = 0; i < 3; ++i) Put("k", Pattern(900, i));
  ASSERT_OK(store_->DeleteObjectVersioned("b", "k").status());
  SetState(VersioningState::kSuspended);
  ASSERT_OK(store_->DeleteObjectVersioned("b", "k").status());
  ASSERT_OK(store_->DeleteBucket("b", true));
  EXPECT_EQ(Pieces(*store_), before);
  EXPECT_TRUE(testing::BlobIds(dir_.path() + "/store").empty());
}

// Object lock binds a forced delete too (COSI's forceDelete): a version under a legal hold or
// running retention, current or noncurrent, keeps the whole bucket, with nothing changed.
TEST_F(VersionsTest, ForceDeleteRefusesWhileAVersionIsLocked) {
  SetState(VersioningState::kEnabled);
  const std::string v1 = Put("k", "one");
  Put("k", "two");
  Put("j", "other");
  const std::vector<std::string> before = Described();
  // A noncurrent version under legal hold.
  ASSERT_OK(store_->PutObjectLegalHold("b", "k", v1, LegalHold::kOn));
  Status s = store_->DeleteBucket("b", true);
  EXPECT_EQ(s.code(), Code::kObjectLocked) << s.ToString();
  EXPECT_NE(s.message().find("\"k\""), std::string::npos) << s.message();
  EXPECT_EQ(Described(), before);
  ASSERT_OK(store_->PutObjectLegalHold("b", "k", v1, LegalHold::kOff));
  // The current version of another key under GOVERNANCE retention: no bypass here.
  const int64_t later = 4102444800000;  // 2100-01-01
  ASSERT_OK(store_->PutObjectRetention("b", "j", "",
                                       ObjectRetention{RetentionMode::kGovernance, later}, false));
  EXPECT_EQ(store_->DeleteBucket("b", true).code(), Code::kObjectLocked);
  EXPECT_EQ(Described(), before);
  // Retention that has run out binds nothing.
  ASSERT_OK(store_->PutObjectRetention(
      "b", "j", "", ObjectRetention{RetentionMode::kGovernance, 946684800000}, true));
  ASSERT_OK(store_->DeleteBucket("b", true));
  EXPECT_EQ(store_->GetBucket("b").status().code(), Code::kNoSuchBucket);
}

TEST_F(VersionsTest, VersionsAndStateSurviveAReopen) {
  SetState(VersioningState::kEnabled);
  const std::string v1 = Put("k", "one");
  Result<DeleteResult> dm = store_->DeleteObjectVersioned("b", "k");
  ASSERT_OK(dm.status());
  const std::vector<std::string> before = Described();
  Open();
  EXPECT_EQ(Described(), before);
  // The state was loaded: a write is a new version, not the null one.
  const std::string v2 = Put("k", "two");
  EXPECT_EQ(v2.size(), 32u);
  EXPECT_EQ(Described(), (std::vector<std::string>{"k@" + v2 + "[latest]",
                                                   "k@" + dm->version_id + "[dm]", "k@" + v1}));
}

// Object lock: a version under legal hold or running retention cannot be deleted by id
// (GOVERNANCE only with the bypass); retention is extended, not shortened, unless GOVERNANCE
// with the bypass; plain deletes still make markers.
TEST_F(VersionsTest, ObjectLockGuardsVersions) {
  SetState(VersioningState::kEnabled);
  const std::string v1 = Put("k", "one");
  const std::string v2 = Put("k", "two");
  const int64_t later = 4102444800000;  // 2100-01-01
  const int64_t past = 946684800000;    // 2000-01-01
  auto lock_of = [&](const std::string& id) {
    DeleteMarkerInfo marker;
    Result<ObjectMeta> m = store_->HeadObjectVersion("b", "k", id, &marker);
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? m->lock : ObjectLockState{};
  };
  // Legal hold on the noncurrent v1.
  ASSERT_OK(store_->PutObjectLegalHold("b", "k", v1, LegalHold::kOn));
  EXPECT_EQ(lock_of(v1).legal_hold, LegalHold::kOn);
  EXPECT_EQ(store_->DeleteObjectVersion("b", "k", v1, /*bypass_governance=*/true).status().code(),
            Code::kObjectLocked);
  ASSERT_OK(store_->PutObjectLegalHold("b", "k", v1, LegalHold::kOff));
  // GOVERNANCE on the current v2 (no id: the latest).
  ObjectRetention governance{RetentionMode::kGovernance, later};
  ASSERT_OK(store_->PutObjectRetention("b", "k", "", governance, false));
  EXPECT_EQ(lock_of(v2).retention, governance);
  EXPECT_EQ(store_->DeleteObjectVersion("b", "k", v2).status().code(), Code::kObjectLocked);
  ObjectRetention shorter{RetentionMode::kGovernance, later - 1000};
  EXPECT_EQ(store_->PutObjectRetention("b", "k", v2, shorter, false).code(), Code::kObjectLocked);
  ObjectRetention compliance{RetentionMode::kCompliance, later};
  ASSERT_OK(store_->PutObjectRetention("b", "k", v2, compliance, true));  // bypass: may change
  // COMPLIANCE: extended only, never shortened or lifted, not even with the bypass.
  EXPECT_EQ(store_->PutObjectRetention("b", "k", v2, shorter, true).code(), Code::kObjectLocked);
  EXPECT_EQ(store_->PutObjectRetention("b", "k", v2, ObjectRetention{}, true).code(),
            Code::kObjectLocked);
  ObjectRetention longer{RetentionMode::kCompliance, later + 1000};
  ASSERT_OK(store_->PutObjectRetention("b", "k", v2, longer, false));
  EXPECT_EQ(store_->DeleteObjectVersion("b", "k", v2, true).status().code(), Code::kObjectLocked);
  // A plain delete still makes a marker, and the locked version stays, lock and all.
  ASSERT_OK(store_->DeleteObjectVersioned("b", "k").status());
  EXPECT_EQ(lock_of(v2).retention, longer);
  // The lock stays with the version as it moves between the families (v2 is noncurrent now).
  // A version whose retention has run out goes.
  ASSERT_OK(store_->PutObjectRetention("b", "k", v1,
                                       ObjectRetention{RetentionMode::kGovernance, past}, false));
  ASSERT_OK(store_->DeleteObjectVersion("b", "k", v1).status());
  // Errors.
  EXPECT_EQ(
      store_->PutObjectRetention("b", "k", v2, ObjectRetention{RetentionMode::kNone, later}, true)
          .code(),
      Code::kInvalidArgument);
  EXPECT_EQ(
      store_->PutObjectRetention("b", "k", v2, ObjectRetention{RetentionMode::kGovernance, 0}, true)
          .code(),
      Code::kInvalidArgument);
  EXPECT_EQ(store_->PutObjectLegalHold("b", "k", v2, LegalHold::kNever).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(store_->PutObjectLegalHold("b", "k", "", LegalHold::kOn).code(),
            Code::kNoSuchKey);  // the latest is a marker
  EXPECT_EQ(store_->PutObjectLegalHold("b", "nokey", "", LegalHold::kOn).code(), Code::kNoSuchKey);
  EXPECT_EQ(store_
                ->PutObjectLegalHold("b", "k", std::string(16, '1') + std::string(16, 'a'),
                                     LegalHold::kOn)
                .code(),
            Code::kNoSuchVersion);
  EXPECT_EQ(store_->PutObjectLegalHold("b", "k", "bad", LegalHold::kOn).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(store_->PutObjectLegalHold("nob", "k", v2, LegalHold::kOn).code(), Code::kNoSuchBucket);
  // UpdateObjectMeta keeps the lock of the current version.
  Put("j", "x");
  ASSERT_OK(store_->PutObjectLegalHold("b", "j", "", LegalHold::kOn));
  Result<ObjectMeta> updated = store_->UpdateObjectMeta("b", "j", ObjectMeta());
  ASSERT_OK(updated.status());
  EXPECT_EQ(updated->lock.legal_hold, LegalHold::kOn);
  // Survives a reopen.
  Open();
  EXPECT_EQ(lock_of(v2).retention, longer);
}

// A bucket created with object lock is versioning-enabled from its creation (CreateBucket with
// x-amz-bucket-object-lock-enabled), in memory and after a reopen.
// PutObjectTags changes one version's tags in place: the version keeps its id, data, etag and
// time; other versions keep theirs; listings carry them (the lifecycle worker reads them).
TEST_F(VersionsTest, PutObjectTagsChangesOneVersionInPlace) {
  // Unversioned: the null version.
  Put("u", "plain");
  const std::vector<std::pair<std::string, std::string>> tags = {{"z", "1"}, {"a", "2"}};
  Result<std::string> changed = store_->PutObjectTags("b", "u", "", tags);
  ASSERT_TRUE(changed.ok()) << changed.status().ToString();
  EXPECT_EQ(*changed, "");
  Result<ObjectMeta> head = store_->HeadObject("b", "u");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->tags, tags);
  EXPECT_EQ(head->etag, "etag-plain");
  const Result<uint64_t> pieces = store_->DebugCountDataPieces();

  SetState(VersioningState::kEnabled);
  const std::string v1 = Put("k", "one");
  const std::string v2 = Put("k", "two");
  Result<ObjectMeta> before = store_->HeadObjectVersion("b", "k", v1, nullptr);
  ASSERT_TRUE(before.ok());
  // The noncurrent v1 by id.
  changed = store_->PutObjectTags("b", "k", v1, {{"old", "yes"}});
  ASSERT_TRUE(changed.ok()) << changed.status().ToString();
  EXPECT_EQ(*changed, v1);
  // The latest (v2) without an id.
  changed = store_->PutObjectTags("b", "k", "", tags);
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(*changed, v2);
  Result<ObjectMeta> m1 = store_->HeadObjectVersion("b", "k", v1, nullptr);
  ASSERT_TRUE(m1.ok());
  EXPECT_EQ(m1->tags, (std::vector<std::pair<std::string, std::string>>{{"old", "yes"}}));
  EXPECT_EQ(m1->last_modified_ms, before->last_modified_ms);
  EXPECT_EQ(m1->etag, before->etag);
  EXPECT_EQ(Read("k", v1).value(), "one");
  EXPECT_EQ(Read("k", v2).value(), "two");
  EXPECT_EQ(store_->HeadObject("b", "k")->tags, tags);
  EXPECT_EQ(Described(), (std::vector<std::string>{"k@" + v2 + "[latest]", "k@" + v1,
                                                   "u@null[latest]"}));
  std::vector<ObjectVersion> listed = AllVersions("k");
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].tags, tags);
  EXPECT_EQ(listed[1].tags, m1->tags);
  // Empty tags remove them; the record keeps working.
  ASSERT_OK(store_->PutObjectTags("b", "k", v1, {}).status());
  EXPECT_TRUE(store_->HeadObjectVersion("b", "k", v1, nullptr)->tags.empty());
  // Survives a reopen.
  Open();
  EXPECT_EQ(store_->HeadObject("b", "k")->tags, tags);
  EXPECT_EQ(store_->HeadObject("b", "u")->tags, tags);
  // No data was written by the tag changes: one data piece per object only (all inline).
  ASSERT_TRUE(pieces.ok());
  EXPECT_EQ(store_->DebugCountDataPieces().value(), *pieces);
  // Errors.
  ASSERT_OK(store_->DeleteObjectVersioned("b", "k").status());
  EXPECT_EQ(store_->PutObjectTags("b", "k", "", tags).status().code(),
            Code::kNoSuchKey);  // the latest is a marker
  EXPECT_EQ(store_->PutObjectTags("b", "nokey", "", tags).status().code(), Code::kNoSuchKey);
  EXPECT_EQ(
      store_->PutObjectTags("b", "k", std::string(16, '1') + std::string(16, 'a'), tags)
          .status()
          .code(),
      Code::kNoSuchVersion);
  EXPECT_EQ(store_->PutObjectTags("b", "k", "bad", tags).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(store_->PutObjectTags("nob", "k", v2, tags).status().code(), Code::kNoSuchBucket);
}

TEST_F(VersionsTest, CreatedWithVersioningAndObjectLock) {
  BucketRecord record = testing::Bucket("locked");
  record.versioning = VersioningState::kEnabled;
  record.object_lock.enabled = true;
  bool created = false;
  ASSERT_OK(store_->GetOrCreateBucket(record, &created).status());
  EXPECT_TRUE(created);
  EXPECT_EQ(store_->BucketVersioning("locked"), VersioningState::kEnabled);
  Result<ObjectMeta> m = PutObject(*store_, "locked", "k", "data", {}, 1, "etag");
  ASSERT_OK(m.status());
  EXPECT_EQ(m->version_id.size(), 32u);
  // It stays Enabled (s3api refuses first with InvalidBucketState; this closes the race).
  EXPECT_EQ(store_->SetBucketVersioning("locked", VersioningState::kSuspended).code(),
            Code::kInvalidArgument);
  ASSERT_OK(store_->SetBucketVersioning("locked", VersioningState::kEnabled));
  Open();
  EXPECT_EQ(store_->BucketVersioning("locked"), VersioningState::kEnabled);
  Result<BucketRecord> read = store_->GetBucket("locked");
  ASSERT_OK(read.status());
  EXPECT_EQ(read->versioning, VersioningState::kEnabled);
  EXPECT_TRUE(read->object_lock.enabled);
}

// A data folder of format 1 (written by an older release) opens, is migrated to the current
// format, and its objects are null versions that versioning keeps.
TEST(VersionsUpgrade, Format1FixtureOpensWithNullVersions) {
  TempDir dir;
  const std::string cmd = std::string("tar xzf '") + CUBBY_FIXTURES_DIR +
                          "/format1/data.tar.gz' -C '" + dir.path() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  StoreOptions options;
  options.path = dir.path() + "/data/db";
  std::vector<MigrationEvent> events;
  options.on_migration = [&](const MigrationEvent& e) { events.push_back(e); };
  std::unique_ptr<Store> store = OpenOrDie(options);
  ASSERT_NE(store, nullptr);
  ASSERT_EQ(events.size(), 2u * (kFormatVersion - 1));
  EXPECT_EQ(events.back().to, 3u);
  EXPECT_TRUE(events.back().done);

  Result<BucketRecord> bucket = store->GetBucket("fx-private");
  ASSERT_OK(bucket.status());
  EXPECT_EQ(bucket->versioning, VersioningState::kUnversioned);
  Result<ObjectMeta> small = store->HeadObject("fx-private", "small.txt");
  ASSERT_OK(small.status());
  EXPECT_EQ(small->size, 1000u);
  EXPECT_TRUE(small->version_id.empty());
  DeleteMarkerInfo marker;
  Result<ObjectMeta> null = store->HeadObjectVersion("fx-private", "small.txt", "null", &marker);
  ASSERT_OK(null.status());
  EXPECT_EQ(null->etag, small->etag);

  ASSERT_OK(store->SetBucketVersioning("fx-private", VersioningState::kEnabled));
  Result<ObjectMeta> v1 = PutObject(*store, "fx-private", "small.txt", "new");
  ASSERT_OK(v1.status());
  Result<std::string> old_data = [&]() -> Result<std::string> {
    Result<std::unique_ptr<ObjectReader>> r =
        store->OpenObjectVersion("fx-private", "small.txt", "null", &marker);
    if (!r.ok()) return r.status();
    std::string out(2000, '\0');
    Result<size_t> n = (*r)->Read(out.data(), out.size());
    if (!n.ok()) return n.status();
    out.resize(*n);
    return out;
  }();
  ASSERT_OK(old_data.status());
  EXPECT_EQ(old_data->size(), 1000u);
  store.reset();
  Result<std::optional<uint32_t>> format = ReadFormatVersion(options.path);
  ASSERT_OK(format.status());
  EXPECT_EQ(*format, std::optional<uint32_t>(3));
}

}  // namespace
}  // namespace cubby::storage
