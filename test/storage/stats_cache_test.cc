// Bucket stats through the StatsCache (storage/stats_cache.h): exact under concurrent writers
// and readers (compared with a listing, which does not use the stats), after a deleted and
// re-created bucket, and the one RocksDB fact the cache rests on: after DB::Write a batch's
// header carries the sequence number it was given.
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "storage/store.h"
#include "test/storage/test_util.h"

namespace cubby::storage {
namespace {

using testing::Bucket;
using testing::OpenOrDie;
using testing::PutObject;
using testing::SmallOptions;
using testing::TempDir;

// What a listing says: the objects and their bytes (current versions, as BucketStats counts).
BucketStats Listed(Store& store, const std::string& bucket) {
  BucketStats out;
  ListQuery q;
  q.bucket = bucket;
  while (true) {
    Result<ListPage> page = store.ListObjects(q);
    EXPECT_TRUE(page.ok());
    if (!page.ok()) return out;
    for (const ListEntry& e : page->objects) {
      ++out.objects;
      out.bytes += e.size;
    }
    if (!page->truncated) return out;
    q.start_after = page->last;
  }
}

TEST(StatsCacheTest, ExactUnderConcurrentWritesAndReads) {
  TempDir dir;
  std::unique_ptr<Store> store = OpenOrDie(SmallOptions(dir.path()));
  ASSERT_NE(store, nullptr);
  for (const char* b : {"s1", "s2"}) ASSERT_TRUE(store->CreateBucket(Bucket(b)).ok());
  // Some writes before the first read, so the first load has a value to start from.
  ASSERT_TRUE(PutObject(*store, "s1", "before", std::string(10, 'x')).ok());
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> reads{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      while (!stop) {
        for (const char* b : {"s1", "s2"}) {
          Result<BucketStats> s = store->GetBucketStats(b);
          EXPECT_TRUE(s.ok());
          ++reads;
        }
      }
    });
  }
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&, w] {
      std::mt19937 rng(w);
      for (int i = 0; i < 300; ++i) {
        const std::string bucket = (i % 3 == 0) ? "s2" : "s1";
        const std::string key = "k" + std::to_string(w) + "-" + std::to_string(rng() % 40);
        if (rng() % 4 == 0) {
          EXPECT_TRUE(store->DeleteObject(bucket, key).ok());
        } else {
          EXPECT_TRUE(PutObject(*store, bucket, key, std::string(rng() % 500, 'v')).ok());
        }
      }
    });
  }
  for (std::thread& t : writers) t.join();
  stop = true;
  for (std::thread& t : readers) t.join();
  EXPECT_GT(reads.load(), 0u);
  for (const char* b : {"s1", "s2"}) {
    SCOPED_TRACE(b);
    Result<BucketStats> cached = store->GetBucketStats(b);
    ASSERT_TRUE(cached.ok());
    const BucketStats listed = Listed(*store, b);
    EXPECT_EQ(cached->objects, listed.objects);
    EXPECT_EQ(cached->bytes, listed.bytes);
  }
  // A reopened store (nothing cached) reads the same figures from its records.
  const BucketStats before = *store->GetBucketStats("s1");
  store.reset();
  store = OpenOrDie(SmallOptions(dir.path()));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->GetBucketStats("s1")->objects, before.objects);
  EXPECT_EQ(store->GetBucketStats("s1")->bytes, before.bytes);
}

TEST(StatsCacheTest, DeletedAndRecreatedBucketStartsFromNothing) {
  TempDir dir;
  std::unique_ptr<Store> store = OpenOrDie(SmallOptions(dir.path()));
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CreateBucket(Bucket("gone")).ok());
  ASSERT_TRUE(PutObject(*store, "gone", "a", "12345").ok());
  EXPECT_EQ(store->GetBucketStats("gone")->bytes, 5u);  // cached now
  ASSERT_TRUE(store->DeleteObject("gone", "a").ok());
  EXPECT_EQ(store->GetBucketStats("gone")->objects, 0u);
  ASSERT_TRUE(store->DeleteBucket("gone", false).ok());
  EXPECT_EQ(store->GetBucketStats("gone").status().code(), Code::kNoSuchBucket);
  ASSERT_TRUE(store->CreateBucket(Bucket("gone")).ok());
  ASSERT_TRUE(PutObject(*store, "gone", "b", "123").ok());
  EXPECT_EQ(store->GetBucketStats("gone")->objects, 1u);
  EXPECT_EQ(store->GetBucketStats("gone")->bytes, 3u);
}

// StatsCache reads a written batch's sequence number from its header (8 bytes, little-endian).
TEST(StatsCacheTest, AWrittenBatchCarriesItsSequenceNumber) {
  TempDir dir;
  rocksdb::Options options;
  options.create_if_missing = true;
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, dir.path(), &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  for (int n : {1, 3, 2}) {
    rocksdb::WriteBatch batch;
    for (int i = 0; i < n; ++i) batch.Put("k" + std::to_string(i), "v");
    const uint64_t expected = db->GetLatestSequenceNumber() + 1;
    ASSERT_TRUE(db->Write(rocksdb::WriteOptions(), &batch).ok());
    const auto* p = reinterpret_cast<const unsigned char*>(batch.Data().data());
    uint64_t sequence = 0;
    for (int i = 7; i >= 0; --i) sequence = (sequence << 8) | p[i];
    EXPECT_EQ(sequence, expected);
    EXPECT_EQ(db->GetLatestSequenceNumber(), expected + n - 1);
  }
}

}  // namespace
}  // namespace cubby::storage
