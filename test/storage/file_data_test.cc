// Objects and parts larger than one chunk live in plain data files under <store>/blobs (see
// storage/blob_files.h): recovery of unreferenced files, ObjectReader::NextFileSpan, damaged
// files, unsynced stores, and readers racing overwrites and deletes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "storage/store.h"
#include "test/storage/test_util.h"

namespace cubby::storage {
namespace {

using testing::BlobIds;
using testing::BlobPath;
using testing::Bucket;
using testing::InFile;
using testing::OpenOrDie;
using testing::Pattern;
using testing::Pieces;
using testing::PutObject;
using testing::ReadObject;
using testing::SmallOptions;
using testing::TempDir;

Result<PartRecord> PutPart(Store& store, std::string_view key, std::string_view upload_id,
                           uint32_t number, std::string_view data) {
  Result<std::unique_ptr<PartWriter>> w = store.NewPartWriter("b", key, upload_id);
  if (!w.ok()) return w.status();
  for (size_t off = 0; off < data.size(); off += 61) {
    Status s = (*w)->Append(data.substr(off, 61));
    if (!s.ok()) return s;
  }
  return (*w)->Commit(number, {});
}

// Writes `size` bytes of `byte` to a new file at `path`.
void PlantFile(const std::string& path, size_t size, char byte = 'x') {
  std::ofstream out(path, std::ios::binary);
  out << std::string(size, byte);
  ASSERT_TRUE(out.good()) << path;
}

class FileDataTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }
  void Open() {
    store_ = OpenOrDie(options_);
    ASSERT_NE(store_, nullptr);
    Result<bool> exists = store_->BucketIsEmpty("b");
    if (!exists.ok()) ASSERT_OK(store_->CreateBucket(Bucket("b")));
  }
  void Reopen() {
    store_.reset();
    Open();
  }
  // A multipart object at `key` made of `parts`, in order.
  Result<ObjectMeta> PutMultipart(const std::string& key, const std::vector<std::string>& parts) {
    Result<UploadRecord> u = store_->CreateUpload("b", key, {});
    if (!u.ok()) return u.status();
    std::vector<uint32_t> numbers;
    for (uint32_t i = 0; i < parts.size(); ++i) {
      Result<PartRecord> p = PutPart(*store_, key, u->upload_id, i + 1, parts[i]);
      if (!p.ok()) return p.status();
      numbers.push_back(i + 1);
    }
    ObjectMeta meta;
    meta.etag = "mp";
    return store_->CompleteUpload("b", key, u->upload_id, numbers, meta);
  }
  uint64_t cs() const { return options_.chunk_size; }

  TempDir dir_;
  StoreOptions options_ = SmallOptions(dir_.path());
  std::unique_ptr<Store> store_;
};

// ---------------------------------------------------------------- recovery

// Files under blobs/ with names the store never gives are not its to remove, and do not stop
// Open; a record whose file went missing keeps its id out of reach of new files.
TEST_F(FileDataTest, StrayFilesAreLeftAloneAndMissingFilesKeepTheirIds) {
  const std::string a = Pattern(2 * cs() + 3, 6);
  Result<ObjectMeta> put_a = PutObject(*store_, "b", "a", a);
  Result<ObjectMeta> put_gone = PutObject(*store_, "b", "gone", Pattern(cs() + 1, 7));
  ASSERT_OK(put_a.status());
  ASSERT_OK(put_gone.status());
  ASSERT_TRUE(InFile(*put_gone));
  store_.reset();
  const std::string stray = options_.path + "/blobs/00/notes.txt~";
  PlantFile(stray, 10);
  ASSERT_EQ(std::remove(BlobPath(options_.path, put_gone->data_id).c_str()), 0);

  Open();
  EXPECT_TRUE(std::filesystem::exists(stray));
  EXPECT_TRUE(*ReadObject(*store_, "b", "a") == a);
  EXPECT_EQ(ReadObject(*store_, "b", "gone").status().code(), Code::kCorruption);
  Result<ObjectMeta> fresh = PutObject(*store_, "b", "fresh", Pattern(cs() + 2, 8));
  ASSERT_OK(fresh.status());
  EXPECT_GT(fresh->data_id, put_gone->data_id);
}

// Open removes files nobody references (planted ones, one even with the id of a chunked
// object) and keeps every referenced file; ids handed out afterwards are above every file id
// seen, so no id is reused.
TEST_F(FileDataTest, OpenRemovesUnreferencedFilesAndKeepsReferencedOnes) {
  const std::string a = Pattern(2 * cs() + 9, 1), chunk = Pattern(cs() - 1, 2);
  const std::string part = Pattern(cs() + 1, 3);
  Result<ObjectMeta> put_a = PutObject(*store_, "b", "a", a);
  Result<ObjectMeta> put_chunk = PutObject(*store_, "b", "chunk", chunk);
  ASSERT_OK(put_a.status());
  ASSERT_OK(put_chunk.status());
  ASSERT_TRUE(InFile(*put_a));
  ASSERT_EQ(put_chunk->chunk_size, cs());
  Result<UploadRecord> upload = store_->CreateUpload("b", "mp", {});
  ASSERT_OK(upload.status());
  Result<PartRecord> p1 = PutPart(*store_, "mp", upload->upload_id, 1, part);
  ASSERT_OK(p1.status());
  ASSERT_TRUE(InFile(p1->data));
  const std::set<uint64_t> referenced = {put_a->data_id, p1->data.data_id};
  ASSERT_EQ(BlobIds(options_.path), referenced);
  store_.reset();

  const uint64_t far = 1ull << 40;  // far above any id the store handed out
  const std::vector<uint64_t> planted = {put_chunk->data_id, put_a->data_id + 1000, far, far + 1};
  for (uint64_t id : planted) PlantFile(BlobPath(options_.path, id), id == far ? 0 : 300);
  std::set<uint64_t> all = referenced;
  all.insert(planted.begin(), planted.end());
  ASSERT_EQ(BlobIds(options_.path), all);

  Open();
  EXPECT_EQ(BlobIds(options_.path), referenced);
  EXPECT_EQ(Pieces(*store_), 3u);  // two files and the chunk
  EXPECT_TRUE(*ReadObject(*store_, "b", "a") == a);
  EXPECT_TRUE(*ReadObject(*store_, "b", "chunk") == chunk);
  // New files and chunks get ids above every file that was there, removed ones included.
  Result<ObjectMeta> fresh_file = PutObject(*store_, "b", "fresh", Pattern(cs() + 5, 4));
  Result<ObjectMeta> fresh_chunk = PutObject(*store_, "b", "fresh-chunk", Pattern(cs(), 5));
  ASSERT_OK(fresh_file.status());
  ASSERT_OK(fresh_chunk.status());
  EXPECT_GT(fresh_file->data_id, far + 1);
  EXPECT_GT(fresh_chunk->data_id, far + 1);
  ASSERT_OK(store_->CompleteUpload("b", "mp", upload->upload_id, {1}, {}).status());
  EXPECT_TRUE(*ReadObject(*store_, "b", "mp") == part);

  // A second reopen removes nothing more and still does not reuse ids.
  Reopen();
  EXPECT_EQ(BlobIds(options_.path),
            (std::set<uint64_t>{put_a->data_id, p1->data.data_id, fresh_file->data_id}));
  Result<ObjectMeta> later = PutObject(*store_, "b", "later", Pattern(3 * cs(), 6));
  ASSERT_OK(later.status());
  EXPECT_GT(later->data_id, std::max(fresh_file->data_id, fresh_chunk->data_id));
  EXPECT_TRUE(*ReadObject(*store_, "b", "fresh") == Pattern(cs() + 5, 4));
  EXPECT_TRUE(*ReadObject(*store_, "b", "mp") == part);
  EXPECT_EQ(Pieces(*store_), 6u);
}

// ---------------------------------------------------------------- NextFileSpan

struct SpanLog {
  uint64_t position;  // object offset of the span's first byte
  uint64_t file_offset;
  size_t length;
};

// Reads what is left of `r`: file bytes through NextFileSpan(max) and pread, other bytes
// through Read one byte at a time (so NextFileSpan is asked again at every position).
std::string DrainWithSpans(ObjectReader& r, uint64_t position, size_t max,
                           std::vector<SpanLog>* spans) {
  std::string out;
  for (;;) {
    Result<std::optional<ObjectReader::FileSpan>> span = r.NextFileSpan(max);
    EXPECT_TRUE(span.ok()) << span.status().ToString();
    if (!span.ok()) return out;
    if (span->has_value()) {
      const ObjectReader::FileSpan& s = **span;
      EXPECT_GT(s.length, 0u);
      EXPECT_LE(s.length, max);
      EXPECT_GE(s.fd, 0);
      std::string buf(s.length, '\0');
      ssize_t n = ::pread(s.fd, buf.data(), buf.size(), static_cast<off_t>(s.offset));
      EXPECT_EQ(n, static_cast<ssize_t>(s.length));
      if (n != static_cast<ssize_t>(s.length)) return out;
      if (spans != nullptr) spans->push_back({position, s.offset, s.length});
      out += buf;
      position += s.length;
      continue;
    }
    char c;
    Result<size_t> n = r.Read(&c, 1);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    if (!n.ok() || *n == 0) return out;
    out += c;
    ++position;
  }
}

// Spans cover exactly a file-backed object's bytes, for odd `max` values and from odd offsets.
TEST_F(FileDataTest, NextFileSpanCoversAFileObject) {
  for (uint64_t size : {cs() + 1, 3 * cs() + 7}) {
    const std::string data = Pattern(size, static_cast<uint32_t>(size));
    ASSERT_OK(PutObject(*store_, "b", "k", data).status());
    for (size_t max : {size_t{1}, size_t{7}, size_t{255}, size_t{257}, size_t{1} << 20}) {
      for (uint64_t start : {uint64_t{0}, uint64_t{1}, cs() - 1, cs() + 1, size - 1}) {
        SCOPED_TRACE("size " + std::to_string(size) + " max " + std::to_string(max) +
                     " start " + std::to_string(start));
        Result<std::unique_ptr<ObjectReader>> r = store_->OpenObject("b", "k");
        ASSERT_OK(r.status());
        ASSERT_OK((*r)->Seek(start));
        std::vector<SpanLog> spans;
        std::string got = DrainWithSpans(**r, start, max, &spans);
        EXPECT_TRUE(got == data.substr(start));
        // Nothing but spans, each as long as allowed, at its own file offset.
        const uint64_t left = size - start;
        ASSERT_EQ(spans.size(), (left + max - 1) / max);
        for (size_t i = 0; i < spans.size(); ++i) {
          EXPECT_EQ(spans[i].file_offset, spans[i].position);
          EXPECT_EQ(spans[i].length, std::min<uint64_t>(max, size - spans[i].position));
        }
        // At the end: no span, Read returns 0.
        Result<std::optional<ObjectReader::FileSpan>> end = (*r)->NextFileSpan(max);
        ASSERT_OK(end.status());
        EXPECT_FALSE(end->has_value());
        char c;
        EXPECT_EQ(*(*r)->Read(&c, 1), 0u);
      }
    }
  }
}

// Read and NextFileSpan share one position: alternating them yields the object in order.
TEST_F(FileDataTest, NextFileSpanAndReadInterleave) {
  const std::string data = Pattern(3 * cs() + 7, 9);
  ASSERT_OK(PutObject(*store_, "b", "k", data).status());
  Result<std::unique_ptr<ObjectReader>> r = store_->OpenObject("b", "k");
  ASSERT_OK(r.status());
  std::string got;
  const size_t steps[] = {10, 13, 1, 255, 300, 3, 1000};
  for (size_t i = 0; got.size() < data.size(); ++i) {
    const size_t n = steps[i % std::size(steps)];
    if (i % 2 == 0) {
      std::string buf(n, '\0');
      Result<size_t> read = (*r)->Read(buf.data(), n);
      ASSERT_OK(read.status());
      ASSERT_GT(*read, 0u);
      got.append(buf.data(), *read);
    } else {
      Result<std::optional<ObjectReader::FileSpan>> span = (*r)->NextFileSpan(n);
      ASSERT_OK(span.status());
      ASSERT_TRUE(span->has_value()) << "at " << got.size();
      EXPECT_EQ((*span)->offset, got.size());
      std::string buf((*span)->length, '\0');
      ASSERT_EQ(::pread((*span)->fd, buf.data(), buf.size(), static_cast<off_t>((*span)->offset)),
                static_cast<ssize_t>(buf.size()));
      got += buf;
    }
  }
  EXPECT_TRUE(got == data);
  // Seek back into the middle: spans start there again.
  ASSERT_OK((*r)->Seek(cs() + 3));
  Result<std::optional<ObjectReader::FileSpan>> span = (*r)->NextFileSpan(5);
  ASSERT_OK(span.status());
  ASSERT_TRUE(span->has_value());
  EXPECT_EQ((*span)->offset, cs() + 3);
  EXPECT_EQ((*span)->length, 5u);
  std::string buf(3, '\0');
  ASSERT_EQ(*(*r)->Read(buf.data(), 3), 3u);
  EXPECT_TRUE(buf == data.substr(cs() + 8, 3));
}

// Inline, one-chunk and empty objects have no file: NextFileSpan is nullopt everywhere and
// does not move the position.
TEST_F(FileDataTest, NextFileSpanIsNulloptWithoutAFile) {
  for (uint64_t size : {uint64_t{0}, uint64_t{5}, uint64_t{options_.inline_limit},
                        uint64_t{options_.inline_limit + 1}, cs()}) {
    SCOPED_TRACE("size " + std::to_string(size));
    const std::string data = Pattern(size, 3);
    Result<ObjectMeta> put = PutObject(*store_, "b", "k", data);
    ASSERT_OK(put.status());
    ASSERT_FALSE(InFile(*put));
    Result<std::unique_ptr<ObjectReader>> r = store_->OpenObject("b", "k");
    ASSERT_OK(r.status());
    for (uint64_t pos : {uint64_t{0}, size / 2, size}) {
      ASSERT_OK((*r)->Seek(pos));
      Result<std::optional<ObjectReader::FileSpan>> span = (*r)->NextFileSpan(1 << 20);
      ASSERT_OK(span.status());
      EXPECT_FALSE(span->has_value());
      std::string buf(size + 1, '\0');
      Result<size_t> n = (*r)->Read(buf.data(), buf.size());
      ASSERT_OK(n.status());
      EXPECT_TRUE(buf.substr(0, *n) == data.substr(pos)) << "pos " << pos;
    }
    EXPECT_EQ(DrainWithSpans(**r, size, 7, nullptr), "");
  }
}

// A multipart object: a span per file part (never crossing into the next part), nullopt at
// every byte of a one-chunk or empty part, and the bytes in order.
TEST_F(FileDataTest, NextFileSpanPerPartOfAMultipartObject) {
  const std::vector<std::string> parts = {Pattern(cs() + 44, 1), Pattern(1, 2), "",
                                          Pattern(2 * cs(), 3), Pattern(cs() - 1, 4),
                                          Pattern(cs() + 1, 5), Pattern(cs(), 6)};
  Result<ObjectMeta> done = PutMultipart("k", parts);
  ASSERT_OK(done.status());
  std::string whole;
  std::vector<std::pair<uint64_t, uint64_t>> file_ranges;  // [start, end) of each file part
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].size() > cs()) file_ranges.push_back({whole.size(), whole.size() + parts[i].size()});
    EXPECT_EQ(InFile(done->segments[i]), parts[i].size() > cs()) << "part " << i + 1;
    whole += parts[i];
  }
  for (size_t max : {size_t{1} << 20, size_t{100}, size_t{7}}) {
    SCOPED_TRACE("max " + std::to_string(max));
    Result<std::unique_ptr<ObjectReader>> r = store_->OpenObject("b", "k");
    ASSERT_OK(r.status());
    std::vector<SpanLog> spans;
    EXPECT_TRUE(DrainWithSpans(**r, 0, max, &spans) == whole);
    // The spans tile exactly the file parts, each starting at file offset 0 of its part.
    size_t s = 0;
    for (auto [start, end] : file_ranges) {
      uint64_t pos = start;
      while (pos < end) {
        ASSERT_LT(s, spans.size());
        EXPECT_EQ(spans[s].position, pos);
        EXPECT_EQ(spans[s].file_offset, pos - start);
        EXPECT_EQ(spans[s].length, std::min<uint64_t>(max, end - pos));
        pos += spans[s].length;
        ++s;
      }
    }
    EXPECT_EQ(s, spans.size());
  }
  // From a seek into the middle of a file part, and into a chunk part.
  Result<std::unique_ptr<ObjectReader>> r = store_->OpenObject("b", "k");
  ASSERT_OK(r.status());
  const uint64_t mid = file_ranges[1].first + 17;
  ASSERT_OK((*r)->Seek(mid));
  Result<std::optional<ObjectReader::FileSpan>> span = (*r)->NextFileSpan(1 << 20);
  ASSERT_OK(span.status());
  ASSERT_TRUE(span->has_value());
  EXPECT_EQ((*span)->offset, 17u);
  EXPECT_EQ((*span)->length, file_ranges[1].second - mid);
  const uint64_t in_chunk = file_ranges[1].second + 3;  // part 5, one chunk
  ASSERT_OK((*r)->Seek(in_chunk));
  span = (*r)->NextFileSpan(1 << 20);
  ASSERT_OK(span.status());
  EXPECT_FALSE(span->has_value());
  std::string buf(10, '\0');
  ASSERT_EQ(*(*r)->Read(buf.data(), buf.size()), 10u);
  EXPECT_TRUE(buf == whole.substr(in_chunk, 10));
}

// ---------------------------------------------------------------- damaged files

// A data file that is shorter or longer than its record says, or missing, is kCorruption as
// soon as the reader opens it, before any byte of it is returned. Other data is unaffected.
TEST_F(FileDataTest, DataFileDamageIsCorruption) {
  const uint64_t size = 2 * cs() + 5;
  struct Case {
    const char* name;
    int64_t new_size;  // -1: remove the file
    bool reopen;       // damage it while the store is closed
  } cases[] = {
      {"one byte short", static_cast<int64_t>(size) - 1, false},
      {"empty", 0, false},
      {"one byte long", static_cast<int64_t>(size) + 1, false},
      {"missing", -1, false},
      {"short, found after reopen", static_cast<int64_t>(size) - 7, true},
      {"missing, found after reopen", -1, true},
  };
  const std::string ok_data = Pattern(3 * cs(), 7);
  ASSERT_OK(PutObject(*store_, "b", "intact", ok_data).status());
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Result<ObjectMeta> put = PutObject(*store_, "b", "k", Pattern(size, 1));
    ASSERT_OK(put.status());
    ASSERT_TRUE(InFile(*put));
    if (c.reopen) store_.reset();
    const std::string path = BlobPath(options_.path, put->data_id);
    if (c.new_size < 0) {
      ASSERT_TRUE(std::filesystem::remove(path));
    } else {
      std::filesystem::resize_file(path, static_cast<uintmax_t>(c.new_size));
    }
    if (c.reopen) {
      Open();  // a referenced file is not checked (nor removed) by recovery
      ASSERT_NE(store_, nullptr);
    }
    ASSERT_OK(store_->HeadObject("b", "k").status());
    // Read from the start, NextFileSpan, and a Read of the last byte (which a file one byte
    // long or short would still hold).
    for (int way = 0; way < 3; ++way) {
      SCOPED_TRACE("way " + std::to_string(way));
      Result<std::unique_ptr<ObjectReader>> r = store_->OpenObject("b", "k");
      ASSERT_OK(r.status());
      std::string buf(10, '\0');
      if (way == 0) {
        EXPECT_EQ((*r)->Read(buf.data(), buf.size()).status().code(), Code::kCorruption);
      } else if (way == 1) {
        EXPECT_EQ((*r)->NextFileSpan(10).status().code(), Code::kCorruption);
      } else {
        ASSERT_OK((*r)->Seek(size - 1));
        EXPECT_EQ((*r)->Read(buf.data(), 1).status().code(), Code::kCorruption);
      }
    }
    EXPECT_TRUE(*ReadObject(*store_, "b", "intact") == ok_data);
    // The damaged object can still be deleted, and that takes its file along.
    ASSERT_OK(store_->DeleteObject("b", "k"));
    EXPECT_FALSE(std::filesystem::exists(path));
    EXPECT_EQ(Pieces(*store_), 1u);
  }
}

// In a multipart object the intact parts before a damaged one read fine; the damaged part is
// kCorruption when the reader reaches it.
TEST_F(FileDataTest, DamagedPartIsCorruptionWhenReached) {
  const std::vector<std::string> parts = {Pattern(cs() + 10, 1), Pattern(50, 2),
                                          Pattern(2 * cs(), 3)};
  Result<ObjectMeta> done = PutMultipart("k", parts);
  ASSERT_OK(done.status());
  ASSERT_TRUE(InFile(done->segments[2]));
  std::filesystem::resize_file(BlobPath(options_.path, done->segments[2].data_id), cs());
  const std::string head = parts[0] + parts[1];

  Result<std::unique_ptr<ObjectReader>> r = store_->OpenObject("b", "k");
  ASSERT_OK(r.status());
  std::string buf(head.size(), '\0');
  Result<size_t> n = (*r)->Read(buf.data(), buf.size());
  ASSERT_OK(n.status());
  ASSERT_EQ(*n, head.size());
  EXPECT_TRUE(buf == head);
  EXPECT_EQ((*r)->Read(buf.data(), 1).status().code(), Code::kCorruption);

  r = store_->OpenObject("b", "k");
  ASSERT_OK(r.status());
  Result<std::optional<ObjectReader::FileSpan>> span = (*r)->NextFileSpan(1 << 20);
  ASSERT_OK(span.status());
  ASSERT_TRUE(span->has_value());
  EXPECT_EQ((*span)->length, parts[0].size());
  ASSERT_OK((*r)->Seek(head.size()));
  EXPECT_EQ((*r)->NextFileSpan(1 << 20).status().code(), Code::kCorruption);
}

// ---------------------------------------------------------------- unsynced stores

// StoreOptions::sync = false skips the fsyncs, nothing else: every layout round-trips,
// releases still remove files, and data survives a clean reopen.
TEST(FileDataUnsynced, RoundTripsAndReleases) {
  TempDir dir;
  StoreOptions options = SmallOptions(dir.path());
  options.sync = false;
  const uint64_t cs = options.chunk_size;
  std::unique_ptr<Store> store = OpenOrDie(options);
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->CreateBucket(Bucket("b")));
  const std::vector<uint64_t> sizes = {5, options.inline_limit + 1, cs, cs + 1, 3 * cs + 7};
  std::set<uint64_t> files;
  for (uint64_t size : sizes) {
    SCOPED_TRACE("size " + std::to_string(size));
    Result<ObjectMeta> put =
        PutObject(*store, "b", "k" + std::to_string(size), Pattern(size, static_cast<uint32_t>(size)));
    ASSERT_OK(put.status());
    EXPECT_EQ(InFile(*put), size > cs);
    if (InFile(*put)) files.insert(put->data_id);
    EXPECT_TRUE(*ReadObject(*store, "b", "k" + std::to_string(size)) ==
                Pattern(size, static_cast<uint32_t>(size)));
  }
  EXPECT_EQ(BlobIds(dir.path()), files);
  EXPECT_EQ(Pieces(*store), 4u);

  // A multipart object with a file part and a chunk part.
  Result<UploadRecord> u = store->CreateUpload("b", "mp", {});
  ASSERT_OK(u.status());
  ASSERT_OK(PutPart(*store, "mp", u->upload_id, 1, Pattern(2 * cs, 1)).status());
  ASSERT_OK(PutPart(*store, "mp", u->upload_id, 2, Pattern(7, 2)).status());
  ASSERT_OK(store->CompleteUpload("b", "mp", u->upload_id, {1, 2}, {}).status());
  const std::string mp = Pattern(2 * cs, 1) + Pattern(7, 2);
  EXPECT_TRUE(*ReadObject(*store, "b", "mp") == mp);
  EXPECT_EQ(Pieces(*store), 6u);

  store.reset();
  store = OpenOrDie(options);
  ASSERT_NE(store, nullptr);
  for (uint64_t size : sizes) {
    EXPECT_TRUE(*ReadObject(*store, "b", "k" + std::to_string(size)) ==
                Pattern(size, static_cast<uint32_t>(size)));
  }
  EXPECT_TRUE(*ReadObject(*store, "b", "mp") == mp);
  // Overwrite one file object, delete the rest: only the new file stays.
  Result<ObjectMeta> over = PutObject(*store, "b", "k" + std::to_string(cs + 1), Pattern(4 * cs, 8));
  ASSERT_OK(over.status());
  for (uint64_t size : sizes) {
    if (size != cs + 1) ASSERT_OK(store->DeleteObject("b", "k" + std::to_string(size)));
  }
  ASSERT_OK(store->DeleteObject("b", "mp"));
  EXPECT_EQ(BlobIds(dir.path()), std::set<uint64_t>{over->data_id});
  EXPECT_EQ(Pieces(*store), 1u);
}

// ---------------------------------------------------------------- concurrency

// Writers overwrite and delete a few keys with mostly file-backed versions while readers read
// them (some through NextFileSpan, some slowly, holding the version across changes). Every
// read is one complete version; at the end exactly the live objects' pieces remain and no
// file waits for a reader.
void RunReadersAgainstWriters(bool sync) {
  TempDir dir;
  StoreOptions options = SmallOptions(dir.path());
  options.sync = sync;
  const uint64_t cs = options.chunk_size;
  std::unique_ptr<Store> store = OpenOrDie(options);
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->CreateBucket(Bucket("b")));
  constexpr int kKeys = 3, kWriters = 3, kReaders = 4;
  const int rounds = sync ? 15 : 60;
  auto key = [](int i) { return "k" + std::to_string(i); };
  // Version `seed` of any key: its size and bytes follow from the seed, kept in the etag.
  auto size_of = [cs](uint32_t seed) -> uint64_t {
    switch (seed % 6) {
      case 0: return 20;          // inline
      case 1: return cs;          // one chunk
      default: return cs * (seed % 4 + 1) + seed % 13 + 1;  // a file
    }
  };

  std::atomic<bool> done{false};
  std::atomic<int> versions_read{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < rounds; ++i) {
        const uint32_t seed = static_cast<uint32_t>(w * 1000 + i + 1);
        const std::string k = key((w + i) % kKeys);
        if (i % 7 == 6) {
          Status s = store->DeleteObject("b", k);
          EXPECT_TRUE(s.ok()) << s.ToString();
          continue;
        }
        Result<ObjectMeta> r =
            PutObject(*store, "b", k, Pattern(size_of(seed), seed), {}, 113, std::to_string(seed));
        EXPECT_TRUE(r.ok()) << r.status().ToString();
      }
    });
  }
  for (int t = 0; t < kReaders; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; !done.load() || i < 3; ++i) {
        Result<std::unique_ptr<ObjectReader>> r = store->OpenObject("b", key((t + i) % kKeys));
        if (!r.ok()) {
          EXPECT_EQ(r.status().code(), Code::kNoSuchKey) << r.status().ToString();
          continue;
        }
        const ObjectMeta& meta = (*r)->meta();
        const uint32_t seed = static_cast<uint32_t>(std::stoul(meta.etag));
        ASSERT_EQ(meta.size, size_of(seed));
        std::string got;
        if (t % 2 == 0) {
          got = DrainWithSpans(**r, 0, 97, nullptr);
        } else {
          // Slowly, yielding between small reads, so changes land while the version is open.
          std::string buf(61, '\0');
          for (;;) {
            Result<size_t> n = (*r)->Read(buf.data(), buf.size());
            ASSERT_TRUE(n.ok()) << n.status().ToString();
            if (*n == 0) break;
            got.append(buf.data(), *n);
            std::this_thread::yield();
          }
        }
        ASSERT_TRUE(got == Pattern(meta.size, seed)) << "key " << key((t + i) % kKeys)
                                                     << " version " << seed;
        ++versions_read;
      }
    });
  }
  for (int w = 0; w < kWriters; ++w) threads[w].join();
  done.store(true);
  for (size_t i = kWriters; i < threads.size(); ++i) threads[i].join();
  EXPECT_GT(versions_read.load(), 0);

  uint64_t live_pieces = 0;
  std::set<uint64_t> live_files;
  for (int i = 0; i < kKeys; ++i) {
    Result<ObjectMeta> head = store->HeadObject("b", key(i));
    if (!head.ok()) {
      EXPECT_EQ(head.status().code(), Code::kNoSuchKey);
      continue;
    }
    const uint32_t seed = static_cast<uint32_t>(std::stoul(head->etag));
    EXPECT_TRUE(*ReadObject(*store, "b", key(i)) == Pattern(head->size, seed));
    if (head->data_id != 0) ++live_pieces;
    if (InFile(*head)) live_files.insert(head->data_id);
  }
  EXPECT_EQ(store->DebugDeferredFiles(), 0u);
  EXPECT_EQ(Pieces(*store), live_pieces);
  EXPECT_EQ(BlobIds(dir.path()), live_files);
}

// The narrowest form of the race above: one key overwritten as fast as possible with small
// file-backed versions, readers opening it and touching its file. A reader that found a
// version must be able to open that version's file.
// OpenObject takes its snapshot inside the read gate; taken before it (as it once was), the
// snapshot could show a version whose release (and unlink) completed before the reader pinned
// it, and the reader's first Read was kCorruption "object data file missing" (about one run in
// two).
TEST(FileDataConcurrency, OpenedVersionKeepsItsFile) {
  TempDir dir;
  StoreOptions options = SmallOptions(dir.path());
  options.sync = false;
  std::unique_ptr<Store> store = OpenOrDie(options);
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->CreateBucket(Bucket("b")));
  const std::string data = Pattern(options.chunk_size + 1, 1);
  ASSERT_OK(PutObject(*store, "b", "k", data, {}, data.size()).status());
  constexpr int kWriters = 2, kReaders = 4, kRounds = 500;
  std::atomic<int> writers_left{kWriters};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&] {
      for (int i = 0; i < kRounds; ++i) {
        Result<ObjectMeta> r = PutObject(*store, "b", "k", data, {}, data.size());
        EXPECT_TRUE(r.ok()) << r.status().ToString();
      }
      --writers_left;
    });
  }
  for (int t = 0; t < kReaders; ++t) {
    threads.emplace_back([&] {
      while (writers_left.load() > 0 && failures.load() < 5) {
        Result<std::unique_ptr<ObjectReader>> r = store->OpenObject("b", "k");
        ASSERT_OK(r.status());
        char c = 0;
        Result<size_t> n = (*r)->Read(&c, 1);
        if (!n.ok()) {
          ++failures;
          ADD_FAILURE() << n.status().ToString();
        } else {
          EXPECT_EQ(c, data[0]);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(store->DebugDeferredFiles(), 0u);
  EXPECT_EQ(Pieces(*store), 1u);
}

TEST(FileDataConcurrency, ReadersSeeWholeVersionsUnsynced) { RunReadersAgainstWriters(false); }
TEST(FileDataConcurrency, ReadersSeeWholeVersionsSynced) { RunReadersAgainstWriters(true); }

}  // namespace
}  // namespace cubby::storage
