#include "storage/codec.h"

#include <utility>

namespace cubby::storage::codec {
namespace {

constexpr uint8_t kVersion1 = 1;

// ---- Writer helpers.
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
void PutBool(std::string* out, bool b) { PutByte(out, b ? 1 : 0); }
void PutStringMap(std::string* out, const std::map<std::string, std::string>& m) {
  PutVarint(out, m.size());
  for (const auto& [k, v] : m) {
    PutBytes(out, k);
    PutBytes(out, v);
  }
}

// ---- Reader: every Get* returns false on truncated or malformed input.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}

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
  bool GetMode(AccessMode* m) {
    uint8_t b;
    if (!GetByte(&b) || b > 3) return false;
    *m = static_cast<AccessMode>(b);
    return true;
  }
  // A count of elements each at least `min_bytes` long: bounded by what is left, so a corrupt
  // count cannot make us loop (or reserve) far past the input.
  bool GetCount(uint64_t* n, size_t min_bytes) {
    return GetVarint(n) && *n <= in_.size() / min_bytes;
  }
  bool GetStringMap(std::map<std::string, std::string>* m) {
    uint64_t n;
    if (!GetCount(&n, 2)) return false;
    for (uint64_t i = 0; i < n; ++i) {
      std::string k, v;
      if (!GetString(&k) || !GetString(&v)) return false;
      (*m)[std::move(k)] = std::move(v);
    }
    return true;
  }
  bool Version() {
    uint8_t v;
    return GetByte(&v) && v == kVersion1;
  }
  bool done() const { return in_.empty(); }

 private:
  std::string_view in_;
};

Status Corrupt(const char* what) { return Status(Code::kCorruption, std::string("bad ") + what + " record"); }

void PutBigEndian64(std::string* out, uint64_t v) {
  for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t GetBigEndian64(std::string_view in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(in[i]);
  return v;
}

}  // namespace

// ---- BucketRecord.
std::string EncodeBucket(const BucketRecord& r) {
  std::string out;
  PutByte(&out, kVersion1);
  PutBytes(&out, r.name);
  PutSigned(&out, r.created_ms);
  PutByte(&out, static_cast<uint8_t>(r.anonymous));
  PutBool(&out, r.force_delete);
  PutBool(&out, r.created_by_cosi);
  PutStringMap(&out, r.cosi_parameters);
  return out;
}

Result<BucketRecord> DecodeBucket(std::string_view in) {
  Reader rd(in);
  BucketRecord r;
  if (!rd.Version() || !rd.GetString(&r.name) || !rd.GetSigned(&r.created_ms) ||
      !rd.GetMode(&r.anonymous) || !rd.GetBool(&r.force_delete) ||
      !rd.GetBool(&r.created_by_cosi) || !rd.GetStringMap(&r.cosi_parameters) || !rd.done()) {
    return Corrupt("bucket");
  }
  return r;
}

// ---- ObjectMeta. The summary fields come first so listings can stop early.
std::string EncodeObjectMeta(const ObjectMeta& m) {
  std::string out;
  out.reserve(64 + m.etag.size() + m.content_type.size() + m.inline_data.size());
  PutByte(&out, kVersion1);
  PutVarint(&out, m.size);
  PutBytes(&out, m.etag);
  PutSigned(&out, m.last_modified_ms);
  PutBytes(&out, m.content_type);
  PutBytes(&out, m.content_encoding);
  PutBytes(&out, m.content_disposition);
  PutBytes(&out, m.content_language);
  PutBytes(&out, m.cache_control);
  PutBytes(&out, m.expires);
  PutVarint(&out, m.user_meta.size());
  for (const auto& [k, v] : m.user_meta) {
    PutBytes(&out, k);
    PutBytes(&out, v);
  }
  PutStringMap(&out, m.checksums);
  PutVarint(&out, m.part_sizes.size());
  for (uint64_t p : m.part_sizes) PutVarint(&out, p);
  PutVarint(&out, m.data_id);
  PutVarint(&out, m.chunk_size);
  PutBytes(&out, m.inline_data);
  return out;
}

Result<ObjectSummary> DecodeObjectSummary(std::string_view in) {
  Reader rd(in);
  ObjectSummary s;
  if (!rd.Version() || !rd.GetVarint(&s.size) || !rd.GetString(&s.etag) ||
      !rd.GetSigned(&s.last_modified_ms)) {
    return Corrupt("object");
  }
  return s;
}

Result<ObjectMeta> DecodeObjectMeta(std::string_view in) {
  Reader rd(in);
  ObjectMeta m;
  if (!rd.Version() || !rd.GetVarint(&m.size) || !rd.GetString(&m.etag) ||
      !rd.GetSigned(&m.last_modified_ms) || !rd.GetString(&m.content_type) ||
      !rd.GetString(&m.content_encoding) || !rd.GetString(&m.content_disposition) ||
      !rd.GetString(&m.content_language) || !rd.GetString(&m.cache_control) ||
      !rd.GetString(&m.expires)) {
    return Corrupt("object");
  }
  uint64_t n;
  if (!rd.GetCount(&n, 2)) return Corrupt("object");
  m.user_meta.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    std::string k, v;
    if (!rd.GetString(&k) || !rd.GetString(&v)) return Corrupt("object");
    m.user_meta.emplace_back(std::move(k), std::move(v));
  }
  if (!rd.GetStringMap(&m.checksums) || !rd.GetCount(&n, 1)) return Corrupt("object");
  m.part_sizes.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t p;
    if (!rd.GetVarint(&p)) return Corrupt("object");
    m.part_sizes.push_back(p);
  }
  if (!rd.GetVarint(&m.data_id) || !rd.GetU32(&m.chunk_size) || !rd.GetString(&m.inline_data) ||
      !rd.done()) {
    return Corrupt("object");
  }
  // Invariants the reader relies on: inline bytes match the size; chunked data has a chunk size.
  if (m.data_id == 0 ? m.inline_data.size() != m.size
                     : (m.chunk_size == 0 || !m.inline_data.empty())) {
    return Corrupt("object");
  }
  return m;
}

// ---- AccessKeyRecord.
std::string EncodeAccessKey(const AccessKeyRecord& r) {
  std::string out;
  PutByte(&out, kVersion1);
  PutBytes(&out, r.access_key_id);
  PutBytes(&out, r.secret.reveal());
  PutBool(&out, r.all_buckets);
  PutVarint(&out, r.grants.size());
  for (const auto& [bucket, mode] : r.grants) {
    PutBytes(&out, bucket);
    PutByte(&out, static_cast<uint8_t>(mode));
  }
  PutBytes(&out, r.grant_name);
  PutSigned(&out, r.created_ms);
  return out;
}

Result<AccessKeyRecord> DecodeAccessKey(std::string_view in) {
  Reader rd(in);
  AccessKeyRecord r;
  std::string secret;
  uint64_t n;
  if (!rd.Version() || !rd.GetString(&r.access_key_id) || !rd.GetString(&secret) ||
      !rd.GetBool(&r.all_buckets) || !rd.GetCount(&n, 2)) {
    return Corrupt("access key");
  }
  r.secret = SecretKey(std::move(secret));
  for (uint64_t i = 0; i < n; ++i) {
    std::string bucket;
    AccessMode mode;
    if (!rd.GetString(&bucket) || !rd.GetMode(&mode)) return Corrupt("access key");
    r.grants[std::move(bucket)] = mode;
  }
  if (!rd.GetString(&r.grant_name) || !rd.GetSigned(&r.created_ms) || !rd.done()) {
    return Corrupt("access key");
  }
  return r;
}

// ---- Keys.
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
std::string UploadPrefix(std::string_view bucket) { return "u" + ObjectPrefix(bucket); }
std::string UploadPrefixEnd(std::string_view bucket) { return "u" + ObjectPrefixEnd(bucket); }

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
