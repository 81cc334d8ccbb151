#include "storage/store.h"

#include <fcntl.h>
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

using testing::BlobIds;
using testing::BlobPath;
using testing::Bucket;
using testing::InFile;
using testing::OpenOrDie;
using testing::Pieces;
using testing::Pattern;
using testing::PutObject;
using testing::ReadObject;
using testing::SmallOptions;
using testing::TempDir;

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

// A bucket's CORS rules are part of its record: UpdateBucket sets and clears them, and they
// survive a reopen.
TEST_F(StoreTest, CorsRulesPersist) {
  CorsRule rule;
  rule.id = "site";
  rule.allowed_methods = {"GET", "PUT"};
  rule.allowed_origins = {"http://127.0.0.1:*"};
  rule.expose_headers = {"ETag"};
  ASSERT_OK(store_->UpdateBucket("b", [&](BucketRecord* b) {
    b->cors.rules = {rule};
    return Status::Ok();
  }));
  Reopen();
  Result<BucketRecord> read = store_->GetBucket("b");
  ASSERT_OK(read.status());
  EXPECT_EQ(read->cors.rules, std::vector<CorsRule>{rule});
  ASSERT_OK(store_->UpdateBucket("b", [](BucketRecord* b) {
    b->cors = {};
    return Status::Ok();
  }));
  EXPECT_TRUE(store_->GetBucket("b")->cors.rules.empty());
}

// A bucket's quota (issue 17) is part of its record: UpdateBucket sets and clears it, and it
// survives a reopen.
TEST_F(StoreTest, QuotaPersists) {
  ASSERT_OK(store_->UpdateBucket("b", [](BucketRecord* b) {
    b->quota = {.bytes = 1 << 20, .objects = 7};
    return Status::Ok();
  }));
  Reopen();
  Result<BucketRecord> read = store_->GetBucket("b");
  ASSERT_OK(read.status());
  EXPECT_EQ(read->quota, (BucketQuota{.bytes = 1 << 20, .objects = 7}));
  ASSERT_OK(store_->UpdateBucket("b", [](BucketRecord* b) {
    b->quota = {};
    return Status::Ok();
  }));
  Reopen();
  EXPECT_EQ(store_->GetBucket("b")->quota, BucketQuota{});
}

// ---------------------------------------------------------------- Open

TEST(StoreOpen, SecondOpenOfTheSameFolderIsIOError) {
  TempDir dir;
  auto first = OpenOrDie(SmallOptions(dir.path()));
  ASSERT_NE(first, nullptr);
  Result<std::unique_ptr<Store>> second = Store::Open(SmallOptions(dir.path()));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Code::kIOError);
  EXPECT_EQ(second.status().message(),
            "the store in " + dir.path() + " is already open in this process");
}

// Another process holding the folder's lock (as a running cubby does, with fcntl like RocksDB):
// the message says so in words, not "While lock file: ...: Resource temporarily unavailable".
TEST(StoreOpen, FolderLockedByAnotherProcessSaysSo) {
  TempDir dir;
  OpenOrDie(SmallOptions(dir.path())).reset();  // the folder and its LOCK file exist
  int locked[2], release[2];
  ASSERT_EQ(::pipe(locked), 0);
  ASSERT_EQ(::pipe(release), 0);
  const std::string lock_file = dir.path() + "/LOCK";
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // only async-signal-safe calls: the parent may have threads
    ::close(release[1]);
    ::close(locked[0]);
    int fd = ::open(lock_file.c_str(), O_RDWR);
    struct flock lock{};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    char ok = (fd >= 0 && ::fcntl(fd, F_SETLK, &lock) == 0) ? 1 : 0;
    (void)!::write(locked[1], &ok, 1);
    char byte;
    (void)!::read(release[0], &byte, 1);  // until the parent closes its end
    ::_exit(0);
  }
  ::close(locked[1]);
  ::close(release[0]);
  char ok = 0;
  ASSERT_EQ(::read(locked[0], &ok, 1), 1);
  ASSERT_EQ(ok, 1) << "the child could not take the lock";
  Result<std::unique_ptr<Store>> opened = Store::Open(SmallOptions(dir.path()));
  ::close(release[1]);
  ::close(locked[0]);
  int wstatus = 0;
  ::waitpid(child, &wstatus, 0);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), Code::kIOError);
  EXPECT_EQ(opened.status().message(),
            "another cubby process is using this data folder (it holds " + dir.path() +
                "/LOCK); stop it, or use another folder");
  // Once the other process is gone, the folder opens.
  EXPECT_NE(OpenOrDie(SmallOptions(dir.path())), nullptr);
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

// Concurrent read-modify-writes of one bucket's record: none is lost.
TEST_F(StoreTest, ConcurrentBucketUpdatesAllCount) {
  ASSERT_OK(store_->CreateBucket(Bucket("shared")));
  constexpr int kThreads = 8, kEach = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        Status s = store_->UpdateBucket("shared", [&](BucketRecord* b) {
          b->cosi_parameters[std::to_string(t) + "-" + std::to_string(i)] = "x";
          return Status::Ok();
        });
        EXPECT_TRUE(s.ok()) << s.ToString();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(store_->GetBucket("shared")->cosi_parameters.size(), size_t{kThreads * kEach});
}

// AccessGeneration moves with every change access control reads, and not with object writes.
TEST_F(StoreTest, AccessGenerationMovesWithBucketsUsersAndKeys) {
  uint64_t last = store_->AccessGeneration();
  auto moved = [&] {
    const uint64_t now = store_->AccessGeneration();
    const bool changed = now != last;
    last = now;
    return changed;
  };
  ASSERT_OK(store_->CreateBucket(Bucket("g")));
  EXPECT_TRUE(moved()) << "CreateBucket";
  ASSERT_OK(PutObject(*store_, "g", "k", "data").status());
  EXPECT_FALSE(moved()) << "an object write";
  ASSERT_OK(store_->UpdateBucket("g", [](BucketRecord* b) {
    b->policy = "{}";
    return Status::Ok();
  }));
  EXPECT_TRUE(moved()) << "UpdateBucket";
  UserRecord user;
  user.name = "gen-user";
  ASSERT_OK(store_->CreateUser(user).status());
  EXPECT_TRUE(moved()) << "CreateUser";
  ASSERT_OK(store_->PutUserPolicy("gen-user", "p", "{}"));
  EXPECT_TRUE(moved()) << "PutUserPolicy";
  ASSERT_OK(store_->DeleteUserPolicy("gen-user", "p"));
  EXPECT_TRUE(moved()) << "DeleteUserPolicy";
  AccessKeyRecord key;
  key.access_key_id = "GENKEY0000000001";
  key.secret = SecretKey("s");
  ASSERT_OK(store_->CreateAccessKey("gen-user", key).status());
  EXPECT_TRUE(moved()) << "CreateAccessKey";
  ASSERT_OK(store_->UpdateAccessKeyStatus("gen-user", "GENKEY0000000001", KeyStatus::kInactive));
  EXPECT_TRUE(moved()) << "UpdateAccessKeyStatus";
  ASSERT_OK(store_->DeleteUserAccessKey("gen-user", "GENKEY0000000001"));
  EXPECT_TRUE(moved()) << "DeleteUserAccessKey";
  ASSERT_OK(store_->DeleteBucket("g", /*force=*/true));
  EXPECT_TRUE(moved()) << "DeleteBucket";
  EXPECT_TRUE(store_->GetBucket("g").status().code() == Code::kNoSuchBucket);
  EXPECT_FALSE(moved()) << "a read";
}

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

  ASSERT_OK(store_->UpdateBucket("c", [](BucketRecord* b) {
    b->anonymous = AccessMode::kNone;
    b->force_delete = true;
    b->name = "renamed";  // the name cannot change
    return Status::Ok();
  }));
  EXPECT_EQ(store_->GetBucket("c")->anonymous, AccessMode::kNone);
  EXPECT_TRUE(store_->GetBucket("c")->force_delete);
  EXPECT_EQ(store_->GetBucket("renamed").status().code(), Code::kNoSuchBucket);
  // A change that refuses writes nothing and its error comes back.
  EXPECT_EQ(store_
                ->UpdateBucket("c",
                               [](BucketRecord* b) {
                                 b->policy = "{}";
                                 return Status(Code::kAborted, "no");
                               })
                .code(),
            Code::kAborted);
  EXPECT_EQ(store_->GetBucket("c")->policy, "");
  EXPECT_EQ(store_->UpdateBucket("nope", [](BucketRecord*) { return Status::Ok(); }).code(),
            Code::kNoSuchBucket);

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
  Result<ObjectMeta> big = PutObject(*store_, "b", "big", Pattern(3 * ChunkSize() + 7, 1));
  ASSERT_OK(big.status());
  EXPECT_FALSE(*store_->BucketIsEmpty("b"));
  EXPECT_EQ(store_->DeleteBucket("b", false).code(), Code::kBucketNotEmpty);
  ASSERT_OK(store_->GetBucket("b").status());
  EXPECT_EQ(*ReadObject(*store_, "b", "small"), "x");
  EXPECT_EQ(Pieces(*store_), 1u);  // the big one's file
  EXPECT_EQ(BlobIds(options_.path), std::set<uint64_t>{big->data_id});

  ASSERT_OK(store_->DeleteObject("b", "small"));
  ASSERT_OK(store_->DeleteObject("b", "big"));
  EXPECT_TRUE(*store_->BucketIsEmpty("b"));
  EXPECT_EQ(Pieces(*store_), 0u);
  EXPECT_TRUE(BlobIds(options_.path).empty());
  ASSERT_OK(store_->DeleteBucket("b", false));
}

TEST_F(StoreTest, ForceDeleteRemovesObjectsAndData) {
  ASSERT_OK(store_->CreateBucket(Bucket("keep")));
  Result<ObjectMeta> kept = PutObject(*store_, "keep", "k", Pattern(2 * ChunkSize(), 2));
  ASSERT_OK(kept.status());
  ASSERT_OK(PutObject(*store_, "keep", "one-chunk", Pattern(ChunkSize(), 3)).status());
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(PutObject(*store_, "b", "obj" + std::to_string(i), Pattern(ChunkSize() + 1 + i, i)).status());
  }
  ASSERT_OK(PutObject(*store_, "b", "one-chunk", Pattern(ChunkSize(), 4)).status());
  ASSERT_OK(PutObject(*store_, "b", "inline", "tiny").status());
  EXPECT_EQ(Pieces(*store_), 2u + 5 + 1);  // files of k and obj*, two single chunks
  EXPECT_EQ(BlobIds(options_.path).size(), 6u);
  ASSERT_OK(store_->DeleteBucket("b", true));
  EXPECT_EQ(store_->GetBucket("b").status().code(), Code::kNoSuchBucket);
  EXPECT_EQ(Pieces(*store_), 2u);
  EXPECT_EQ(BlobIds(options_.path), std::set<uint64_t>{kept->data_id});
  EXPECT_EQ(*ReadObject(*store_, "keep", "one-chunk"), Pattern(ChunkSize(), 3));
  // A new bucket of the same name starts empty.
  ASSERT_OK(store_->CreateBucket(Bucket("b")));
  EXPECT_TRUE(*store_->BucketIsEmpty("b"));
  EXPECT_EQ(store_->HeadObject("b", "obj1").status().code(), Code::kNoSuchKey);
  EXPECT_EQ(*ReadObject(*store_, "keep", "k"), Pattern(2 * ChunkSize(), 2));
}

// ---------------------------------------------------------------- Objects

TEST_F(StoreTest, RoundTripSizes) {
  const uint64_t cs = ChunkSize(), il = InlineLimit();
  enum Where { kInline, kChunk, kFile };
  struct Case {
    uint64_t size;
    Where where;
  } cases[] = {
      {0, kInline},      {1, kInline}, {il, kInline},     {il + 1, kChunk},
      {cs - 1, kChunk},  {cs, kChunk}, {cs + 1, kFile},   {2 * cs, kFile},
      {3 * cs + 7, kFile},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("size " + std::to_string(c.size));
    const std::string data = Pattern(c.size, static_cast<uint32_t>(c.size));
    // Pieces of one byte, odd ones, exactly one chunk (the last byte arrives in its own
    // Append), and everything in one Append.
    for (size_t piece : {size_t{1}, size_t{37}, size_t{cs}, size_t{1000000}}) {
      if (piece == 1 && c.size > 300) continue;
      SCOPED_TRACE("piece " + std::to_string(piece));
      Result<ObjectMeta> meta = PutObject(*store_, "b", "k", data, {}, piece, "e");
      ASSERT_OK(meta.status());
      EXPECT_EQ(meta->size, c.size);
      EXPECT_EQ(meta->data_id == 0, c.where == kInline);
      EXPECT_EQ(meta->chunk_size, c.where == kChunk ? cs : 0);
      EXPECT_EQ(meta->inline_data.size(), c.where == kInline ? c.size : 0);
      EXPECT_GT(meta->last_modified_ms, 0);
      // One piece at most, whatever the size; the replaced object's piece is gone.
      EXPECT_EQ(Pieces(*store_), c.where == kInline ? 0u : 1u);
      const std::set<uint64_t> files = BlobIds(options_.path);
      if (c.where == kFile) {
        EXPECT_EQ(files, std::set<uint64_t>{meta->data_id});
        EXPECT_EQ(std::filesystem::file_size(BlobPath(options_.path, meta->data_id)), c.size);
      } else {
        EXPECT_TRUE(files.empty());
      }
      Result<ObjectMeta> head = store_->HeadObject("b", "k");
      ASSERT_OK(head.status());
      EXPECT_EQ(head->data_id, meta->data_id);
      EXPECT_EQ(head->chunk_size, meta->chunk_size);
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

// Each step replaces the object; afterwards only the new version's data is stored.
TEST_F(StoreTest, OverwriteAndDeleteReleaseData) {
  const uint64_t cs = ChunkSize();
  struct Step {
    uint64_t size;  // ~0: delete
    uint64_t pieces;
    bool file;
  } steps[] = {
      {3 * cs + 7, 1, true},  // a file
      {2 * cs, 1, true},      // file replaces file
      {10, 0, false},         // inline replaces file
      {cs + 1, 1, true},      // file replaces inline
      {cs, 1, false},         // one chunk replaces file
      {cs / 2, 1, false},     // chunk replaces chunk
      {4 * cs, 1, true},      // file replaces chunk
      {~0ull, 0, false},      // delete
  };
  uint32_t seed = 0;
  for (const Step& step : steps) {
    SCOPED_TRACE("step " + std::to_string(seed));
    ++seed;
    if (step.size == ~0ull) {
      ASSERT_OK(store_->DeleteObject("b", "k"));
      EXPECT_EQ(store_->HeadObject("b", "k").status().code(), Code::kNoSuchKey);
    } else {
      Result<ObjectMeta> put = PutObject(*store_, "b", "k", Pattern(step.size, seed));
      ASSERT_OK(put.status());
      EXPECT_EQ(InFile(*put), step.file);
      EXPECT_EQ(*ReadObject(*store_, "b", "k"), Pattern(step.size, seed));
      if (step.file) {
        EXPECT_EQ(BlobIds(options_.path), std::set<uint64_t>{put->data_id});
      }
    }
    EXPECT_EQ(Pieces(*store_), step.pieces);
    if (!step.file) {
      EXPECT_TRUE(BlobIds(options_.path).empty());
    }
    EXPECT_EQ(store_->DebugDeferredFiles(), 0u);
  }
}

// Reads the rest of `r` from its current position, `piece` bytes per Read.
std::string ReadRest(ObjectReader& r, size_t piece) {
  std::string out, buf(piece, '\0');
  for (;;) {
    Result<size_t> n = r.Read(buf.data(), buf.size());
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    if (!n.ok() || *n == 0) return out;
    out.append(buf.data(), *n);
  }
}

// A reader keeps the version it opened across an overwrite and a delete. A file-backed
// version's file stays (deferred) until the reader goes; chunks are pinned by a snapshot.
TEST_F(StoreTest, ReaderSnapshotSurvivesOverwriteAndDelete) {
  const uint64_t cs = ChunkSize();
  for (uint64_t size : {3 * cs + 7, cs, cs + 1}) {
    SCOPED_TRACE("size " + std::to_string(size));
    const bool file = size > cs;
    const std::string v1 = Pattern(size, 1);
    Result<ObjectMeta> put = PutObject(*store_, "b", "k", v1);
    ASSERT_OK(put.status());
    ASSERT_EQ(InFile(*put), file);
    Result<std::unique_ptr<ObjectReader>> r = store_->OpenObject("b", "k");
    ASSERT_OK(r.status());
    // Read the first bytes, then change the object under the reader.
    std::string got(10, '\0');
    ASSERT_EQ(*(*r)->Read(got.data(), got.size()), 10u);
    Result<ObjectMeta> v2 = PutObject(*store_, "b", "k", Pattern(size, 2));
    ASSERT_OK(v2.status());
    EXPECT_TRUE(*ReadObject(*store_, "b", "k") == Pattern(size, 2));  // new readers: v2
    ASSERT_OK(store_->DeleteObject("b", "k"));
    EXPECT_EQ(store_->OpenObject("b", "k").status().code(), Code::kNoSuchKey);
    if (file) {
      // v2's file went at once; v1's waits for the reader.
      EXPECT_EQ(store_->DebugDeferredFiles(), 1u);
      EXPECT_EQ(Pieces(*store_), 1u);
      EXPECT_EQ(BlobIds(options_.path), std::set<uint64_t>{put->data_id});
    } else {
      EXPECT_EQ(store_->DebugDeferredFiles(), 0u);
      EXPECT_EQ(Pieces(*store_), 0u);  // released for new readers
    }
    // Seek back too: the whole old version is still there.
    std::string rest = ReadRest(**r, 33);
    EXPECT_TRUE(got + rest == v1);
    ASSERT_OK((*r)->Seek(1));
    EXPECT_TRUE(ReadRest(**r, 1000) == v1.substr(1));
    EXPECT_EQ((*r)->meta().size, v1.size());
    if (file) {
      EXPECT_EQ(store_->DebugDeferredFiles(), 1u);
    }
    r->reset();
    EXPECT_EQ(store_->DebugDeferredFiles(), 0u);
    EXPECT_EQ(Pieces(*store_), 0u);
    EXPECT_TRUE(BlobIds(options_.path).empty());
  }
}

// Two readers of one file-backed version: the file goes with the last of them.
TEST_F(StoreTest, DeferredFileWaitsForEveryReader) {
  const std::string v1 = Pattern(2 * ChunkSize() + 3, 1);
  ASSERT_OK(PutObject(*store_, "b", "k", v1).status());
  Result<std::unique_ptr<ObjectReader>> first = store_->OpenObject("b", "k");
  Result<std::unique_ptr<ObjectReader>> second = store_->OpenObject("b", "k");
  ASSERT_OK(first.status());
  ASSERT_OK(second.status());
  ASSERT_OK(store_->DeleteObject("b", "k"));
  EXPECT_EQ(store_->DebugDeferredFiles(), 1u);
  first->reset();
  EXPECT_EQ(store_->DebugDeferredFiles(), 1u);
  EXPECT_EQ(Pieces(*store_), 1u);
  EXPECT_TRUE(ReadRest(**second, 100) == v1);
  second->reset();
  EXPECT_EQ(store_->DebugDeferredFiles(), 0u);
  EXPECT_EQ(Pieces(*store_), 0u);
  // A reader destroyed before any release defers nothing.
  ASSERT_OK(PutObject(*store_, "b", "k", v1).status());
  { ASSERT_OK(store_->OpenObject("b", "k").status()); }
  ASSERT_OK(store_->DeleteObject("b", "k"));
  EXPECT_EQ(store_->DebugDeferredFiles(), 0u);
  EXPECT_EQ(Pieces(*store_), 0u);
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
    const uint64_t pieces_before = Pieces(*store_);
    const std::set<uint64_t> files_before = BlobIds(options_.path);
    const std::string new_data = Pattern(3 * ChunkSize(), 2);
    Result<ObjectMeta> r = PutObject(*store_, "b", "k", new_data, c.cond, 37, "new");
    EXPECT_EQ(r.ok() ? Code::kOk : r.status().code(), c.want);
    if (c.want == Code::kOk) {
      EXPECT_EQ(store_->HeadObject("b", "k")->etag, "new");
      EXPECT_EQ(Pieces(*store_), 1u);
      EXPECT_EQ(BlobIds(options_.path), std::set<uint64_t>{r->data_id});
    } else {
      // The failed writer's file is gone.
      EXPECT_EQ(Pieces(*store_), pieces_before);
      EXPECT_EQ(BlobIds(options_.path), files_before);
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
    // Up to one chunk stays in memory.
    ASSERT_OK((*w)->Append(Pattern(ChunkSize(), 1)));
    EXPECT_EQ(Pieces(*store_), 0u);
    // One more byte: the stream moves to a file, written as it arrives.
    ASSERT_OK((*w)->Append(Pattern(4 * ChunkSize() + 3, 2)));
    EXPECT_EQ((*w)->size(), 5 * ChunkSize() + 3);
    EXPECT_EQ(Pieces(*store_), 1u);
    const std::set<uint64_t> files = BlobIds(options_.path);
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(std::filesystem::file_size(BlobPath(options_.path, *files.begin())),
              5 * ChunkSize() + 3);
  }
  EXPECT_EQ(Pieces(*store_), 0u);
  EXPECT_TRUE(BlobIds(options_.path).empty());
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
  EXPECT_EQ(Pieces(*store_), 0u);
  EXPECT_TRUE(BlobIds(options_.path).empty());
}

TEST_F(StoreTest, ObjectsAndSettingsSurviveReopenAndIdsAreNotReused) {
  const std::string a = Pattern(3 * ChunkSize() + 7, 1);
  const std::string a_chunk = Pattern(ChunkSize(), 3);
  Result<ObjectMeta> put_a = PutObject(*store_, "b", "a", a);
  Result<ObjectMeta> put_a_chunk = PutObject(*store_, "b", "a-chunk", a_chunk);
  ASSERT_OK(put_a.status());
  ASSERT_OK(put_a_chunk.status());
  ASSERT_OK(store_->PutSetting("root", "CBXYZ"));
  Reopen();
  EXPECT_EQ(*store_->GetSetting("root"), "CBXYZ");
  EXPECT_EQ(store_->GetSetting("other").status().code(), Code::kNoSuchKey);
  const std::string b = Pattern(2 * ChunkSize(), 2);
  const std::string b_chunk = Pattern(ChunkSize() - 1, 4);
  Result<ObjectMeta> put_b = PutObject(*store_, "b", "b", b);
  Result<ObjectMeta> put_b_chunk = PutObject(*store_, "b", "b-chunk", b_chunk);
  ASSERT_OK(put_b.status());
  ASSERT_OK(put_b_chunk.status());
  EXPECT_TRUE(*ReadObject(*store_, "b", "a") == a);
  EXPECT_TRUE(*ReadObject(*store_, "b", "a-chunk") == a_chunk);
  EXPECT_TRUE(*ReadObject(*store_, "b", "b") == b);
  EXPECT_TRUE(*ReadObject(*store_, "b", "b-chunk") == b_chunk);
  EXPECT_EQ(Pieces(*store_), 4u);
  // Files and chunks draw from one id sequence, which goes on after a reopen.
  const uint64_t before_reopen = std::max(put_a->data_id, put_a_chunk->data_id);
  EXPECT_GT(put_b->data_id, before_reopen);
  EXPECT_GT(put_b_chunk->data_id, before_reopen);
  EXPECT_EQ(BlobIds(options_.path), (std::set<uint64_t>{put_a->data_id, put_b->data_id}));
}

// Opens the store's RocksDB read-only (the store must be closed) to look at what is there.
class RawReadOnly {
 public:
  explicit RawReadOnly(const StoreOptions& options) {
    DbConfig config = MakeDbConfig(options);
    rocksdb::Status s = rocksdb::DB::OpenForReadOnly(config.db, options.path,
                                                     config.column_families, &handles_, &db_);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  ~RawReadOnly() {
    for (auto* h : handles_) EXPECT_TRUE(db_->DestroyColumnFamilyHandle(h).ok());
    delete db_;
  }
  bool ok() const { return db_ != nullptr; }
  uint64_t Count(CfIndex family) {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator({}, handles_[family]));
    uint64_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    EXPECT_TRUE(it->status().ok());
    return n;
  }
  bool HasFileRef(uint64_t id) {
    std::string value;
    rocksdb::Status s = db_->Get({}, handles_[kUploadsCf], codec::FileRefKey(id), &value);
    EXPECT_TRUE(s.ok() || s.IsNotFound()) << s.ToString();
    return s.ok();
  }

 private:
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  rocksdb::DB* db_ = nullptr;
};

// A server that dies mid-upload (a child process streams a large object into its file, then
// _exits without cleanup): reopening removes that file and keeps committed data.
TEST_F(StoreTest, CrashCleanupOnOpen) {
  const std::string keep = Pattern(2 * ChunkSize() + 5, 7);
  const std::string keep_chunk = Pattern(ChunkSize() - 3, 6);
  Result<ObjectMeta> kept = PutObject(*store_, "b", "keep", keep);
  ASSERT_OK(kept.status());
  ASSERT_TRUE(InFile(*kept));
  ASSERT_OK(PutObject(*store_, "b", "keep-chunk", keep_chunk).status());
  ASSERT_EQ(Pieces(*store_), 2u);
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
  ASSERT_EQ(WEXITSTATUS(wstatus), 0) << "child did not leave a data file behind";

  // Before cleanup the leftover is really there, with every byte, and nothing references it.
  const std::set<uint64_t> files = BlobIds(options_.path);
  ASSERT_EQ(files.size(), 2u);
  ASSERT_EQ(files.count(kept->data_id), 1u);
  const uint64_t leftover = *files.begin() == kept->data_id ? *files.rbegin() : *files.begin();
  EXPECT_EQ(std::filesystem::file_size(BlobPath(options_.path, leftover)), 3 * ChunkSize() + 10);
  {
    RawReadOnly raw(options_);
    ASSERT_TRUE(raw.ok());
    EXPECT_TRUE(raw.HasFileRef(kept->data_id));
    EXPECT_FALSE(raw.HasFileRef(leftover));
    EXPECT_EQ(raw.Count(kDataCf), 1u);  // keep-chunk's chunk
  }

  Reopen();
  EXPECT_EQ(BlobIds(options_.path), std::set<uint64_t>{kept->data_id});
  EXPECT_EQ(Pieces(*store_), 2u);
  EXPECT_TRUE(*ReadObject(*store_, "b", "keep") == keep);
  EXPECT_TRUE(*ReadObject(*store_, "b", "keep-chunk") == keep_chunk);
  // New writes after recovery work, take ids above the removed file's, and do not disturb the
  // kept objects.
  Result<ObjectMeta> fresh = PutObject(*store_, "b", "new", Pattern(ChunkSize() + 1, 8));
  ASSERT_OK(fresh.status());
  EXPECT_GT(fresh->data_id, leftover);
  EXPECT_EQ(Pieces(*store_), 3u);
  EXPECT_TRUE(*ReadObject(*store_, "b", "keep") == keep);
  EXPECT_TRUE(*ReadObject(*store_, "b", "new") == Pattern(ChunkSize() + 1, 8));
}

// Stores written before data files existed keep objects as many chunks, and a writer that
// died left chunks under a pending marker. Such objects still read (never as file spans) and
// release; the dead writer's chunks go at Open; new ids stay above the old ones.
TEST_F(StoreTest, ChunkedDataOfAnOlderStore) {
  const uint64_t cs = ChunkSize();
  const std::string old_data = Pattern(3 * cs + 7, 1);
  const uint64_t old_id = 40, dead_id = 41;
  store_.reset();
  {
    DbConfig config = MakeDbConfig(options_);
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(config.db, options_.path, config.column_families, &handles, &raw).ok());
    rocksdb::WriteBatch batch;
    for (uint64_t i = 0; i * cs < old_data.size(); ++i) {
      ASSERT_TRUE(batch.Put(handles[kDataCf], codec::DataKey(old_id, i), old_data.substr(i * cs, cs)).ok());
    }
    ObjectMeta meta;
    meta.size = old_data.size();
    meta.etag = "old";
    meta.last_modified_ms = 1;
    meta.data_id = old_id;
    meta.chunk_size = static_cast<uint32_t>(cs);
    ASSERT_TRUE(batch.Put(handles[kObjectsCf], codec::ObjectKey("b", "old"), codec::EncodeObjectMeta(meta)).ok());
    ASSERT_TRUE(batch.Merge(handles[kDefaultCf], codec::StatsKey("b"),
                            codec::EncodeStatsDelta(1, static_cast<int64_t>(old_data.size()))).ok());
    ASSERT_TRUE(batch.Put(handles[kUploadsCf], codec::MarkerKey(dead_id), "").ok());
    ASSERT_TRUE(batch.Put(handles[kDataCf], codec::DataKey(dead_id, 0), Pattern(cs, 2)).ok());
    ASSERT_TRUE(batch.Put(handles[kDataCf], codec::DataKey(dead_id, 1), Pattern(cs, 3)).ok());
    ASSERT_TRUE(raw->Write(rocksdb::WriteOptions(), &batch).ok());
    for (auto* h : handles) ASSERT_TRUE(raw->DestroyColumnFamilyHandle(h).ok());
    delete raw;
  }
  Reopen();
  EXPECT_EQ(Pieces(*store_), 4u);  // the old object's chunks; the dead writer's are gone
  for (size_t piece : {size_t{1}, size_t{100}, size_t{cs + 13}}) {
    EXPECT_TRUE(*ReadObject(*store_, "b", "old", piece) == old_data) << piece;
  }
  Result<std::unique_ptr<ObjectReader>> r = store_->OpenObject("b", "old");
  ASSERT_OK(r.status());
  ASSERT_OK((*r)->Seek(cs - 1));
  Result<std::optional<ObjectReader::FileSpan>> span = (*r)->NextFileSpan(1000);
  ASSERT_OK(span.status());
  EXPECT_FALSE(span->has_value());
  std::string buf(cs + 2, '\0');
  ASSERT_EQ(*(*r)->Read(buf.data(), buf.size()), buf.size());
  EXPECT_TRUE(buf == old_data.substr(cs - 1, cs + 2));
  r->reset();
  // New data takes ids above both old ones.
  Result<ObjectMeta> fresh = PutObject(*store_, "b", "fresh", Pattern(2 * cs, 4));
  ASSERT_OK(fresh.status());
  EXPECT_GT(fresh->data_id, dead_id);
  // Overwriting the old object releases all its chunks.
  ASSERT_OK(PutObject(*store_, "b", "old", "new").status());
  EXPECT_EQ(Pieces(*store_), 1u);
  EXPECT_EQ(store_->GetBucketStats("b")->objects, 2u);
}

AccessKeyRecord GrantCandidate(const std::string& bucket, const std::string& grant,
                               AccessMode mode = AccessMode::kReadWrite);

// Records planted with raw RocksDB that do not decode surface as kCorruption, and a missing
// chunk as kCorruption on Read (file damage: see DataFileDamageIsCorruption).
TEST_F(StoreTest, CorruptRecordsAreReported) {
  ASSERT_OK(PutObject(*store_, "b", "chunked", Pattern(ChunkSize(), 1)).status());
  Result<ObjectMeta> meta = store_->HeadObject("b", "chunked");
  ASSERT_OK(meta.status());
  ASSERT_NE(meta->chunk_size, 0u);
  UserRecord candidate;
  candidate.name = "keyless";
  Result<UserRecord> user = store_->CreateUser(candidate);
  ASSERT_OK(user.status());
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
    ASSERT_TRUE(raw->Delete(wo, handles[kDataCf], codec::DataKey(meta->data_id, 0)).ok());
    // A grant index entry whose key record is gone.
    ASSERT_TRUE(raw->Put(wo, handles[kKeysCf], codec::GrantIndexKey("b", "ba-dangling"), "CBGONE").ok());
    // A user's key index entry whose key record is gone.
    ASSERT_TRUE(
        raw->Put(wo, handles[kKeysCf], codec::UserAccessKeyKey(user->user_id, "CBGONE2"), "").ok());
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
  EXPECT_EQ(store_->ListAccessKeys("keyless").status().code(), Code::kCorruption);

  Result<std::unique_ptr<ObjectReader>> r = store_->OpenObject("b", "chunked");
  ASSERT_OK(r.status());
  std::string buf(3 * ChunkSize(), '\0');
  EXPECT_EQ((*r)->Read(buf.data(), buf.size()).status().code(), Code::kCorruption);
  ASSERT_OK((*r)->Seek(ChunkSize() - 1));
  EXPECT_EQ((*r)->Read(buf.data(), 1).status().code(), Code::kCorruption);
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
    if (head->data_id != 0) want_chunks = 1;  // one chunk or one file
    EXPECT_EQ(BlobIds(options_.path).size(), InFile(*head) ? 1u : 0u);
  } else {
    EXPECT_EQ(head.status().code(), Code::kNoSuchKey);
    EXPECT_TRUE(BlobIds(options_.path).empty());
  }
  EXPECT_EQ(Pieces(*store_), want_chunks);
  EXPECT_EQ(store_->DebugDeferredFiles(), 0u);
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
    EXPECT_EQ(Pieces(*store_), 0u) << "round " << round;
    EXPECT_TRUE(BlobIds(options_.path).empty()) << "round " << round;
  }
}

}  // namespace
}  // namespace cubby::storage
