// storage/'s private record encoding primitives, shared by the record codecs (codec_internal.h)
// and kms_codec.cc: LEB128 varints, zigzag for signed values, length-prefixed bytes, and a reader
// over them whose every Get returns false on truncated or malformed input.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cubby::storage::codec {

inline void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
inline void PutSigned(std::string* out, int64_t v) {
  PutVarint(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}
inline void PutBytes(std::string* out, std::string_view s) {
  PutVarint(out, s.size());
  out->append(s);
}
inline void PutByte(std::string* out, uint8_t b) { out->push_back(static_cast<char>(b)); }
inline void PutBool(std::string* out, bool b) { PutByte(out, b ? 1 : 0); }

// The primitive reads; record codecs extend it with their own types.
class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}

  bool GetVarint(uint64_t* v) {
    uint64_t result = 0;
    for (int shift = 0; shift <= 63; shift += 7) {
      if (in_.empty()) return false;
      uint8_t b = static_cast<uint8_t>(in_.front());
      in_.remove_prefix(1);
      if (shift == 63 && b > 1) return false;  // overflow
      result |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        *v = result;
        return true;
      }
    }
    return false;
  }
  bool GetSigned(int64_t* v) {
    uint64_t u;
    if (!GetVarint(&u)) return false;
    *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
    return true;
  }
  bool GetU32(uint32_t* v) {
    uint64_t u;
    if (!GetVarint(&u) || u > UINT32_MAX) return false;
    *v = static_cast<uint32_t>(u);
    return true;
  }
  bool GetBytes(std::string_view* s) {
    uint64_t n;
    if (!GetVarint(&n) || n > in_.size()) return false;
    *s = in_.substr(0, n);
    in_.remove_prefix(n);
    return true;
  }
  bool GetString(std::string* s) {
    std::string_view v;
    if (!GetBytes(&v)) return false;
    s->assign(v);
    return true;
  }
  bool GetByte(uint8_t* b) {
    if (in_.empty()) return false;
    *b = static_cast<uint8_t>(in_.front());
    in_.remove_prefix(1);
    return true;
  }
  bool GetBool(bool* v) {
    uint8_t b;
    if (!GetByte(&b) || b > 1) return false;
    *v = b == 1;
    return true;
  }
  bool done() const { return in_.empty(); }

 protected:
  std::string_view in_;
};

}  // namespace cubby::storage::codec
