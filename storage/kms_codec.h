// Encoding of the KMS records (kms_records.h) and their keys. Private to storage/.
//
// Keys, in the keys family beside the access keys and users (codec.h):
//   'K' <key id>      -> KmsKeyRecord
//   'A' <alias name>  -> KmsAliasRecord
// Records: a version byte (1), then the fields in declaration order as codec.h encodes them
// (varints, zigzag for signed, length-prefixed strings, one byte per enum or bool). Decoding is
// strict: an unknown version, a truncated field, an out-of-range enum or trailing bytes yield
// kCorruption.
#pragma once

#include <string>
#include <string_view>

#include "storage/kms_records.h"
#include "storage/status.h"

namespace cubby::storage::codec {

inline constexpr char kKmsKeyTag = 'K';
inline constexpr char kKmsAliasTag = 'A';

std::string KmsKeyKey(std::string_view key_id);
std::string KmsAliasKey(std::string_view alias_name);

std::string EncodeKmsKey(const KmsKeyRecord& record);
Result<KmsKeyRecord> DecodeKmsKey(std::string_view in);
std::string EncodeKmsAlias(const KmsAliasRecord& record);
Result<KmsAliasRecord> DecodeKmsAlias(std::string_view in);

}  // namespace cubby::storage::codec
