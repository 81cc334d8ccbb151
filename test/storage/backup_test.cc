// Store::Backup: a consistent copy of a running store that Store::Open opens as it is; data
// files hard-linked on the same filesystem and copied across filesystems; a delete during the
// backup cannot take a file the checkpoint references; refused and cancelled targets.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "storage/format.h"
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
using testing::PutObject;
using testing::ReadObject;
using testing::SmallOptions;
using testing::TempDir;

namespace fs = std::filesystem;

Result<PartRecord> PutPart(Store& store, std::string_view key, std::string_view upload_id,
                           uint32_t number, std::string_view data) {
  Result<std::unique_ptr<PartWriter>> w = store.NewPartWriter("b", key, upload_id);
  if (!w.ok()) return w.status();
  if (Status s = (*w)->Append(data); !s.ok()) return s;
  return (*w)->Commit(number, {});
}

ListQuery BucketQuery() {
  ListQuery q;
  q.bucket = "b";
  return q;
}

ListUploadsQuery UploadsQuery() {
  ListUploadsQuery q;
  q.bucket = "b";
  return q;
}

ino_t InodeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_ino;
}

class BackupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenOrDie(SmallOptions(dir_.path() + "/store"));
    ASSERT_NE(store_, nullptr);
    ASSERT_OK(store_->CreateBucket(Bucket("b")));
  }

  // Small (inline), one-chunk, large (file) and multipart objects, plus an unfinished upload;
  // remembered in want_.
  void Fill() {
    const std::vector<size_t> sizes = {0, 50, 200, 1000, 5000};
    for (size_t i = 0; i < sizes.size(); ++i) {
      const std::string key = "obj" + std::to_string(i);
      want_[key] = Pattern(sizes[i], static_cast<uint32_t>(i + 1));
      ASSERT_OK(PutObject(*store_, "b", key, want_[key]).status());
    }
    Result<UploadRecord> u = store_->CreateUpload("b", "multi", {});
    ASSERT_OK(u.status());
    std::vector<std::string> parts = {Pattern(700, 41), Pattern(300, 42)};
    for (uint32_t n = 1; n <= parts.size(); ++n) {
      ASSERT_OK(PutPart(*store_, "multi", u->upload_id, n, parts[n - 1]).status());
    }
    ASSERT_OK(store_->CompleteUpload("b", "multi", u->upload_id, {1, 2}, {}).status());
    want_["multi"] = parts[0] + parts[1];
    Result<UploadRecord> open_upload = store_->CreateUpload("b", "pending", {});
    ASSERT_OK(open_upload.status());
    ASSERT_OK(PutPart(*store_, "pending", open_upload->upload_id, 1, Pattern(900, 43)).status());
  }

  // Opens the store at `path` and checks it holds exactly want_.
  void ExpectHoldsWanted(const std::string& path) {
    std::unique_ptr<Store> copy = OpenOrDie(SmallOptions(path));
    ASSERT_NE(copy, nullptr);
    Result<ListPage> page = copy->ListObjects(BucketQuery());
    ASSERT_OK(page.status());
    ASSERT_EQ(page->objects.size(), want_.size());
    for (const auto& [key, data] : want_) {
      Result<std::string> got = ReadObject(*copy, "b", key);
      ASSERT_OK(got.status());
      EXPECT_EQ(*got, data) << key;
    }
    Result<ListUploadsPage> uploads = copy->ListUploads(UploadsQuery());
    ASSERT_OK(uploads.status());
    EXPECT_EQ(uploads->uploads.size(), 1u);
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  std::map<std::string, std::string> want_;
};

TEST_F(BackupTest, OpensAsAStoreWithEveryObject) {
  Fill();
  const std::string target = dir_.path() + "/backup";
  BackupProgress last;
  int calls = 0;
  ASSERT_OK(store_->Backup(target, [&](const BackupProgress& p) {
    last = p;
    ++calls;
    return true;
  }));
  EXPECT_GT(calls, 1);
  EXPECT_EQ(last.bytes_done, last.bytes_total);
  EXPECT_EQ(last.files_done, last.files_total);
  EXPECT_GT(last.bytes_total, 5000u);
  // The format marker (a RocksDB record) travels with the checkpoint.
  Result<std::optional<uint32_t>> format = ReadFormatVersion(target);
  ASSERT_OK(format.status());
  EXPECT_EQ(*format, std::optional<uint32_t>(kFormatVersion));
  // The live store is unchanged and keeps working after the backup.
  ASSERT_OK(PutObject(*store_, "b", "after", "later").status());
  ExpectHoldsWanted(target);
  // Nothing but the backup itself is left beside it.
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir_.path())) entries += e.is_directory() ? 1 : 0;
  EXPECT_EQ(entries, 2);  // store, backup
}

TEST_F(BackupTest, SameFilesystemHardLinksDataFiles) {
  Fill();
  const std::string target = dir_.path() + "/backup";
  BackupProgress last;
  ASSERT_OK(store_->Backup(target, [&](const BackupProgress& p) {
    last = p;
    return true;
  }));
  EXPECT_EQ(last.files_copied, 0u);
  Result<ObjectMeta> large = store_->HeadObject("b", "obj4");
  ASSERT_OK(large.status());
  ASSERT_TRUE(InFile(*large));
  const std::string source = BlobPath(dir_.path() + "/store", large->data_id);
  EXPECT_EQ(InodeOf(source), InodeOf(BlobPath(target, large->data_id)));
  // Data files only for what the checkpoint references: the large object, the multipart's
  // part files and the unfinished upload's part.
  EXPECT_EQ(BlobIds(target), BlobIds(dir_.path() + "/store"));
}

// A folder on another filesystem than the store: /dev/shm (tmpfs) when it differs, or a tmpfs
// mounted here when running as root; empty when neither is possible.
std::string OtherFilesystemDir(const std::string& store_dir, const std::string& mount_point) {
  struct stat store_st {
  }, shm_st{};
  if (::stat(store_dir.c_str(), &store_st) != 0) return "";
  if (::stat("/dev/shm", &shm_st) == 0 && shm_st.st_dev != store_st.st_dev &&
      ::access("/dev/shm", W_OK) == 0) {
    char tmpl[] = "/dev/shm/cubby-backup-XXXXXX";
    if (::mkdtemp(tmpl) != nullptr) return tmpl;
  }
  fs::create_directories(mount_point);
  if (::geteuid() == 0 && ::mount("tmpfs", mount_point.c_str(), "tmpfs", 0, "size=64m") == 0) {
    return mount_point;
  }
  return "";
}

TEST_F(BackupTest, OtherFilesystemCopiesDataFiles) {
  const std::string other = OtherFilesystemDir(dir_.path(), dir_.path() + "/mnt");
  if (other.empty()) GTEST_SKIP() << "no second filesystem (no /dev/shm, not root)";
  Fill();
  const std::string target = other + "/backup";
  BackupProgress last;
  Status s = store_->Backup(target, [&](const BackupProgress& p) {
    last = p;
    return true;
  });
  if (s.ok()) {
    EXPECT_EQ(last.files_copied, BlobIds(target).size());
    EXPECT_GT(last.files_copied, 0u);
    Result<ObjectMeta> large = store_->HeadObject("b", "obj4");
    ASSERT_OK(large.status());
    EXPECT_NE(InodeOf(BlobPath(dir_.path() + "/store", large->data_id)),
              InodeOf(BlobPath(target, large->data_id)));
    ExpectHoldsWanted(target);
  }
  std::error_code ec;
  if (other == dir_.path() + "/mnt") {
    fs::remove_all(target, ec);
    ::umount(other.c_str());
  } else {
    fs::remove_all(other, ec);
  }
  ASSERT_OK(s);
}

// The race the hold closes: the object is deleted (and its release done) after the checkpoint
// and before its file is linked. Without the hold the file is unlinked and the backup fails or
// misses it.
TEST_F(BackupTest, DeleteDuringBackupKeepsReferencedFile) {
  Fill();
  Result<ObjectMeta> large = store_->HeadObject("b", "obj4");
  ASSERT_OK(large.status());
  ASSERT_TRUE(InFile(*large));
  const std::string source = BlobPath(dir_.path() + "/store", large->data_id);
  const std::string target = dir_.path() + "/backup";
  bool deleted = false;
  ASSERT_OK(store_->Backup(target, [&](const BackupProgress&) {
    if (!deleted) {
      deleted = true;
      EXPECT_TRUE(store_->DeleteObject("b", "obj4").ok());
      EXPECT_TRUE(fs::exists(source)) << "unlinked while the backup holds it";
    }
    return true;
  }));
  ASSERT_TRUE(deleted);
  // Once the backup ends, the live store lets the file go.
  EXPECT_FALSE(fs::exists(source));
  ExpectHoldsWanted(target);
}

TEST_F(BackupTest, RefusesTargetsAndNeverOverwrites) {
  Fill();
  const std::string full = dir_.path() + "/full";
  fs::create_directories(full);
  std::ofstream(full + "/keep") << "precious";
  const std::string file = dir_.path() + "/file";
  std::ofstream(file) << "precious";
  struct Case {
    std::string target;
    Code code;
  };
  const std::vector<Case> cases = {
      {full, Code::kInvalidArgument},
      {file, Code::kInvalidArgument},
      {"relative/backup", Code::kInvalidArgument},
      {"", Code::kInvalidArgument},
      {dir_.path() + "/no/such/parent", Code::kInvalidArgument},
      {dir_.path() + "/store/inside", Code::kInvalidArgument},
      {dir_.path() + "/store", Code::kInvalidArgument},
      {"/", Code::kInvalidArgument},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(store_->Backup(c.target, {}).code(), c.code) << c.target;
  }
  EXPECT_EQ(fs::directory_entry(full + "/keep").file_size(), 8u);
  EXPECT_EQ(fs::file_size(file), 8u);
  // An empty folder is a fine target, also spelled with a trailing '/'.
  const std::string empty = dir_.path() + "/empty";
  fs::create_directories(empty);
  ASSERT_OK(store_->Backup(empty + "/", {}));
  ExpectHoldsWanted(empty);
}

TEST_F(BackupTest, CancelLeavesNothing) {
  Fill();
  const std::string target = dir_.path() + "/backup";
  EXPECT_EQ(store_->Backup(target, [](const BackupProgress&) { return false; }).code(),
            Code::kAborted);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir_.path())) {
    names.push_back(e.path().filename().string());
  }
  EXPECT_EQ(names, std::vector<std::string>{"store"});
}

}  // namespace
}  // namespace cubby::storage
