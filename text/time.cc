#include "text/time.h"

#include "text/ascii.h"

namespace cubby::text {
namespace {

using std::chrono::days;
using std::chrono::floor;
using std::chrono::milliseconds;
using std::chrono::seconds;

// TimePoint's 64-bit nanoseconds span September 1677 to April 2262; dates before the epoch
// are refused (no HTTP or SigV4 date of a live request is that old).
constexpr int kFirstYear = 1970;
constexpr int kLastYear = 2261;
constexpr std::string_view kWeekdays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// A time's UTC calendar fields.
struct UtcTime {
  int year;
  unsigned month, day, weekday, hour, minute, second;  // month 1-12, weekday 0 = Sunday
  unsigned millisecond;
};

UtcTime ToUtc(TimePoint t) {
  const auto ms = floor<milliseconds>(t);
  const auto secs = floor<seconds>(ms);
  const auto day = floor<days>(secs);
  const std::chrono::year_month_day ymd{day};
  const std::chrono::hh_mm_ss<seconds> hms{secs - day};
  return {static_cast<int>(ymd.year()),
          static_cast<unsigned>(ymd.month()),
          static_cast<unsigned>(ymd.day()),
          std::chrono::weekday{day}.c_encoding(),
          static_cast<unsigned>(hms.hours().count()),
          static_cast<unsigned>(hms.minutes().count()),
          static_cast<unsigned>(hms.seconds().count()),
          static_cast<unsigned>((ms - secs).count())};
}

// `value` in decimal, zero-padded to `width` digits (printf's %0*d).
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

std::optional<TimePoint> MakeTime(int year, int month, int day, int hour, int minute,
                                  int second) {
  if (year < kFirstYear || year > kLastYear) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year{year},
                                        std::chrono::month{static_cast<unsigned>(month)},
                                        std::chrono::day{static_cast<unsigned>(day)}};
  if (!ymd.ok() || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  return TimePoint{std::chrono::sys_days{ymd}.time_since_epoch() + std::chrono::hours{hour} +
                   std::chrono::minutes{minute} + seconds{second}};
}

// Reads a date string left to right; each method consumes what it matched and fails otherwise.
class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}

  bool done() const { return s_.empty(); }
  bool Literal(std::string_view literal) {
    if (!s_.starts_with(literal)) return false;
    s_.remove_prefix(literal.size());
    return true;
  }
  // Exactly `n` decimal digits.
  bool Digits(size_t n, int* out) {
    if (s_.size() < n || !IsDecimalDigits(s_.substr(0, n))) return false;
    int v = 0;
    for (size_t i = 0; i < n; ++i) v = v * 10 + (s_[i] - '0');
    s_.remove_prefix(n);
    *out = v;
    return true;
  }
  // A weekday's name: `min` to `max` ASCII letters (its shape, not its agreement with the date).
  bool DayName(size_t min, size_t max) {
    size_t n = 0;
    while (n < s_.size() && ((s_[n] >= 'A' && s_[n] <= 'Z') || (s_[n] >= 'a' && s_[n] <= 'z'))) {
      ++n;
    }
    if (n < min || n > max) return false;
    s_.remove_prefix(n);
    return true;
  }
  // "Jan".."Dec" → 1..12.
  bool Month(int* out) {
    for (int i = 0; i < 12; ++i) {
      if (Literal(kMonths[i])) {
        *out = i + 1;
        return true;
      }
    }
    return false;
  }
  // "HH:MM:SS"
  bool Clock(int* hour, int* minute, int* second) {
    return Digits(2, hour) && Literal(":") && Digits(2, minute) && Literal(":") &&
           Digits(2, second);
  }

 private:
  std::string_view s_;
};

struct Fields {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
};

// "Sun, 06 Nov 1994 08:49:37 GMT"
bool ReadImfFixdate(Cursor c, Fields* f) {
  return c.DayName(3, 3) && c.Literal(", ") && c.Digits(2, &f->day) && c.Literal(" ") &&
         c.Month(&f->month) && c.Literal(" ") && c.Digits(4, &f->year) && c.Literal(" ") &&
         c.Clock(&f->hour, &f->minute, &f->second) && c.Literal(" GMT") && c.done();
}

// "Sunday, 06-Nov-94 08:49:37 GMT"
bool ReadRfc850(Cursor c, Fields* f) {
  if (!(c.DayName(6, 9) && c.Literal(", ") && c.Digits(2, &f->day) && c.Literal("-") &&
        c.Month(&f->month) && c.Literal("-") && c.Digits(2, &f->year) && c.Literal(" ") &&
        c.Clock(&f->hour, &f->minute, &f->second) && c.Literal(" GMT") && c.done())) {
    return false;
  }
  f->year += f->year < 70 ? 2000 : 1900;
  return true;
}

// "Sun Nov  6 08:49:37 1994" (or "Nov 06")
bool ReadAsctime(Cursor c, Fields* f) {
  if (!(c.DayName(3, 3) && c.Literal(" ") && c.Month(&f->month) && c.Literal(" "))) return false;
  const bool day_ok = c.Literal(" ") ? c.Digits(1, &f->day) : c.Digits(2, &f->day);
  return day_ok && c.Literal(" ") && c.Clock(&f->hour, &f->minute, &f->second) &&
         c.Literal(" ") && c.Digits(4, &f->year) && c.done();
}

std::optional<TimePoint> FromFields(const Fields& f) {
  return MakeTime(f.year, f.month, f.day, f.hour, f.minute, f.second);
}

}  // namespace

TimePoint FromUnixMillis(int64_t ms) { return TimePoint{milliseconds{ms}}; }

int64_t ToUnixMillis(TimePoint t) {
  return floor<milliseconds>(t.time_since_epoch()).count();
}

int64_t NowUnixMillis() { return ToUnixMillis(std::chrono::system_clock::now()); }

std::string FormatHttpDate(TimePoint t) {
  const UtcTime u = ToUtc(t);
  std::string out;
  out.reserve(29);
  out += kWeekdays[u.weekday];
  out += ", ";
  AppendPadded(&out, u.day, 2);
  out += ' ';
  out += kMonths[u.month - 1];
  out += ' ';
  AppendPadded(&out, u.year, 4);
  out += ' ';
  AppendPadded(&out, u.hour, 2);
  out += ':';
  AppendPadded(&out, u.minute, 2);
  out += ':';
  AppendPadded(&out, u.second, 2);
  out += " GMT";
  return out;
}

std::optional<TimePoint> ParseHttpDate(std::string_view text) {
  const Cursor c(TrimOws(text));
  for (auto read : {ReadImfFixdate, ReadRfc850, ReadAsctime}) {
    Fields f;
    if (read(c, &f)) return FromFields(f);
  }
  return std::nullopt;
}

std::optional<TimePoint> ParseImfFixdate(std::string_view text) {
  Fields f;
  if (!ReadImfFixdate(Cursor(TrimOws(text)), &f)) return std::nullopt;
  return FromFields(f);
}

std::optional<TimePoint> ParseImfFixdateOrUtcOffset(std::string_view text) {
  if (text.ends_with(" +0000") || text.ends_with(" -0000")) {
    std::string gmt(text.substr(0, text.size() - 6));
    gmt += " GMT";
    return ParseImfFixdate(gmt);
  }
  return ParseImfFixdate(text);
}

std::string FormatIso8601Basic(TimePoint t) {
  const UtcTime u = ToUtc(t);
  std::string out;
  out.reserve(16);
  AppendPadded(&out, u.year, 4);
  AppendPadded(&out, u.month, 2);
  AppendPadded(&out, u.day, 2);
  out += 'T';
  AppendPadded(&out, u.hour, 2);
  AppendPadded(&out, u.minute, 2);
  AppendPadded(&out, u.second, 2);
  out += 'Z';
  return out;
}

std::optional<TimePoint> ParseIso8601Basic(std::string_view text) {
  Cursor c(text);
  Fields f;
  if (!(c.Digits(4, &f.year) && c.Digits(2, &f.month) && c.Digits(2, &f.day) && c.Literal("T") &&
        c.Digits(2, &f.hour) && c.Digits(2, &f.minute) && c.Digits(2, &f.second) &&
        c.Literal("Z") && c.done())) {
    return std::nullopt;
  }
  return MakeTime(f.year, f.month, f.day, f.hour, f.minute, f.second);
}

std::string FormatIso8601Millis(TimePoint t) {
  const UtcTime u = ToUtc(t);
  std::string out;
  out.reserve(24);
  AppendPadded(&out, u.year, 4);
  out += '-';
  AppendPadded(&out, u.month, 2);
  out += '-';
  AppendPadded(&out, u.day, 2);
  out += 'T';
  AppendPadded(&out, u.hour, 2);
  out += ':';
  AppendPadded(&out, u.minute, 2);
  out += ':';
  AppendPadded(&out, u.second, 2);
  out += '.';
  AppendPadded(&out, u.millisecond, 3);
  out += 'Z';
  return out;
}

std::string FormatIso8601Millis(int64_t unix_ms) {
  return FormatIso8601Millis(FromUnixMillis(unix_ms));
}

std::string FormatHttpDate(int64_t unix_ms) { return FormatHttpDate(FromUnixMillis(unix_ms)); }

}  // namespace cubby::text
