// Helpers for storage tests: a fresh store folder per test, object put/read helpers.
#pragma once

#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "storage/store.h"

// Asserts that a Status (or a Result's status()) is OK, printing it otherwise.
#define ASSERT_OK(expr)                                     \
  do {                                                      \
    const auto _s = (expr);                                 \
    ASSERT_TRUE(_s.ok()) << #expr << ": " << _s.ToString(); \
  } while (0)

namespace cubby::storage::testing {

// A unique temp folder, removed on destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "cubby-storage-XXXXXX").string();
    char* p = mkdtemp(tmpl.data());
    if (p == nullptr) std::abort();
    path_ = p;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Deterministic bytes: different seeds give different contents.
inline std::string Pattern(size_t n, uint32_t seed) {
  std::string out(n, '\0');
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    out[i] = static_cast<char>(x >> 16);
  }
  return out;
}

// Appends `data` in pieces of `piece` bytes, then commits.
inline Result<ObjectMeta> PutObject(Store& store, std::string_view bucket, std::string_view key,
                                    std::string_view data, const WriteCondition& cond = {},
                                    size_t piece = 37, std::string etag = "etag") {
  Result<std::unique_ptr<ObjectWriter>> w = store.NewObjectWriter(bucket);
  if (!w.ok()) return w.status();
  for (size_t off = 0; off < data.size(); off += piece) {
    Status s = (*w)->Append(data.substr(off, piece));
    if (!s.ok()) return s;
  }
  ObjectMeta meta;
  meta.etag = std::move(etag);
  meta.content_type = "application/octet-stream";
  return (*w)->Commit(key, meta, cond);
}

// Reads the whole object through a reader, `piece` bytes per Read.
inline Result<std::string> ReadObject(Store& store, std::string_view bucket, std::string_view key,
                                      size_t piece = 101) {
  Result<std::unique_ptr<ObjectReader>> r = store.OpenObject(bucket, key);
  if (!r.ok()) return r.status();
  std::string out;
  std::string buf(piece, '\0');
  for (;;) {
    Result<size_t> n = (*r)->Read(buf.data(), buf.size());
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    out.append(buf.data(), *n);
  }
  return out;
}

// Pieces of object data stored: chunks in the data family plus data files.
inline uint64_t Pieces(Store& store) {
  Result<uint64_t> n = store.DebugCountDataPieces();
  EXPECT_TRUE(n.ok()) << n.status().ToString();
  return n.ok() ? *n : ~uint64_t{0};
}

// Where the data file of `id` lives in the store at `store_path`, spelled out independently of
// storage/ so a change of the on-disk layout shows up here: blobs/<id % 256>/<id>, in hex.
inline std::string BlobPath(const std::string& store_path, uint64_t id) {
  char dir[3], name[17];
  std::snprintf(dir, sizeof(dir), "%02x", static_cast<unsigned>(id % 256));
  std::snprintf(name, sizeof(name), "%016llx", static_cast<unsigned long long>(id));
  return store_path + "/blobs/" + dir + "/" + name;
}

// The ids of the data files under <store_path>/blobs, read from the file system. A file whose
// name is not 16 hex digits, or that sits in the wrong folder, fails the test.
inline std::set<uint64_t> BlobIds(const std::string& store_path) {
  std::set<uint64_t> ids;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(store_path + "/blobs", ec)) {
    if (!e.is_regular_file()) continue;
    const std::string name = e.path().filename().string();
    uint64_t id = 0;
    auto [end, err] = std::from_chars(name.data(), name.data() + name.size(), id, 16);
    if (name.size() != 16 || err != std::errc() || end != name.data() + name.size() ||
        BlobPath(store_path, id) != e.path().string()) {
      ADD_FAILURE() << "unexpected file " << e.path();
      continue;
    }
    ids.insert(id);
  }
  EXPECT_FALSE(ec) << ec.message();
  return ids;
}

// The number of regular files under <store_path>/blobs; ~0 when the folder cannot be read.
// Free of gtest, for the crash children of test_main.cc.
inline uint64_t CountBlobFiles(const std::string& store_path) {
  uint64_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(store_path + "/blobs", ec)) {
    if (e.is_regular_file()) ++n;
  }
  return ec ? ~uint64_t{0} : n;
}

// Whether the object's bytes are in a data file (size > chunk size), a single chunk, or inline.
inline bool InFile(const ObjectMeta& m) { return m.data_id != 0 && m.chunk_size == 0; }
inline bool InFile(const DataSegment& s) { return s.data_id != 0 && s.chunk_size == 0; }

// Small sizes so chunking is exercised without megabytes of data.
inline StoreOptions SmallOptions(const std::string& path) {
  StoreOptions o;
  o.path = path;
  o.inline_limit = 100;
  o.chunk_size = 256;
  return o;
}

inline std::unique_ptr<Store> OpenOrDie(const StoreOptions& options) {
  Result<std::unique_ptr<Store>> s = Store::Open(options);
  if (!s.ok()) {
    ADD_FAILURE() << "Store::Open: " << s.status().ToString();
    return nullptr;
  }
  return std::move(s).value();
}

inline BucketRecord Bucket(std::string name) {
  BucketRecord b;
  b.name = std::move(name);
  b.created_ms = 1700000000000;
  return b;
}

}  // namespace cubby::storage::testing
