#include "storage/store.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "storage/codec.h"
#include "storage/db_options.h"
#include "storage/keygen.h"
#include "test/storage/test_util.h"

namespace cubby::storage {
namespace {

using testing::Bucket;
using testing::Chunks;
using testing::OpenOrDie;
using testing::Pattern;
using testing::PutObject;
using testing::ReadObject;
using testing::SmallOptions;
using testing::TempDir;

#define ASSERT_OK(expr)                                 \
  do {                                                  \
    const auto _s = (expr);                             \
    ASSERT_TRUE(_s.ok()) << #expr << ": " << _s.ToString(); \
  } while (0)

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenOrDie(options_);
    ASSERT_NE(store_, nullptr);
    ASSERT_OK(store_->CreateBucket(Bucket("b")));
  }
  void Reopen() {
    store_.reset();
    store_ = OpenOrDie(options_);
    ASSERT_NE(store_, nullptr);
  }
  uint64_t ChunkSize() const { return options_.chunk_size; }
  uint64_t InlineLimit() const { return options_.inline_limit; }

  TempDir dir_;
  StoreOptions options_ = SmallOptions(dir_.path());
  std::unique_ptr<Store> store_;
};

// ---------------------------------------------------------------- Open

TEST(StoreOpen, SecondOpenOfTheSameFolderIsIOError) {
  TempDir dir;
  auto first = OpenOrDie(SmallOptions(dir.path()));
  ASSERT_NE(first, nullptr);
  Result<std::unique_ptr<Store>> second = Store::Open(SmallOptions(dir.path()));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Code::kIOError);
}

TEST(StoreOpen, InvalidOptions) {
  TempDir dir;
  StoreOptions o = SmallOptions(dir.path());
  o.chunk_size = 0;
  EXPECT_EQ(Store::Open(o).status().code(), Code::kInvalidArgument);
  o = SmallOptions("");
  EXPECT_EQ(Store::Open(o).status().code(), Code::kInvalidArgument);
}

TEST(StoreOpen, UncreatableFolderIsIOError) {
  TempDir dir;
  std::string file = dir.path() + "/file";
  ASSERT_TRUE(std::fopen(file.c_str(), "w") != nullptr);
  EXPECT_EQ(Store::Open(SmallOptions(file + "/db")).status().code(), Code::kIOError);
}

// ---------------------------------------------------------------- Buckets

TEST_F(StoreTest, BucketLifecycle) {
  BucketRecord c = Bucket("c");
  c.anonymous = AccessMode::kReadOnly;
  c.cosi_parameters = {{"k", "v"}};
  ASSERT_OK(store_->CreateBucket(c));
  EXPECT_EQ(store_->CreateBucket(Bucket("c")).code(), Code::kBucketAlreadyExists);

  Result<BucketRecord> got = store_->GetBucket("c");
  ASSERT_OK(got.status());
  EXPECT_EQ(got->anonymous, AccessMode::kReadOnly);
  EXPECT_EQ(got->cosi_parameters.at("k"), "v");
  EXPECT_EQ(store_->GetBucket("nope").status().code(), Code::kNoSuchBucket);

  ASSERT_OK(store_->CreateBucket(Bucket("a")));
  Result<std::vector<BucketRecord>> all = store_->ListBuckets();
  ASSERT_OK(all.status());
  std::vector<std::string> names;
  for (const auto& b : *all) names.push_back(b.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c"}));

  c.anonymous = AccessMode::kNone;
  c.force_delete = true;
  ASSERT_OK(store_->UpdateBucket(c));
  EXPECT_EQ(store_->GetBucket("c")->anonymous, AccessMode::kNone);
  EXPECT_TRUE(store_->GetBucket("c")->force_delete);
  EXPECT_EQ(store_->UpdateBucket(Bucket("nope")).code(), Code::kNoSuchBucket);

  ASSERT_OK(store_->DeleteBucket("c", false));
  EXPECT_EQ(store_->GetBucket("c").status().code(), Code::kNoSuchBucket);
  EXPECT_EQ(store_->DeleteBucket("c", false).code(), Code::kNoSuchBucket);
  EXPECT_EQ(store_->BucketIsEmpty("c").status().code(), Code::kNoSuchBucket);
}

TEST_F(StoreTest, InvalidBucketNames) {
  EXPECT_EQ(store_->CreateBucket(Bucket("")).code(), Code::kInvalidArgument);
  EXPECT_EQ(store_->CreateBucket(Bucket(std::string("a\0b", 3))).code(), Code::kInvalidArgument);
}

TEST_F(StoreTest, GetOrCreateBucket) {
  bool created = false;
  BucketRecord first = Bucket("x");
  first.created_by_cosi = true;
  Result<BucketRecord> r = store_->GetOrCreateBucket(first, &created);
  ASSERT_OK(r.status());
  EXPECT_TRUE(created);
  BucketRecord second = Bucket("x");
  second.anonymous = AccessMode::kReadWrite;
  r = store_->GetOrCreateBucket(second, &created);
  ASSERT_OK(r.status());
  EXPECT_FALSE(created);
  EXPECT_TRUE(r->created_by_cosi);  // the stored record, not the candidate
  EXPECT_EQ(r->anonymous, AccessMode::kNone);
}

TEST_F(StoreTest, GetOrCreateBucketConcurrentCreatesOnce) {
  std::atomic<int> created_count{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      BucketRecord b = Bucket("race");
      b.cosi_parameters = {{"thread", std::to_string(i)}};
      bool created = false;
      Result<BucketRecord> r = store_->GetOrCreateBucket(b, &created);
      EXPECT_TRUE(r.ok());
      if (created) ++created_count;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(created_count.load(), 1);
}

TEST_F(StoreTest, DeleteNonEmptyBucket) {
  ASSERT_OK(PutObject(*store_, "b", "small", "x").status());
  ASSERT_OK(PutObject(*store_, "b", "big", Pattern(3 * ChunkSize() + 7, 1)).status());
  EXPECT_FALSE(*store_->BucketIsEmpty("b"));
  EXPECT_EQ(store_->DeleteBucket("b", false).code(), Code::kBucketNotEmpty);
  ASSERT_OK(store_->GetBucket("b").status());
  EXPECT_EQ(*ReadObject(*store_, "b", "small"), "x");
  EXPECT_EQ(Chunks(*store_), 4u);

  ASSERT_OK(store_->DeleteObject("b", "small"));
  ASSERT_OK(store_->DeleteObject("b", "big"));
  EXPECT_TRUE(*store_->BucketIsEmpty("b"));
  EXPECT_EQ(Chunks(*store_), 0u);
  ASSERT_OK(store_->DeleteBucket("b", false));
}

TEST_F(StoreTest, ForceDeleteRemovesObjectsAndData) {
  ASSERT_OK(store_->CreateBucket(Bucket("keep")));
  ASSERT_OK(PutObject(*store_, "keep", "k", Pattern(2 * ChunkSize(), 2)).status());
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(PutObject(*store_, "b", "obj" + std::to_string(i), Pattern(ChunkSize() + 1 + i, i)).status());
  }
  ASSERT_OK(PutObject(*store_, "b", "inline", "tiny").status());
  EXPECT_EQ(Chunks(*store_), 2u + 5 * 2);
  ASSERT_OK(store_->DeleteBucket("b", true));
  EXPECT_EQ(store_->GetBucket("b").status().code(), Code::kNoSuchBucket);
  EXPECT_EQ(Chunks(*store_), 2u);
  // A new bucket of the same name starts empty.
  ASSERT_OK(store_->CreateBucket(Bucket("b")));
  EXPECT_TRUE(*store_->BucketIsEmpty("b"));
  EXPECT_EQ(store_->HeadObject("b", "obj1").status().code(), Code::kNoSuchKey);
  EXPECT_EQ(*ReadObject(*store_, "keep", "k"), Pattern(2 * ChunkSize(), 2));
}

// ---------------------------------------------------------------- Objects

TEST_F(StoreTest, RoundTripSizes) {
  const uint64_t cs = ChunkSize(), il = InlineLimit();
  struct Case {
    uint64_t size;
    bool inline_data;
    uint64_t chunks;
  } cases[] = {
      {0, true, 0},       {1, true, 0},           {il, true, 0},
      {il + 1, false, 1}, {cs, false, 1},         {cs + 1, false, 2},
      {2 * cs, false, 2}, {3 * cs + 7, false, 4},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("size " + std::to_string(c.size));
    const std::string data = Pattern(c.size, static_cast<uint32_t>(c.size));
    for (size_t piece : {size_t{1}, size_t{37}, size_t{1000000}}) {
      if (piece == 1 && c.size > 300) continue;
      Result<ObjectMeta> meta = PutObject(*store_, "b", "k", data, {}, piece, "e");
      ASSERT_OK(meta.status());
      EXPECT_EQ(meta->size, c.size);
      EXPECT_EQ(meta->data_id == 0, c.inline_data);
      EXPECT_GT(meta->last_modified_ms, 0);
      EXPECT_EQ(Chunks(*store_), c.chunks);
      Result<ObjectMeta> head = store_->HeadObject("b", "k");
      ASSERT_OK(head.status());
      EXPECT_EQ(head->size, c.size);
      EXPECT_EQ(head->etag, "e");
      EXPECT_EQ(head->content_type, "application/octet-stream");
      for (size_t read_piece : {size_t{1}, size_t{100}, size_t{4096}}) {
        if (read_piece == 1 && c.size > 300) continue;
        Result<std::string> back = ReadObject(*store_, "b", "k", read_piece);
        ASSERT_OK(back.status());
        EXPECT_TRUE(*back == data);
      }
    }
  }
}

TEST_F(StoreTest, SeekAndReadAtOddOffsets) {
  const uint64_t cs = ChunkSize();
  for (uint64_t size : {uint64_t{50}, 3 * cs + 7}) {
    const std::string data = Pattern(size, 5);
    ASSERT_OK(PutObject(*store_, "b", "k", data).status());
    Result<std::unique_ptr<ObjectReader>> r = store_->OpenObject("b", "k");
    ASSERT_OK(r.status());
    EXPECT_EQ((*r)->meta().size, size);
    const uint64_t offsets[] = {0, 1, 49, cs - 1, cs, cs + 1, 2 * cs + 3, size - 1, size, 17, 0};
    for (uint64_t off : offsets) {
      if (off > size) continue;
      SCOPED_TRACE("size " + std::to_string(size) + " offset " + std::to_string(off));
      ASSERT_OK((*r)->Seek(off));
      std::string buf(cs + 13, '\0');  // crosses a chunk boundary
      Result<size_t> n = (*r)->Read(buf.data(), buf.size());
      ASSERT_OK(n.status());
      size_t want = std::min<uint64_t>(buf.size(), size - off);
      ASSERT_EQ(*n, want);
      EXPECT_TRUE(buf.substr(0, *n) == data.substr(off, want));
    }
    EXPECT_EQ((*r)->Seek(size + 1).code(), Code::kInvalidArgument);
    ASSERT_OK((*r)->Seek(size));
    char c;
    EXPECT_EQ(*(*r)->Read(&c, 1), 0u);
  }
}

TEST_F(StoreTest, MissingObjectAndBucket) {
  EXPECT_EQ(store_->HeadObject("b", "k").status().code(), Code::kNoSuchKey);
  EXPECT_EQ(store_->OpenObject("b", "k").status().code(), Code::kNoSuchKey);
  EXPECT_EQ(store_->HeadObject("zz", "k").status().code(), Code::kNoSuchBucket);
  EXPECT_EQ(store_->OpenObject("zz", "k").status().code(), Code::kNoSuchBucket);
  EXPECT_EQ(store_->NewObjectWriter("zz").status().code(), Code::kNoSuchBucket);
  EXPECT_EQ(store_->DeleteObject("zz", "k").code(), Code::kNoSuchBucket);
  ASSERT_OK(store_->DeleteObject("b", "k"));  // absent key: OK
}

TEST_F(StoreTest, OverwriteAndDeleteReleaseData) {
  ASSERT_OK(PutObject(*store_, "b", "k", Pattern(3 * ChunkSize() + 7, 1)).status());
  EXPECT_EQ(Chunks(*store_), 4u);
  ASSERT_OK(PutObject(*store_, "b", "k", Pattern(2 * ChunkSize(), 2)).status());
  EXPECT_EQ(Chunks(*store_), 2u);
  EXPECT_EQ(*ReadObject(*store_, "b", "k"), Pattern(2 * ChunkSize(), 2));
  ASSERT_OK(PutObject(*store_, "b", "k", "inline now").status());
  EXPECT_EQ(Chunks(*store_), 0u);
  ASSERT_OK(PutObject(*store_, "b", "k", Pattern(ChunkSize() + 1, 3)).status());
  EXPECT_EQ(Chunks(*store_), 2u);
  ASSERT_OK(store_->DeleteObject("b", "k"));
  EXPECT_EQ(Chunks(*store_), 0u);
  EXPECT_EQ(store_->HeadObject("b", "k").status().code(), Code::kNoSuchKey);
}

TEST_F(StoreTest, ReaderSnapshotSurvivesOverwriteAndDelete) {
  const std::string v1 = Pattern(3 * ChunkSize() + 7, 1);
  ASSERT_OK(PutObject(*store_, "b", "k", v1).status());
  Result<std::unique_ptr<ObjectReader>> r = store_->OpenObject("b", "k");
  ASSERT_OK(r.status());
  // Read part of the first chunk, then change the object under the reader.
  std::string got(10, '\0');
  ASSERT_EQ(*(*r)->Read(got.data(), got.size()), 10u);
  ASSERT_OK(PutObject(*store_, "b", "k", Pattern(3 * ChunkSize() + 7, 2)).status());
  ASSERT_OK(store_->DeleteObject("b", "k"));
  EXPECT_EQ(Chunks(*store_), 0u);  // released for new readers
  std::string rest(v1.size(), '\0');
  size_t total = 0;
  for (;;) {
    Result<size_t> n = (*r)->Read(rest.data() + total, 33);
    ASSERT_OK(n.status());
    if (*n == 0) break;
    total += *n;
  }
  rest.resize(total);
  EXPECT_TRUE(got + rest == v1);
  EXPECT_EQ((*r)->meta().size, v1.size());
}

TEST_F(StoreTest, WriteConditions) {
  struct Case {
    const char* name;
    bool exists;
    WriteCondition cond;
    Code want;
  } cases[] = {
      {"none-match, absent", false, {std::nullopt, true}, Code::kOk},
      {"none-match, present", true, {std::nullopt, true}, Code::kPreconditionFailed},
      {"match, right etag", true, {"old", false}, Code::kOk},
      {"match, wrong etag", true, {"other", false}, Code::kPreconditionFailed},
      {"match, absent", false, {"old", false}, Code::kPreconditionFailed},
      {"no condition, present", true, {}, Code::kOk},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_OK(store_->DeleteObject("b", "k"));
    const std::string old_data = Pattern(2 * ChunkSize() + 1, 1);
    if (c.exists) ASSERT_OK(PutObject(*store_, "b", "k", old_data, {}, 37, "old").status());
    const uint64_t chunks_before = Chunks(*store_);
    const std::string new_data = Pattern(3 * ChunkSize(), 2);
    Result<ObjectMeta> r = PutObject(*store_, "b", "k", new_data, c.cond, 37, "new");
    EXPECT_EQ(r.ok() ? Code::kOk : r.status().code(), c.want);
    if (c.want == Code::kOk) {
      EXPECT_EQ(store_->HeadObject("b", "k")->etag, "new");
      EXPECT_EQ(Chunks(*store_), 3u);
    } else {
      EXPECT_EQ(Chunks(*store_), chunks_before);  // the failed writer left nothing behind
      if (c.exists) {
        EXPECT_EQ(store_->HeadObject("b", "k")->etag, "old");
        EXPECT_TRUE(*ReadObject(*store_, "b", "k") == old_data);
      } else {
        EXPECT_EQ(store_->HeadObject("b", "k").status().code(), Code::kNoSuchKey);
      }
    }
  }
}

TEST_F(StoreTest, WriterDroppedWithoutCommitLeavesNothing) {
  {
    Result<std::unique_ptr<ObjectWriter>> w = store_->NewObjectWriter("b");
    ASSERT_OK(w.status());
    ASSERT_OK((*w)->Append(Pattern(5 * ChunkSize() + 3, 1)));
    EXPECT_EQ((*w)->size(), 5 * ChunkSize() + 3);
    EXPECT_EQ(Chunks(*store_), 5u);  // full chunks are written as they fill
  }
  EXPECT_EQ(Chunks(*store_), 0u);
  EXPECT_EQ(store_->HeadObject("b", "k").status().code(), Code::kNoSuchKey);
}

TEST_F(StoreTest, WriterMisuse) {
  Result<std::unique_ptr<ObjectWriter>> w = store_->NewObjectWriter("b");
  ASSERT_OK(w.status());
  ASSERT_OK((*w)->Append("abc"));
  ASSERT_OK((*w)->Commit("k", {}).status());
  EXPECT_EQ((*w)->Append("x").code(), Code::kInvalidArgument);
  EXPECT_EQ((*w)->Commit("k2", {}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(*ReadObject(*store_, "b", "k"), "abc");
}

TEST_F(StoreTest, CommitIntoDeletedBucketFailsAndReleases) {
  ASSERT_OK(store_->CreateBucket(Bucket("gone")));
  Result<std::unique_ptr<ObjectWriter>> w = store_->NewObjectWriter("gone");
  ASSERT_OK(w.status());
  ASSERT_OK((*w)->Append(Pattern(3 * ChunkSize() + 1, 1)));
  ASSERT_OK(store_->DeleteBucket("gone", false));
  EXPECT_EQ((*w)->Commit("k", {}).status().code(), Code::kNoSuchBucket);
  w->reset();
  EXPECT_EQ(Chunks(*store_), 0u);
}

TEST_F(StoreTest, ObjectsAndSettingsSurviveReopenAndIdsAreNotReused) {
  const std::string a = Pattern(3 * ChunkSize() + 7, 1);
  ASSERT_OK(PutObject(*store_, "b", "a", a).status());
  ASSERT_OK(store_->PutSetting("root", "CBXYZ"));
  Reopen();
  EXPECT_EQ(*store_->GetSetting("root"), "CBXYZ");
  EXPECT_EQ(store_->GetSetting("other").status().code(), Code::kNoSuchKey);
  const std::string b = Pattern(2 * ChunkSize(), 2);
  ASSERT_OK(PutObject(*store_, "b", "b", b).status());
  EXPECT_TRUE(*ReadObject(*store_, "b", "a") == a);
  EXPECT_TRUE(*ReadObject(*store_, "b", "b") == b);
  EXPECT_EQ(Chunks(*store_), 6u);
}

// A server that dies mid-upload (a child process appends, then _exits without cleanup):
// reopening removes its chunks and keeps committed data.
TEST_F(StoreTest, CrashCleanupOnOpen) {
  const std::string keep = Pattern(2 * ChunkSize() + 5, 7);
  ASSERT_OK(PutObject(*store_, "b", "keep", keep).status());
  ASSERT_EQ(Chunks(*store_), 3u);
  store_.reset();

  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::string flag = "--crash-child=" + options_.path;
    execl("/proc/self/exe", "storage_test", flag.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int wstatus = 0;
  ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFEXITED(wstatus));
  ASSERT_EQ(WEXITSTATUS(wstatus), 0) << "child did not leave 3 chunks behind";

  // Before cleanup the leftovers are really there: count them with RocksDB directly.
  {
    DbConfig config = MakeDbConfig(options_);
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::OpenForReadOnly(config.db, options_.path, config.column_families,
                                             &handles, &raw)
                    .ok());
    std::unique_ptr<rocksdb::Iterator> it(raw->NewIterator({}, handles[kDataCf]));
    int n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    EXPECT_EQ(n, 6);
    it.reset();
    for (auto* h : handles) ASSERT_TRUE(raw->DestroyColumnFamilyHandle(h).ok());
    delete raw;
  }

  Reopen();
  EXPECT_EQ(Chunks(*store_), 3u);
  EXPECT_TRUE(*ReadObject(*store_, "b", "keep") == keep);
  // New writes after recovery work and do not disturb the kept object.
  ASSERT_OK(PutObject(*store_, "b", "new", Pattern(ChunkSize() + 1, 8)).status());
  EXPECT_EQ(Chunks(*store_), 5u);
  EXPECT_TRUE(*ReadObject(*store_, "b", "keep") == keep);
}

AccessKeyRecord GrantCandidate(const std::string& bucket, const std::string& grant,
                               AccessMode mode = AccessMode::kReadWrite);

// Records planted with raw RocksDB that do not decode surface as kCorruption, and a missing
// chunk as kCorruption on Read.
TEST_F(StoreTest, CorruptRecordsAreReported) {
  ASSERT_OK(PutObject(*store_, "b", "chunked", Pattern(2 * ChunkSize(), 1)).status());
  Result<ObjectMeta> meta = store_->HeadObject("b", "chunked");
  ASSERT_OK(meta.status());
  store_.reset();
  {
    DbConfig config = MakeDbConfig(options_);
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(config.db, options_.path, config.column_families, &handles, &raw).ok());
    rocksdb::WriteOptions wo;
    ASSERT_TRUE(raw->Put(wo, handles[kBucketsCf], "badbucket", "\x09garbage").ok());
    ASSERT_TRUE(raw->Put(wo, handles[kObjectsCf], codec::ObjectKey("b", "bad"), "\x01").ok());
    ASSERT_TRUE(raw->Put(wo, handles[kKeysCf], codec::AccessKeyKey("BADKEY"), "").ok());
    ASSERT_TRUE(raw->Delete(wo, handles[kDataCf], codec::DataKey(meta->data_id, 1)).ok());
    // A grant index entry whose key record is gone.
    ASSERT_TRUE(raw->Put(wo, handles[kKeysCf], codec::GrantIndexKey("b", "ba-dangling"), "CBGONE").ok());
    for (auto* h : handles) ASSERT_TRUE(raw->DestroyColumnFamilyHandle(h).ok());
    delete raw;
  }
  Reopen();
  EXPECT_EQ(store_->GetBucket("badbucket").status().code(), Code::kCorruption);
  EXPECT_EQ(store_->ListBuckets().status().code(), Code::kCorruption);
  EXPECT_EQ(store_->HeadObject("b", "bad").status().code(), Code::kCorruption);
  EXPECT_EQ(store_->DeleteObject("b", "bad").code(), Code::kCorruption);
  EXPECT_EQ(PutObject(*store_, "b", "bad", "x").status().code(), Code::kCorruption);
  ListQuery q;
  q.bucket = "b";
  EXPECT_EQ(store_->ListObjects(q).status().code(), Code::kCorruption);
  EXPECT_EQ(store_->GetAccessKey("BADKEY").status().code(), Code::kCorruption);
  bool created = true;
  EXPECT_EQ(store_->GetOrCreateGrant("b", "ba-dangling", GrantCandidate("b", "ba-dangling"), &created)
                .status().code(),
            Code::kCorruption);
  EXPECT_FALSE(created);
  EXPECT_EQ(store_->ListGrants("b").status().code(), Code::kCorruption);

  Result<std::unique_ptr<ObjectReader>> r = store_->OpenObject("b", "chunked");
  ASSERT_OK(r.status());
  std::string buf(3 * ChunkSize(), '\0');
  EXPECT_EQ((*r)->Read(buf.data(), buf.size()).status().code(), Code::kCorruption);
}

// Open refuses a store whose pending-write markers or data keys it cannot parse.
TEST(StoreOpen, CorruptMarkerOrDataKeyIsCorruption) {
  struct Case {
    const char* name;
    CfIndex family;
    std::string key;
  } cases[] = {
      {"short marker", kUploadsCf, "p123"},
      {"short data key", kDataCf, "\xff\xff"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    StoreOptions options = SmallOptions(dir.path());
    ASSERT_NE(OpenOrDie(options), nullptr);  // creates the families
    {
      DbConfig config = MakeDbConfig(options);
      std::vector<rocksdb::ColumnFamilyHandle*> handles;
      rocksdb::DB* raw = nullptr;
      ASSERT_TRUE(rocksdb::DB::Open(config.db, options.path, config.column_families, &handles, &raw).ok());
      ASSERT_TRUE(raw->Put(rocksdb::WriteOptions(), handles[c.family], c.key, "").ok());
      for (auto* h : handles) ASSERT_TRUE(raw->DestroyColumnFamilyHandle(h).ok());
      delete raw;
    }
    EXPECT_EQ(Store::Open(options).status().code(), Code::kCorruption);
  }
}

// ---------------------------------------------------------------- Access keys

AccessKeyRecord GrantCandidate(const std::string& bucket, const std::string& grant,
                               AccessMode mode) {
  Result<AccessKeyRecord> k = GenerateAccessKey();
  EXPECT_TRUE(k.ok());
  AccessKeyRecord r = std::move(k).value();
  r.grants = {{bucket, mode}};
  r.grant_name = grant;
  r.created_ms = 5;
  return r;
}

TEST_F(StoreTest, AccessKeyPutGetDelete) {
  AccessKeyRecord root;
  root.access_key_id = "CBROOT";
  root.secret = SecretKey("secret");
  root.all_buckets = true;
  ASSERT_OK(store_->PutAccessKey(root));
  Result<AccessKeyRecord> got = store_->GetAccessKey("CBROOT");
  ASSERT_OK(got.status());
  EXPECT_TRUE(got->all_buckets);
  EXPECT_EQ(got->secret.reveal(), "secret");
  root.secret = SecretKey("rotated");
  ASSERT_OK(store_->PutAccessKey(root));
  EXPECT_EQ(store_->GetAccessKey("CBROOT")->secret.reveal(), "rotated");
  ASSERT_OK(store_->DeleteAccessKey("CBROOT"));
  EXPECT_EQ(store_->GetAccessKey("CBROOT").status().code(), Code::kNoSuchAccessKey);
  ASSERT_OK(store_->DeleteAccessKey("CBROOT"));  // absent: OK
  AccessKeyRecord no_id;
  EXPECT_EQ(store_->PutAccessKey(no_id).code(), Code::kInvalidArgument);
}

TEST_F(StoreTest, GetOrCreateGrantIsIdempotent) {
  bool created = false;
  AccessKeyRecord first = GrantCandidate("b", "ba-1");
  Result<AccessKeyRecord> r = store_->GetOrCreateGrant("b", "ba-1", first, &created);
  ASSERT_OK(r.status());
  EXPECT_TRUE(created);
  EXPECT_EQ(r->access_key_id, first.access_key_id);
  r = store_->GetOrCreateGrant("b", "ba-1", GrantCandidate("b", "ba-1"), &created);
  ASSERT_OK(r.status());
  EXPECT_FALSE(created);
  EXPECT_EQ(r->access_key_id, first.access_key_id);
  EXPECT_TRUE(r->secret == first.secret);
  Result<AccessKeyRecord> looked_up = store_->GetAccessKey(first.access_key_id);
  ASSERT_OK(looked_up.status());
  EXPECT_EQ(looked_up->grants.at("b"), AccessMode::kReadWrite);

  // A second grant on the same bucket is a different key.
  r = store_->GetOrCreateGrant("b", "ba-2", GrantCandidate("b", "ba-2"), &created);
  ASSERT_OK(r.status());
  EXPECT_TRUE(created);
  Result<std::vector<AccessKeyRecord>> grants = store_->ListGrants("b");
  ASSERT_OK(grants.status());
  EXPECT_EQ(grants->size(), 2u);

  // Deleting the key removes its index entry: the same grant name gets a fresh key.
  ASSERT_OK(store_->DeleteAccessKey(first.access_key_id));
  EXPECT_EQ(store_->ListGrants("b")->size(), 1u);
  AccessKeyRecord again = GrantCandidate("b", "ba-1");
  r = store_->GetOrCreateGrant("b", "ba-1", again, &created);
  ASSERT_OK(r.status());
  EXPECT_TRUE(created);
  EXPECT_EQ(r->access_key_id, again.access_key_id);
}

TEST_F(StoreTest, GetOrCreateGrantErrors) {
  bool created = true;
  EXPECT_EQ(store_->GetOrCreateGrant("zz", "ba-1", GrantCandidate("zz", "ba-1"), &created)
                .status().code(),
            Code::kNoSuchBucket);
  EXPECT_FALSE(created);
  struct Case {
    const char* name;
    AccessKeyRecord candidate;
  } cases[] = {
      {"other bucket", GrantCandidate("c", "ba-1")},
      {"other grant name", GrantCandidate("b", "ba-9")},
      {"two buckets", [] { auto k = GrantCandidate("b", "ba-1"); k.grants["c"] = AccessMode::kReadOnly; return k; }()},
      {"no id", [] { auto k = GrantCandidate("b", "ba-1"); k.access_key_id.clear(); return k; }()},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(store_->GetOrCreateGrant("b", "ba-1", c.candidate, &created).status().code(),
              Code::kInvalidArgument) << c.name;
  }
  // An id already used by another key is a conflict, not an overwrite.
  AccessKeyRecord root;
  root.access_key_id = "CBTAKEN";
  root.all_buckets = true;
  ASSERT_OK(store_->PutAccessKey(root));
  AccessKeyRecord clash = GrantCandidate("b", "ba-1");
  clash.access_key_id = "CBTAKEN";
  EXPECT_EQ(store_->GetOrCreateGrant("b", "ba-1", clash, &created).status().code(), Code::kAborted);
  EXPECT_TRUE(store_->GetAccessKey("CBTAKEN")->all_buckets);
}

TEST_F(StoreTest, GetOrCreateGrantConcurrentCreatesOneKey) {
  constexpr int kThreads = 8;
  std::vector<std::string> ids(kThreads);
  std::atomic<int> created_count{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      bool created = false;
      Result<AccessKeyRecord> r =
          store_->GetOrCreateGrant("b", "ba-x", GrantCandidate("b", "ba-x"), &created);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ids[i] = r->access_key_id;
      if (created) ++created_count;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(created_count.load(), 1);
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 1u);
  EXPECT_EQ(store_->ListGrants("b")->size(), 1u);
}

TEST_F(StoreTest, DeleteBucketRevokesGrants) {
  ASSERT_OK(store_->CreateBucket(Bucket("other")));
  bool created;
  auto on_b = store_->GetOrCreateGrant("b", "ba-1", GrantCandidate("b", "ba-1"), &created);
  auto on_other = store_->GetOrCreateGrant("other", "ba-2", GrantCandidate("other", "ba-2"), &created);
  ASSERT_OK(on_b.status());
  ASSERT_OK(on_other.status());
  AccessKeyRecord root;
  root.access_key_id = "CBROOT";
  root.all_buckets = true;
  ASSERT_OK(store_->PutAccessKey(root));

  ASSERT_OK(store_->DeleteBucket("b", false));
  EXPECT_EQ(store_->GetAccessKey(on_b->access_key_id).status().code(), Code::kNoSuchAccessKey);
  EXPECT_TRUE(store_->ListGrants("b")->empty());
  ASSERT_OK(store_->GetAccessKey(on_other->access_key_id).status());
  ASSERT_OK(store_->GetAccessKey("CBROOT").status());
  // Recreating the bucket does not bring the old grant back.
  ASSERT_OK(store_->CreateBucket(Bucket("b")));
  auto fresh = store_->GetOrCreateGrant("b", "ba-1", GrantCandidate("b", "ba-1"), &created);
  ASSERT_OK(fresh.status());
  EXPECT_TRUE(created);
  EXPECT_NE(fresh->access_key_id, on_b->access_key_id);
}

TEST_F(StoreTest, NonEmptyDeleteKeepsGrants) {
  bool created;
  auto grant = store_->GetOrCreateGrant("b", "ba-1", GrantCandidate("b", "ba-1"), &created);
  ASSERT_OK(grant.status());
  ASSERT_OK(PutObject(*store_, "b", "k", "x").status());
  EXPECT_EQ(store_->DeleteBucket("b", false).code(), Code::kBucketNotEmpty);
  ASSERT_OK(store_->GetAccessKey(grant->access_key_id).status());
}

// ---------------------------------------------------------------- Concurrency

TEST_F(StoreTest, ConcurrentOverwritesLeakNoChunks) {
  constexpr int kThreads = 8, kRounds = 15;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRounds; ++i) {
        const uint32_t seed = t * 1000 + i;
        // Sizes vary so replaced objects have different chunk counts; some are inline.
        uint64_t size = (seed % 5 == 0) ? 10 : ChunkSize() * (1 + seed % 4) + seed % 7;
        Result<ObjectMeta> r = PutObject(*store_, "b", "hot", Pattern(size, seed), {}, 100,
                                         std::to_string(seed));
        EXPECT_TRUE(r.ok()) << r.status().ToString();
        if (i % 5 == 4) {
          EXPECT_TRUE(store_->DeleteObject("b", "hot").ok());
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  Result<ObjectMeta> head = store_->HeadObject("b", "hot");
  uint64_t want_chunks = 0;
  if (head.ok()) {
    uint32_t seed = static_cast<uint32_t>(std::stoul(head->etag));
    EXPECT_TRUE(*ReadObject(*store_, "b", "hot") == Pattern(head->size, seed));
    if (head->data_id != 0) want_chunks = (head->size + ChunkSize() - 1) / ChunkSize();
  } else {
    EXPECT_EQ(head.status().code(), Code::kNoSuchKey);
  }
  EXPECT_EQ(Chunks(*store_), want_chunks);
}

TEST_F(StoreTest, ForceDeleteRacingCommitsLeaksNothing) {
  for (int round = 0; round < 5; ++round) {
    ASSERT_OK(store_->CreateBucket(Bucket("race")));
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 10; ++i) {
          Result<ObjectMeta> r = PutObject(*store_, "race", "k" + std::to_string(t * 100 + i),
                                           Pattern(2 * ChunkSize() + 1, i), {}, 200);
          if (!r.ok()) {
            EXPECT_EQ(r.status().code(), Code::kNoSuchBucket);
          }
        }
      });
    }
    threads.emplace_back([&] {
      EXPECT_TRUE(store_->DeleteBucket("race", true).ok());
    });
    for (auto& th : threads) th.join();
    EXPECT_EQ(store_->GetBucket("race").status().code(), Code::kNoSuchBucket);
    EXPECT_EQ(Chunks(*store_), 0u) << "round " << round;
  }
}

}  // namespace
}  // namespace cubby::storage
