#include "server/log.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "text/time.h"
#include "text/utf8.h"

namespace cubby::server {

std::string LogField::FormatDouble(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

namespace {

// `value` in double quotes with '"', '\\', newline, return and tab escaped, other control
// bytes as \xHH (logfmt) or \u00HH (JSON), and each byte that is not part of valid UTF-8 (an
// object key can be any bytes) as \xHH (logfmt) or U+FFFD (JSON, which only carries Unicode),
// so every line stays valid UTF-8 and every JSON line parses.
std::string Quoted(std::string_view value, bool json) {
  std::string out = "\"";
  while (!value.empty()) {
    char32_t cp = 0;
    size_t n = text::DecodeUtf8(value, &cp);
    if (n == 0) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(value[0]));
      out += json ? "\\ufffd" : buf;
      value.remove_prefix(1);
      continue;
    }
    switch (cp) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (cp < 0x20 || cp == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, json ? "\\u%04x" : "\\x%02x", static_cast<unsigned>(cp));
          out += buf;
        } else {
          out.append(value.substr(0, n));
        }
    }
    value.remove_prefix(n);
  }
  out += '"';
  return out;
}

}  // namespace

std::string LogfmtValue(std::string_view value) {
  bool needs_quotes = value.empty() || !text::IsValidUtf8(value);
  for (unsigned char c : value) {
    if (c <= ' ' || c == '"' || c == '=' || c == '\\' || c == 0x7f) {
      needs_quotes = true;
      break;
    }
  }
  if (!needs_quotes) return std::string(value);
  return Quoted(value, /*json=*/false);
}

std::string JsonString(std::string_view value) { return Quoted(value, /*json=*/true); }

std::string FormatLogLine(std::chrono::system_clock::time_point time, LogLevel level,
                          std::string_view msg, std::initializer_list<LogField> fields,
                          LogFormat format) {
  const std::string stamp = text::FormatIso8601Millis(time);
  if (format == LogFormat::kJson) {
    std::string line = "{\"time\":\"";
    line += stamp;
    line += "\",\"level\":\"";
    line += LogLevelName(level);
    line += "\",\"msg\":";
    line += JsonString(msg);
    for (const LogField& field : fields) {
      line += ',';
      line += JsonString(field.key);
      line += ':';
      line += JsonString(field.value);
    }
    line += "}\n";
    return line;
  }
  std::string line = "time=";
  line += stamp;
  line += " level=";
  line += LogLevelName(level);
  line += " msg=";
  line += LogfmtValue(msg);
  for (const LogField& field : fields) {
    line += ' ';
    line += field.key;
    line += '=';
    line += LogfmtValue(field.value);
  }
  line += '\n';
  return line;
}

void Logger::Log(LogLevel level, std::string_view msg, std::initializer_list<LogField> fields) {
  if (!Enabled(level)) return;
  Write(FormatLogLine(std::chrono::system_clock::now(), level, msg, fields, format_));
}

void Logger::Always(std::string_view msg, std::initializer_list<LogField> fields) {
  Write(FormatLogLine(std::chrono::system_clock::now(), LogLevel::kInfo, msg, fields, format_));
}

void Logger::Write(const std::string& line) {
  // Normally one write(2) per line; the mutex keeps a line whole even when the kernel takes
  // it in several pieces (EINTR, a full pipe).
  std::lock_guard<std::mutex> lock(write_mutex_);
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // nowhere to log to; nothing sensible to do
    done += static_cast<size_t>(n);
  }
}

}  // namespace cubby::server
