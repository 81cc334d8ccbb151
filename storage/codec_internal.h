// storage/'s private helpers for the record codecs (codec.cc, codec_keys.cc,
// bucket_config_codec.cc) on top of codec_primitives.h: the reader of records' shared field
// types (access modes, ACLs, string maps and pairs, data segments, bounded counts), their
// writers, and the fixed-width integers of the key layout.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/codec.h"
#include "storage/codec_primitives.h"

namespace cubby::storage::codec {

// The first version of every record.
inline constexpr uint8_t kVersion1 = 1;
// BucketRecord, AccessKeyRecord: version 1 followed by the fields of format 2.
inline constexpr uint8_t kVersion2 = 2;

// ---- Writer helpers (the primitives are codec_primitives.h's).
inline void PutStringMap(std::string* out, const std::map<std::string, std::string>& m) {
  PutVarint(out, m.size());
  for (const auto& [k, v] : m) {
    PutBytes(out, k);
    PutBytes(out, v);
  }
}

// ---- RecordReader: every Get* returns false on truncated or malformed input.
class RecordReader : public ByteReader {
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

inline Status Corrupt(const char* what) {
  return Status(Code::kCorruption, std::string("bad ") + what + " record");
}

inline void PutBigEndian64(std::string* out, uint64_t v) {
  for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline uint64_t GetBigEndian64(std::string_view in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(in[i]);
  return v;
}
inline void PutFixed64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline uint64_t GetFixed64(std::string_view in) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(in[i]);
  return v;
}

// Empty segments have no data id and no chunk size. Others are chunks in the data family
// (chunk size set) or one file (chunk size 0).
inline bool SegmentValid(const DataSegment& seg) {
  return seg.data_id != 0 || (seg.size == 0 && seg.chunk_size == 0);
}

inline void PutSegment(std::string* out, const DataSegment& seg) {
  PutVarint(out, seg.data_id);
  PutVarint(out, seg.size);
  PutVarint(out, seg.chunk_size);
}

inline void PutAcl(std::string* out, const AclRecord& acl) {
  PutBytes(out, acl.owner_id);
  PutVarint(out, acl.grants.size());
  for (const AclGrant& g : acl.grants) {
    PutByte(out, static_cast<uint8_t>(g.type));
    PutBytes(out, g.grantee);
    PutByte(out, static_cast<uint8_t>(g.permission));
  }
}

inline void PutPairs(std::string* out,
                     const std::vector<std::pair<std::string, std::string>>& pairs) {
  PutVarint(out, pairs.size());
  for (const auto& [k, v] : pairs) {
    PutBytes(out, k);
    PutBytes(out, v);
  }
}

}  // namespace cubby::storage::codec
