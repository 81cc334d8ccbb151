#include "text/rfc2047.h"

#include <optional>

#include "text/ascii.h"
#include "text/encoding.h"
#include "text/utf8.h"

namespace cubby::text {

namespace {

// ISO-8859-1 bytes as UTF-8: each byte is the code point of the same value.
std::string Latin1ToUtf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (unsigned char c : bytes) AppendUtf8(c, &out);
  return out;
}

// The "Q" encoding (RFC 2047 §4.2): '_' is a space, "=XX" a byte; nullopt when malformed.
std::optional<std::string> DecodeQ(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '_') {
      out.push_back(' ');
    } else if (text[i] == '=') {
      if (i + 2 >= text.size()) return std::nullopt;
      const int hi = HexDigitValue(text[i + 1]);
      const int lo = HexDigitValue(text[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// One encoded-word starting at `value[pos]` ("=?"): its decoded UTF-8 text, and in *end the
// position after its "?=". nullopt when there is no well-formed word of a known charset there.
std::optional<std::string> DecodeWord(std::string_view value, size_t pos, size_t* end) {
  const size_t q1 = value.find('?', pos + 2);
  if (q1 == std::string_view::npos) return std::nullopt;
  const size_t q2 = value.find('?', q1 + 1);
  if (q2 == std::string_view::npos || q2 != q1 + 2) return std::nullopt;
  const size_t close = value.find("?=", q2 + 1);
  if (close == std::string_view::npos) return std::nullopt;
  const std::string charset = AsciiLowercase(value.substr(pos + 2, q1 - pos - 2));
  const char encoding = value[q1 + 1];
  const std::string_view text = value.substr(q2 + 1, close - q2 - 1);
  if (text.find(' ') != std::string_view::npos) return std::nullopt;
  std::string bytes;
  if (encoding == 'B' || encoding == 'b') {
    if (!Base64Decode(text, &bytes)) return std::nullopt;
  } else if (encoding == 'Q' || encoding == 'q') {
    std::optional<std::string> decoded = DecodeQ(text);
    if (!decoded) return std::nullopt;
    bytes = std::move(*decoded);
  } else {
    return std::nullopt;
  }
  std::string utf8;
  if (charset == "utf-8" || charset == "us-ascii") {
    if (!IsValidUtf8(bytes)) return std::nullopt;
    utf8 = std::move(bytes);
  } else if (charset == "iso-8859-1") {
    utf8 = Latin1ToUtf8(bytes);
  } else {
    return std::nullopt;
  }
  *end = close + 2;
  return utf8;
}

}  // namespace

std::string DecodeHeaderText(std::string_view value) {
  const std::string base = IsValidUtf8(value) ? std::string(value) : Latin1ToUtf8(value);
  const std::string_view v = base;
  std::string out;
  size_t pos = 0;
  bool after_word = false;  // the last thing copied was an encoded-word
  while (pos < v.size()) {
    const size_t start = v.find("=?", pos);
    if (start == std::string_view::npos) break;
    size_t end = 0;
    std::optional<std::string> word = DecodeWord(v, start, &end);
    if (!word) {
      out.append(v.substr(pos, start + 2 - pos));
      pos = start + 2;
      after_word = false;
      continue;
    }
    const std::string_view between = v.substr(pos, start - pos);
    const bool only_space = between.find_first_not_of(" \t\r\n") == std::string_view::npos;
    if (!(after_word && only_space)) out.append(between);
    out.append(*word);
    pos = end;
    after_word = true;
  }
  out.append(v.substr(pos));
  return out;
}

std::string EncodeHeaderText(std::string_view text) {
  bool plain = true;
  for (unsigned char c : text) {
    if (c != '\t' && (c < 0x20 || c > 0x7e)) plain = false;
  }
  if (plain) return std::string(text);
  return "=?UTF-8?B?" + Base64Encode(text) + "?=";
}

}  // namespace cubby::text
