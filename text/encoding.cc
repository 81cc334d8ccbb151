#include "text/encoding.h"

#include <openssl/evp.h>

namespace cubby::text {
namespace {

constexpr char kLowerHex[] = "0123456789abcdef";

bool IsBase64Char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         c == '+' || c == '/';
}

}  // namespace

std::string HexEncode(std::string_view raw) {
  std::string out(raw.size() * 2, '\0');
  for (size_t i = 0; i < raw.size(); ++i) {
    const auto b = static_cast<unsigned char>(raw[i]);
    out[2 * i] = kLowerHex[b >> 4];
    out[2 * i + 1] = kLowerHex[b & 0x0f];
  }
  return out;
}

std::string HexUint64(uint64_t value, size_t digits) {
  std::string out(digits, '0');
  for (size_t i = digits; i > 0 && value != 0; --i, value >>= 4) {
    out[i - 1] = kLowerHex[value & 0xf];
  }
  return out;
}

bool HexDecode(std::string_view hex, std::string* raw) {
  if (hex.size() % 2 != 0) return false;
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = HexDigitValue(hex[2 * i]);
    const int lo = HexDigitValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<char>((hi << 4) | lo);
  }
  *raw = std::move(out);
  return true;
}

std::string Base64Encode(std::string_view raw) {
  std::string out(4 * ((raw.size() + 2) / 3) + 1, '\0');  // EVP_EncodeBlock adds a NUL
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(raw.data()),
                                static_cast<int>(raw.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

bool Base64Decode(std::string_view b64, std::string* raw) {
  // EVP_DecodeBlock skips surrounding whitespace and counts padding as zero bytes, so the
  // strict shape (RFC 4648 §4: padded, no whitespace) is checked here first.
  if (b64.size() % 4 != 0) return false;
  size_t padding = 0;
  if (!b64.empty() && b64.back() == '=') ++padding;
  if (b64.size() >= 2 && b64[b64.size() - 2] == '=') ++padding;
  for (size_t i = 0; i < b64.size() - padding; ++i) {
    if (!IsBase64Char(b64[i])) return false;
  }
  std::string out(b64.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(b64.data()),
                                static_cast<int>(b64.size()));
  if (n < 0 || static_cast<size_t>(n) < padding) return false;
  out.resize(static_cast<size_t>(n) - padding);
  *raw = std::move(out);
  return true;
}

}  // namespace cubby::text
