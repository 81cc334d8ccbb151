#include "s3api/format.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace cubby::s3api {

namespace {

constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// A Unix time's UTC calendar fields, by arithmetic (std::chrono's civil calendar) rather than
// gmtime_r, which takes glibc's process-wide time zone lock on every call: S3 responses format
// a date or two each, on every connection thread at once.
struct UtcTime {
  int year;
  unsigned month, day, weekday, hour, minute, second;  // month 1-12, weekday 0 = Sunday
};

UtcTime ToUtc(int64_t seconds) {
  using namespace std::chrono;
  const sys_seconds t{std::chrono::seconds(seconds)};
  const sys_days day = floor<days>(t);
  const year_month_day ymd{day};
  const hh_mm_ss<std::chrono::seconds> hms{t - day};
  return {static_cast<int>(ymd.year()),
          static_cast<unsigned>(ymd.month()),
          static_cast<unsigned>(ymd.day()),
          weekday{day}.c_encoding(),
          static_cast<unsigned>(hms.hours().count()),
          static_cast<unsigned>(hms.minutes().count()),
          static_cast<unsigned>(hms.seconds().count())};
}

// `value` in decimal, zero-padded to `width` digits (as printf's %0*d).
void AppendPadded(std::string* out, int64_t value, int width) {
  if (value < 0) {
    *out += '-';
    value = -value;
    --width;
  }
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0);
  for (int i = n; i < width; ++i) *out += '0';
  while (n > 0) *out += digits[--n];
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
  const int64_t seconds = FloorDiv(ms, 1000);
  const UtcTime t = ToUtc(seconds);
  std::string out;
  out.reserve(24);
  AppendPadded(&out, t.year, 4);
  out += '-';
  AppendPadded(&out, t.month, 2);
  out += '-';
  AppendPadded(&out, t.day, 2);
  out += 'T';
  AppendPadded(&out, t.hour, 2);
  out += ':';
  AppendPadded(&out, t.minute, 2);
  out += ':';
  AppendPadded(&out, t.second, 2);
  out += '.';
  AppendPadded(&out, ms - seconds * 1000, 3);
  out += 'Z';
  return out;
}

std::string HttpDate(int64_t ms) {
  const UtcTime t = ToUtc(FloorDiv(ms, 1000));
  std::string out;
  out.reserve(29);
  out += kDays[t.weekday];
  out += ", ";
  AppendPadded(&out, t.day, 2);
  out += ' ';
  out += kMonths[t.month - 1];
  out += ' ';
  AppendPadded(&out, t.year, 4);
  out += ' ';
  AppendPadded(&out, t.hour, 2);
  out += ':';
  AppendPadded(&out, t.minute, 2);
  out += ':';
  AppendPadded(&out, t.second, 2);
  out += " GMT";
  return out;
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
