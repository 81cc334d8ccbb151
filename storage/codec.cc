// The records of storage/codec.h (buckets, objects, multipart uploads and parts, access keys,
// users) and their version history; the key layout is codec_keys.cc's, the bucket
// configurations' values bucket_config_codec.cc's.
#include "storage/codec.h"

#include <utility>

#include "storage/bucket_config_codec.h"
#include "storage/codec_internal.h"

namespace cubby::storage::codec {
namespace {

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

bool MetaVersion(RecordReader* rd, uint8_t* version) {
  return rd->GetByte(version) && *version >= kVersion1 && *version <= kVersionSealed;
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
  RecordReader rd(in);
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
  RecordReader rd(in);
  ObjectSummary s;
  uint8_t version;
  if (!MetaVersion(&rd, &version) || !rd.GetVarint(&s.size) || !rd.GetString(&s.etag) ||
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

namespace {

// The fields of version 1, which every version starts with.
bool GetBaseFields(RecordReader* rd, ObjectMeta* m) {
  uint64_t n;
  if (!rd->GetVarint(&m->size) || !rd->GetString(&m->etag) ||
      !rd->GetSigned(&m->last_modified_ms) || !rd->GetString(&m->content_type) ||
      !rd->GetString(&m->content_encoding) || !rd->GetString(&m->content_disposition) ||
      !rd->GetString(&m->content_language) || !rd->GetString(&m->cache_control) ||
      !rd->GetString(&m->expires) || !rd->GetCount(&n, 2)) {
    return false;
  }
  m->user_meta.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    std::string k, v;
    if (!rd->GetString(&k) || !rd->GetString(&v)) return false;
    m->user_meta.emplace_back(std::move(k), std::move(v));
  }
  if (!rd->GetStringMap(&m->checksums) || !rd->GetCount(&n, 1)) return false;
  m->part_sizes.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t p;
    if (!rd->GetVarint(&p)) return false;
    m->part_sizes.push_back(p);
  }
  return rd->GetVarint(&m->data_id) && rd->GetU32(&m->chunk_size) && rd->GetString(&m->inline_data);
}

// The fields versions 2 to 6 append, each from the version that added it.
bool GetLaterFields(RecordReader* rd, uint8_t version, ObjectMeta* m) {
  uint64_t n;
  if (version != kVersion1) {
    // Version 2 is only written for multipart objects: at least one segment. Version 3 may
    // have none.
    if (!rd->GetCount(&n, 3) || (n == 0 && version == kVersionSegments)) return false;
    m->segments.resize(n);
    for (DataSegment& seg : m->segments) {
      if (!rd->GetSegment(&seg)) return false;
    }
  }
  if (version >= kVersionOwner && (!rd->GetString(&m->owner_id) || !rd->GetAcl(&m->acl))) {
    return false;
  }
  if (version >= kVersionVersioned) {
    std::string lock;
    if (!rd->GetString(&m->version_id) || !rd->GetVarint(&m->version_seq) ||
        !rd->GetString(&lock)) {
      return false;
    }
    Result<ObjectLockState> state = DecodeObjectLockState(lock);
    if (!state.ok()) return false;
    m->lock = std::move(state).value();
  }
  // A version-5 record is written only with tags: none is corruption. Version 6 carries
  // them possibly empty.
  if (version >= kVersionTagged &&
      (!rd->GetPairs(&m->tags) || (version == kVersionTagged && m->tags.empty()))) {
    return false;
  }
  if (version >= kVersionClassed) {
    // Written only with a storage class or parts' checksums; these, when kept, are one per part.
    if (!rd->GetString(&m->storage_class) || !rd->GetCount(&n, 1)) return false;
    m->part_checksums.resize(n);
    for (std::string& c : m->part_checksums) {
      if (!rd->GetString(&c)) return false;
    }
    if ((version == kVersionClassed && m->storage_class.empty() && m->part_checksums.empty()) ||
        (!m->part_checksums.empty() && m->part_checksums.size() != m->part_sizes.size())) {
      return false;
    }
  }
  return true;
}

// Version 7's encryption record.
bool GetEncryption(RecordReader* rd, EncryptionRecord* e) {
  uint8_t mode = 0, bucket_key = 0;
  uint64_t n;
  if (!rd->GetByte(&mode) || mode < 1 || mode > 3 || !rd->GetString(&e->wrapped_key) ||
      !rd->GetCount(&n, 1)) {
    return false;
  }
  e->mode = static_cast<SseMode>(mode);
  e->part_keys.resize(n);
  for (std::string& k : e->part_keys) {
    if (!rd->GetString(&k)) return false;
  }
  if (!rd->GetString(&e->upload_id) || !rd->GetVarint(&e->stored_size) ||
      !rd->GetString(&e->kms_key_arn) || !rd->GetString(&e->kms_context) ||
      !rd->GetByte(&bucket_key) || bucket_key > 1 || !rd->GetString(&e->customer_key_check)) {
    return false;
  }
  e->bucket_key_enabled = bucket_key == 1;
  return true;
}

// The invariants the object reader relies on: inline bytes match the size; data elsewhere
// (chunks or a file) has no inline bytes; segments add up to the size and are never inline.
bool DataLayoutValid(const ObjectMeta& m) {
  if (m.segments.empty()) {
    return m.data_id == 0 ? m.inline_data.size() == m.StoredSize() && m.chunk_size == 0
                          : m.inline_data.empty();
  }
  uint64_t total = 0;
  for (const DataSegment& seg : m.segments) {
    if (!SegmentValid(seg)) return false;
    total += seg.size;
  }
  // A sealed multipart object keeps one wrapped key per part; its parts' plaintext sizes add up
  // to the size, their stored sizes (the segments) to more.
  const bool sizes_valid =
      m.sealed() ? m.encryption.part_keys.size() == m.segments.size() && total >= m.size
                 : total == m.size;
  return sizes_valid && m.data_id == 0 && m.inline_data.empty();
}

}  // namespace

Result<ObjectMeta> DecodeObjectMeta(std::string_view in) {
  RecordReader rd(in);
  ObjectMeta m;
  uint8_t version;
  if (!MetaVersion(&rd, &version) || !GetBaseFields(&rd, &m) || !GetLaterFields(&rd, version, &m) ||
      (version >= kVersionSealed && !GetEncryption(&rd, &m.encryption)) || !rd.done() ||
      !DataLayoutValid(m)) {
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
  RecordReader rd(in);
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
  RecordReader rd(in);
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
  RecordReader rd(in);
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
  RecordReader rd(in);
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
  RecordReader rd(in);
  UserRecord r;
  if (!rd.Version() || !rd.GetString(&r.user_id) || !rd.GetString(&r.name) ||
      !rd.GetString(&r.path) || !rd.GetString(&r.display_name) || !rd.GetString(&r.email) ||
      !rd.GetSigned(&r.created_ms) || !rd.GetPairs(&r.tags) || !rd.GetStringMap(&r.policies) ||
      !rd.done()) {
    return Corrupt("user");
  }
  return r;
}

}  // namespace cubby::storage::codec
