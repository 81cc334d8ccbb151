// The data folder's format version (storage/format.h): new stores are marked, unmarked ones
// migrated once with each step reported, newer ones refused with the folder left as it was.
#include <openssl/evp.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/db.h>

#include "storage/db_options.h"
#include "storage/format.h"
#include "storage/format_internal.h"
#include "test/storage/test_util.h"

namespace cubby::storage {
namespace {

using testing::TempDir;

StoreOptions Options(const std::string& path) {
  StoreOptions options;
  options.path = path;
  return options;
}

// Writes (or, for nullopt, deletes) the format marker behind Store::Open's back, as another
// release would have left it.
void PlantMarker(const std::string& path, std::optional<std::string> value) {
  DbConfig config = MakeDbConfig(Options(path));
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(config.db, path, config.column_families, &handles, &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  rocksdb::Slice key(kFormatVersionSetting.data(), kFormatVersionSetting.size());
  rocksdb::Status s = value ? db->Put({}, handles[kDefaultCf], key, *value)
                            : db->Delete({}, handles[kDefaultCf], key);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
  ASSERT_TRUE(db->Close().ok());
}

// A store as a release before format markers left it: one bucket, one object, no marker.
void MakeUnmarkedStore(const std::string& path) {
  {
    Result<std::unique_ptr<Store>> store = Store::Open(Options(path));
    ASSERT_OK(store.status());
    BucketRecord bucket;
    bucket.name = "b";
    ASSERT_OK((*store)->CreateBucket(bucket));
    ASSERT_OK(testing::PutObject(**store, "b", "k", "hello").status());
  }
  PlantMarker(path, std::nullopt);
}

// Every file under `path` (relative name → SHA-256 of its bytes), directories as "dir".
std::map<std::string, std::string> Snapshot(const std::string& path) {
  std::map<std::string, std::string> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
    const std::string name = std::filesystem::relative(entry.path(), path).string();
    if (entry.is_directory()) {
      out[name] = "dir";
      continue;
    }
    std::ifstream in(entry.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
    out[name] = std::string(reinterpret_cast<char*>(digest), length);
  }
  return out;
}

TEST(Format, NoStoreYetIsNone) {
  TempDir dir;
  Result<std::optional<uint32_t>> version = ReadFormatVersion(dir.path());
  ASSERT_OK(version.status());
  EXPECT_FALSE(version->has_value());
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));  // and nothing created
}

TEST(Format, NewStoreStartsAtTheCurrentFormatWithoutMigrating) {
  TempDir dir;
  std::vector<MigrationEvent> events;
  StoreOptions options = Options(dir.path());
  options.on_migration = [&](const MigrationEvent& e) { events.push_back(e); };
  ASSERT_OK(Store::Open(options).status());
  EXPECT_TRUE(events.empty());
  Result<std::optional<uint32_t>> version = ReadFormatVersion(dir.path());
  ASSERT_OK(version.status());
  EXPECT_EQ(*version, std::optional<uint32_t>(kFormatVersion));
}

TEST(Format, UnmarkedStoreIsMigratedOnceWithEachStepReported) {
  TempDir dir;
  MakeUnmarkedStore(dir.path());
  Result<std::optional<uint32_t>> before = ReadFormatVersion(dir.path());
  ASSERT_OK(before.status());
  EXPECT_EQ(*before, std::optional<uint32_t>(0));

  std::vector<MigrationEvent> events;
  StoreOptions options = Options(dir.path());
  options.on_migration = [&](const MigrationEvent& e) { events.push_back(e); };
  {
    Result<std::unique_ptr<Store>> store = Store::Open(options);
    ASSERT_OK(store.status());
    Result<std::string> out = testing::ReadObject(**store, "b", "k");
    ASSERT_OK(out.status());
    EXPECT_EQ(*out, "hello");
  }
  ASSERT_EQ(events.size(), 2 * kFormatVersion);
  for (uint32_t v = 0; v < kFormatVersion; ++v) {
    for (int done = 0; done < 2; ++done) {
      const MigrationEvent& e = events[2 * v + done];
      EXPECT_EQ(e.from, v);
      EXPECT_EQ(e.to, v + 1);
      EXPECT_EQ(e.done, done == 1);
      EXPECT_FALSE(e.what.empty());
    }
  }
  Result<std::optional<uint32_t>> after = ReadFormatVersion(dir.path());
  ASSERT_OK(after.status());
  EXPECT_EQ(*after, std::optional<uint32_t>(kFormatVersion));

  events.clear();  // a second start has nothing left to do
  ASSERT_OK(Store::Open(options).status());
  EXPECT_TRUE(events.empty());
}

TEST(Format, NewerStoreIsRefusedAndLeftUntouched) {
  TempDir dir;
  ASSERT_OK(Store::Open(Options(dir.path())).status());
  const uint32_t newer = kFormatVersion + 1;
  PlantMarker(dir.path(), std::to_string(newer));
  const std::map<std::string, std::string> before = Snapshot(dir.path());

  bool migrated = false;
  StoreOptions options = Options(dir.path());
  options.on_migration = [&](const MigrationEvent&) { migrated = true; };
  Result<std::unique_ptr<Store>> store = Store::Open(options);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), Code::kFormatTooNew);
  EXPECT_EQ(store.status().message(),
            "data folder format " + std::to_string(newer) + " is newer than this cubby supports (" +
                std::to_string(kFormatVersion) + "); use a newer release");
  EXPECT_FALSE(migrated);
  EXPECT_EQ(Snapshot(dir.path()), before);
}

TEST(Format, UnreadableMarkerIsCorruption) {
  TempDir dir;
  ASSERT_OK(Store::Open(Options(dir.path())).status());
  PlantMarker(dir.path(), "one");
  Result<std::unique_ptr<Store>> store = Store::Open(Options(dir.path()));
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), Code::kCorruption);
  EXPECT_EQ(store.status().message(), "the data folder's format marker is not a version number");
}

TEST(Format, ReadingTheFormatOfAnOpenStoreSaysItIsOpen) {
  TempDir dir;
  Result<std::unique_ptr<Store>> store = Store::Open(Options(dir.path()));
  ASSERT_OK(store.status());
  Result<std::optional<uint32_t>> version = ReadFormatVersion(dir.path());
  ASSERT_FALSE(version.ok());
  EXPECT_EQ(version.status().message(),
            "the store in " + dir.path() + " is already open in this process");
}

}  // namespace
}  // namespace cubby::storage
