#include "s3api/format.h"

#include <cstdio>
#include <ctime>

namespace cubby::s3api {

namespace {

constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

std::tm ToUtc(int64_t seconds) {
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return tm;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

int MonthIndex(std::string_view m) {
  for (int i = 0; i < 12; ++i) {
    if (m == kMonths[i]) return i;
  }
  return -1;
}

}  // namespace

std::string Iso8601(int64_t ms) {
  int64_t seconds = FloorDiv(ms, 1000);
  int millis = static_cast<int>(ms - seconds * 1000);
  std::tm tm = ToUtc(seconds);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
  return buf;
}

std::string HttpDate(int64_t ms) {
  std::tm tm = ToUtc(FloorDiv(ms, 1000));
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[tm.tm_wday],
                tm.tm_mday, kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  return buf;
}

std::optional<int64_t> ParseHttpDate(std::string_view text) {
  std::string s(Trim(text));
  char wday[16] = {0}, mon[4] = {0};
  int day = 0, year = 0, hour = 0, min = 0, sec = 0;
  int consumed = 0;
  std::tm tm{};
  // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
  if (std::sscanf(s.c_str(), "%3s, %2d %3s %4d %2d:%2d:%2d GMT%n", wday, &day, mon, &year, &hour,
                  &min, &sec, &consumed) == 7 &&
      consumed == static_cast<int>(s.size())) {
  } else if (consumed = 0;
             std::sscanf(s.c_str(), "%15[A-Za-z], %2d-%3s-%2d %2d:%2d:%2d GMT%n", wday, &day, mon,
                         &year, &hour, &min, &sec, &consumed) == 7 &&
             consumed == static_cast<int>(s.size())) {
    // RFC 850: two-digit year, interpreted as in RFC 7231 (within 50 years: keep it simple).
    year += year < 70 ? 2000 : 1900;
  } else if (consumed = 0;
             std::sscanf(s.c_str(), "%3s %3s %d %2d:%2d:%2d %4d%n", wday, mon, &day, &hour, &min,
                         &sec, &year, &consumed) == 7 &&
             consumed == static_cast<int>(s.size())) {
    // asctime: "Sun Nov  6 08:49:37 1994"
  } else {
    return std::nullopt;
  }
  int m = MonthIndex(mon);
  if (m < 0 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60 || year < 1970) {
    return std::nullopt;
  }
  tm.tm_year = year - 1900;
  tm.tm_mon = m;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = min;
  tm.tm_sec = sec;
  return static_cast<int64_t>(timegm(&tm));
}

std::string QuoteEtag(std::string_view etag) {
  std::string out;
  out.reserve(etag.size() + 2);
  out += '"';
  out += etag;
  out += '"';
  return out;
}

std::vector<std::string> ParseEtagList(std::string_view header) {
  std::vector<std::string> out;
  while (!header.empty()) {
    size_t comma = header.find(',');
    std::string_view item = Trim(header.substr(0, comma));
    header = comma == std::string_view::npos ? "" : header.substr(comma + 1);
    if (item.starts_with("W/")) item.remove_prefix(2);
    if (item.size() >= 2 && item.front() == '"' && item.back() == '"') {
      item = item.substr(1, item.size() - 2);
    }
    if (!item.empty()) out.emplace_back(item);
  }
  return out;
}

std::string UrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~' || c == '/') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

}  // namespace cubby::s3api
