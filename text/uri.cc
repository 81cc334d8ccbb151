#include "text/uri.h"

#include "text/encoding.h"

namespace cubby::text {
namespace {

bool IsUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '.' || c == '_' || c == '~';
}

// The byte of the escape "%XY" at in[i], or -1 when in[i] does not start one.
int EscapeAt(std::string_view in, size_t i) {
  if (in[i] != '%' || in.size() - i < 3) return -1;
  const int hi = HexDigitValue(in[i + 1]);
  const int lo = HexDigitValue(in[i + 2]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

// The decoder both strictness levels share: false at the first malformed escape when `strict`.
bool Decode(std::string_view in, Plus plus, bool strict, std::string* out) {
  out->clear();
  out->reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '%') {
      const int byte = EscapeAt(in, i);
      if (byte >= 0) {
        out->push_back(static_cast<char>(byte));
        i += 2;
        continue;
      }
      if (strict) return false;
    }
    out->push_back(c == '+' && plus == Plus::kSpace ? ' ' : c);
  }
  return true;
}

bool Split(std::string_view raw, Plus plus, bool strict, std::vector<NameValue>* out) {
  out->clear();
  while (!raw.empty()) {
    const size_t amp = raw.find('&');
    const std::string_view piece = raw.substr(0, amp);
    raw = amp == std::string_view::npos ? std::string_view{} : raw.substr(amp + 1);
    if (piece.empty()) continue;
    const size_t eq = piece.find('=');
    NameValue pair;
    if (!Decode(piece.substr(0, eq), plus, strict, &pair.name)) return false;
    if (eq != std::string_view::npos &&
        !Decode(piece.substr(eq + 1), plus, strict, &pair.value)) {
      return false;
    }
    out->push_back(std::move(pair));
  }
  return true;
}

}  // namespace

std::string UriEncode(std::string_view s, Slash slash) {
  static constexpr char kUpperHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size() + s.size() / 2);
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (IsUnreserved(c) || (c == '/' && slash == Slash::kKeep)) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kUpperHex[c >> 4]);
      out.push_back(kUpperHex[c & 0x0f]);
    }
  }
  return out;
}

bool PercentDecodeStrict(std::string_view in, Plus plus, std::string* out) {
  return Decode(in, plus, /*strict=*/true, out);
}

std::string PercentDecodeLenient(std::string_view in, Plus plus) {
  std::string out;
  Decode(in, plus, /*strict=*/false, &out);
  return out;
}

bool SplitUrlEncodedStrict(std::string_view raw, Plus plus, std::vector<NameValue>* out) {
  return Split(raw, plus, /*strict=*/true, out);
}

std::vector<NameValue> SplitUrlEncodedLenient(std::string_view raw, Plus plus) {
  std::vector<NameValue> out;
  Split(raw, plus, /*strict=*/false, &out);
  return out;
}

const std::string* FindValue(const std::vector<NameValue>& pairs, std::string_view name) {
  for (const NameValue& pair : pairs) {
    if (pair.name == name) return &pair.value;
  }
  return nullptr;
}

}  // namespace cubby::text
