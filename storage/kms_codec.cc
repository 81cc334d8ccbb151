#include "storage/kms_codec.h"

#include <cstdint>

#include "storage/codec_primitives.h"

namespace cubby::storage::codec {
namespace {

constexpr uint8_t kKmsVersion1 = 1;

// The primitives are codec_primitives.h's; this adds the key state and the version.
class Reader : public ByteReader {
 public:
  using ByteReader::ByteReader;
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
