// Store::GetMemoryUsage and Store::ReleaseIdleMemory against a real RocksDB: what an idle
// server gives back (issue 5: idle RSS < 64 MiB), and that giving it back loses nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "storage/store.h"
#include "test/storage/test_util.h"

namespace cubby::storage {
namespace {

using testing::Bucket;
using testing::OpenOrDie;
using testing::Pattern;
using testing::PutObject;
using testing::ReadObject;
using testing::TempDir;

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * kKiB;
// Inline objects (below the default 64 KiB inline limit) live in the objects family, whose
// write buffer is 8 MiB: 160 x 16 KiB = 2.5 MiB is past a quarter of it (the idle flush
// threshold) and far from a full buffer, so RocksDB does not flush it on its own.
constexpr size_t kObjectSize = 16 * kKiB;
constexpr int kObjects = 160;

// SST files in the store folder: each flush of a family with data writes one.
size_t CountTableFiles(const std::string& path) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    if (entry.path().extension() == ".sst") ++n;
  }
  return n;
}

class MemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.path = dir_.path();  // default sizes: inline limit, cache, write buffers
    store_ = OpenOrDie(options_);
    ASSERT_NE(store_, nullptr);
    ASSERT_OK(store_->CreateBucket(Bucket("b")));
  }

  void PutObjects(int first, int count) {
    for (int i = first; i < first + count; ++i) {
      ASSERT_OK(PutObject(*store_, "b", "k" + std::to_string(i),
                          Pattern(kObjectSize, static_cast<uint32_t>(i)), {}, 4096)
                    .status());
    }
  }

  void ExpectObjects(int first, int count) {
    for (int i = first; i < first + count; ++i) {
      Result<std::string> got = ReadObject(*store_, "b", "k" + std::to_string(i), 4096);
      ASSERT_OK(got.status());
      ASSERT_EQ(*got, Pattern(kObjectSize, static_cast<uint32_t>(i))) << "object " << i;
    }
  }

  Store::MemoryUsage Usage() {
    Result<Store::MemoryUsage> usage = store_->GetMemoryUsage();
    EXPECT_TRUE(usage.ok()) << usage.status().ToString();
    return usage.ok() ? *usage : Store::MemoryUsage{};
  }

  TempDir dir_;
  StoreOptions options_;
  std::unique_ptr<Store> store_;
};

TEST_F(MemoryTest, ReleaseFlushesFullMemtablesAndKeepsTheData) {
  const uint64_t empty = Usage().memtables;
  PutObjects(0, kObjects);
  const Store::MemoryUsage before = Usage();
  ASSERT_GE(before.memtables, empty + kObjects * kObjectSize) << "the objects are not in memtables";

  ASSERT_OK(store_->ReleaseIdleMemory());
  const Store::MemoryUsage after = Usage();
  // What stays is the fresh memtables plus the bucket stats merged into the default family
  // (a few KiB of records, below its threshold, but its memtable counts whole arena blocks
  // of 256 KiB): nothing near the 2.5 MiB of objects.
  EXPECT_LT(after.memtables, empty + 512 * kKiB)
      << "memtables went from " << before.memtables << " to " << after.memtables;
  EXPECT_GE(CountTableFiles(dir_.path()), 1u);

  ExpectObjects(0, kObjects);
  store_.reset();
  store_ = OpenOrDie(options_);
  ASSERT_NE(store_, nullptr);
  ExpectObjects(0, kObjects);
}

TEST_F(MemoryTest, ReleaseDropsCachedBlocksAndReadsRefillThem) {
  PutObjects(0, kObjects);
  ASSERT_OK(store_->ReleaseIdleMemory());  // into table files, so reads go through the cache
  ExpectObjects(0, kObjects);
  const Store::MemoryUsage read = Usage();
  ASSERT_GE(read.block_cache, kObjects * kObjectSize) << "reads did not fill the block cache";

  ASSERT_OK(store_->ReleaseIdleMemory());
  const Store::MemoryUsage after = Usage();
  // Only pinned blocks stay (level-0 index and filter blocks): a few KiB here.
  EXPECT_LE(after.block_cache, after.block_cache_pinned + 16 * kKiB)
      << "block cache went from " << read.block_cache << " to " << after.block_cache;
  EXPECT_LT(after.block_cache, 256 * kKiB);

  ExpectObjects(0, kObjects);
  EXPECT_GE(Usage().block_cache, kObjects * kObjectSize) << "reads no longer use the cache";
}

// An idle tick comes every few seconds; a trickle of writes between them must not turn into
// a level-0 file per tick.
TEST_F(MemoryTest, SmallWritesAreNotFlushedOnEveryCall) {
  PutObjects(0, kObjects);
  ASSERT_OK(store_->ReleaseIdleMemory());
  const size_t tables = CountTableFiles(dir_.path());
  for (int round = 0; round < 10; ++round) {
    PutObjects(kObjects + round, 1);
    const uint64_t memtables = Usage().memtables;
    ASSERT_OK(store_->ReleaseIdleMemory());
    EXPECT_GE(Usage().memtables, memtables) << "round " << round << " flushed a memtable";
  }
  EXPECT_EQ(CountTableFiles(dir_.path()), tables);
  ExpectObjects(0, kObjects + 10);
}

TEST_F(MemoryTest, WritesDuringAReleaseSucceed) {
  PutObjects(0, kObjects);
  std::atomic<bool> failed{false};
  std::thread writer([&] {
    for (int i = kObjects; i < 2 * kObjects; ++i) {
      auto put = PutObject(*store_, "b", "k" + std::to_string(i),
                           Pattern(kObjectSize, static_cast<uint32_t>(i)), {}, 4096);
      if (!put.ok()) failed = true;
    }
  });
  for (int i = 0; i < 5; ++i) ASSERT_OK(store_->ReleaseIdleMemory());
  writer.join();
  EXPECT_FALSE(failed);
  ASSERT_OK(store_->ReleaseIdleMemory());
  ExpectObjects(0, 2 * kObjects);
  store_.reset();
  store_ = OpenOrDie(options_);
  ASSERT_NE(store_, nullptr);
  ExpectObjects(0, 2 * kObjects);
}

}  // namespace
}  // namespace cubby::storage
