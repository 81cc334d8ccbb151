#include "text/iso8601.h"

#include <chrono>
#include <cstdint>

#include "text/ascii.h"

namespace cubby::text {
namespace {

// `n` digits at `s[pos]`; false unless all are digits.
bool Digits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

// `n` digits at the front of *s, consumed; false (and *s untouched) unless all are digits.
bool TakeDigits(std::string_view* s, size_t n, int* out) {
  if (!Digits(*s, 0, n, out)) return false;
  s->remove_prefix(n);
  return true;
}

bool TakeChar(std::string_view* s, char c) {
  if (s->empty() || s->front() != c) return false;
  s->remove_prefix(1);
  return true;
}

}  // namespace

std::optional<TimePoint> ParseIso8601Extended(std::string_view s) {
  int year, month, day, hour, minute, second;
  if (s.size() < 20 || !Digits(s, 0, 4, &year) || s[4] != '-' || !Digits(s, 5, 2, &month) ||
      s[7] != '-' || !Digits(s, 8, 2, &day) || s[10] != 'T' || !Digits(s, 11, 2, &hour) ||
      s[13] != ':' || !Digits(s, 14, 2, &minute) || s[16] != ':' || !Digits(s, 17, 2, &second)) {
    return std::nullopt;
  }
  if (year < 1970 || year > 2261 || hour > 23 || minute > 59 || second > 59) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year(year),
                                        std::chrono::month(static_cast<unsigned>(month)),
                                        std::chrono::day(static_cast<unsigned>(day))};
  if (!ymd.ok()) return std::nullopt;
  size_t pos = 19;
  int millis = 0;
  if (s[pos] == '.') {
    ++pos;
    const size_t first = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (pos - first < 3) millis = millis * 10 + (s[pos] - '0');
      ++pos;
    }
    if (pos == first) return std::nullopt;
    for (size_t n = pos - first; n < 3; ++n) millis *= 10;
  }
  int offset_minutes = 0;
  if (pos < s.size() && s[pos] == 'Z') {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    if (!Digits(s, pos + 1, 2, &oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !Digits(s, pos + 4, 2, &om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset_minutes = (oh * 60 + om) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  using namespace std::chrono;
  const sys_days days{ymd};
  const auto t = time_point_cast<milliseconds>(days) + hours(hour) + minutes(minute) +
                 seconds(second) + milliseconds(millis) - minutes(offset_minutes);
  const int64_t ms = t.time_since_epoch().count();
  // The offset can move a date at the edges out of what TimePoint holds.
  if (ms < 0 || ms >= int64_t{9214646400000}) return std::nullopt;  // 2262-01-01
  return FromUnixMillis(ms);
}

bool ParseIso8601OrEpochSeconds(std::string_view s, int64_t* unix_ms) {
  if (IsDecimalDigits(s)) {
    uint64_t seconds = 0;
    if (!ParseUint64(s, &seconds) || seconds > 253402300799ULL) return false;
    *unix_ms = static_cast<int64_t>(seconds) * 1000;
    return true;
  }
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, ms = 0;
  if (!TakeDigits(&s, 4, &y) || y < 1000 || !TakeChar(&s, '-') || !TakeDigits(&s, 2, &mo) ||
      !TakeChar(&s, '-') || !TakeDigits(&s, 2, &d)) {
    return false;
  }
  std::chrono::year_month_day ymd{std::chrono::year(y), std::chrono::month(mo),
                                  std::chrono::day(d)};
  if (!ymd.ok()) return false;
  int64_t offset_minutes = 0;
  if (!s.empty()) {
    if (!TakeChar(&s, 'T') && !TakeChar(&s, 't')) return false;
    if (!TakeDigits(&s, 2, &h) || h > 23 || !TakeChar(&s, ':') || !TakeDigits(&s, 2, &mi) ||
        mi > 59) {
      return false;
    }
    if (TakeChar(&s, ':')) {
      if (!TakeDigits(&s, 2, &sec) || sec > 60) return false;
      if (TakeChar(&s, '.')) {
        int scale = 100;
        size_t digits = 0;
        while (!s.empty() && s.front() >= '0' && s.front() <= '9') {
          ms += (s.front() - '0') * scale;
          scale /= 10;
          s.remove_prefix(1);
          ++digits;
        }
        if (digits == 0) return false;
      }
    }
    if (TakeChar(&s, 'Z') || TakeChar(&s, 'z')) {
      // UTC
    } else if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
      int sign = s.front() == '+' ? 1 : -1;
      s.remove_prefix(1);
      int oh = 0, om = 0;
      if (!TakeDigits(&s, 2, &oh) || oh > 23) return false;
      TakeChar(&s, ':');
      if (!TakeDigits(&s, 2, &om) || om > 59) return false;
      offset_minutes = sign * (oh * 60 + om);
    }
    if (!s.empty()) return false;
  }
  int64_t days = std::chrono::sys_days(ymd).time_since_epoch().count();
  int64_t seconds = days * 86400 + h * 3600 + mi * 60 + sec - offset_minutes * 60;
  *unix_ms = seconds * 1000 + ms;
  return true;
}

}  // namespace cubby::text
