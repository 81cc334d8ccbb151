#include "server/log.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace cubby::server {
namespace {

TEST(LogTest, LogfmtValueQuotesOnlyWhenNeeded) {
  const std::pair<std::string, std::string> cases[] = {
      {"plain", "plain"},
      {"a/b:c-d_e.f", "a/b:c-d_e.f"},
      {"", "\"\""},
      {"two words", "\"two words\""},
      {"k=v", "\"k=v\""},
      {"say \"hi\"", "\"say \\\"hi\\\"\""},
      {"back\\slash", "\"back\\\\slash\""},
      {"line\nbreak", "\"line\\nbreak\""},
      {"tab\there", "\"tab\\there\""},
      {std::string("nul\0x", 5), "\"nul\\x00x\""},
      {"caf\xc3\xa9", "caf\xc3\xa9"},
      // Bytes that are not UTF-8 (keys may hold any bytes) are escaped, so the line stays UTF-8.
      {"k\xff\xc3\xa9", "\"k\\xff\xc3\xa9\""},
      {"\xed\xa0\x80", "\"\\xed\\xa0\\x80\""},
  };
  for (const auto& [in, out] : cases) EXPECT_EQ(LogfmtValue(in), out) << in;
}

TEST(LogTest, FormatLogLine) {
  auto t = std::chrono::system_clock::from_time_t(784111777) + std::chrono::milliseconds(42);
  EXPECT_EQ(FormatLogLine(t, LogLevel::kWarn, "request done",
                          {{"status", 200}, {"key", "a b"}, {"bytes", uint64_t{7}}, {"ok", true}}),
            "time=1994-11-06T08:49:37.042Z level=warn msg=\"request done\" status=200 "
            "key=\"a b\" bytes=7 ok=true\n");
  EXPECT_EQ(FormatLogLine(t, LogLevel::kInfo, "ready", {}),
            "time=1994-11-06T08:49:37.042Z level=info msg=ready\n");
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  return out;
}

TEST(LogTest, LevelFilterAndAlways) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  {
    Logger logger(LogLevel::kWarn, fds[1]);
    EXPECT_FALSE(logger.Enabled(LogLevel::kInfo));
    EXPECT_TRUE(logger.Enabled(LogLevel::kError));
    logger.Debug("d");
    logger.Info("i");
    logger.Warn("w");
    logger.Error("e");
    logger.Always("listening", {{"s3_endpoint", "http://127.0.0.1:1"}});
  }
  ::close(fds[1]);
  std::string out = ReadAll(fds[0]);
  ::close(fds[0]);
  EXPECT_EQ(out.find("msg=d"), std::string::npos);
  EXPECT_EQ(out.find("msg=i"), std::string::npos);
  EXPECT_NE(out.find("level=warn msg=w\n"), std::string::npos);
  EXPECT_NE(out.find("level=error msg=e\n"), std::string::npos);
  EXPECT_NE(out.find("level=info msg=listening s3_endpoint=http://127.0.0.1:1\n"),
            std::string::npos);
}

TEST(LogTest, ConcurrentLinesStayWhole) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::string out;
  std::thread reader([&] { out = ReadAll(fds[0]); });
  {
    Logger logger(LogLevel::kInfo, fds[1]);
    std::vector<std::thread> threads;
    const std::string long_value(3000, 'v');  // several lines exceed PIPE_BUF together
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 200; ++i) logger.Info("line", {{"thread", t}, {"v", long_value}});
      });
    }
    for (auto& th : threads) th.join();
  }
  ::close(fds[1]);
  reader.join();
  ::close(fds[0]);
  size_t lines = 0;
  size_t pos = 0;
  while (pos < out.size()) {
    size_t end = out.find('\n', pos);
    ASSERT_NE(end, std::string::npos);
    std::string_view line(out.data() + pos, end - pos);
    ASSERT_TRUE(line.starts_with("time=")) << line.substr(0, 80);
    ASSERT_TRUE(line.ends_with(std::string(3000, 'v'))) << line.substr(0, 80);
    ++lines;
    pos = end + 1;
  }
  EXPECT_EQ(lines, 1600u);
}

}  // namespace
}  // namespace cubby::server
