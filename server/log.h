// Logging: logfmt lines on stdout, e.g.
//   time=2024-05-01T12:00:00.123Z level=info msg="request" request_id=0A1B... status=200
// Each line is written whole (one write(2) under a mutex), so lines from concurrent threads
// never interleave.
// Secrets never reach a log: the secret key type has no conversion to a field value, and
// callers log access key ids only, never Authorization headers or signatures.
#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <string>
#include <string_view>

#include "server/config.h"

namespace cubby::server {

// One key=value pair. Numbers are formatted on construction.
struct LogField {
  LogField(std::string_view k, std::string_view v) : key(k), value(v) {}
  LogField(std::string_view k, const std::string& v) : key(k), value(v) {}
  LogField(std::string_view k, const char* v) : key(k), value(v) {}
  LogField(std::string_view k, int64_t v) : key(k), value(std::to_string(v)) {}
  LogField(std::string_view k, uint64_t v) : key(k), value(std::to_string(v)) {}
  LogField(std::string_view k, int v) : key(k), value(std::to_string(v)) {}
  LogField(std::string_view k, unsigned v) : key(k), value(std::to_string(v)) {}
  LogField(std::string_view k, double v) : key(k), value(FormatDouble(v)) {}
  LogField(std::string_view k, bool v) : key(k), value(v ? "true" : "false") {}

  std::string key;
  std::string value;

 private:
  static std::string FormatDouble(double v);
};

// A value as logfmt writes it: bare when it is non-empty and has no space, quote, '=' or
// control character and is valid UTF-8; otherwise double-quoted with \" \\ \n \r \t and \xNN
// escapes (for control characters and for bytes that are not valid UTF-8).
std::string LogfmtValue(std::string_view value);

// `value` as a JSON string literal, quotes included: \" \\ \n \r \t and \u00XX for other
// control characters; UTF-8 is passed through, and each byte that is not valid UTF-8 becomes
// \ufffd, so the line always parses as JSON.
std::string JsonString(std::string_view value);

// The whole line, with a trailing newline. `time` is RFC 3339 UTC with milliseconds.
// logfmt: time=... level=... msg=... k=v...; json: {"time":"...","level":"...","msg":"...",
// "k":"v",...} (every value a string, fields in the given order).
std::string FormatLogLine(std::chrono::system_clock::time_point time, LogLevel level,
                          std::string_view msg, std::initializer_list<LogField> fields,
                          LogFormat format = LogFormat::kLogfmt);

// Thread-safe. Writes lines at or above `level` to `fd` (stdout by default).
class Logger {
 public:
  explicit Logger(LogLevel level, int fd = 1, LogFormat format = LogFormat::kLogfmt)
      : level_(level), fd_(fd), format_(format) {}

  bool Enabled(LogLevel level) const { return level >= level_; }
  void Log(LogLevel level, std::string_view msg, std::initializer_list<LogField> fields = {});
  void Debug(std::string_view msg, std::initializer_list<LogField> fields = {}) {
    Log(LogLevel::kDebug, msg, fields);
  }
  void Info(std::string_view msg, std::initializer_list<LogField> fields = {}) {
    Log(LogLevel::kInfo, msg, fields);
  }
  void Warn(std::string_view msg, std::initializer_list<LogField> fields = {}) {
    Log(LogLevel::kWarn, msg, fields);
  }
  void Error(std::string_view msg, std::initializer_list<LogField> fields = {}) {
    Log(LogLevel::kError, msg, fields);
  }
  // An info line written whatever the level (start-up facts that tools parse, e.g. the
  // s3_endpoint line).
  void Always(std::string_view msg, std::initializer_list<LogField> fields = {});

 private:
  void Write(const std::string& line);

  LogLevel level_;
  int fd_;
  LogFormat format_;
  std::mutex write_mutex_;  // keeps a line that needs several write(2) calls whole
};

}  // namespace cubby::server
