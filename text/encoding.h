// Binary-to-text encodings: hex and base64 (RFC 4648 §4, through OpenSSL's EVP encoder).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cubby::text {

// The value of one hex digit ('0'-'9', 'a'-'f', 'A'-'F'), or -1.
constexpr int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Two lowercase hex digits per byte ("0aff").
std::string HexEncode(std::string_view raw);
// `value` in exactly `digits` lowercase hex digits: zero-padded, or its low `digits` digits when
// it has more (HexUint64(0xab, 4) == "00ab", HexUint64(0x1ab, 2) == "ab").
std::string HexUint64(uint64_t value, size_t digits);
// Hex digits of either case, an even number of them, nothing else → the bytes in *raw. False
// (and *raw untouched) otherwise.
[[nodiscard]] bool HexDecode(std::string_view hex, std::string* raw);

// Standard base64 with '=' padding, no line breaks.
std::string Base64Encode(std::string_view raw);
// Strict: the standard alphabet, a multiple of 4 characters, '=' only as the last one or two,
// no whitespace or line breaks. False (and *raw untouched) otherwise. "" decodes to "".
[[nodiscard]] bool Base64Decode(std::string_view b64, std::string* raw);

}  // namespace cubby::text
