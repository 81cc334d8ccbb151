// Multipart uploads, bucket stats, UpdateObjectMeta and space reclaim against a real RocksDB.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <rocksdb/db.h>

#include <thread>

#include "storage/codec.h"
#include "storage/db_options.h"
#include "storage/store.h"
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

constexpr char kUnknownId[] = "00000000000000000000000000000000000000000000";  // 44 chars

Result<PartRecord> PutPart(Store& store, std::string_view bucket, std::string_view key,
                           std::string_view upload_id, uint32_t number, std::string_view data,
                           std::string etag = "", size_t piece = 41) {
  Result<std::unique_ptr<PartWriter>> w = store.NewPartWriter(bucket, key, upload_id);
  if (!w.ok()) return w.status();
  for (size_t off = 0; off < data.size(); off += piece) {
    Status s = (*w)->Append(data.substr(off, piece));
    if (!s.ok()) return s;
  }
  PartRecord meta;
  meta.etag = etag.empty() ? "etag" + std::to_string(number) : std::move(etag);
  meta.checksums["CRC32"] = "c" + std::to_string(number);
  return (*w)->Commit(number, meta);
}

class MultipartTest : public ::testing::Test {
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
  std::string NewUpload(const std::string& key, const std::string& bucket = "b") {
    ObjectMeta meta;
    meta.content_type = "text/plain";
    Result<UploadRecord> u = store_->CreateUpload(bucket, key, meta);
    EXPECT_TRUE(u.ok()) << u.status().ToString();
    return u.ok() ? u->upload_id : std::string();
  }
  std::vector<PartRecord> Parts(const std::string& key, const std::string& id) {
    bool truncated = true;
    Result<std::vector<PartRecord>> parts = store_->ListParts("b", key, id, 0, 10000, &truncated);
    EXPECT_TRUE(parts.ok()) << parts.status().ToString();
    EXPECT_FALSE(truncated);
    return parts.ok() ? *parts : std::vector<PartRecord>();
  }
  BucketStats Stats(const std::string& bucket = "b") {
    Result<BucketStats> s = store_->GetBucketStats(bucket);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : BucketStats{~0ull, ~0ull};
  }
  uint64_t ChunkSize() const { return options_.chunk_size; }

  TempDir dir_;
  StoreOptions options_ = SmallOptions(dir_.path());
  std::unique_ptr<Store> store_;
};

// ------------------------------------------------------------ uploads

TEST_F(MultipartTest, CreateGetKeepsMetadataAndIdsSortByTime) {
  ObjectMeta meta;
  meta.content_type = "image/png";
  meta.cache_control = "no-cache";
  meta.user_meta = {{"color", "red"}};
  meta.size = 99;                 // ignored: bytes come from the parts
  meta.inline_data = "ignored";
  Result<UploadRecord> u = store_->CreateUpload("b", "dir/k", meta, "CRC32", "COMPOSITE");
  ASSERT_OK(u.status());
  EXPECT_EQ(u->upload_id.size(), 44u);
  for (char c : u->upload_id) EXPECT_TRUE(std::isxdigit(static_cast<unsigned char>(c))) << c;
  Result<UploadRecord> got = store_->GetUpload("b", "dir/k", u->upload_id);
  ASSERT_OK(got.status());
  EXPECT_EQ(got->bucket, "b");
  EXPECT_EQ(got->key, "dir/k");
  EXPECT_EQ(got->meta.content_type, "image/png");
  EXPECT_EQ(got->meta.cache_control, "no-cache");
  EXPECT_EQ(got->meta.user_meta, meta.user_meta);
  EXPECT_EQ(got->meta.size, 0u);
  EXPECT_TRUE(got->meta.inline_data.empty());
  EXPECT_EQ(got->checksum_algorithm, "CRC32");
  EXPECT_EQ(got->checksum_type, "COMPOSITE");
  EXPECT_GT(got->initiated_ms, 0);

  // Ids are unique and later ids of one key sort after earlier ones.
  std::set<std::string> ids;
  std::string prev;
  for (int i = 0; i < 20; ++i) {
    std::string id = NewUpload("same");
    EXPECT_TRUE(ids.insert(id).second);
    if (!prev.empty()) {
      EXPECT_LT(prev, id);
    }
    prev = id;
  }
}

// Every call naming an upload: unknown id, id under another key or bucket, malformed id.
TEST_F(MultipartTest, UnknownUploadIsNoSuchUpload) {
  ASSERT_OK(store_->CreateBucket(Bucket("other")));
  const std::string id = NewUpload("k");
  struct Case {
    std::string bucket, key, id;
  };
  const std::vector<Case> cases = {
      {"b", "k", kUnknownId}, {"b", "k2", id}, {"other", "k", id}, {"b", "k", "short"},
      {"b", "k", id + "x"},   {"b", "", id},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.bucket + "/" + c.key + "/" + c.id);
    bool truncated;
    EXPECT_EQ(store_->GetUpload(c.bucket, c.key, c.id).status().code(), Code::kNoSuchUpload);
    EXPECT_EQ(store_->NewPartWriter(c.bucket, c.key, c.id).status().code(), Code::kNoSuchUpload);
    EXPECT_EQ(store_->ListParts(c.bucket, c.key, c.id, 0, 10, &truncated).status().code(),
              Code::kNoSuchUpload);
    EXPECT_EQ(store_->CompleteUpload(c.bucket, c.key, c.id, {1}, {}).status().code(),
              Code::kNoSuchUpload);
    EXPECT_EQ(store_->CompletedUpload(c.bucket, c.key, c.id).status().code(), Code::kNoSuchUpload);
    EXPECT_EQ(store_->AbortUpload(c.bucket, c.key, c.id).code(), Code::kNoSuchUpload);
  }
  // The real one is untouched by all that.
  ASSERT_OK(store_->GetUpload("b", "k", id).status());
}

TEST_F(MultipartTest, MissingBucketIsNoSuchBucket) {
  ListUploadsQuery q;
  q.bucket = "nope";
  EXPECT_EQ(store_->CreateUpload("nope", "k", {}).status().code(), Code::kNoSuchBucket);
  EXPECT_EQ(store_->ListUploads(q).status().code(), Code::kNoSuchBucket);
  EXPECT_EQ(store_->CompleteUpload("nope", "k", kUnknownId, {1}, {}).status().code(),
            Code::kNoSuchBucket);
  EXPECT_EQ(store_->GetBucketStats("nope").status().code(), Code::kNoSuchBucket);
  EXPECT_EQ(store_->UpdateObjectMeta("nope", "k", {}).status().code(), Code::kNoSuchBucket);
}

// ------------------------------------------------------------ parts

TEST_F(MultipartTest, PartWriterMisuse) {
  const std::string id = NewUpload("k");
  for (uint32_t bad : {0u, 10001u}) {
    EXPECT_EQ(PutPart(*store_, "b", "k", id, bad, Pattern(3 * ChunkSize(), 1)).status().code(),
              Code::kInvalidArgument);
  }
  EXPECT_EQ(Pieces(*store_), 0u);  // the rejected parts' files are removed
  EXPECT_TRUE(BlobIds(options_.path).empty());
  auto w = store_->NewPartWriter("b", "k", id);
  ASSERT_OK(w.status());
  ASSERT_OK((*w)->Append("abc"));
  EXPECT_EQ((*w)->size(), 3u);
  ASSERT_OK((*w)->Commit(1, {}).status());
  EXPECT_EQ((*w)->Commit(2, {}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ((*w)->Append("x").code(), Code::kInvalidArgument);
  EXPECT_EQ(Parts("k", id).size(), 1u);
}

TEST_F(MultipartTest, PartRecordAndReplacementReleasesOldData) {
  const std::string id = NewUpload("k");
  const std::string first = Pattern(3 * ChunkSize() + 1, 1);
  Result<PartRecord> p = PutPart(*store_, "b", "k", id, 7, first, "e1");
  ASSERT_OK(p.status());
  EXPECT_EQ(p->part_number, 7u);
  EXPECT_EQ(p->size, first.size());
  EXPECT_GT(p->last_modified_ms, 0);
  EXPECT_TRUE(InFile(p->data));
  EXPECT_EQ(p->data.size, first.size());
  EXPECT_EQ(Pieces(*store_), 1u);
  EXPECT_EQ(BlobIds(options_.path), std::set<uint64_t>{p->data.data_id});

  const std::string second = Pattern(ChunkSize() + 1, 2);
  Result<PartRecord> p2 = PutPart(*store_, "b", "k", id, 7, second, "e2");
  ASSERT_OK(p2.status());
  EXPECT_EQ(Pieces(*store_), 1u);
  EXPECT_EQ(BlobIds(options_.path), std::set<uint64_t>{p2->data.data_id});  // the first is gone
  std::vector<PartRecord> parts = Parts("k", id);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].etag, "e2");
  EXPECT_EQ(parts[0].size, second.size());
  EXPECT_EQ(parts[0].checksums.at("CRC32"), "c7");
  EXPECT_EQ(parts[0].data, p2->data);

  // Small and empty parts are stored too (parts are never inline): one chunk, nothing.
  Result<PartRecord> tiny = PutPart(*store_, "b", "k", id, 8, "tiny");
  ASSERT_OK(tiny.status());
  EXPECT_EQ(tiny->data.chunk_size, ChunkSize());
  EXPECT_NE(tiny->data.data_id, 0u);
  Result<PartRecord> empty = PutPart(*store_, "b", "k", id, 9, "");
  ASSERT_OK(empty.status());
  EXPECT_EQ(empty->data, DataSegment{});
  EXPECT_EQ(Pieces(*store_), 2u);
  EXPECT_EQ(Parts("k", id).size(), 3u);
  // A file part replaced by a one-chunk part, and the other way round.
  ASSERT_OK(PutPart(*store_, "b", "k", id, 7, "now small").status());
  EXPECT_EQ(Pieces(*store_), 2u);
  EXPECT_TRUE(BlobIds(options_.path).empty());
  Result<PartRecord> big = PutPart(*store_, "b", "k", id, 8, Pattern(2 * ChunkSize(), 8));
  ASSERT_OK(big.status());
  EXPECT_EQ(Pieces(*store_), 2u);
  EXPECT_EQ(BlobIds(options_.path), std::set<uint64_t>{big->data.data_id});
}

TEST_F(MultipartTest, PartCommitAfterAbortOrCompleteIsNoSuchUploadAndReleases) {
  for (bool complete : {false, true}) {
    SCOPED_TRACE(complete ? "complete" : "abort");
    const std::string id = NewUpload("k");
    ASSERT_OK(PutPart(*store_, "b", "k", id, 1, "one").status());
    auto w = store_->NewPartWriter("b", "k", id);
    ASSERT_OK(w.status());
    ASSERT_OK((*w)->Append(Pattern(3 * ChunkSize() + 3, 5)));
    if (complete) {
      ASSERT_OK(store_->CompleteUpload("b", "k", id, {1}, {}).status());
    } else {
      ASSERT_OK(store_->AbortUpload("b", "k", id));
    }
    EXPECT_EQ((*w)->Commit(2, {}).status().code(), Code::kNoSuchUpload);
    w->reset();
    EXPECT_EQ(Pieces(*store_), complete ? 1u : 0u);
    EXPECT_TRUE(BlobIds(options_.path).empty());  // part 2's file is gone
    ASSERT_OK(store_->DeleteObject("b", "k"));
  }
}

TEST_F(MultipartTest, ListPartsPaginates) {
  const std::string id = NewUpload("k");
  for (uint32_t n : {1u, 2u, 5u, 9u, 10000u}) ASSERT_OK(PutPart(*store_, "b", "k", id, n, "x").status());
  struct Case {
    uint32_t marker;
    size_t max;
    std::vector<uint32_t> want;
    bool truncated;
  };
  const std::vector<Case> cases = {
      {0, 2, {1, 2}, true},         {2, 2, {5, 9}, true},     {9, 2, {10000}, false},
      {0, 5, {1, 2, 5, 9, 10000}, false}, {0, 0, {}, false}, {10000, 5, {}, false},
      {3, 1, {5}, true},            {UINT32_MAX, 3, {}, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("marker " + std::to_string(c.marker) + " max " + std::to_string(c.max));
    bool truncated = !c.truncated;
    auto parts = store_->ListParts("b", "k", id, c.marker, c.max, &truncated);
    ASSERT_OK(parts.status());
    std::vector<uint32_t> got;
    for (const PartRecord& p : *parts) got.push_back(p.part_number);
    EXPECT_EQ(got, c.want);
    EXPECT_EQ(truncated, c.truncated);
  }
}

// ------------------------------------------------------------ complete

TEST_F(MultipartTest, CompleteSubsetJoinsPartsWithoutCopyAndReleasesTheRest) {
  const std::string id = NewUpload("k");
  const uint64_t c = ChunkSize();
  const std::vector<std::string> data = {Pattern(2 * c + 3, 1), Pattern(c, 2), Pattern(c + 7, 3),
                                         Pattern(5, 4)};
  std::vector<DataSegment> stored;
  for (uint32_t i = 0; i < data.size(); ++i) {
    Result<PartRecord> part = PutPart(*store_, "b", "k", id, i + 1, data[i]);
    ASSERT_OK(part.status());
    stored.push_back(part->data);
  }
  // Parts 1 and 3 are files, 2 and 4 one chunk each.
  EXPECT_TRUE(InFile(stored[0]));
  EXPECT_FALSE(InFile(stored[1]));
  EXPECT_TRUE(InFile(stored[2]));
  EXPECT_FALSE(InFile(stored[3]));
  const uint64_t before = Pieces(*store_);
  ASSERT_EQ(before, 4u);
  ObjectMeta meta = store_->GetUpload("b", "k", id)->meta;
  meta.etag = "abc-3";
  Result<ObjectMeta> done = store_->CompleteUpload("b", "k", id, {1, 3, 4}, meta);
  ASSERT_OK(done.status());
  EXPECT_EQ(done->etag, "abc-3");
  EXPECT_EQ(done->content_type, "text/plain");
  EXPECT_EQ(done->size, data[0].size() + data[2].size() + data[3].size());
  EXPECT_EQ(done->part_sizes,
            (std::vector<uint64_t>{data[0].size(), data[2].size(), data[3].size()}));
  // Part 2's chunk is gone; the others now belong to the object: nothing was copied.
  EXPECT_EQ(done->segments, (std::vector<DataSegment>{stored[0], stored[2], stored[3]}));
  EXPECT_EQ(Pieces(*store_), before - 1);
  EXPECT_EQ(BlobIds(options_.path),
            (std::set<uint64_t>{stored[0].data_id, stored[2].data_id}));
  Result<std::string> read = ReadObject(*store_, "b", "k", 13);
  ASSERT_OK(read.status());
  EXPECT_TRUE(*read == data[0] + data[2] + data[3]);
  Result<ObjectMeta> head = store_->HeadObject("b", "k");
  ASSERT_OK(head.status());
  EXPECT_EQ(head->part_sizes, done->part_sizes);
  EXPECT_EQ(head->etag, "abc-3");

  // The upload is gone.
  EXPECT_EQ(store_->GetUpload("b", "k", id).status().code(), Code::kNoSuchUpload);
  ListUploadsQuery q;
  q.bucket = "b";
  EXPECT_TRUE(store_->ListUploads(q)->uploads.empty());

  // Survives reopen; deleting it releases every segment.
  Reopen();
  EXPECT_TRUE(*ReadObject(*store_, "b", "k") == data[0] + data[2] + data[3]);
  ASSERT_OK(store_->DeleteObject("b", "k"));
  EXPECT_EQ(Pieces(*store_), 0u);
  EXPECT_TRUE(BlobIds(options_.path).empty());
}

// An upload with a checksum algorithm: the object keeps each chosen part's checksum (what
// GetObjectAttributes and GET ?partNumber report), and the upload's storage class; both survive
// a metadata update, reopening, and show in the listings. Without an algorithm, none are kept.
TEST_F(MultipartTest, CompleteKeepsPartChecksumsAndStorageClass) {
  for (const std::string algorithm : {"CRC32", "", "SHA256"}) {
    SCOPED_TRACE(algorithm);
    ObjectMeta initial;
    initial.storage_class = "STANDARD_IA";
    Result<UploadRecord> u =
        store_->CreateUpload("b", "k", initial, algorithm, algorithm.empty() ? "" : "COMPOSITE");
    ASSERT_OK(u.status());
    for (uint32_t n = 1; n <= 3; ++n) {
      ASSERT_OK(PutPart(*store_, "b", "k", u->upload_id, n, "x").status());
    }
    Result<UploadRecord> got = store_->GetUpload("b", "k", u->upload_id);
    ASSERT_OK(got.status());
    EXPECT_EQ(got->meta.storage_class, "STANDARD_IA");
    ObjectMeta meta = got->meta;
    meta.etag = "e-2";
    Result<ObjectMeta> done = store_->CompleteUpload("b", "k", u->upload_id, {1, 3}, meta);
    ASSERT_OK(done.status());
    // PutPart gives every part a CRC32 "c<n>" only.
    const std::vector<std::string> want =
        algorithm == "CRC32" ? std::vector<std::string>{"c1", "c3"} : std::vector<std::string>{};
    EXPECT_EQ(done->part_checksums, want);
    EXPECT_EQ(done->storage_class, "STANDARD_IA");
    // A metadata-only update keeps them with the data.
    ObjectMeta edited;
    edited.content_type = "a/b";
    edited.storage_class = "GLACIER_IR";
    Result<ObjectMeta> updated = store_->UpdateObjectMeta("b", "k", edited);
    ASSERT_OK(updated.status());
    EXPECT_EQ(updated->part_checksums, want);
    Reopen();
    Result<ObjectMeta> head = store_->HeadObject("b", "k");
    ASSERT_OK(head.status());
    EXPECT_EQ(head->part_checksums, want);
    EXPECT_EQ(head->storage_class, "GLACIER_IR");
    ListQuery q;
    q.bucket = "b";
    Result<ListPage> page = store_->ListObjects(q);
    ASSERT_OK(page.status());
    ASSERT_EQ(page->objects.size(), 1u);
    EXPECT_EQ(page->objects[0].storage_class, "GLACIER_IR");
  }
}

TEST_F(MultipartTest, CompleteErrorsChangeNothing) {
  ASSERT_OK(PutObject(*store_, "b", "k", Pattern(3 * ChunkSize(), 9), {}, 37, "old").status());
  const std::string id = NewUpload("k");
  ASSERT_OK(PutPart(*store_, "b", "k", id, 1, Pattern(ChunkSize() + 1, 1)).status());
  ASSERT_OK(PutPart(*store_, "b", "k", id, 3, Pattern(10, 3)).status());
  const uint64_t chunks = Pieces(*store_);
  ASSERT_EQ(chunks, 3u);  // the old object's file, part 1's file, part 3's chunk
  const std::set<uint64_t> files = BlobIds(options_.path);
  ASSERT_EQ(files.size(), 2u);
  WriteCondition none_match;
  none_match.if_none_match_any = true;
  WriteCondition wrong_etag;
  wrong_etag.if_match = "nope";
  struct Case {
    const char* name;
    std::vector<uint32_t> parts;
    WriteCondition cond;
    Code want;
  };
  const std::vector<Case> cases = {
      {"unknown part", {1, 2}, {}, Code::kInvalidPart},
      {"unknown last part", {1, 3, 4}, {}, Code::kInvalidPart},
      {"empty list", {}, {}, Code::kInvalidArgument},
      {"descending", {3, 1}, {}, Code::kInvalidArgument},
      {"duplicate", {1, 1}, {}, Code::kInvalidArgument},
      {"if-none-match *", {1, 3}, none_match, Code::kPreconditionFailed},
      {"if-match wrong", {1, 3}, wrong_etag, Code::kPreconditionFailed},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(store_->CompleteUpload("b", "k", id, c.parts, {}, c.cond).status().code(), c.want);
    EXPECT_EQ(Parts("k", id).size(), 2u);
    EXPECT_EQ(Pieces(*store_), chunks);
    EXPECT_EQ(BlobIds(options_.path), files);
    EXPECT_EQ(store_->HeadObject("b", "k")->etag, "old");
    EXPECT_EQ(store_->CompletedUpload("b", "k", id).status().code(), Code::kNoSuchUpload);
  }
  // If-Match with the right etag replaces the old object and releases its data.
  WriteCondition right;
  right.if_match = "old";
  ObjectMeta meta;
  meta.etag = "new-2";
  Result<ObjectMeta> old_meta = store_->HeadObject("b", "k");
  ASSERT_OK(old_meta.status());
  ASSERT_OK(store_->CompleteUpload("b", "k", id, {1, 3}, meta, right).status());
  EXPECT_EQ(Pieces(*store_), chunks - 1);  // the old object's file
  EXPECT_EQ(BlobIds(options_.path).count(old_meta->data_id), 0u);
  EXPECT_EQ(BlobIds(options_.path).size(), 1u);
  // If-Match on a missing key fails too.
  const std::string id2 = NewUpload("fresh");
  ASSERT_OK(PutPart(*store_, "b", "fresh", id2, 1, "x").status());
  EXPECT_EQ(store_->CompleteUpload("b", "fresh", id2, {1}, {}, right).status().code(),
            Code::kPreconditionFailed);
  ASSERT_OK(store_->CompleteUpload("b", "fresh", id2, {1}, {}, none_match).status());
}

// Reads across part and chunk boundaries, from odd offsets; an empty part in the middle.
TEST_F(MultipartTest, ReadAndSeekAcrossSegments) {
  const std::string id = NewUpload("k");
  const uint64_t c = ChunkSize();
  const std::vector<std::string> data = {Pattern(c + 44, 1), Pattern(1, 2), "", Pattern(2 * c, 3),
                                         Pattern(c - 1, 4)};
  std::string whole;
  std::vector<uint32_t> numbers;
  for (uint32_t i = 0; i < data.size(); ++i) {
    ASSERT_OK(PutPart(*store_, "b", "k", id, i + 1, data[i]).status());
    whole += data[i];
    numbers.push_back(i + 1);
  }
  ObjectMeta meta;
  meta.etag = "x-5";
  Result<ObjectMeta> done = store_->CompleteUpload("b", "k", id, numbers, meta);
  ASSERT_OK(done.status());
  EXPECT_EQ(done->part_sizes, (std::vector<uint64_t>{c + 44, 1, 0, 2 * c, c - 1}));
  for (size_t piece : {1, 7, 255, 256, 257, 1000}) {
    Result<std::string> got = ReadObject(*store_, "b", "k", piece);
    ASSERT_OK(got.status());
    EXPECT_TRUE(*got == whole) << "piece " << piece;
  }
  auto reader = store_->OpenObject("b", "k");
  ASSERT_OK(reader.status());
  std::vector<uint64_t> offsets;
  uint64_t boundary = 0;
  for (const std::string& d : data) {
    boundary += d.size();
    for (int64_t delta : {-1, 0, 1}) {
      int64_t off = static_cast<int64_t>(boundary) + delta;
      if (off >= 0 && off <= static_cast<int64_t>(whole.size())) offsets.push_back(off);
    }
  }
  for (uint64_t off : {0ull, 3ull, 255ull, 256ull, 301ull, 777ull}) offsets.push_back(off);
  for (uint64_t off : offsets) {
    ASSERT_OK((*reader)->Seek(off));
    std::string buf(50, '\0');
    Result<size_t> n = (*reader)->Read(buf.data(), buf.size());
    ASSERT_OK(n.status());
    EXPECT_EQ(*n, std::min<size_t>(50, whole.size() - off)) << off;
    EXPECT_TRUE(buf.substr(0, *n) == whole.substr(off, 50)) << "offset " << off;
  }
  EXPECT_EQ((*reader)->Seek(whole.size() + 1).code(), Code::kInvalidArgument);

  // Overwriting the multipart object with a plain one releases every segment; the reader
  // still open keeps the two files (parts 1 and 4) until it goes.
  ASSERT_OK(PutObject(*store_, "b", "k", "small").status());
  EXPECT_EQ(store_->DebugDeferredFiles(), 2u);
  EXPECT_EQ(Pieces(*store_), 2u);
  ASSERT_OK((*reader)->Seek(0));
  std::string again(whole.size() + 1, '\0');
  size_t total = 0;
  for (;;) {
    Result<size_t> n = (*reader)->Read(again.data() + total, 77);
    ASSERT_OK(n.status());
    if (*n == 0) break;
    total += *n;
  }
  again.resize(total);
  EXPECT_TRUE(again == whole);
  reader->reset();
  EXPECT_EQ(store_->DebugDeferredFiles(), 0u);
  EXPECT_EQ(Pieces(*store_), 0u);
  EXPECT_TRUE(BlobIds(options_.path).empty());
}

// A reader opened before the object is replaced still reads every part.
TEST_F(MultipartTest, ReaderPinsMultipartObject) {
  const std::string id = NewUpload("k");
  // Part 1 is a file, part 2 one chunk.
  const std::string a = Pattern(ChunkSize() * 2 + 1, 1), b = Pattern(ChunkSize() - 56, 2);
  ASSERT_OK(PutPart(*store_, "b", "k", id, 1, a).status());
  ASSERT_OK(PutPart(*store_, "b", "k", id, 2, b).status());
  ASSERT_OK(store_->CompleteUpload("b", "k", id, {1, 2}, {}).status());
  auto reader = store_->OpenObject("b", "k");
  ASSERT_OK(reader.status());
  ASSERT_OK(store_->DeleteObject("b", "k"));
  std::string out(a.size() + b.size() + 10, '\0');
  size_t total = 0;
  for (;;) {
    Result<size_t> n = (*reader)->Read(out.data() + total, 100);
    ASSERT_OK(n.status());
    if (*n == 0) break;
    total += *n;
  }
  out.resize(total);
  EXPECT_TRUE(out == a + b);
  EXPECT_EQ(store_->DebugDeferredFiles(), 1u);  // part 1's file; part 2 is one chunk
  reader->reset();
  EXPECT_EQ(store_->DebugDeferredFiles(), 0u);
  EXPECT_EQ(Pieces(*store_), 0u);
}

TEST_F(MultipartTest, AbortReleasesEverything) {
  const std::string id = NewUpload("k");
  for (uint32_t n = 1; n <= 3; ++n) {
    ASSERT_OK(PutPart(*store_, "b", "k", id, n, Pattern(n * ChunkSize() + 1, n)).status());
  }
  ASSERT_OK(PutPart(*store_, "b", "k", id, 4, Pattern(ChunkSize(), 4)).status());
  EXPECT_EQ(Pieces(*store_), 3u + 1);  // three files, one chunk
  EXPECT_EQ(BlobIds(options_.path).size(), 3u);
  ASSERT_OK(store_->AbortUpload("b", "k", id));
  EXPECT_EQ(Pieces(*store_), 0u);
  EXPECT_TRUE(BlobIds(options_.path).empty());
  EXPECT_EQ(store_->GetUpload("b", "k", id).status().code(), Code::kNoSuchUpload);
  EXPECT_EQ(store_->AbortUpload("b", "k", id).code(), Code::kNoSuchUpload);
  Result<bool> empty = store_->BucketIsEmpty("b");
  ASSERT_OK(empty.status());
  EXPECT_TRUE(*empty);
}

TEST_F(MultipartTest, CompletedUploadAnswersRetriesWhileTheObjectStands) {
  const std::string id = NewUpload("k");
  ASSERT_OK(PutPart(*store_, "b", "k", id, 1, Pattern(500, 1)).status());
  ObjectMeta meta;
  meta.etag = "e-1";
  Result<ObjectMeta> done = store_->CompleteUpload("b", "k", id, {1}, meta);
  ASSERT_OK(done.status());
  // A retried complete: the upload is gone, but its result is known.
  EXPECT_EQ(store_->CompleteUpload("b", "k", id, {1}, meta).status().code(), Code::kNoSuchUpload);
  Result<ObjectMeta> again = store_->CompletedUpload("b", "k", id);
  ASSERT_OK(again.status());
  EXPECT_EQ(again->etag, "e-1");
  EXPECT_EQ(again->size, 500u);
  Reopen();
  ASSERT_OK(store_->CompletedUpload("b", "k", id).status());
  // Other key or bucket: unknown.
  EXPECT_EQ(store_->CompletedUpload("b", "other", id).status().code(), Code::kNoSuchUpload);
  EXPECT_EQ(store_->CompletedUpload("c", "k", id).status().code(), Code::kNoSuchUpload);
  // Once the key is overwritten (even with the same etag) the record no longer answers.
  ASSERT_OK(PutObject(*store_, "b", "k", "x", {}, 37, "e-1").status());
  EXPECT_EQ(store_->CompletedUpload("b", "k", id).status().code(), Code::kNoSuchUpload);
}

// ------------------------------------------------------------ buckets

TEST_F(MultipartTest, DeleteBucketWithUploads) {
  const std::string id = NewUpload("k");
  ASSERT_OK(PutPart(*store_, "b", "k", id, 1, Pattern(2 * ChunkSize(), 1)).status());
  Result<bool> empty = store_->BucketIsEmpty("b");
  ASSERT_OK(empty.status());
  EXPECT_FALSE(*empty);
  EXPECT_EQ(store_->DeleteBucket("b", false).code(), Code::kBucketNotEmpty);
  ASSERT_OK(store_->GetUpload("b", "k", id).status());

  // Force: objects (plain and multipart), uploads and parts go.
  const std::string id2 = NewUpload("mp");
  ASSERT_OK(PutPart(*store_, "b", "mp", id2, 1, Pattern(ChunkSize() + 1, 2)).status());
  ASSERT_OK(store_->CompleteUpload("b", "mp", id2, {1}, {}).status());
  ASSERT_OK(PutObject(*store_, "b", "plain", Pattern(ChunkSize() + 1, 3)).status());
  ASSERT_OK(store_->DeleteBucket("b", true));
  EXPECT_EQ(Pieces(*store_), 0u);
  EXPECT_TRUE(BlobIds(options_.path).empty());
  ASSERT_OK(store_->CreateBucket(Bucket("b")));
  EXPECT_EQ(store_->GetUpload("b", "k", id).status().code(), Code::kNoSuchUpload);
  ListUploadsQuery q;
  q.bucket = "b";
  EXPECT_TRUE(store_->ListUploads(q)->uploads.empty());
  EXPECT_EQ(Stats().objects, 0u);
  EXPECT_EQ(Stats().bytes, 0u);
}

// ------------------------------------------------------------ ListUploads

TEST_F(MultipartTest, ListUploadsOrderPaginationAndDelimiter) {
  ASSERT_OK(store_->CreateBucket(Bucket("other")));
  NewUpload("a/1", "other");  // other buckets never show
  std::map<std::string, std::vector<std::string>> ids;  // key -> ids in creation order
  for (const char* key : {"c", "a/1", "a/2", "b", "b", "b", "a/x/y", "d"}) {
    ids[key].push_back(NewUpload(key));
  }
  auto list = [&](ListUploadsQuery q) {
    q.bucket = "b";
    Result<ListUploadsPage> page = store_->ListUploads(q);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    std::vector<std::string> out;
    if (!page.ok()) return std::make_pair(out, ListUploadsPage{});
    for (const UploadRecord& u : page->uploads) out.push_back(u.key + "#" + u.upload_id);
    for (const std::string& p : page->common_prefixes) out.push_back("P:" + p);
    return std::make_pair(out, *page);
  };
  auto id = [&](const std::string& key, size_t i) { return key + "#" + ids[key][i]; };

  // Everything, by key then time.
  ListUploadsQuery all;
  auto [got, page] = list(all);
  EXPECT_EQ(got, (std::vector<std::string>{id("a/1", 0), id("a/2", 0), id("a/x/y", 0), id("b", 0),
                                           id("b", 1), id("b", 2), id("c", 0), id("d", 0)}));
  EXPECT_FALSE(page.truncated);

  // Pages of 2 follow the next markers, ending inside the run of "b" uploads.
  std::vector<std::string> paged;
  ListUploadsQuery q;
  q.max_uploads = 2;
  for (int i = 0; i < 10; ++i) {
    auto [items, p] = list(q);
    paged.insert(paged.end(), items.begin(), items.end());
    if (!p.truncated) break;
    EXPECT_EQ(items.size(), 2u);
    q.key_marker = p.next_key_marker;
    q.upload_id_marker = p.next_upload_id_marker;
  }
  EXPECT_EQ(paged, got);

  // A key marker alone skips every upload of that key.
  ListUploadsQuery km;
  km.key_marker = "b";
  EXPECT_EQ(list(km).first, (std::vector<std::string>{id("c", 0), id("d", 0)}));
  km.upload_id_marker = ids["b"][0];
  EXPECT_EQ(list(km).first,
            (std::vector<std::string>{id("b", 1), id("b", 2), id("c", 0), id("d", 0)}));

  // Delimiter and prefix.
  ListUploadsQuery d;
  d.delimiter = "/";
  EXPECT_EQ(list(d).first, (std::vector<std::string>{id("b", 0), id("b", 1), id("b", 2), id("c", 0),
                                                     id("d", 0), "P:a/"}));
  d.prefix = "a/";
  EXPECT_EQ(list(d).first, (std::vector<std::string>{id("a/1", 0), id("a/2", 0), "P:a/x/"}));
  d.max_uploads = 2;
  auto [first, p1] = list(d);
  EXPECT_EQ(first, (std::vector<std::string>{id("a/1", 0), id("a/2", 0)}));
  EXPECT_TRUE(p1.truncated);
  d.key_marker = p1.next_key_marker;
  d.upload_id_marker = p1.next_upload_id_marker;
  auto [second, p2] = list(d);
  EXPECT_EQ(second, (std::vector<std::string>{"P:a/x/"}));
  EXPECT_FALSE(p2.truncated);
  // A common prefix as key marker skips it.
  ListUploadsQuery cp;
  cp.delimiter = "/";
  cp.key_marker = "a/";
  EXPECT_EQ(list(cp).first.size(), 5u);

  ListUploadsQuery zero;
  zero.max_uploads = 0;
  auto [none, pz] = list(zero);
  EXPECT_TRUE(none.empty());
  EXPECT_FALSE(pz.truncated);
}

// ------------------------------------------------------------ stats

TEST_F(MultipartTest, BucketStatsStayExact) {
  struct Step {
    const char* name;
    std::function<void()> run;
    uint64_t objects, bytes;
  };
  std::string id;
  const std::vector<Step> steps = {
      {"empty", [] {}, 0, 0},
      {"put inline", [&] { ASSERT_OK(PutObject(*store_, "b", "a", "12345").status()); }, 1, 5},
      {"put chunked", [&] { ASSERT_OK(PutObject(*store_, "b", "c", Pattern(1000, 1)).status()); },
       2, 1005},
      {"overwrite", [&] { ASSERT_OK(PutObject(*store_, "b", "c", Pattern(10, 1)).status()); }, 2,
       15},
      {"failed precondition",
       [&] {
         WriteCondition cond;
         cond.if_none_match_any = true;
         EXPECT_FALSE(PutObject(*store_, "b", "c", "zz", cond).ok());
       },
       2, 15},
      {"delete", [&] { ASSERT_OK(store_->DeleteObject("b", "a")); }, 1, 10},
      {"delete missing", [&] { ASSERT_OK(store_->DeleteObject("b", "a")); }, 1, 10},
      {"upload parts (not counted)",
       [&] {
         id = NewUpload("m");
         ASSERT_OK(PutPart(*store_, "b", "m", id, 1, Pattern(600, 1)).status());
         ASSERT_OK(PutPart(*store_, "b", "m", id, 2, Pattern(70, 2)).status());
       },
       1, 10},
      {"complete", [&] { ASSERT_OK(store_->CompleteUpload("b", "m", id, {1, 2}, {}).status()); }, 2,
       680},
      {"update meta", [&] { ASSERT_OK(store_->UpdateObjectMeta("b", "m", {}).status()); }, 2, 680},
      {"reopen", [&] { Reopen(); }, 2, 680},
      {"complete over existing",
       [&] {
         id = NewUpload("c");
         ASSERT_OK(PutPart(*store_, "b", "c", id, 1, Pattern(3, 1)).status());
         ASSERT_OK(store_->CompleteUpload("b", "c", id, {1}, {}).status());
       },
       2, 673},
      {"force delete and recreate",
       [&] {
         ASSERT_OK(store_->DeleteBucket("b", true));
         ASSERT_OK(store_->CreateBucket(Bucket("b")));
       },
       0, 0},
      {"put after recreate", [&] { ASSERT_OK(PutObject(*store_, "b", "x", "1").status()); }, 1, 1},
      {"reopen again", [&] { Reopen(); }, 1, 1},
  };
  for (const Step& step : steps) {
    SCOPED_TRACE(step.name);
    step.run();
    BucketStats s = Stats();
    EXPECT_EQ(s.objects, step.objects);
    EXPECT_EQ(s.bytes, step.bytes);
  }
}

// A store written before bucket stats existed (no stats records, no ready marker) is counted
// once when opened.
TEST_F(MultipartTest, StatsOfAnOlderStoreAreCountedOnOpen) {
  ASSERT_OK(store_->CreateBucket(Bucket("a")));
  ASSERT_OK(PutObject(*store_, "b", "x", Pattern(700, 1)).status());
  ASSERT_OK(PutObject(*store_, "b", "y", "12").status());
  ASSERT_OK(PutObject(*store_, "a", "z", Pattern(5, 1)).status());
  store_.reset();
  {
    DbConfig config = MakeDbConfig(options_);
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(
        rocksdb::DB::Open(config.db, options_.path, config.column_families, &handles, &raw).ok());
    rocksdb::WriteBatch batch;
    ASSERT_TRUE(batch.Delete(handles[kDefaultCf], std::string("\0stats-ready", 12)).ok());
    ASSERT_TRUE(batch.Delete(handles[kDefaultCf], codec::StatsKey("a")).ok());
    ASSERT_TRUE(batch.Delete(handles[kDefaultCf], codec::StatsKey("b")).ok());
    ASSERT_TRUE(raw->Write(rocksdb::WriteOptions(), &batch).ok());
    std::string value;
    EXPECT_TRUE(raw->Get({}, handles[kDefaultCf], codec::StatsKey("b"), &value).IsNotFound());
    for (auto* h : handles) ASSERT_TRUE(raw->DestroyColumnFamilyHandle(h).ok());
    delete raw;
  }
  Reopen();
  EXPECT_EQ(Stats("b").objects, 2u);
  EXPECT_EQ(Stats("b").bytes, 702u);
  EXPECT_EQ(Stats("a").objects, 1u);
  EXPECT_EQ(Stats("a").bytes, 5u);
  // Counted once: a further reopen and a change keep it exact.
  Reopen();
  ASSERT_OK(store_->DeleteObject("b", "y"));
  EXPECT_EQ(Stats("b").objects, 1u);
  EXPECT_EQ(Stats("b").bytes, 700u);
}

// Parts committed from several threads at once, some replacing each other, then completed:
// exactly the surviving parts' chunks remain.
TEST_F(MultipartTest, ConcurrentPartCommitsLeakNothing) {
  const std::string id = NewUpload("k");
  constexpr int kThreads = 4, kRounds = 5;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        // Threads 0 and 1 fight over part 1; the others own parts 2 and 3.
        uint32_t number = t < 2 ? 1 : t;
        if (!PutPart(*store_, "b", "k", id, number, Pattern(2 * ChunkSize() + 1, t * 10 + r), "",
                     97)
                 .ok()) {
          ++failures;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  std::vector<PartRecord> parts = Parts("k", id);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(Pieces(*store_), 3u);  // one file per surviving part
  EXPECT_EQ(BlobIds(options_.path), (std::set<uint64_t>{parts[0].data.data_id,
                                                        parts[1].data.data_id,
                                                        parts[2].data.data_id}));
  ASSERT_OK(store_->CompleteUpload("b", "k", id, {1, 3}, {}).status());
  EXPECT_EQ(Pieces(*store_), 2u);
  EXPECT_EQ(BlobIds(options_.path),
            (std::set<uint64_t>{parts[0].data.data_id, parts[2].data.data_id}));
}

// ------------------------------------------------------------ UpdateObjectMeta

TEST_F(MultipartTest, UpdateObjectMetaKeepsData) {
  const std::string data = Pattern(3 * ChunkSize() + 1, 1);
  Result<ObjectMeta> put = PutObject(*store_, "b", "k", data, {}, 37, "orig");
  ASSERT_OK(put.status());
  const uint64_t chunks = Pieces(*store_);
  ObjectMeta meta;
  meta.content_type = "text/html";
  meta.user_meta = {{"a", "b"}};
  meta.size = 1;  // ignored
  Result<ObjectMeta> updated = store_->UpdateObjectMeta("b", "k", meta);
  ASSERT_OK(updated.status());
  EXPECT_EQ(updated->etag, "orig");
  EXPECT_EQ(updated->size, data.size());
  Result<ObjectMeta> head = store_->HeadObject("b", "k");
  ASSERT_OK(head.status());
  EXPECT_EQ(head->content_type, "text/html");
  EXPECT_EQ(head->user_meta, meta.user_meta);
  EXPECT_EQ(head->etag, "orig");
  EXPECT_TRUE(*ReadObject(*store_, "b", "k") == data);
  EXPECT_EQ(Pieces(*store_), chunks);

  WriteCondition wrong;
  wrong.if_match = "nope";
  WriteCondition right;
  right.if_match = "orig";
  WriteCondition none_match;
  none_match.if_none_match_any = true;
  struct Case {
    const char* name;
    std::string key;
    WriteCondition cond;
    Code want;
  };
  ObjectMeta other;
  other.content_type = "x/y";
  other.etag = "changed";
  const std::vector<Case> cases = {
      {"missing key", "nope", {}, Code::kNoSuchKey},
      {"if-match on missing key", "nope", right, Code::kPreconditionFailed},
      {"if-match wrong", "k", wrong, Code::kPreconditionFailed},
      {"if-none-match *", "k", none_match, Code::kPreconditionFailed},
      {"if-match right", "k", right, Code::kOk},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(store_->UpdateObjectMeta("b", c.key, other, c.cond).status().code(), c.want);
    EXPECT_EQ(store_->HeadObject("b", "k")->content_type,
              c.want == Code::kOk ? "x/y" : "text/html");
  }
  EXPECT_EQ(store_->HeadObject("b", "k")->etag, "changed");

  // A multipart object keeps its segments and part sizes.
  const std::string id = NewUpload("mp");
  ASSERT_OK(PutPart(*store_, "b", "mp", id, 1, Pattern(ChunkSize() + 5, 1)).status());
  ASSERT_OK(PutPart(*store_, "b", "mp", id, 2, Pattern(9, 2)).status());
  ASSERT_OK(store_->CompleteUpload("b", "mp", id, {1, 2}, {}).status());
  ASSERT_OK(store_->UpdateObjectMeta("b", "mp", other).status());
  EXPECT_EQ(store_->HeadObject("b", "mp")->part_sizes,
            (std::vector<uint64_t>{ChunkSize() + 5, 9}));
  EXPECT_TRUE(*ReadObject(*store_, "b", "mp") == Pattern(ChunkSize() + 5, 1) + Pattern(9, 2));
}

// ------------------------------------------------------------ crash

// A server dies while streaming a part (child process, see test_main.cc): reopening removes the
// unfinished part's file and keeps the upload and its committed parts.
TEST_F(MultipartTest, CrashCleanupOfUnfinishedPart) {
  store_.reset();
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::string flag = "--crash-part-child=" + options_.path;
    execl("/proc/self/exe", "storage_test", flag.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int wstatus = 0;
  ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFEXITED(wstatus));
  ASSERT_EQ(WEXITSTATUS(wstatus), 0) << "child did not leave its part's file behind";
  ASSERT_EQ(BlobIds(options_.path).size(), 2u);  // part 1's and the unfinished part 2's

  Reopen();
  ListUploadsQuery q;
  q.bucket = "b";
  Result<ListUploadsPage> page = store_->ListUploads(q);
  ASSERT_OK(page.status());
  ASSERT_EQ(page->uploads.size(), 1u);
  const std::string id = page->uploads[0].upload_id;
  // Parts 1 (a file) and 3 (a chunk) stay; the unfinished part 2's file is gone.
  std::vector<PartRecord> parts = Parts("k", id);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(Pieces(*store_), 2u);
  EXPECT_EQ(BlobIds(options_.path), std::set<uint64_t>{parts[0].data.data_id});
  ASSERT_OK(store_->CompleteUpload("b", "k", id, {1, 3}, {}).status());
  EXPECT_TRUE(*ReadObject(*store_, "b", "k") ==
              Pattern(2 * ChunkSize(), 1) + Pattern(ChunkSize() / 2, 3));
}

// ------------------------------------------------------------ disk space

uint64_t DiskBytes(const std::string& path) {
  uint64_t total = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(path)) {
    if (e.is_regular_file()) total += e.file_size();
  }
  return total;
}

// Overwrite and delete an object of CUBBY_RECLAIM_MIB (default 8) MiB; the reclaimer, woken by
// the released bytes, must give the space back. Run with CUBBY_RECLAIM_MIB=256 to measure.
TEST(StoreReclaim, DeletedDataLeavesTheDisk) {
  TempDir dir;
  StoreOptions options;
  options.path = dir.path();
  options.chunk_size = 1 << 20;  // chunks go to blob files
  uint64_t mib = 8;
  if (const char* env = std::getenv("CUBBY_RECLAIM_MIB")) mib = std::strtoull(env, nullptr, 10);
  options.reclaim_after_bytes = mib << 20;  // the overwrite reaches it, and then the delete
  std::unique_ptr<Store> store = OpenOrDie(options);
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->CreateBucket(Bucket("b")));
  const uint64_t empty = DiskBytes(dir.path());

  const std::string block = Pattern(1 << 20, 1);
  for (int round = 0; round < 2; ++round) {
    auto w = store->NewObjectWriter("b");
    ASSERT_OK(w.status());
    for (uint64_t i = 0; i < mib; ++i) ASSERT_OK((*w)->Append(block));
    ASSERT_OK((*w)->Commit("big", {}).status());
  }
  ASSERT_OK(store->DebugWaitForReclaim());  // woken by the overwrite
  ASSERT_OK(store->ReclaimSpace());  // nothing left to compact, but flushes everything
  const uint64_t full = DiskBytes(dir.path());
  EXPECT_GE(full, empty + (mib << 20));
  ASSERT_OK(store->DeleteObject("b", "big"));
  ASSERT_OK(store->DebugWaitForReclaim());
  const uint64_t after = DiskBytes(dir.path());
  std::printf("disk bytes: empty %llu, with %llu MiB object %llu, after delete %llu\n",
              static_cast<unsigned long long>(empty), static_cast<unsigned long long>(mib),
              static_cast<unsigned long long>(full), static_cast<unsigned long long>(after));
  EXPECT_LT(after, empty + (1 << 20));
  if (after >= empty + (1 << 20)) {  // which files hold on to the space
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path())) {
      if (!e.is_regular_file()) continue;
      std::printf("  %s %llu\n", e.path().filename().c_str(),
                  static_cast<unsigned long long>(e.file_size()));
    }
  }
  EXPECT_EQ(Pieces(*store), 0u);
  EXPECT_TRUE(BlobIds(dir.path()).empty());
}

}  // namespace
}  // namespace cubby::storage
