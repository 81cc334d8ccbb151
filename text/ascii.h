// ASCII text helpers for protocol strings (header names, tokens, numbers). Every function here is
// locale-independent and treats bytes >= 0x80 as opaque: HTTP and S3 names are ASCII, and a
// user's UTF-8 must pass through unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cubby::text {

// 'A'-'Z' → 'a'-'z'; every other byte unchanged.
constexpr char AsciiLower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}
std::string AsciiLowercase(std::string_view s);
// Equal ignoring ASCII case (different lengths are unequal).
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
// True if `s` starts with `prefix`, ignoring ASCII case.
bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix);

// `s` without leading and trailing spaces and horizontal tabs: HTTP's optional whitespace (OWS,
// RFC 9110 §5.6.3). Other bytes (CR, LF, NUL, vertical tab) are kept.
std::string_view TrimOws(std::string_view s);
// `s` without leading and trailing XML white space (S: space, tab, CR, LF;
// https://www.w3.org/TR/xml/#NT-S), which S3's schema types collapse around a value.
std::string_view TrimXmlSpace(std::string_view s);
// `s` without leading and trailing spaces; tabs and every other byte are kept.
std::string_view TrimSpaces(std::string_view s);

// True if `s` is one or more of '0'-'9'.
bool IsDecimalDigits(std::string_view s);

// `s` as an unsigned number in `base` (10 or 16): digits only, at least one, no sign, no spaces,
// no "0x"; false on anything else or on overflow (*out is then unspecified).
[[nodiscard]] bool ParseUint64(std::string_view s, uint64_t* out, int base = 10);

}  // namespace cubby::text
