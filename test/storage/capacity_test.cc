// The free-space decision (storage/capacity.h) and the store's use of it, with a fake statvfs.
#include "storage/capacity.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "storage/store.h"
#include "test/storage/test_util.h"

namespace cubby::storage {
namespace {

using testing::Bucket;
using testing::OpenOrDie;
using testing::Pieces;
using testing::SmallOptions;
using testing::TempDir;

constexpr uint64_t kMiB = 1 << 20;

TEST(CheckFits, Table) {
  struct Case {
    uint64_t available, reserve, bytes;
    bool fits;
  };
  for (const Case& c : {
           Case{100, 10, 90, true},     // exactly the reserve left
           Case{100, 10, 91, false},    // one byte into the reserve
           Case{100, 10, 0, true},
           Case{10, 10, 0, true},       // at the reserve, a zero-byte write still fits
           Case{9, 10, 0, false},       // below the reserve: nothing fits
           Case{100, 0, 100, true},     // no reserve
           Case{100, 10, UINT64_MAX, false},  // a claimed size near 2^64 does not overflow
           Case{UINT64_MAX, 1, UINT64_MAX - 1, true},
       }) {
    Status s = CheckFits(FsSpace{1000, c.available}, c.reserve, c.bytes);
    EXPECT_EQ(s.ok(), c.fits) << c.available << " " << c.reserve << " " << c.bytes;
    if (!c.fits) {
      EXPECT_EQ(s.code(), Code::kNoSpace);
      EXPECT_NE(s.message().find("the store is full"), std::string::npos) << s.message();
    }
  }
}

TEST(DefaultReserve, Table) {
  EXPECT_EQ(DefaultReserve(64 * kMiB), 16 * kMiB);        // a quarter of a tiny filesystem
  EXPECT_EQ(DefaultReserve(256 * kMiB), 64 * kMiB);       // the floor meets the quarter
  EXPECT_EQ(DefaultReserve(1024 * kMiB), 64 * kMiB);      // the floor
  EXPECT_EQ(DefaultReserve(100 * 1024 * kMiB), 1024 * kMiB);  // 1% of 100 GiB
  EXPECT_EQ(DefaultReserve(0), 0u);
}

TEST(EngineHeadroom, Table) {
  EXPECT_EQ(EngineHeadroom(64 * kMiB), 8 * kMiB);     // an eighth of a tiny filesystem
  EXPECT_EQ(EngineHeadroom(256 * kMiB), 32 * kMiB);   // the eighth meets the 32 MiB
  EXPECT_EQ(EngineHeadroom(1024 * kMiB * 1024), 32 * kMiB);
  EXPECT_EQ(EngineHeadroom(0), 0u);
}

TEST(EffectiveReserve, NeverBelowTheHeadroom) {
  struct Case {
    std::optional<uint64_t> configured;
    uint64_t total, want;
  };
  for (const Case& c : {
           Case{std::nullopt, 64 * kMiB, 16 * kMiB},     // the default, above the headroom
           Case{0, 64 * kMiB, 8 * kMiB},                 // --disk-reserve 0: the headroom
           Case{0, 1024 * kMiB, 32 * kMiB},
           Case{4 * kMiB, 1024 * kMiB, 32 * kMiB},
           Case{100 * kMiB, 1024 * kMiB, 100 * kMiB},    // the operator's, above it
           Case{std::nullopt, 100 * 1024 * kMiB, 1024 * kMiB},
       }) {
    EXPECT_EQ(EffectiveReserve(c.configured, c.total), c.want)
        << c.configured.value_or(UINT64_MAX) << " " << c.total;
  }
}

TEST(CheckHeadroom, RefusesBelowIt) {
  EXPECT_TRUE(CheckHeadroom(FsSpace{64 * kMiB, 8 * kMiB}).ok());
  Status s = CheckHeadroom(FsSpace{64 * kMiB, 8 * kMiB - 1});
  EXPECT_EQ(s.code(), Code::kNoSpace);
  EXPECT_NE(s.message().find("the store is full"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("deletes included"), std::string::npos) << s.message();
}

TEST(StatFs, ReadsARealFilesystem) {
  TempDir dir;
  Result<FsSpace> space = StatFs(dir.path());
  ASSERT_TRUE(space.ok()) << space.status().ToString();
  EXPECT_GT(space->total_bytes, 0u);
  EXPECT_LE(space->available_bytes, space->total_bytes);
  Result<FsSpace> missing = StatFs(dir.path() + "/no/such/folder");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kIOError);
}

// A store whose filesystem figures the test sets: 32 MiB in all, so the engine's headroom is
// 4 MiB, the reserve's size.
class StoreSpaceTest : public ::testing::Test {
 protected:
  static constexpr uint64_t kTotal = 32 * kMiB;

  void SetUp() override {
    options_.reserve_bytes = 4 * kMiB;
    options_.statfs = [this](const std::string&) -> Result<FsSpace> {
      if (statfs_fails_.load()) return Status(Code::kIOError, "statvfs failed");
      return FsSpace{kTotal, available_.load()};
    };
    store_ = OpenOrDie(options_);
    ASSERT_NE(store_, nullptr);
    ASSERT_TRUE(store_->CreateBucket(Bucket("b")).ok());
  }

  TempDir dir_;
  StoreOptions options_ = SmallOptions(dir_.path());
  std::atomic<uint64_t> available_{20 * kMiB};
  std::atomic<bool> statfs_fails_{false};
  std::unique_ptr<Store> store_;
};

TEST_F(StoreSpaceTest, CheckSpaceForRefusesWhatWouldEatIntoTheReserve) {
  EXPECT_TRUE(store_->CheckSpaceFor(16 * kMiB).ok());
  Status s = store_->CheckSpaceFor(16 * kMiB + 1);
  EXPECT_EQ(s.code(), Code::kNoSpace) << s.ToString();
  available_ = 3 * kMiB;
  EXPECT_EQ(store_->CheckSpaceFor(0).code(), Code::kNoSpace);
}

TEST_F(StoreSpaceTest, CapacityReportsFiguresAndFullness) {
  Result<Capacity> c = store_->GetCapacity();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->total_bytes, kTotal);
  EXPECT_EQ(c->available_bytes, 20 * kMiB);
  EXPECT_EQ(c->reserve_bytes, 4 * kMiB);
  EXPECT_EQ(c->headroom_bytes, 4 * kMiB);
  EXPECT_FALSE(c->engine_stopped);
  EXPECT_FALSE(c->engine_needs_restart);
  EXPECT_FALSE(c->full());
  available_ = 4 * kMiB - 1;
  c = store_->GetCapacity();
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->full());
}

TEST_F(StoreSpaceTest, UnreadableFiguresAreAnIOError) {
  statfs_fails_ = true;
  EXPECT_EQ(store_->GetCapacity().status().code(), Code::kIOError);
  EXPECT_EQ(store_->CheckSpaceFor(1).code(), Code::kIOError);
}

TEST_F(StoreSpaceTest, DefaultReserveAppliesWithoutAnOption) {
  options_.reserve_bytes.reset();
  store_.reset();
  store_ = OpenOrDie(options_);
  ASSERT_NE(store_, nullptr);
  Result<Capacity> c = store_->GetCapacity();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->reserve_bytes, DefaultReserve(kTotal));
}

TEST_F(StoreSpaceTest, ReserveBelowTheHeadroomIsRaisedToIt) {
  options_.reserve_bytes = 0;
  store_.reset();
  store_ = OpenOrDie(options_);
  ASSERT_NE(store_, nullptr);
  Result<Capacity> c = store_->GetCapacity();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->reserve_bytes, EngineHeadroom(kTotal));
  available_ = EngineHeadroom(kTotal) - 1;
  EXPECT_EQ(store_->CheckSpaceFor(0).code(), Code::kNoSpace);
}

// Below the headroom nothing reaches the engine, deletes included; the delete works again once
// there is room, and nothing was lost meanwhile.
TEST_F(StoreSpaceTest, NothingIsWrittenBelowTheEngineHeadroom) {
  ASSERT_OK(testing::PutObject(*store_, "b", "k", "value").status());
  available_ = 4 * kMiB;  // at the headroom (and the reserve): deletes still work
  ASSERT_OK(store_->DeleteObject("b", "k"));
  ASSERT_OK(testing::PutObject(*store_, "b", "k", "value").status());
  available_ = 4 * kMiB - 1;
  for (Status s : {store_->DeleteObject("b", "k"), store_->PutSetting("s", "v"),
                   store_->CreateBucket(Bucket("c")), store_->DeleteBucket("b", true)}) {
    EXPECT_EQ(s.code(), Code::kNoSpace) << s.ToString();
    EXPECT_NE(s.message().find("deletes included"), std::string::npos) << s.message();
  }
  EXPECT_TRUE(store_->HeadObject("b", "k").ok());
  available_ = 4 * kMiB;
  ASSERT_OK(store_->DeleteObject("b", "k"));
  EXPECT_EQ(store_->HeadObject("b", "k").status().code(), Code::kNoSuchKey);
}

// A body of unknown size stops at the reserve, and what it wrote is gone once the writer is.
TEST_F(StoreSpaceTest, StreamingWriterStopsAtTheReserveAndLeavesNothing) {
  Result<std::unique_ptr<ObjectWriter>> w = store_->NewObjectWriter("b");
  ASSERT_TRUE(w.ok());
  const std::string mib(kMiB, 'x');
  ASSERT_TRUE((*w)->Append(mib).ok());
  ASSERT_TRUE((*w)->Append(mib).ok());
  available_ = 4 * kMiB - 1;  // the disk filled meanwhile
  Status s = (*w)->Append(mib);
  EXPECT_EQ(s.code(), Code::kNoSpace) << s.ToString();
  EXPECT_EQ((*w)->Commit("k", ObjectMeta{}).status().code(), Code::kNoSpace);
  w->reset();
  EXPECT_EQ(Pieces(*store_), 0u);
  EXPECT_EQ(store_->HeadObject("b", "k").status().code(), Code::kNoSuchKey);
}

TEST_F(StoreSpaceTest, PartWriterStopsAtTheReserveToo) {
  Result<UploadRecord> upload = store_->CreateUpload("b", "k", ObjectMeta{});
  ASSERT_TRUE(upload.ok());
  Result<std::unique_ptr<PartWriter>> w = store_->NewPartWriter("b", "k", upload->upload_id);
  ASSERT_TRUE(w.ok());
  const std::string mib(kMiB, 'x');
  ASSERT_TRUE((*w)->Append(mib).ok());
  available_ = 1 * kMiB;
  EXPECT_EQ((*w)->Append(mib).code(), Code::kNoSpace);
  w->reset();
  EXPECT_EQ(Pieces(*store_), 0u);
}

}  // namespace
}  // namespace cubby::storage

namespace cubby::storage {
namespace {

// RocksDB itself meeting ENOSPC on its write-ahead log (StoreOptions::fail_log_append), with a
// real DB: the store resumes it once there is room when that is safe, and otherwise stays
// stopped without aborting the process, serving reads, until reopened.
class LogFullTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_ = testing::SmallOptions(dir_.path());
    options_.fail_log_append = [this] { return log_full_.load(); };
    Open();
  }
  void Open() {
    store_.reset();
    store_ = testing::OpenOrDie(options_);
    ASSERT_NE(store_, nullptr);
  }
  // Fails one write with the log full, then frees the space.
  void FailOneWrite() {
    log_full_ = true;
    Status s = store_->PutSetting("lost", "never acknowledged");
    EXPECT_EQ(s.code(), Code::kNoSpace) << s.ToString();
    log_full_ = false;
  }
  void ExpectSetting(std::string_view name, std::string_view value) {
    Result<std::string> got = store_->GetSetting(name);
    ASSERT_TRUE(got.ok()) << name << ": " << got.status().ToString();
    EXPECT_EQ(*got, value);
  }

  testing::TempDir dir_;
  StoreOptions options_;
  std::atomic<bool> log_full_{false};
  std::unique_ptr<Store> store_;
};

TEST_F(LogFullTest, ResumesOnceThereIsRoomWhenAMemtableHoldsData) {
  ASSERT_OK(store_->PutSetting("before", "1"));  // a memtable holds it
  FailOneWrite();
  Result<Capacity> c = store_->GetCapacity();  // resumes: the space is back
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->engine_stopped);
  EXPECT_FALSE(c->engine_needs_restart);
  for (int i = 0; i < 20; ++i) ASSERT_OK(store_->PutSetting("after", std::to_string(i)));
  ExpectSetting("before", "1");
  Open();
  ExpectSetting("before", "1");
  ExpectSetting("after", "19");
}

// The case RocksDB 7.8 cannot resume: every memtable was empty when the append failed. Resuming
// would make the next write abort the process; the store stays stopped instead.
TEST_F(LogFullTest, StaysStoppedWithoutAbortingWhenEveryMemtableWasEmpty) {
  ASSERT_OK(store_->CreateBucket(testing::Bucket("b")));
  ASSERT_OK(testing::PutObject(*store_, "b", "k", "value").status());
  ASSERT_OK(store_->PutSetting("before", "1"));
  ASSERT_OK(store_->ReclaimSpace());  // flushes every family: all memtables empty
  FailOneWrite();

  Result<Capacity> c = store_->GetCapacity();
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->engine_stopped);
  EXPECT_TRUE(c->engine_needs_restart);
  EXPECT_TRUE(c->full());
  Status refused = store_->CheckSpaceFor(0);
  EXPECT_EQ(refused.code(), Code::kNoSpace);
  EXPECT_NE(refused.message().find("restarted"), std::string::npos) << refused.message();
  for (int i = 0; i < 3; ++i) {  // writes keep failing, cleanly
    EXPECT_FALSE(store_->PutSetting("during", "x").ok());
    EXPECT_FALSE(store_->DeleteObject("b", "k").ok());
  }
  ExpectSetting("before", "1");  // reads keep working
  Result<std::string> read = testing::ReadObject(*store_, "b", "k");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, "value");

  Open();  // a restart opens a new log
  c = store_->GetCapacity();
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->engine_stopped);
  EXPECT_FALSE(c->engine_needs_restart);
  ASSERT_OK(store_->PutSetting("after", "2"));
  ASSERT_OK(store_->DeleteObject("b", "k"));
  ExpectSetting("before", "1");
  EXPECT_EQ(store_->GetSetting("lost").status().code(), Code::kNoSuchKey);
}

}  // namespace
}  // namespace cubby::storage
