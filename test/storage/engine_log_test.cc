// RocksDB's diagnostic log as the store writes it (storage/engine_log.h): lines land in LOG,
// LOG rolls to LOG.old, and a full disk drops lines instead of aborting the process.
#include "storage/engine_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test/storage/test_util.h"

namespace cubby::storage {
namespace {

using testing::TempDir;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(EngineLog, WritesStampedLines) {
  TempDir dir;
  auto log = NewEngineLog(dir.path());
  rocksdb::Log(rocksdb::InfoLogLevel::INFO_LEVEL, log, "flush of %s: %d entries", "objects", 42);
  const std::string text = Slurp(dir.path() + "/LOG");
  EXPECT_NE(text.find(" flush of objects: 42 entries\n"), std::string::npos) << text;
  EXPECT_EQ(text[4], '/') << text;  // "2026/11/26-06:00:38.539350 <tid> ..."
  EXPECT_EQ(log->GetLogFileSize(), text.size());
}

TEST(EngineLog, LongLinesAreWrittenWhole) {
  TempDir dir;
  auto log = NewEngineLog(dir.path());
  const std::string big(5000, 'x');
  rocksdb::Log(rocksdb::InfoLogLevel::INFO_LEVEL, log, "<%s>", big.c_str());
  EXPECT_NE(Slurp(dir.path() + "/LOG").find("<" + big + ">\n"), std::string::npos);
}

TEST(EngineLog, RollsToLogOld) {
  TempDir dir;
  auto log = NewEngineLog(dir.path(), 1000);
  for (int i = 0; i < 40; ++i) {
    rocksdb::Log(rocksdb::InfoLogLevel::INFO_LEVEL, log, "line %02d of some length", i);
  }
  const std::string current = Slurp(dir.path() + "/LOG");
  const std::string old = Slurp(dir.path() + "/LOG.old");
  EXPECT_LE(current.size(), 1000u);
  EXPECT_LE(old.size(), 1000u);
  EXPECT_GT(old.size(), 0u);
  EXPECT_NE(current.find("line 39"), std::string::npos);
  EXPECT_EQ(current.find("line 00"), std::string::npos);
}

// /dev/full answers every write with ENOSPC: the logger drops the lines and goes on (RocksDB's
// own logger aborts the process on its next line after such a failure).
TEST(EngineLog, FullDiskDropsLines) {
  TempDir dir;
  std::filesystem::create_symlink("/dev/full", dir.path() + "/LOG");
  auto log = NewEngineLog(dir.path());
  for (int i = 0; i < 100; ++i) {
    rocksdb::Log(rocksdb::InfoLogLevel::WARN_LEVEL, log, "line %d", i);
  }
  EXPECT_EQ(log->GetLogFileSize(), 0u);
}

TEST(EngineLog, UnopenableLogDropsEverything) {
  TempDir dir;
  std::filesystem::create_directory(dir.path() + "/LOG");  // a folder where the file would be
  auto log = NewEngineLog(dir.path());
  rocksdb::Log(rocksdb::InfoLogLevel::INFO_LEVEL, log, "nowhere to go");
  EXPECT_EQ(log->GetLogFileSize(), 0u);
}

}  // namespace
}  // namespace cubby::storage
