#include "storage/kms_codec.h"

#include <cstdint>

namespace cubby::storage::codec {
namespace {

constexpr uint8_t kKmsVersion1 = 1;

// The same primitives as codec.cc's (kept private there): LEB128 varints, zigzag for signed.
void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
void PutSigned(std::string* out, int64_t v) {
  PutVarint(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}
void PutBytes(std::string* out, std::string_view s) {
  PutVarint(out, s.size());
  out->append(s);
}
void PutByte(std::string* out, uint8_t b) { out->push_back(static_cast<char>(b)); }

// Every Get returns false on truncated or malformed input.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool GetVarint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (in_.empty()) return false;
      const uint8_t b = static_cast<uint8_t>(in_.front());
      in_.remove_prefix(1);
      if (shift == 63 && b > 1) return false;
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }
  bool GetSigned(int64_t* v) {
    uint64_t u = 0;
    if (!GetVarint(&u)) return false;
    *v = static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
    return true;
  }
  bool GetString(std::string* s) {
    uint64_t n = 0;
    if (!GetVarint(&n) || n > in_.size()) return false;
    s->assign(in_.substr(0, n));
    in_.remove_prefix(n);
    return true;
  }
  bool GetByte(uint8_t* b) {
    if (in_.empty()) return false;
    *b = static_cast<uint8_t>(in_.front());
    in_.remove_prefix(1);
    return true;
  }
  bool GetBool(bool* v) {
    uint8_t b = 0;
    if (!GetByte(&b) || b > 1) return false;
    *v = b == 1;
    return true;
  }
  bool GetState(KmsKeyState* state) {
    uint8_t b = 0;
    if (!GetByte(&b) || b > static_cast<uint8_t>(KmsKeyState::kPendingDeletion)) return false;
    *state = static_cast<KmsKeyState>(b);
    return true;
  }
  bool Version() {
    uint8_t b = 0;
    return GetByte(&b) && b == kKmsVersion1;
  }
  bool done() const { return in_.empty(); }

 private:
  std::string_view in_;
};

std::string Tagged(char tag, std::string_view name) {
  std::string out;
  out.reserve(1 + name.size());
  out.push_back(tag);
  out.append(name);
  return out;
}

}  // namespace

std::string KmsKeyKey(std::string_view key_id) { return Tagged(kKmsKeyTag, key_id); }
std::string KmsAliasKey(std::string_view alias_name) { return Tagged(kKmsAliasTag, alias_name); }

std::string EncodeKmsKey(const KmsKeyRecord& r) {
  std::string out;
  PutByte(&out, kKmsVersion1);
  PutBytes(&out, r.key_id);
  PutBytes(&out, r.description);
  PutSigned(&out, r.created_ms);
  PutByte(&out, static_cast<uint8_t>(r.state));
  PutSigned(&out, r.deletion_date_ms);
  PutBytes(&out, r.wrapped_material);
  PutByte(&out, r.aws_managed ? 1 : 0);
  return out;
}

Result<KmsKeyRecord> DecodeKmsKey(std::string_view in) {
  Reader rd(in);
  KmsKeyRecord r;
  if (!rd.Version() || !rd.GetString(&r.key_id) || !rd.GetString(&r.description) ||
      !rd.GetSigned(&r.created_ms) || !rd.GetState(&r.state) ||
      !rd.GetSigned(&r.deletion_date_ms) || !rd.GetString(&r.wrapped_material) ||
      !rd.GetBool(&r.aws_managed) || !rd.done()) {
    return Status(Code::kCorruption, "corrupt KMS key record");
  }
  return r;
}

std::string EncodeKmsAlias(const KmsAliasRecord& r) {
  std::string out;
  PutByte(&out, kKmsVersion1);
  PutBytes(&out, r.alias_name);
  PutBytes(&out, r.key_id);
  PutSigned(&out, r.created_ms);
  return out;
}

Result<KmsAliasRecord> DecodeKmsAlias(std::string_view in) {
  Reader rd(in);
  KmsAliasRecord r;
  if (!rd.Version() || !rd.GetString(&r.alias_name) || !rd.GetString(&r.key_id) ||
      !rd.GetSigned(&r.created_ms) || !rd.done()) {
    return Status(Code::kCorruption, "corrupt KMS alias record");
  }
  return r;
}

}  // namespace cubby::storage::codec
