// Root credentials against a real Store in a temp folder.
#include "server/root_credentials.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "storage/keygen.h"

namespace cubby::server {
namespace {

namespace fs = std::filesystem;

class RootCredentialsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "cubby-server-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    OpenStore();
  }
  void TearDown() override {
    store_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  void OpenStore() {
    store_.reset();
    auto opened = storage::Store::Open({.path = dir_ + "/db"});
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
  }
  std::string FilePath() const { return dir_ + "/root-credentials"; }
  std::string ReadFile() const {
    std::ifstream in(FilePath());
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  storage::Result<RootCredentials> Ensure(const std::optional<RootKeyConfig>& configured = {}) {
    return EnsureRootCredentials(*store_, dir_, configured, 1700000000000);
  }

  std::string dir_;
  std::unique_ptr<storage::Store> store_;
};

TEST_F(RootCredentialsTest, SharedCredentialsFormat) {
  storage::AccessKeyRecord key;
  key.access_key_id = "AKID";
  key.secret = storage::SecretKey("s3cr3t/+x");
  EXPECT_EQ(SharedCredentialsText(key),
            "[default]\naws_access_key_id = AKID\naws_secret_access_key = s3cr3t/+x\n");
}

TEST_F(RootCredentialsTest, FirstStartGeneratesKeyAndPrivateFile) {
  ::umask(0);  // the file must be 0600 whatever the umask
  auto root = Ensure();
  ::umask(022);
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  EXPECT_TRUE(root->generated);
  EXPECT_EQ(root->file, FilePath());
  struct stat st {};
  ASSERT_EQ(::stat(FilePath().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  for (const auto& entry : fs::directory_iterator(fs::path(FilePath()).parent_path())) {
    EXPECT_FALSE(entry.path().filename().string().starts_with("root-credentials.tmp"))
        << entry.path();  // no temporary file left
  }

  auto stored = store_->GetAccessKey(root->access_key_id);
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE(stored->all_buckets);
  EXPECT_EQ(stored->created_ms, 1700000000000);
  std::smatch m;
  std::string text = ReadFile();
  ASSERT_TRUE(std::regex_match(text, m,
                               std::regex("\\[default\\]\naws_access_key_id = ([A-Z0-9]+)\n"
                                          "aws_secret_access_key = ([A-Za-z0-9+/]+)\n")))
      << text;
  EXPECT_EQ(m[1].str(), root->access_key_id);
  EXPECT_EQ(m[2].str(), stored->secret.reveal());
  auto setting = store_->GetSetting(kRootKeySetting);
  ASSERT_TRUE(setting.ok());
  EXPECT_EQ(*setting, root->access_key_id);
}

TEST_F(RootCredentialsTest, LaterStartsReuseTheKeyAndRestoreTheFile) {
  auto first = Ensure();
  ASSERT_TRUE(first.ok());
  std::string text = ReadFile();
  OpenStore();  // a restart
  auto second = Ensure();
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->generated);
  EXPECT_EQ(second->access_key_id, first->access_key_id);
  EXPECT_EQ(ReadFile(), text);

  ASSERT_TRUE(fs::remove(FilePath()));
  auto third = Ensure();
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->access_key_id, first->access_key_id);
  EXPECT_EQ(ReadFile(), text) << "missing file rewritten";

  std::ofstream(FilePath()) << "stale";
  ::chmod(FilePath().c_str(), 0644);
  ASSERT_TRUE(Ensure().ok());
  EXPECT_EQ(ReadFile(), text) << "stale file rewritten";
  struct stat st {};
  ASSERT_EQ(::stat(FilePath().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  ::chmod(FilePath().c_str(), 0644);
  ASSERT_TRUE(Ensure().ok());
  ASSERT_EQ(::stat(FilePath().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "right content, wrong mode: mode fixed";
}

TEST_F(RootCredentialsTest, SettingNamingAMissingKeyGeneratesANewOne) {
  ASSERT_TRUE(store_->PutSetting(kRootKeySetting, "GONE").ok());
  auto root = Ensure();
  ASSERT_TRUE(root.ok());
  EXPECT_TRUE(root->generated);
  EXPECT_NE(root->access_key_id, "GONE");
  EXPECT_EQ(*store_->GetSetting(kRootKeySetting), root->access_key_id);
}

TEST_F(RootCredentialsTest, ConfiguredKeyReplacesGeneratedOne) {
  auto generated = Ensure();
  ASSERT_TRUE(generated.ok());
  RootKeyConfig configured{"admin", storage::SecretKey("adminsecret")};
  auto root = Ensure(configured);
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  EXPECT_EQ(root->access_key_id, "admin");
  EXPECT_TRUE(root->file.empty());
  EXPECT_FALSE(fs::exists(FilePath())) << "the file named a key that no longer works";
  EXPECT_EQ(store_->GetAccessKey(generated->access_key_id).status().code(),
            storage::Code::kNoSuchAccessKey);
  auto stored = store_->GetAccessKey("admin");
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE(stored->all_buckets);
  EXPECT_EQ(stored->secret.reveal(), "adminsecret");
  EXPECT_EQ(*store_->GetSetting(kRootKeySetting), "admin");

  // A new secret for the same id replaces it; a new id replaces the old id.
  ASSERT_TRUE(Ensure(RootKeyConfig{"admin", storage::SecretKey("rotated-secret")}).ok());
  EXPECT_EQ(store_->GetAccessKey("admin")->secret.reveal(), "rotated-secret");
  ASSERT_TRUE(Ensure(RootKeyConfig{"admin2", storage::SecretKey("second-secret")}).ok());
  EXPECT_EQ(store_->GetAccessKey("admin").status().code(), storage::Code::kNoSuchAccessKey);
  EXPECT_TRUE(store_->GetAccessKey("admin2")->all_buckets);
}

TEST_F(RootCredentialsTest, ConfiguredIdOfANonRootKeyIsRefused) {
  storage::AccessKeyRecord cosi_key;
  cosi_key.access_key_id = "COSIKEY";
  cosi_key.secret = storage::SecretKey("cosisecret");
  cosi_key.grants["b"] = storage::AccessMode::kReadOnly;
  ASSERT_TRUE(store_->PutAccessKey(cosi_key).ok());
  auto root = Ensure(RootKeyConfig{"COSIKEY", storage::SecretKey("takeover1")});
  ASSERT_FALSE(root.ok());
  EXPECT_EQ(root.status().code(), storage::Code::kInvalidArgument);
  auto stored = store_->GetAccessKey("COSIKEY");
  ASSERT_TRUE(stored.ok());
  EXPECT_FALSE(stored->all_buckets) << "unchanged";
  EXPECT_EQ(stored->secret.reveal(), "cosisecret");
}

TEST_F(RootCredentialsTest, UnwritableFileIsAnIOError) {
  // A directory where the file goes makes the write fail, even for root.
  ASSERT_TRUE(fs::create_directory(FilePath()));
  auto root = Ensure();
  ASSERT_FALSE(root.ok());
  EXPECT_EQ(root.status().code(), storage::Code::kIOError);
  EXPECT_NE(root.status().message().find("rename to " + FilePath()), std::string::npos)
      << root.status().message();
}

TEST_F(RootCredentialsTest, RewriteRemovesTheTemporaryFileACrashLeft) {
  const std::string left = FilePath() + ".tmp-0011223344556677";
  std::ofstream(left) << "[default]\naws_access_key_id = OLD\n";
  auto root = Ensure();
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  EXPECT_FALSE(fs::exists(left));
  EXPECT_TRUE(fs::exists(FilePath()));
}

}  // namespace
}  // namespace cubby::server
