// NewPlainReader over a real Store: sealed objects in a data file and in
// chunks (read), read whole, in reads of odd sizes and from ranges; a damaged segment fails only
// the reads that reach it, after the bytes before it.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "crypt/seal.h"
#include "s3api/sse.h"
#include "storage/store.h"

namespace cubby::s3api {
namespace {

constexpr uint64_t kSeg = crypt::kSegmentBytes;

crypt::DataKey TestKey() {
  unsigned char bytes[crypt::Key256::kBytes];
  for (size_t i = 0; i < sizeof bytes; ++i) bytes[i] = static_cast<unsigned char>(7 * i + 1);
  return crypt::Key256::FromBytes(bytes);
}

std::string Plaintext(size_t n) {
  std::string s(n, '\0');
  std::mt19937 rng(static_cast<uint32_t>(n));
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

class PlainReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/cubby_plain_reader_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    storage::StoreOptions options;
    options.path = dir_ + "/data";
    options.sync = false;
    auto store = storage::Store::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    storage::BucketRecord bucket;
    bucket.name = "bkt";
    ASSERT_TRUE(store_->CreateBucket(bucket).ok());
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Stores `plain` sealed under TestKey() as bucket/`key` (an SSE-S3 record).
  void PutSealed(const std::string& key, const std::string& plain) {
    auto sealed = crypt::SealAll(TestKey(), key, plain);
    ASSERT_TRUE(sealed.ok());
    auto writer = store_->NewObjectWriter("bkt");
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Append(*sealed).ok());
    storage::ObjectMeta meta;
    meta.size = plain.size();
    meta.encryption.mode = storage::SseMode::kSseS3;
    meta.encryption.wrapped_key = "unused";
    auto committed = (*writer)->Commit(key, std::move(meta), {});
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  }

  std::unique_ptr<storage::ObjectReader> Open(const std::string& key) {
    auto sealed = store_->OpenObject("bkt", key);
    EXPECT_TRUE(sealed.ok());
    if (!sealed.ok()) return nullptr;
    OpenedKeys keys;
    keys.keys.push_back(TestKey());
    keys.contexts.push_back(key);
    return NewPlainReader(std::move(sealed).value(), std::move(keys));
  }

  // Reads from the reader's position to the end in reads of `piece` bytes.
  static storage::Status ReadAll(storage::ObjectReader& r, size_t piece, std::string* out) {
    std::string buf(piece, '\0');
    for (;;) {
      storage::Result<size_t> n = r.Read(buf.data(), piece);
      if (!n.ok()) return n.status();
      if (*n == 0) return storage::Status::Ok();
      out->append(buf.data(), *n);
    }
  }

  // The one data file under the store's folder.
  std::string OnlyDataFile() {
    std::string found;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir_ + "/data")) {
      if (e.is_regular_file() && e.path().string().find("/blobs/") != std::string::npos) {
        EXPECT_TRUE(found.empty()) << found << " and " << e.path();
        found = e.path().string();
      }
    }
    return found;
  }

  std::string dir_;
  std::unique_ptr<storage::Store> store_;
};

TEST_F(PlainReaderTest, ReadsWholeInPiecesAndRanges) {
  // 1 MiB - 3 (chunks in the DB) and 9 MiB + 5 (a data file).
  for (size_t size : {size_t{(1 << 20) - 3}, size_t{(9 << 20) + 5}}) {
    SCOPED_TRACE(size);
    const std::string key = "obj" + std::to_string(size);
    const std::string plain = Plaintext(size);
    PutSealed(key, plain);
    for (size_t piece : {size_t{256 << 10}, size_t{100000}, size_t{1 << 20}, size_t{4096}}) {
      SCOPED_TRACE(piece);
      auto r = Open(key);
      ASSERT_NE(r, nullptr);
      EXPECT_EQ(r->meta().size, size);
      std::string got;
      ASSERT_TRUE(ReadAll(*r, piece, &got).ok());
      EXPECT_TRUE(got == plain);
    }
    // Seeks backwards and forwards on one reader, into and across segments.
    auto r = Open(key);
    ASSERT_NE(r, nullptr);
    for (uint64_t first : {size - 1, uint64_t{0}, kSeg - 1, 5 * kSeg, size / 2 + 17, uint64_t{1}}) {
      SCOPED_TRACE(first);
      ASSERT_TRUE(r->Seek(first).ok());
      const size_t want = std::min<size_t>(3 * kSeg + 11, size - first);
      std::string buf(want, '\0');
      size_t got = 0;
      while (got < want) {
        storage::Result<size_t> n = r->Read(buf.data() + got, want - got);
        ASSERT_TRUE(n.ok());
        ASSERT_GT(*n, 0u);
        got += *n;
      }
      EXPECT_TRUE(buf == plain.substr(first, want));
    }
  }
}

TEST_F(PlainReaderTest, DamagedSegmentFailsAfterTheBytesBeforeIt) {
  const size_t size = (3 << 20) + 5;
  const std::string plain = Plaintext(size);
  PutSealed("big", plain);
  const std::string path = OnlyDataFile();
  ASSERT_FALSE(path.empty());
  const uint64_t bad = 21;  // the segment whose ciphertext gets a flipped byte
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(bad * crypt::kSealedSegmentBytes + 100));
    char c = 0;
    f.seekg(f.tellp());
    f.get(c);
    f.seekp(static_cast<std::streamoff>(bad * crypt::kSealedSegmentBytes + 100));
    f.put(static_cast<char>(c ^ 1));
  }
  for (size_t piece : {size_t{256 << 10}, size_t{100000}}) {
    SCOPED_TRACE(piece);
    auto r = Open("big");
    ASSERT_NE(r, nullptr);
    std::string got;
    storage::Status s = ReadAll(*r, piece, &got);
    EXPECT_EQ(s.code(), storage::Code::kCorruption);
    // Everything before the damaged segment, nothing of it: the 256 KiB read over segments
    // 20..23 returns segment 20, the next Read fails.
    EXPECT_LE(got.size(), bad * kSeg);
    if (piece == (256u << 10)) EXPECT_EQ(got.size(), bad * kSeg);
    EXPECT_TRUE(got == plain.substr(0, got.size()));
    // The failure sticks until a Seek; past the damage the object reads.
    char byte;
    EXPECT_EQ(r->Read(&byte, 1).status().code(), storage::Code::kCorruption);
    ASSERT_TRUE(r->Seek((bad + 1) * kSeg).ok());
    std::string rest;
    ASSERT_TRUE(ReadAll(*r, piece, &rest).ok());
    EXPECT_TRUE(rest == plain.substr((bad + 1) * kSeg));
  }
}

}  // namespace
}  // namespace cubby::s3api
