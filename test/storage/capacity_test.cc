// The free-space decision (storage/capacity.h) and the store's use of it, with a fake statvfs.
#include "storage/capacity.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
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

// A store whose filesystem figures the test sets.
class StoreSpaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.reserve_bytes = 4 * kMiB;
    options_.statfs = [this](const std::string&) -> Result<FsSpace> {
      if (statfs_fails_.load()) return Status(Code::kIOError, "statvfs failed");
      return FsSpace{100 * kMiB, available_.load()};
    };
    store_ = OpenOrDie(options_);
    ASSERT_NE(store_, nullptr);
    ASSERT_TRUE(store_->CreateBucket(Bucket("b")).ok());
  }

  TempDir dir_;
  StoreOptions options_ = SmallOptions(dir_.path());
  std::atomic<uint64_t> available_{50 * kMiB};
  std::atomic<bool> statfs_fails_{false};
  std::unique_ptr<Store> store_;
};

TEST_F(StoreSpaceTest, CheckSpaceForRefusesWhatWouldEatIntoTheReserve) {
  EXPECT_TRUE(store_->CheckSpaceFor(46 * kMiB).ok());
  Status s = store_->CheckSpaceFor(46 * kMiB + 1);
  EXPECT_EQ(s.code(), Code::kNoSpace) << s.ToString();
  available_ = 3 * kMiB;
  EXPECT_EQ(store_->CheckSpaceFor(0).code(), Code::kNoSpace);
}

TEST_F(StoreSpaceTest, CapacityReportsFiguresAndFullness) {
  Result<Capacity> c = store_->GetCapacity();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->total_bytes, 100 * kMiB);
  EXPECT_EQ(c->available_bytes, 50 * kMiB);
  EXPECT_EQ(c->reserve_bytes, 4 * kMiB);
  EXPECT_FALSE(c->engine_stopped);
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
  EXPECT_EQ(c->reserve_bytes, DefaultReserve(100 * kMiB));
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
