#include "storage/codec.h"

#include <utility>

#include "storage/bucket_config_codec.h"
#include "storage/codec_primitives.h"
#include "text/encoding.h"

namespace cubby::storage::codec {
namespace {

constexpr uint8_t kVersion1 = 1;
// BucketRecord, AccessKeyRecord: version 1 followed by the fields of format 2.
constexpr uint8_t kVersion2 = 2;
// ObjectMeta only: version 1 followed by a segment list (multipart objects).
constexpr uint8_t kVersionSegments = 2;
// ObjectMeta only: version 2 whose segment list may be empty, then owner_id and acl.
constexpr uint8_t kVersionOwner = 3;
// BucketRecord only: version 2 followed by the fields of format 3 (versioning, object lock).
constexpr uint8_t kVersion3 = 3;
// ObjectMeta only: version 3 followed by version_id, version_seq and the object-lock state
// (format 3); written only when one of them is set, so unversioned objects keep version <= 3.
constexpr uint8_t kVersionVersioned = 4;
// BucketRecord only: version 3 followed by the lifecycle configuration; written only when the
// bucket has lifecycle rules, so other buckets keep version <= 3.
constexpr uint8_t kVersion4 = 4;
// BucketRecord only: version 4 (its lifecycle configuration possibly empty) followed by the
// bucket's tags; written only when the bucket has tags, so other buckets keep version <= 4.
constexpr uint8_t kVersion5 = 5;
// BucketRecord only: version 5 (its tags possibly empty) followed by the CORS configuration;
// written only when the bucket has CORS rules.
constexpr uint8_t kVersion6 = 6;
// BucketRecord only: version 6 (its CORS configuration possibly empty) followed by the default
// encryption configuration; written only when the bucket has an encryption rule.
constexpr uint8_t kVersion7 = 7;
// BucketRecord only: version 7 (its encryption configuration possibly empty) followed by the
// quota: a flags byte (1: bytes limit follows, 2: objects limit follows; at least
// one set) and the limits it announces as varints, bytes first; written only when a quota is
// set.
constexpr uint8_t kVersion8 = 8;
constexpr uint8_t kQuotaBytes = 1;
constexpr uint8_t kQuotaObjects = 2;
// ObjectMeta only: version 4 followed by the object's tags; written only when it has tags, so
// untagged objects keep version <= 4.
constexpr uint8_t kVersionTagged = 5;
// ObjectMeta only: version 5 (its tags possibly empty) followed by the storage class and the
// parts' checksums; written only when one of them is set, so other objects keep version <= 5.
constexpr uint8_t kVersionClassed = 6;
// ObjectMeta only: version 6 (its class and parts' checksums possibly empty) followed by the
// encryption record; written only for encrypted objects and uploads, so other
// objects keep version <= 6.
constexpr uint8_t kVersionSealed = 7;
// PartRecord only: version 1 followed by the part's wrapped data key; written only for a sealed
// part (its data.size is then the sealed size, its size the plaintext's).
constexpr uint8_t kPartVersionSealed = 2;

// ---- Writer helpers (the primitives are codec_primitives.h's).
void PutStringMap(std::string* out, const std::map<std::string, std::string>& m) {
  PutVarint(out, m.size());
  for (const auto& [k, v] : m) {
    PutBytes(out, k);
    PutBytes(out, v);
  }
}

// ---- Reader: every Get* returns false on truncated or malformed input.
class Reader : public ByteReader {
 public:
  using ByteReader::ByteReader;

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
  // Version 1 or 2; *v2 tells which.
  bool Version12(bool* v2) {
    uint8_t v;
    if (!GetByte(&v) || (v != kVersion1 && v != kVersion2)) return false;
    *v2 = v == kVersion2;
    return true;
  }
  bool MetaVersion(uint8_t* version) {
    return GetByte(version) && *version >= kVersion1 && *version <= kVersionSealed;
  }
  bool GetAcl(AclRecord* acl) {
    uint64_t n;
    if (!GetString(&acl->owner_id) || !GetCount(&n, 3)) return false;
    acl->grants.resize(n);
    for (AclGrant& g : acl->grants) {
      uint8_t type, permission;
      if (!GetByte(&type) || type < 1 || type > 2 || !GetString(&g.grantee) ||
          !GetByte(&permission) || permission < 1 || permission > 5) {
        return false;
      }
      g.type = static_cast<GranteeType>(type);
      g.permission = static_cast<AclPermission>(permission);
    }
    return true;
  }
  bool GetPairs(std::vector<std::pair<std::string, std::string>>* pairs) {
    uint64_t n;
    if (!GetCount(&n, 2)) return false;
    pairs->resize(n);
    for (auto& [k, v] : *pairs) {
      if (!GetString(&k) || !GetString(&v)) return false;
    }
    return true;
  }
  bool GetSegment(DataSegment* seg) {
    return GetVarint(&seg->data_id) && GetVarint(&seg->size) && GetU32(&seg->chunk_size);
  }
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
void PutFixed64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t GetFixed64(std::string_view in) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(in[i]);
  return v;
}

// Empty segments have no data id and no chunk size. Others are chunks in the data family
// (chunk size set) or one file (chunk size 0).
bool SegmentValid(const DataSegment& seg) {
  return seg.data_id != 0 || (seg.size == 0 && seg.chunk_size == 0);
}

void PutSegment(std::string* out, const DataSegment& seg) {
  PutVarint(out, seg.data_id);
  PutVarint(out, seg.size);
  PutVarint(out, seg.chunk_size);
}

void PutAcl(std::string* out, const AclRecord& acl) {
  PutBytes(out, acl.owner_id);
  PutVarint(out, acl.grants.size());
  for (const AclGrant& g : acl.grants) {
    PutByte(out, static_cast<uint8_t>(g.type));
    PutBytes(out, g.grantee);
    PutByte(out, static_cast<uint8_t>(g.permission));
  }
}

void PutPairs(std::string* out, const std::vector<std::pair<std::string, std::string>>& pairs) {
  PutVarint(out, pairs.size());
  for (const auto& [k, v] : pairs) {
    PutBytes(out, k);
    PutBytes(out, v);
  }
}

}  // namespace

// ---- BucketRecord.
std::string EncodeBucket(const BucketRecord& r) {
  std::string out;
  const bool v8 = r.quota.bytes.has_value() || r.quota.objects.has_value();
  const bool v7 = v8 || !r.encryption.rules.empty();
  const bool v6 = v7 || !r.cors.rules.empty();
  const bool v5 = v6 || !r.tags.empty();
  const bool v4 = v5 || !r.lifecycle.rules.empty();
  const bool v3 = v4 || r.versioning != VersioningState::kUnversioned ||
                  r.object_lock != ObjectLockConfig{};
  PutByte(&out, v8   ? kVersion8
                : v7 ? kVersion7
                : v6 ? kVersion6
                : v5 ? kVersion5
                : v4 ? kVersion4
                : v3 ? kVersion3
                     : kVersion2);
  PutBytes(&out, r.name);
  PutSigned(&out, r.created_ms);
  PutByte(&out, static_cast<uint8_t>(r.anonymous));
  PutBool(&out, r.force_delete);
  PutBool(&out, r.created_by_cosi);
  PutStringMap(&out, r.cosi_parameters);
  // Version 2.
  PutBytes(&out, r.owner_id);
  PutAcl(&out, r.acl);
  PutByte(&out, static_cast<uint8_t>(r.object_ownership));
  const PublicAccessBlock& pab = r.public_access_block;
  PutByte(&out, static_cast<uint8_t>((pab.configured ? 1 : 0) | (pab.block_public_acls ? 2 : 0) |
                                     (pab.ignore_public_acls ? 4 : 0) |
                                     (pab.block_public_policy ? 8 : 0) |
                                     (pab.restrict_public_buckets ? 16 : 0)));
  PutBytes(&out, r.policy);
  if (v3) {
    PutByte(&out, static_cast<uint8_t>(r.versioning));
    PutBytes(&out, EncodeObjectLockConfig(r.object_lock));
  }
  if (v4) PutBytes(&out, EncodeLifecycleConfig(r.lifecycle));
  if (v5) PutPairs(&out, r.tags);
  if (v6) PutBytes(&out, EncodeCorsConfig(r.cors));
  if (v7) PutBytes(&out, EncodeBucketEncryption(r.encryption));
  if (v8) {
    PutByte(&out, (r.quota.bytes ? kQuotaBytes : 0) | (r.quota.objects ? kQuotaObjects : 0));
    if (r.quota.bytes) PutVarint(&out, *r.quota.bytes);
    if (r.quota.objects) PutVarint(&out, *r.quota.objects);
  }
  return out;
}

Result<BucketRecord> DecodeBucket(std::string_view in) {
  Reader rd(in);
  BucketRecord r;
  uint8_t version = 0;
  if (!rd.GetByte(&version) || version < kVersion1 || version > kVersion8) return Corrupt("bucket");
  const bool v2 = version >= kVersion2;
  if (!rd.GetString(&r.name) || !rd.GetSigned(&r.created_ms) || !rd.GetMode(&r.anonymous) ||
      !rd.GetBool(&r.force_delete) || !rd.GetBool(&r.created_by_cosi) ||
      !rd.GetStringMap(&r.cosi_parameters)) {
    return Corrupt("bucket");
  }
  if (v2) {
    uint8_t ownership, flags;
    if (!rd.GetString(&r.owner_id) || !rd.GetAcl(&r.acl) || !rd.GetByte(&ownership) ||
        ownership > 2 || !rd.GetByte(&flags) || flags > 31 || !rd.GetString(&r.policy)) {
      return Corrupt("bucket");
    }
    r.object_ownership = static_cast<ObjectOwnership>(ownership);
    PublicAccessBlock& pab = r.public_access_block;
    pab.configured = (flags & 1) != 0;
    pab.block_public_acls = (flags & 2) != 0;
    pab.ignore_public_acls = (flags & 4) != 0;
    pab.block_public_policy = (flags & 8) != 0;
    pab.restrict_public_buckets = (flags & 16) != 0;
  }
  if (version >= kVersion3) {
    uint8_t versioning;
    std::string lock;
    if (!rd.GetByte(&versioning) || versioning > 2 || !rd.GetString(&lock)) {
      return Corrupt("bucket");
    }
    r.versioning = static_cast<VersioningState>(versioning);
    Result<ObjectLockConfig> config = DecodeObjectLockConfig(lock);
    if (!config.ok()) return Corrupt("bucket");
    r.object_lock = std::move(config).value();
  }
  if (version >= kVersion4) {
    std::string lifecycle;
    if (!rd.GetString(&lifecycle)) return Corrupt("bucket");
    Result<LifecycleConfig> config = DecodeLifecycleConfig(lifecycle);
    // A version-4 record is written only with rules: none is corruption. Later versions carry
    // the configuration whether or not there are rules.
    if (!config.ok() || (version == kVersion4 && config->rules.empty())) return Corrupt("bucket");
    r.lifecycle = std::move(config).value();
  }
  if (version >= kVersion5) {
    // A version-5 record is written only with tags: none is corruption. Version 6 carries
    // them whether or not there are any.
    if (!rd.GetPairs(&r.tags) || (version == kVersion5 && r.tags.empty())) return Corrupt("bucket");
  }
  if (version >= kVersion6) {
    std::string cors;
    if (!rd.GetString(&cors)) return Corrupt("bucket");
    Result<CorsConfig> config = DecodeCorsConfig(cors);
    // A version-6 record is written only with CORS rules: none is corruption. Version 7 carries
    // the configuration whether or not there are rules.
    if (!config.ok() || (version == kVersion6 && config->rules.empty())) return Corrupt("bucket");
    r.cors = std::move(config).value();
  }
  if (version >= kVersion7) {
    std::string encryption;
    if (!rd.GetString(&encryption)) return Corrupt("bucket");
    Result<BucketEncryption> config = DecodeBucketEncryption(encryption);
    // A version-7 record is written only with an encryption rule: none is corruption.
    // Version 8 carries the configuration whether or not there is a rule.
    if (!config.ok() || (version == kVersion7 && config->rules.empty())) return Corrupt("bucket");
    r.encryption = std::move(config).value();
  }
  if (version >= kVersion8) {
    // Written only with a quota: no limit, or an unknown flag, is corruption.
    uint8_t flags;
    if (!rd.GetByte(&flags) || flags == 0 || flags > (kQuotaBytes | kQuotaObjects)) {
      return Corrupt("bucket");
    }
    uint64_t limit;
    if ((flags & kQuotaBytes) != 0) {
      if (!rd.GetVarint(&limit)) return Corrupt("bucket");
      r.quota.bytes = limit;
    }
    if ((flags & kQuotaObjects) != 0) {
      if (!rd.GetVarint(&limit)) return Corrupt("bucket");
      r.quota.objects = limit;
    }
  }
  if (!rd.done()) return Corrupt("bucket");
  return r;
}

// ---- ObjectMeta. The summary fields come first so listings can stop early.
std::string EncodeObjectMeta(const ObjectMeta& m) {
  std::string out;
  out.reserve(64 + m.etag.size() + m.content_type.size() + m.inline_data.size());
  const bool sealed = m.sealed();
  const bool classed = sealed || !m.storage_class.empty() || !m.part_checksums.empty();
  const bool tagged = classed || !m.tags.empty();
  const bool versioned =
      tagged || !m.version_id.empty() || m.version_seq != 0 || m.lock != ObjectLockState{};
  const bool owner = versioned || !m.owner_id.empty() || m.acl != AclRecord{};
  PutByte(&out, sealed               ? kVersionSealed
                : classed            ? kVersionClassed
                : tagged             ? kVersionTagged
                : versioned          ? kVersionVersioned
                : owner              ? kVersionOwner
                : m.segments.empty() ? kVersion1
                                     : kVersionSegments);
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
  if (owner || !m.segments.empty()) {
    PutVarint(&out, m.segments.size());
    for (const DataSegment& seg : m.segments) PutSegment(&out, seg);
  }
  if (owner) {
    PutBytes(&out, m.owner_id);
    PutAcl(&out, m.acl);
  }
  if (versioned) {
    PutBytes(&out, m.version_id);
    PutVarint(&out, m.version_seq);
    PutBytes(&out, EncodeObjectLockState(m.lock));
  }
  if (tagged) PutPairs(&out, m.tags);
  if (classed) {
    PutBytes(&out, m.storage_class);
    PutVarint(&out, m.part_checksums.size());
    for (const std::string& c : m.part_checksums) PutBytes(&out, c);
  }
  if (sealed) {
    const EncryptionRecord& e = m.encryption;
    PutByte(&out, static_cast<uint8_t>(e.mode));
    PutBytes(&out, e.wrapped_key);
    PutVarint(&out, e.part_keys.size());
    for (const std::string& k : e.part_keys) PutBytes(&out, k);
    PutBytes(&out, e.upload_id);
    PutVarint(&out, e.stored_size);
    PutBytes(&out, e.kms_key_arn);
    PutBytes(&out, e.kms_context);
    PutByte(&out, e.bucket_key_enabled ? 1 : 0);
    PutBytes(&out, e.customer_key_check);
  }
  return out;
}

Result<ObjectSummary> DecodeObjectSummary(std::string_view in) {
  Reader rd(in);
  ObjectSummary s;
  uint8_t version;
  if (!rd.MetaVersion(&version) || !rd.GetVarint(&s.size) || !rd.GetString(&s.etag) ||
      !rd.GetSigned(&s.last_modified_ms)) {
    return Corrupt("object");
  }
  // The storage class sits at the end of a version-6 record: only those decode in full.
  if (version >= kVersionClassed) {
    Result<ObjectMeta> m = DecodeObjectMeta(in);
    if (!m.ok()) return m.status();
    s.storage_class = std::move(m->storage_class);
  }
  return s;
}

Result<ObjectMeta> DecodeObjectMeta(std::string_view in) {
  Reader rd(in);
  ObjectMeta m;
  uint8_t version;
  if (!rd.MetaVersion(&version) || !rd.GetVarint(&m.size) || !rd.GetString(&m.etag) ||
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
  if (!rd.GetVarint(&m.data_id) || !rd.GetU32(&m.chunk_size) || !rd.GetString(&m.inline_data)) {
    return Corrupt("object");
  }
  if (version != kVersion1) {
    // Version 2 is only written for multipart objects: at least one segment. Version 3 may
    // have none.
    if (!rd.GetCount(&n, 3) || (n == 0 && version == kVersionSegments)) return Corrupt("object");
    m.segments.resize(n);
    for (DataSegment& seg : m.segments) {
      if (!rd.GetSegment(&seg)) return Corrupt("object");
    }
  }
  if (version >= kVersionOwner && (!rd.GetString(&m.owner_id) || !rd.GetAcl(&m.acl))) {
    return Corrupt("object");
  }
  if (version >= kVersionVersioned) {
    std::string lock;
    if (!rd.GetString(&m.version_id) || !rd.GetVarint(&m.version_seq) || !rd.GetString(&lock)) {
      return Corrupt("object");
    }
    Result<ObjectLockState> state = DecodeObjectLockState(lock);
    if (!state.ok()) return Corrupt("object");
    m.lock = std::move(state).value();
  }
  // A version-5 record is written only with tags: none is corruption. Version 6 carries
  // them possibly empty.
  if (version >= kVersionTagged &&
      (!rd.GetPairs(&m.tags) || (version == kVersionTagged && m.tags.empty()))) {
    return Corrupt("object");
  }
  if (version >= kVersionClassed) {
    // Written only with a storage class or parts' checksums; these, when kept, are one per part.
    if (!rd.GetString(&m.storage_class) || !rd.GetCount(&n, 1)) return Corrupt("object");
    m.part_checksums.resize(n);
    for (std::string& c : m.part_checksums) {
      if (!rd.GetString(&c)) return Corrupt("object");
    }
    if ((version == kVersionClassed && m.storage_class.empty() && m.part_checksums.empty()) ||
        (!m.part_checksums.empty() && m.part_checksums.size() != m.part_sizes.size())) {
      return Corrupt("object");
    }
  }
  if (version >= kVersionSealed) {
    EncryptionRecord& e = m.encryption;
    uint8_t mode = 0, bucket_key = 0;
    if (!rd.GetByte(&mode) || mode < 1 || mode > 3 || !rd.GetString(&e.wrapped_key) ||
        !rd.GetCount(&n, 1)) {
      return Corrupt("object");
    }
    e.mode = static_cast<SseMode>(mode);
    e.part_keys.resize(n);
    for (std::string& k : e.part_keys) {
      if (!rd.GetString(&k)) return Corrupt("object");
    }
    if (!rd.GetString(&e.upload_id) || !rd.GetVarint(&e.stored_size) ||
        !rd.GetString(&e.kms_key_arn) || !rd.GetString(&e.kms_context) ||
        !rd.GetByte(&bucket_key) || bucket_key > 1 || !rd.GetString(&e.customer_key_check)) {
      return Corrupt("object");
    }
    e.bucket_key_enabled = bucket_key == 1;
  }
  if (!rd.done()) return Corrupt("object");
  const bool segments = !m.segments.empty();
  // Invariants the reader relies on: inline bytes match the size; data elsewhere (chunks or a
  // file) has no inline bytes; segments add up to the size and are never inline.
  if (segments) {
    uint64_t total = 0;
    for (const DataSegment& seg : m.segments) {
      if (!SegmentValid(seg)) return Corrupt("object");
      total += seg.size;
    }
    // A sealed multipart object keeps one wrapped key per part; its parts' plaintext sizes
    // add up to the size, their stored sizes (the segments) to more.
    if ((m.sealed() ? m.encryption.part_keys.size() != m.segments.size() || total < m.size
                    : total != m.size) ||
        m.data_id != 0 || !m.inline_data.empty()) {
      return Corrupt("object");
    }
  } else if (m.data_id == 0 ? m.inline_data.size() != m.StoredSize() || m.chunk_size != 0
                            : !m.inline_data.empty()) {
    return Corrupt("object");
  }
  return m;
}

// ---- Multipart records.
// Version 2 adds the initiator.
std::string EncodeUpload(const UploadRecord& r) {
  std::string out;
  PutByte(&out, kVersion2);
  PutBytes(&out, r.bucket);
  PutBytes(&out, r.key);
  PutBytes(&out, r.upload_id);
  PutSigned(&out, r.initiated_ms);
  PutBytes(&out, EncodeObjectMeta(r.meta));
  PutBytes(&out, r.checksum_algorithm);
  PutBytes(&out, r.checksum_type);
  PutBytes(&out, r.initiator_id);
  return out;
}

Result<UploadRecord> DecodeUpload(std::string_view in) {
  Reader rd(in);
  UploadRecord r;
  std::string_view meta;
  bool v2 = false;
  if (!rd.Version12(&v2) || !rd.GetString(&r.bucket) || !rd.GetString(&r.key) ||
      !rd.GetString(&r.upload_id) || !rd.GetSigned(&r.initiated_ms) || !rd.GetBytes(&meta) ||
      !rd.GetString(&r.checksum_algorithm) || !rd.GetString(&r.checksum_type) ||
      (v2 && !rd.GetString(&r.initiator_id)) || !rd.done()) {
    return Corrupt("upload");
  }
  Result<ObjectMeta> m = DecodeObjectMeta(meta);
  if (!m.ok()) return Corrupt("upload");
  r.meta = std::move(m).value();
  return r;
}

std::string EncodePart(const PartRecord& r) {
  std::string out;
  const bool sealed = !r.wrapped_key.empty();
  PutByte(&out, sealed ? kPartVersionSealed : kVersion1);
  PutVarint(&out, r.part_number);
  PutVarint(&out, r.size);
  PutBytes(&out, r.etag);
  PutSigned(&out, r.last_modified_ms);
  PutStringMap(&out, r.checksums);
  PutSegment(&out, r.data);
  if (sealed) PutBytes(&out, r.wrapped_key);
  return out;
}

Result<PartRecord> DecodePart(std::string_view in) {
  Reader rd(in);
  PartRecord r;
  uint8_t version = 0;
  if (!rd.GetByte(&version) || (version != kVersion1 && version != kPartVersionSealed) ||
      !rd.GetU32(&r.part_number) || !rd.GetVarint(&r.size) || !rd.GetString(&r.etag) ||
      !rd.GetSigned(&r.last_modified_ms) || !rd.GetStringMap(&r.checksums) ||
      !rd.GetSegment(&r.data) || !SegmentValid(r.data)) {
    return Corrupt("part");
  }
  if (version == kPartVersionSealed && (!rd.GetString(&r.wrapped_key) || r.wrapped_key.empty())) {
    return Corrupt("part");
  }
  // A sealed part stores more bytes than its plaintext (a tag a segment at least).
  if (!rd.done() || (r.wrapped_key.empty() ? r.data.size != r.size : r.data.size <= r.size)) {
    return Corrupt("part");
  }
  return r;
}

std::string EncodeCompleted(const CompletedRecord& r) {
  std::string out;
  PutByte(&out, kVersion1);
  PutBytes(&out, r.bucket);
  PutBytes(&out, r.key);
  PutBytes(&out, r.etag);
  PutSigned(&out, r.last_modified_ms);
  PutSigned(&out, r.completed_ms);
  return out;
}

Result<CompletedRecord> DecodeCompleted(std::string_view in) {
  Reader rd(in);
  CompletedRecord r;
  if (!rd.Version() || !rd.GetString(&r.bucket) || !rd.GetString(&r.key) ||
      !rd.GetString(&r.etag) || !rd.GetSigned(&r.last_modified_ms) ||
      !rd.GetSigned(&r.completed_ms) || !rd.done()) {
    return Corrupt("completed upload");
  }
  return r;
}

std::string EncodeStatsDelta(int64_t objects, int64_t bytes) {
  std::string out;
  PutFixed64(&out, static_cast<uint64_t>(objects));
  PutFixed64(&out, static_cast<uint64_t>(bytes));
  return out;
}

bool DecodeStatsDelta(std::string_view in, int64_t* objects, int64_t* bytes) {
  if (in.size() != 16) return false;
  *objects = static_cast<int64_t>(GetFixed64(in.substr(0, 8)));
  *bytes = static_cast<int64_t>(GetFixed64(in.substr(8, 8)));
  return true;
}

// ---- AccessKeyRecord.
std::string EncodeAccessKey(const AccessKeyRecord& r) {
  std::string out;
  PutByte(&out, kVersion2);
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
  // Version 2.
  PutBytes(&out, r.user_id);
  PutByte(&out, static_cast<uint8_t>(r.status));
  return out;
}

Result<AccessKeyRecord> DecodeAccessKey(std::string_view in) {
  Reader rd(in);
  AccessKeyRecord r;
  std::string secret;
  uint64_t n;
  bool v2 = false;
  if (!rd.Version12(&v2) || !rd.GetString(&r.access_key_id) || !rd.GetString(&secret) ||
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
  if (!rd.GetString(&r.grant_name) || !rd.GetSigned(&r.created_ms)) return Corrupt("access key");
  if (v2) {
    uint8_t status;
    if (!rd.GetString(&r.user_id) || !rd.GetByte(&status) || status > 1) {
      return Corrupt("access key");
    }
    r.status = static_cast<KeyStatus>(status);
  }
  if (!rd.done()) return Corrupt("access key");
  return r;
}

// ---- UserRecord.
std::string EncodeUser(const UserRecord& r) {
  std::string out;
  PutByte(&out, kVersion1);
  PutBytes(&out, r.user_id);
  PutBytes(&out, r.name);
  PutBytes(&out, r.path);
  PutBytes(&out, r.display_name);
  PutBytes(&out, r.email);
  PutSigned(&out, r.created_ms);
  PutPairs(&out, r.tags);
  PutStringMap(&out, r.policies);
  return out;
}

Result<UserRecord> DecodeUser(std::string_view in) {
  Reader rd(in);
  UserRecord r;
  if (!rd.Version() || !rd.GetString(&r.user_id) || !rd.GetString(&r.name) ||
      !rd.GetString(&r.path) || !rd.GetString(&r.display_name) || !rd.GetString(&r.email) ||
      !rd.GetSigned(&r.created_ms) || !rd.GetPairs(&r.tags) || !rd.GetStringMap(&r.policies) ||
      !rd.done()) {
    return Corrupt("user");
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
  Reader rd(in);
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

// ---- Versioning, object lock and lifecycle values (bucket_config_codec.h): the same
// primitives as the records above.
namespace {

bool ModeFromByte(uint8_t b, RetentionMode* mode) {
  if (b > static_cast<uint8_t>(RetentionMode::kCompliance)) return false;
  *mode = static_cast<RetentionMode>(b);
  return true;
}

// LifecycleRule flags.
constexpr uint8_t kRuleEnabled = 1;
constexpr uint8_t kRuleLegacyPrefix = 2;
constexpr uint8_t kRuleExpiredObjectDeleteMarker = 4;
constexpr uint8_t kRuleFlags = 7;
// LifecycleRule: which optional fields follow, in this order.
constexpr uint8_t kHasSizeGreaterThan = 1;
constexpr uint8_t kHasSizeLessThan = 2;
constexpr uint8_t kHasExpirationDays = 4;
constexpr uint8_t kHasExpirationDate = 8;
constexpr uint8_t kHasNoncurrentDays = 16;
constexpr uint8_t kHasNewerNoncurrentVersions = 32;
constexpr uint8_t kHasAbortIncompleteDays = 64;
constexpr uint8_t kHasAll = 127;

void PutRule(std::string* out, const LifecycleRule& r) {
  PutBytes(out, r.id);
  PutByte(out, static_cast<uint8_t>(
                   (r.enabled ? kRuleEnabled : 0) | (r.legacy_prefix ? kRuleLegacyPrefix : 0) |
                   (r.expired_object_delete_marker ? kRuleExpiredObjectDeleteMarker : 0)));
  PutBytes(out, r.filter.prefix);
  PutVarint(out, r.filter.tags.size());
  for (const auto& [k, v] : r.filter.tags) {
    PutBytes(out, k);
    PutBytes(out, v);
  }
  const LifecycleFilter& f = r.filter;
  PutByte(out,
          static_cast<uint8_t>((f.size_greater_than ? kHasSizeGreaterThan : 0) |
                               (f.size_less_than ? kHasSizeLessThan : 0) |
                               (r.expiration_days ? kHasExpirationDays : 0) |
                               (r.expiration_date_ms ? kHasExpirationDate : 0) |
                               (r.noncurrent_days ? kHasNoncurrentDays : 0) |
                               (r.newer_noncurrent_versions ? kHasNewerNoncurrentVersions : 0) |
                               (r.abort_incomplete_days ? kHasAbortIncompleteDays : 0)));
  if (f.size_greater_than) PutVarint(out, *f.size_greater_than);
  if (f.size_less_than) PutVarint(out, *f.size_less_than);
  if (r.expiration_days) PutVarint(out, *r.expiration_days);
  if (r.expiration_date_ms) PutSigned(out, *r.expiration_date_ms);
  if (r.noncurrent_days) PutVarint(out, *r.noncurrent_days);
  if (r.newer_noncurrent_versions) PutVarint(out, *r.newer_noncurrent_versions);
  if (r.abort_incomplete_days) PutVarint(out, *r.abort_incomplete_days);
}

bool GetOptionalU64(Reader* rd, uint8_t has, uint8_t bit, std::optional<uint64_t>* v) {
  if ((has & bit) == 0) return true;
  uint64_t u;
  if (!rd->GetVarint(&u)) return false;
  *v = u;
  return true;
}
bool GetOptionalU32(Reader* rd, uint8_t has, uint8_t bit, std::optional<uint32_t>* v) {
  if ((has & bit) == 0) return true;
  uint32_t u;
  if (!rd->GetU32(&u)) return false;
  *v = u;
  return true;
}

bool GetRule(Reader* rd, LifecycleRule* r) {
  uint8_t flags, has;
  uint64_t n;
  if (!rd->GetString(&r->id) || !rd->GetByte(&flags) || (flags & ~kRuleFlags) != 0 ||
      !rd->GetString(&r->filter.prefix) || !rd->GetCount(&n, 2)) {
    return false;
  }
  r->enabled = (flags & kRuleEnabled) != 0;
  r->legacy_prefix = (flags & kRuleLegacyPrefix) != 0;
  r->expired_object_delete_marker = (flags & kRuleExpiredObjectDeleteMarker) != 0;
  r->filter.tags.resize(n);
  for (auto& [k, v] : r->filter.tags) {
    if (!rd->GetString(&k) || !rd->GetString(&v)) return false;
  }
  if (!rd->GetByte(&has) || (has & ~kHasAll) != 0) return false;
  if (!GetOptionalU64(rd, has, kHasSizeGreaterThan, &r->filter.size_greater_than) ||
      !GetOptionalU64(rd, has, kHasSizeLessThan, &r->filter.size_less_than) ||
      !GetOptionalU32(rd, has, kHasExpirationDays, &r->expiration_days)) {
    return false;
  }
  if ((has & kHasExpirationDate) != 0) {
    int64_t ms;
    if (!rd->GetSigned(&ms)) return false;
    r->expiration_date_ms = ms;
  }
  return GetOptionalU32(rd, has, kHasNoncurrentDays, &r->noncurrent_days) &&
         GetOptionalU32(rd, has, kHasNewerNoncurrentVersions, &r->newer_noncurrent_versions) &&
         GetOptionalU32(rd, has, kHasAbortIncompleteDays, &r->abort_incomplete_days);
}

// CorsRule: which optional fields follow, in this order.
constexpr uint8_t kCorsHasId = 1;
constexpr uint8_t kCorsHasMaxAge = 2;
constexpr uint8_t kCorsHasAll = 3;

void PutStrings(std::string* out, const std::vector<std::string>& v) {
  PutVarint(out, v.size());
  for (const std::string& s : v) PutBytes(out, s);
}

bool GetStrings(Reader* rd, std::vector<std::string>* v) {
  uint64_t n;
  if (!rd->GetCount(&n, 1)) return false;
  v->resize(n);
  for (std::string& s : *v) {
    if (!rd->GetString(&s)) return false;
  }
  return true;
}

void PutCorsRule(std::string* out, const CorsRule& r) {
  PutByte(out, static_cast<uint8_t>((r.id ? kCorsHasId : 0) |
                                    (r.max_age_seconds ? kCorsHasMaxAge : 0)));
  if (r.id) PutBytes(out, *r.id);
  if (r.max_age_seconds) PutVarint(out, *r.max_age_seconds);
  PutStrings(out, r.allowed_methods);
  PutStrings(out, r.allowed_origins);
  PutStrings(out, r.allowed_headers);
  PutStrings(out, r.expose_headers);
}

bool GetCorsRule(Reader* rd, CorsRule* r) {
  uint8_t has;
  if (!rd->GetByte(&has) || (has & ~kCorsHasAll) != 0) return false;
  if ((has & kCorsHasId) != 0 && !rd->GetString(&r->id.emplace())) return false;
  if ((has & kCorsHasMaxAge) != 0 && !rd->GetU32(&r->max_age_seconds.emplace())) return false;
  return GetStrings(rd, &r->allowed_methods) && GetStrings(rd, &r->allowed_origins) &&
         GetStrings(rd, &r->allowed_headers) && GetStrings(rd, &r->expose_headers);
}

}  // namespace

// ---- VersioningState: version, state byte.
std::string EncodeVersioning(VersioningState state) {
  std::string out;
  PutByte(&out, kVersion1);
  PutByte(&out, static_cast<uint8_t>(state));
  return out;
}

Result<VersioningState> DecodeVersioning(std::string_view in) {
  Reader rd(in);
  uint8_t b;
  if (!rd.Version() || !rd.GetByte(&b) || b > static_cast<uint8_t>(VersioningState::kSuspended) ||
      !rd.done()) {
    return Corrupt("versioning");
  }
  return static_cast<VersioningState>(b);
}

// ---- ObjectLockConfig: version, enabled, has-default; then mode, days, years.
std::string EncodeObjectLockConfig(const ObjectLockConfig& c) {
  std::string out;
  PutByte(&out, kVersion1);
  PutByte(&out, c.enabled ? 1 : 0);
  PutByte(&out, c.default_retention ? 1 : 0);
  if (c.default_retention) {
    PutByte(&out, static_cast<uint8_t>(c.default_retention->mode));
    PutVarint(&out, c.default_retention->days);
    PutVarint(&out, c.default_retention->years);
  }
  return out;
}

Result<ObjectLockConfig> DecodeObjectLockConfig(std::string_view in) {
  Reader rd(in);
  ObjectLockConfig c;
  uint8_t enabled, has_default;
  if (!rd.Version() || !rd.GetByte(&enabled) || enabled > 1 || !rd.GetByte(&has_default) ||
      has_default > 1) {
    return Corrupt("object lock");
  }
  c.enabled = enabled == 1;
  if (has_default == 1) {
    DefaultRetention d;
    uint8_t mode;
    if (!rd.GetByte(&mode) || !ModeFromByte(mode, &d.mode) || !rd.GetU32(&d.days) ||
        !rd.GetU32(&d.years)) {
      return Corrupt("object lock");
    }
    c.default_retention = d;
  }
  if (!rd.done()) return Corrupt("object lock");
  return c;
}

// ---- LifecycleConfig: version, rule count, rules.
std::string EncodeLifecycleConfig(const LifecycleConfig& c) {
  std::string out;
  PutByte(&out, kVersion1);
  PutVarint(&out, c.rules.size());
  for (const LifecycleRule& r : c.rules) PutRule(&out, r);
  return out;
}

Result<LifecycleConfig> DecodeLifecycleConfig(std::string_view in) {
  Reader rd(in);
  LifecycleConfig c;
  uint64_t n;
  // A rule is at least 5 bytes: id length, flags, prefix length, tag count, presence byte.
  if (!rd.Version() || !rd.GetCount(&n, 5)) return Corrupt("lifecycle");
  c.rules.resize(n);
  for (LifecycleRule& r : c.rules) {
    if (!GetRule(&rd, &r)) return Corrupt("lifecycle");
  }
  if (!rd.done()) return Corrupt("lifecycle");
  return c;
}

// ---- CorsConfig: version, rule count, rules (presence byte, id, max age, then the method,
// origin, allowed-header and expose-header lists).
std::string EncodeCorsConfig(const CorsConfig& c) {
  std::string out;
  PutByte(&out, kVersion1);
  PutVarint(&out, c.rules.size());
  for (const CorsRule& r : c.rules) PutCorsRule(&out, r);
  return out;
}

Result<CorsConfig> DecodeCorsConfig(std::string_view in) {
  Reader rd(in);
  CorsConfig c;
  uint64_t n;
  // A rule is at least 5 bytes: the presence byte and four list counts.
  if (!rd.Version() || !rd.GetCount(&n, 5)) return Corrupt("cors");
  c.rules.resize(n);
  for (CorsRule& r : c.rules) {
    if (!GetCorsRule(&rd, &r)) return Corrupt("cors");
  }
  if (!rd.done()) return Corrupt("cors");
  return c;
}

// ---- BucketEncryption: version, rule count, rules (algorithm byte, KMS key id, bucket-key
// flag).
std::string EncodeBucketEncryption(const BucketEncryption& c) {
  std::string out;
  PutByte(&out, kVersion1);
  PutVarint(&out, c.rules.size());
  for (const BucketEncryptionRule& r : c.rules) {
    PutByte(&out, static_cast<uint8_t>(r.algorithm));
    PutBytes(&out, r.kms_master_key_id);
    PutBool(&out, r.bucket_key_enabled);
  }
  return out;
}

Result<BucketEncryption> DecodeBucketEncryption(std::string_view in) {
  Reader rd(in);
  BucketEncryption c;
  uint64_t n;
  // A rule is 3 bytes at least: algorithm, key id length, flag.
  if (!rd.Version() || !rd.GetCount(&n, 3)) return Corrupt("bucket encryption");
  c.rules.resize(n);
  for (BucketEncryptionRule& r : c.rules) {
    uint8_t algorithm;
    if (!rd.GetByte(&algorithm) || algorithm < static_cast<uint8_t>(SseAlgorithm::kAes256) ||
        algorithm > static_cast<uint8_t>(SseAlgorithm::kAwsKmsDsse) ||
        !rd.GetString(&r.kms_master_key_id) || !rd.GetBool(&r.bucket_key_enabled)) {
      return Corrupt("bucket encryption");
    }
    r.algorithm = static_cast<SseAlgorithm>(algorithm);
  }
  if (!rd.done()) return Corrupt("bucket encryption");
  return c;
}

// ---- ObjectLockState: version, mode, retain-until, legal hold.
std::string EncodeObjectLockState(const ObjectLockState& s) {
  std::string out;
  PutByte(&out, kVersion1);
  PutByte(&out, static_cast<uint8_t>(s.retention.mode));
  PutSigned(&out, s.retention.retain_until_ms);
  PutByte(&out, static_cast<uint8_t>(s.legal_hold));
  return out;
}

Result<ObjectLockState> DecodeObjectLockState(std::string_view in) {
  Reader rd(in);
  ObjectLockState s;
  uint8_t mode, hold;
  if (!rd.Version() || !rd.GetByte(&mode) || !ModeFromByte(mode, &s.retention.mode) ||
      !rd.GetSigned(&s.retention.retain_until_ms) || !rd.GetByte(&hold) ||
      hold > static_cast<uint8_t>(LegalHold::kOn) || !rd.done()) {
    return Corrupt("object lock state");
  }
  s.legal_hold = static_cast<LegalHold>(hold);
  return s;
}

}  // namespace cubby::storage::codec
