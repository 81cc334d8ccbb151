// crypt/secret_file.h: atomic, private writes of secret files, in a real temp folder.
#include "crypt/secret_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace cubby::crypt {
namespace {

class SecretFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/secret_file_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  std::vector<std::string> Names() {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string dir_;
};

TEST_F(SecretFileTest, WritesPrivatelyAndLeavesNoTemporaryFile) {
  const std::string path = dir_ + "/secret";
  const mode_t old_umask = ::umask(0);  // 0600 whatever the umask
  const Status s = WriteSecretFile(path, "s3cr3t\n", /*replace=*/false);
  ::umask(old_umask);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Read(path), "s3cr3t\n");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(Names(), std::vector<std::string>{"secret"});
}

TEST_F(SecretFileTest, ReplacesOnlyWhenAsked) {
  const std::string path = dir_ + "/secret";
  ASSERT_TRUE(WriteSecretFile(path, "first", /*replace=*/false).ok());
  const Status kept = WriteSecretFile(path, "second", /*replace=*/false);
  EXPECT_EQ(kept.code(), Code::kAlreadyExists) << kept.ToString();
  EXPECT_EQ(Read(path), "first");
  ASSERT_TRUE(WriteSecretFile(path, "third", /*replace=*/true).ok());
  EXPECT_EQ(Read(path), "third");
  EXPECT_EQ(Names(), std::vector<std::string>{"secret"});
}

TEST_F(SecretFileTest, FailuresAreIOErrorsAndLeaveNothing) {
  const Status missing = WriteSecretFile(dir_ + "/no/such/secret", "x", /*replace=*/true);
  EXPECT_EQ(missing.code(), Code::kIOError) << missing.ToString();
  // A folder where the file goes: the rename fails, the temporary file goes.
  ASSERT_TRUE(std::filesystem::create_directory(dir_ + "/secret"));
  const Status onto_folder = WriteSecretFile(dir_ + "/secret", "x", /*replace=*/true);
  EXPECT_EQ(onto_folder.code(), Code::kIOError) << onto_folder.ToString();
  EXPECT_NE(onto_folder.message().find("rename to " + dir_ + "/secret"), std::string::npos);
  EXPECT_EQ(Names(), std::vector<std::string>{"secret"});
}

TEST_F(SecretFileTest, RemoveSecretTempFilesRemovesOnlyThoseOfThePath) {
  for (const char* name : {"secret", "secret.tmp-0011223344556677", "secret.tmp-x",
                           "secret.next.tmp-0011223344556677", "other.tmp-0011223344556677"}) {
    std::ofstream(dir_ + "/" + name) << "x";
  }
  RemoveSecretTempFiles(dir_ + "/secret");
  EXPECT_EQ(Names(), (std::vector<std::string>{"other.tmp-0011223344556677", "secret",
                                               "secret.next.tmp-0011223344556677"}));
}

}  // namespace
}  // namespace cubby::crypt
