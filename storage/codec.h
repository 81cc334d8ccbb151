// Binary encoding of storage records and RocksDB keys. Private to storage/.
//
// Records: one version byte, then fields in a fixed order. Integers are LEB128 varints (signed
// ones zigzag-encoded), strings are varint-length-prefixed bytes, maps and lists are a varint
// count followed by their elements. Decoding is strict: an unknown version, a truncated field,
// an out-of-range enum or trailing bytes yield kCorruption.
//
// Keys (per column family):
//   buckets:  <bucket>                                  -> BucketRecord
//   objects:  <bucket> 0x00 <key>                       -> ObjectMeta (bucket names hold no 0x00,
//                                                          so keys of a bucket sort in byte order)
//   versions: <bucket> 0x00 <escaped key> 0x00 0x01 'v' <~seq BE64>
//                                                       -> StoredVersion (noncurrent versions
//                                                          and delete markers; newest first)
//             <bucket> 0x00 <escaped key> 0x00 0x01 'n'  -> seq BE64 of the null version when it
//                                                          is in this family (format 3)
//             (escaped key: each 0x00 byte of the key followed by 0xff, so the keys of a
//             bucket sort as their object keys do, and one key's entries are contiguous)
//   data:     <data_id BE64> <chunk index BE64>         -> chunk bytes
//   uploads:  'p' <data_id BE64>                        -> "" (in-flight chunks, old stores)
//             'f' <data_id BE64>                        -> "" (the data file of id is owned by a
//                                                          committed object or part record)
//             'u' <bucket> 0x00 <key> 0x00 <upload_id>  -> UploadRecord (upload ids have a fixed
//                                                          length and sort by initiation time)
//             'q' <upload_id> <part_number BE32>        -> PartRecord
//             'c' <upload_id>                           -> CompletedRecord (retried completes)
//   keys:     'k' <access_key_id>                       -> AccessKeyRecord
//             'g' <bucket> 0x00 <grant_name>            -> access_key_id (COSI grant index)
//             'u' <user_id>                             -> UserRecord (format 2)
//             'n' <folded user name>                    -> user_id (names are unique folded)
//             'e' <folded e-mail address>               -> user_id (addresses too, when set)
//             'o' <user_id> 0x00 <access_key_id>        -> "" (the keys a user owns)
//   default:  <setting name>                            -> value
//             0x00 "stats" 0x00 <bucket>                -> BucketStats as merged int64 deltas
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "storage/records.h"
#include "storage/status.h"
#include "storage/store.h"

namespace cubby::storage::codec {

// Version 1 (before format 2) decodes with the access-control fields at their defaults.
// Version 2 when versioning and object lock are at their defaults (as before format 3, and it
// decodes so), version 3 (version 2, then the versioning state and object-lock config)
// otherwise; version 4 (version 3, then the lifecycle configuration) when it has lifecycle
// rules; version 5 (version 4, its configuration possibly empty, then the tags) when it has
// tags; version 6 adds the CORS configuration, version 7 the default encryption, version 8
// the quota. Each version is written only when its newest field is set; older
// versions decode without the newer fields (no quota: no limit).
std::string EncodeBucket(const BucketRecord& record);
Result<BucketRecord> DecodeBucket(std::string_view in);

// Versions 1 (one run of data) and 2 (segments) when owner_id and acl are empty, as before
// format 2; version 3 (segments, possibly none, then owner_id and acl) when the versioning
// fields are empty (version_id, version_seq 0, no lock state); version 4 (version 3, then
// version_id, version_seq and lock) otherwise; version 5 (version 4, then the tags) when it has
// tags; version 6 (version 5, tags possibly empty, then the storage class and the parts'
// checksums) when one of these is set. Versions 1-3 decode as the null version, seq 0;
// versions 1-4 without tags; versions 1-5 with neither storage class nor parts' checksums.
std::string EncodeObjectMeta(const ObjectMeta& meta);
Result<ObjectMeta> DecodeObjectMeta(std::string_view in);

// The fields a listing needs, decoded without copying the rest (e.g. inline data).
struct ObjectSummary {
  uint64_t size = 0;
  std::string etag;
  int64_t last_modified_ms = 0;
  std::string storage_class;  // as in ObjectMeta: empty is STANDARD
};
Result<ObjectSummary> DecodeObjectSummary(std::string_view in);

std::string EncodeUpload(const UploadRecord& record);
Result<UploadRecord> DecodeUpload(std::string_view in);
std::string EncodePart(const PartRecord& record);
Result<PartRecord> DecodePart(std::string_view in);

// What a completed upload produced, for answering a retried complete.
struct CompletedRecord {
  std::string bucket;
  std::string key;
  std::string etag;
  int64_t last_modified_ms = 0;  // of the object the complete produced
  int64_t completed_ms = 0;
};
std::string EncodeCompleted(const CompletedRecord& record);
Result<CompletedRecord> DecodeCompleted(std::string_view in);

// Bucket stats are kept as a merge of (objects, bytes) deltas: two little-endian int64s.
std::string EncodeStatsDelta(int64_t objects, int64_t bytes);
bool DecodeStatsDelta(std::string_view in, int64_t* objects, int64_t* bytes);

// Version 1 (before format 2) decodes with user_id empty and status kActive.
std::string EncodeAccessKey(const AccessKeyRecord& record);
Result<AccessKeyRecord> DecodeAccessKey(std::string_view in);

std::string EncodeUser(const UserRecord& record);
Result<UserRecord> DecodeUser(std::string_view in);

// One entry of the versions family: a noncurrent version or a delete marker.
struct StoredVersion {
  ObjectMeta meta;  // a delete marker's: version_id, version_seq, last_modified_ms, owner_id
  bool delete_marker = false;
};
std::string EncodeVersion(const ObjectMeta& meta, bool delete_marker);
Result<StoredVersion> DecodeVersion(std::string_view in);
std::string EncodeSeq(uint64_t seq);  // the null-version pointer's value
bool DecodeSeq(std::string_view in, uint64_t* seq);

// Version ids: 32 lowercase hex digits, the sequence (16) then 64 random bits (16), so an id
// names its versions-family key in one step. ParseVersionId: false for anything else,
// including a sequence of 0.
inline constexpr size_t kVersionIdLength = 32;
std::string FormatVersionId(uint64_t seq, uint64_t random);
bool ParseVersionId(std::string_view id, uint64_t* seq);

// ---- Keys.
inline constexpr char kVersionTag = 'v';
inline constexpr char kNullVersionTag = 'n';
// The versions-family keys of (bucket, key): every one starts with VersionKeyPrefix; the null
// pointer sorts before the versions, which sort newest first.
std::string VersionKeyPrefix(std::string_view bucket, std::string_view key);
// The start of the versions-family keys of every object key starting with `name_prefix` (they
// all start with it, and nothing else does).
std::string VersionNamePrefix(std::string_view bucket, std::string_view name_prefix);
std::string VersionKey(std::string_view bucket, std::string_view key, uint64_t seq);
std::string NullVersionKey(std::string_view bucket, std::string_view key);
// Splits a versions-family key of `bucket`: the object key, the tag and (for kVersionTag) the
// sequence. False if malformed.
bool DecodeVersionKey(std::string_view bucket, std::string_view encoded, std::string* key,
                      char* tag, uint64_t* seq);
std::string ObjectKey(std::string_view bucket, std::string_view key);
std::string ObjectPrefix(std::string_view bucket);  // <bucket> 0x00
std::string ObjectPrefixEnd(std::string_view bucket);  // <bucket> 0x01: exclusive end of the bucket

std::string DataKey(uint64_t data_id, uint64_t chunk);
// The data id of a data key; false if `key` is not 16 bytes.
bool DecodeDataKey(std::string_view key, uint64_t* data_id, uint64_t* chunk);

std::string MarkerKey(uint64_t data_id);
bool DecodeMarkerKey(std::string_view key, uint64_t* data_id);
inline constexpr char kMarkerTag = 'p';
std::string FileRefKey(uint64_t data_id);
bool DecodeFileRefKey(std::string_view key, uint64_t* data_id);
inline constexpr char kFileRefTag = 'f';
std::string UploadPrefix(std::string_view bucket);
std::string UploadPrefixEnd(std::string_view bucket);

inline constexpr char kPartTag = 'q';
inline constexpr char kCompletedTag = 'c';
inline constexpr size_t kUploadIdLength = 44;  // 16 hex digits of time stamp + 28 random
std::string UploadKey(std::string_view bucket, std::string_view key, std::string_view upload_id);
// Splits an upload key of `bucket` into key and upload id; false if malformed.
bool DecodeUploadKeyName(std::string_view bucket, std::string_view encoded, std::string* key,
                         std::string* upload_id);
std::string PartKey(std::string_view upload_id, uint32_t part_number);
std::string PartPrefix(std::string_view upload_id);
std::string PartPrefixEnd(std::string_view upload_id);
std::string CompletedKey(std::string_view upload_id);
std::string StatsKey(std::string_view bucket);

std::string AccessKeyKey(std::string_view access_key_id);
std::string GrantIndexKey(std::string_view bucket, std::string_view grant_name);
std::string GrantIndexPrefix(std::string_view bucket);
std::string GrantIndexPrefixEnd(std::string_view bucket);

inline constexpr char kUserTag = 'u';
inline constexpr char kUserNameTag = 'n';
std::string UserKey(std::string_view user_id);
std::string UserNameKey(std::string_view folded_name);
std::string UserEmailKey(std::string_view folded_email);
std::string UserAccessKeyKey(std::string_view user_id, std::string_view access_key_id);
std::string UserAccessKeyPrefix(std::string_view user_id);
std::string UserAccessKeyPrefixEnd(std::string_view user_id);
// The access key id of a UserAccessKeyKey of `user_id`.
std::string_view UserAccessKeyId(std::string_view user_id, std::string_view encoded);

// The smallest string greater than every string starting with `prefix`; empty if there is none
// (prefix empty or all 0xff).
std::string PrefixSuccessor(std::string_view prefix);

}  // namespace cubby::storage::codec
