// The key layout of storage/codec.h ("Keys"): how each column family's keys are built and read.
#include <string>
#include <string_view>

#include "storage/codec.h"
#include "storage/codec_internal.h"
#include "text/encoding.h"

namespace cubby::storage::codec {

std::string ObjectKey(std::string_view bucket, std::string_view key) {
  std::string out;
  out.reserve(bucket.size() + 1 + key.size());
  out.append(bucket);
  out.push_back('\0');
  out.append(key);
  return out;
}
std::string ObjectPrefix(std::string_view bucket) { return ObjectKey(bucket, {}); }
std::string ObjectPrefixEnd(std::string_view bucket) {
  std::string out(bucket);
  out.push_back('\1');
  return out;
}

std::string VersionNamePrefix(std::string_view bucket, std::string_view name_prefix) {
  std::string out;
  out.reserve(bucket.size() + name_prefix.size() + 3);
  out.append(bucket);
  out.push_back('\0');
  for (char c : name_prefix) {
    out.push_back(c);
    if (c == '\0') out.push_back('\xff');
  }
  return out;
}
std::string VersionKeyPrefix(std::string_view bucket, std::string_view key) {
  std::string out = VersionNamePrefix(bucket, key);
  out.push_back('\0');
  out.push_back('\1');
  return out;
}
std::string VersionKey(std::string_view bucket, std::string_view key, uint64_t seq) {
  std::string out = VersionKeyPrefix(bucket, key);
  out.push_back(kVersionTag);
  PutBigEndian64(&out, ~seq);
  return out;
}
std::string NullVersionKey(std::string_view bucket, std::string_view key) {
  std::string out = VersionKeyPrefix(bucket, key);
  out.push_back(kNullVersionTag);
  return out;
}
bool DecodeVersionKey(std::string_view bucket, std::string_view encoded, std::string* key,
                      char* tag, uint64_t* seq) {
  if (encoded.size() < bucket.size() + 1 || encoded.substr(0, bucket.size()) != bucket ||
      encoded[bucket.size()] != '\0') {
    return false;
  }
  encoded.remove_prefix(bucket.size() + 1);
  key->clear();
  for (size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] != '\0') {
      key->push_back(encoded[i]);
      continue;
    }
    if (i + 1 >= encoded.size()) return false;
    if (encoded[i + 1] == '\xff') {
      key->push_back('\0');
      ++i;
      continue;
    }
    if (encoded[i + 1] != '\1' || i + 2 >= encoded.size()) return false;
    std::string_view rest = encoded.substr(i + 2);
    *tag = rest[0];
    if (*tag == kNullVersionTag && rest.size() == 1) {
      *seq = 0;
      return true;
    }
    if (*tag != kVersionTag || rest.size() != 9) return false;
    *seq = ~GetBigEndian64(rest.substr(1));
    return true;
  }
  return false;
}

std::string EncodeVersion(const ObjectMeta& meta, bool delete_marker) {
  std::string out;
  PutByte(&out, kVersion1);
  PutBool(&out, delete_marker);
  out.append(EncodeObjectMeta(meta));
  return out;
}
Result<StoredVersion> DecodeVersion(std::string_view in) {
  RecordReader rd(in);
  StoredVersion v;
  if (!rd.Version() || !rd.GetBool(&v.delete_marker)) return Corrupt("object version");
  // The rest is the ObjectMeta, to the end.
  Result<ObjectMeta> meta = DecodeObjectMeta(in.substr(2));
  if (!meta.ok()) return meta.status();
  v.meta = std::move(meta).value();
  return v;
}
std::string EncodeSeq(uint64_t seq) {
  std::string out;
  PutBigEndian64(&out, seq);
  return out;
}
bool DecodeSeq(std::string_view in, uint64_t* seq) {
  if (in.size() != 8) return false;
  *seq = GetBigEndian64(in);
  return true;
}

std::string FormatVersionId(uint64_t seq, uint64_t random) {
  return text::HexUint64(seq, 16) + text::HexUint64(random, 16);
}
bool ParseVersionId(std::string_view id, uint64_t* seq) {
  if (id.size() != kVersionIdLength) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < id.size(); ++i) {
    const char c = id[i];
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else {
      return false;
    }
    if (i < 16) v = (v << 4) | static_cast<uint64_t>(d);
  }
  if (v == 0) return false;  // sequence 0 is never a real version's
  *seq = v;
  return true;
}

std::string DataKey(uint64_t data_id, uint64_t chunk) {
  std::string out;
  out.reserve(16);
  PutBigEndian64(&out, data_id);
  PutBigEndian64(&out, chunk);
  return out;
}
bool DecodeDataKey(std::string_view key, uint64_t* data_id, uint64_t* chunk) {
  if (key.size() != 16) return false;
  *data_id = GetBigEndian64(key.substr(0, 8));
  *chunk = GetBigEndian64(key.substr(8, 8));
  return true;
}

std::string MarkerKey(uint64_t data_id) {
  std::string out(1, kMarkerTag);
  PutBigEndian64(&out, data_id);
  return out;
}
bool DecodeMarkerKey(std::string_view key, uint64_t* data_id) {
  if (key.size() != 9 || key[0] != kMarkerTag) return false;
  *data_id = GetBigEndian64(key.substr(1));
  return true;
}
std::string FileRefKey(uint64_t data_id) {
  std::string out(1, kFileRefTag);
  PutBigEndian64(&out, data_id);
  return out;
}
bool DecodeFileRefKey(std::string_view key, uint64_t* data_id) {
  if (key.size() != 9 || key[0] != kFileRefTag) return false;
  *data_id = GetBigEndian64(key.substr(1));
  return true;
}
std::string UploadPrefix(std::string_view bucket) { return "u" + ObjectPrefix(bucket); }
std::string UploadPrefixEnd(std::string_view bucket) { return "u" + ObjectPrefixEnd(bucket); }
std::string UploadKey(std::string_view bucket, std::string_view key, std::string_view upload_id) {
  std::string out = UploadPrefix(bucket);
  out.append(key);
  out.push_back('\0');
  out.append(upload_id);
  return out;
}
bool DecodeUploadKeyName(std::string_view bucket, std::string_view encoded, std::string* key,
                         std::string* upload_id) {
  const size_t head = 1 + bucket.size() + 1;
  if (encoded.size() < head + 1 + kUploadIdLength) return false;
  if (encoded[encoded.size() - kUploadIdLength - 1] != '\0') return false;
  key->assign(encoded.substr(head, encoded.size() - head - kUploadIdLength - 1));
  upload_id->assign(encoded.substr(encoded.size() - kUploadIdLength));
  return true;
}
std::string PartKey(std::string_view upload_id, uint32_t part_number) {
  std::string out(1, kPartTag);
  out.append(upload_id);
  for (int i = 3; i >= 0; --i) out.push_back(static_cast<char>((part_number >> (8 * i)) & 0xff));
  return out;
}
std::string PartPrefix(std::string_view upload_id) { return PartKey(upload_id, 0); }
std::string PartPrefixEnd(std::string_view upload_id) {
  std::string out(1, kPartTag);
  out.append(upload_id);
  out.append(4, '\xff');
  out.push_back('\xff');
  return out;
}
std::string CompletedKey(std::string_view upload_id) {
  std::string out(1, kCompletedTag);
  out.append(upload_id);
  return out;
}
std::string StatsKey(std::string_view bucket) {
  std::string out("\0stats\0", 7);
  out.append(bucket);
  return out;
}

std::string AccessKeyKey(std::string_view access_key_id) {
  std::string out("k");
  out.append(access_key_id);
  return out;
}
std::string GrantIndexKey(std::string_view bucket, std::string_view grant_name) {
  std::string out("g");
  out.append(bucket);
  out.push_back('\0');
  out.append(grant_name);
  return out;
}
std::string GrantIndexPrefix(std::string_view bucket) { return GrantIndexKey(bucket, {}); }
std::string GrantIndexPrefixEnd(std::string_view bucket) { return "g" + ObjectPrefixEnd(bucket); }

std::string UserKey(std::string_view user_id) {
  return std::string(1, kUserTag) + std::string(user_id);
}
std::string UserNameKey(std::string_view folded_name) {
  return std::string(1, kUserNameTag) + std::string(folded_name);
}
std::string UserEmailKey(std::string_view folded_email) { return "e" + std::string(folded_email); }
std::string UserAccessKeyKey(std::string_view user_id, std::string_view access_key_id) {
  std::string out("o");
  out.append(user_id);
  out.push_back('\0');
  out.append(access_key_id);
  return out;
}
std::string UserAccessKeyPrefix(std::string_view user_id) { return UserAccessKeyKey(user_id, {}); }
std::string UserAccessKeyPrefixEnd(std::string_view user_id) {
  return "o" + ObjectPrefixEnd(user_id);
}
std::string_view UserAccessKeyId(std::string_view user_id, std::string_view encoded) {
  const size_t head = 1 + user_id.size() + 1;
  return encoded.size() < head ? std::string_view() : encoded.substr(head);
}

std::string PrefixSuccessor(std::string_view prefix) {
  std::string out(prefix);
  while (!out.empty()) {
    unsigned char last = static_cast<unsigned char>(out.back());
    if (last != 0xff) {
      out.back() = static_cast<char>(last + 1);
      return out;
    }
    out.pop_back();
  }
  return out;
}

}  // namespace cubby::storage::codec
