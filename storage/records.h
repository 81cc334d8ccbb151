// The records storage keeps. Plain values; encoding lives in codec*.cc and is private to storage.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "storage/access_records.h"
#include "storage/bucket_config.h"
#include "storage/secret.h"

namespace cubby::storage {

// Read and write rights, as bits: kReadWrite == kReadOnly | kWriteOnly.
// Used for anonymous access to a bucket and for an access key's grant on a bucket.
enum class AccessMode : uint8_t { kNone = 0, kReadOnly = 1, kWriteOnly = 2, kReadWrite = 3 };
inline bool CanRead(AccessMode m) { return (static_cast<uint8_t>(m) & 1) != 0; }
inline bool CanWrite(AccessMode m) { return (static_cast<uint8_t>(m) & 2) != 0; }

// A bucket's quota: limits on BucketStats (current versions' bytes and count). No
// value: no limit on that figure. Set by the root user through the admin API or a COSI
// BucketClass; enforced by s3api before a write is stored.
struct BucketQuota {
  std::optional<uint64_t> bytes;
  std::optional<uint64_t> objects;
  bool operator==(const BucketQuota&) const = default;
};

struct BucketRecord {
  std::string name;
  int64_t created_ms = 0;                 // Unix epoch milliseconds
  AccessMode anonymous = AccessMode::kNone;  // kNone == private
  bool force_delete = false;              // COSI forceDelete parameter
  bool created_by_cosi = false;
  std::map<std::string, std::string> cosi_parameters;  // effective parameters of the COSI create
  // Access control (format 2). Stored as given; what they mean lives in iam/.
  std::string owner_id;  // the owning user's canonical id; set for every bucket from format 2 on
  AclRecord acl;         // the bucket's ACL (owner FULL_CONTROL at least, once set)
  ObjectOwnership object_ownership = ObjectOwnership::kObjectWriter;
  PublicAccessBlock public_access_block;
  std::string policy;  // the bucket policy document as given; empty: none
  // Versioning (format 3). Store::UpdateBucket keeps the stored state: change it with
  // Store::SetBucketVersioning only.
  VersioningState versioning = VersioningState::kUnversioned;
  ObjectLockConfig object_lock;  // stored as given
  // Lifecycle rules (PutBucketLifecycleConfiguration), stored as given; no rules: none set.
  LifecycleConfig lifecycle;
  // Bucket tags (PutBucketTagging): key, value, in the order given; empty: none set. Stored as
  // given; S3's limits (50 tags, unique keys, lengths) are checked by callers.
  std::vector<std::pair<std::string, std::string>> tags;
  // CORS rules (PutBucketCors), stored as given; no rules: none set.
  CorsConfig cors;
  // Default encryption (PutBucketEncryption), stored as given; no rules: none set.
  BucketEncryption encryption;
  BucketQuota quota;  // bucket record format 8
};

// One run of object bytes, `size` in total: with chunk_size > 0 the chunks of `data_id` in the
// data family (each chunk_size bytes but the last); with chunk_size == 0 the file of `data_id`
// (see blob_files.h). data_id 0: an empty run.
struct DataSegment {
  uint64_t data_id = 0;
  uint64_t size = 0;
  uint32_t chunk_size = 0;
  bool operator==(const DataSegment&) const = default;
};

// Server-side encryption. The numbers are stored: never renumber.
enum class SseMode : uint8_t { kNone = 0, kSseS3 = 1, kSseC = 2, kSseKms = 3 };

// How an object version's bytes are sealed: what storage keeps for s3api (crypt/ does the
// sealing; storage sees only opaque strings). Stored as given.
struct EncryptionRecord {
  SseMode mode = SseMode::kNone;
  // Single-part objects: the data key, wrapped (SSE-S3: under the server's SSE-S3 root key;
  // SSE-KMS: by the KMS key; SSE-C: under the customer's key). Empty for multipart objects.
  std::string wrapped_key;
  // Multipart objects: each part's wrapped data key, parallel to `segments`, and the upload the
  // parts were sealed in (their contexts name it). Empty otherwise.
  std::vector<std::string> part_keys;
  std::string upload_id;
  // Single-part objects: the bytes stored (sealed), set by storage on commit; ObjectMeta::size
  // is the plaintext size. Multipart objects: 0 (the segments say).
  uint64_t stored_size = 0;
  std::string kms_key_arn;         // SSE-KMS: the key's ARN
  std::string kms_context;         // SSE-KMS: x-amz-server-side-encryption-context as given
  bool bucket_key_enabled = false;  // SSE-KMS: x-amz-server-side-encryption-bucket-key-enabled
  std::string customer_key_check;  // SSE-C: a salted HMAC of the customer key (never the key)
  bool operator==(const EncryptionRecord&) const = default;
};

struct ObjectMeta {
  // The object's size as clients see it (the plaintext size of an encrypted object).
  uint64_t size = 0;
  std::string etag;               // without quotes: md5 hex, or "<hex>-<parts>" for multipart
  int64_t last_modified_ms = 0;   // Unix epoch milliseconds
  std::string content_type;
  std::string content_encoding;
  std::string content_disposition;
  std::string content_language;
  std::string cache_control;
  std::string expires;            // as the client sent it (an HTTP date)
  std::vector<std::pair<std::string, std::string>> user_meta;  // "x-amz-meta-" stripped, name lowercase
  std::map<std::string, std::string> checksums;                // e.g. "CRC32" -> base64 value
  std::vector<uint64_t> part_sizes;              // multipart objects: size of each part, in order
  // Multipart objects with a checksum: each part's checksum (base64, in the algorithm of the
  // object's one `checksums` entry), parallel to part_sizes; empty: none kept (objects
  // completed before they were kept, or without a checksum). GetObjectAttributes' ObjectParts
  // and GET/HEAD ?partNumber with x-amz-checksum-mode report them. The object checksum's type
  // needs no field: a COMPOSITE value ends in "-<parts>", a FULL_OBJECT one never does.
  std::vector<std::string> part_checksums;
  // x-amz-storage-class as given (one of AWS's names; every class is stored alike); empty:
  // STANDARD (what AWS reports for an object written without one).
  std::string storage_class;

  // Where the bytes are. Set by storage on commit; callers leave them alone.
  uint64_t data_id = 0;           // 0: the bytes are inline_data
  uint32_t chunk_size = 0;        // as in DataSegment: > 0 chunks, 0 one file
  std::string inline_data;
  // Multipart objects: the parts' data in order (the object is their concatenation); then
  // data_id == 0 and inline_data is empty.
  std::vector<DataSegment> segments;

  // Access control (format 2). Empty owner_id: the object was written before users existed, and
  // the bucket's owner owns it. An empty acl (no owner, no grants): none set.
  std::string owner_id;
  AclRecord acl;

  // Versioning (format 3). Set by storage on commit; callers leave them alone.
  // version_id: the version's opaque id (32 lowercase hex digits); empty: the "null" version
  // (every object of an unversioned bucket, every write of a suspended one, and objects
  // written before versioning existed).
  std::string version_id;
  // The version's place among the versions of its key (larger: newer); 0 for objects written
  // while their bucket was unversioned. Storage's ordering, not for clients.
  uint64_t version_seq = 0;
  // Object lock: the version's retention and legal hold, stored as given (not enforced yet).
  ObjectLockState lock;
  // Object tags (x-amz-tagging, PutObjectTagging): key, value, in the order given; empty: none.
  // Stored as given; S3's limits (10 tags, unique keys, lengths) are checked by callers.
  // Store::PutObjectTags changes them on a stored version in place.
  std::vector<std::pair<std::string, std::string>> tags;
  // Server-side encryption (format 3, object record version 7). mode kNone: stored in clear.
  // Callers set everything but stored_size on a write; SetDataOf leaves it alone and
  // Store::UpdateObjectMeta keeps the stored version's.
  EncryptionRecord encryption;

  bool sealed() const { return encryption.mode != SseMode::kNone; }
  // The bytes the data location holds: `size` for plain objects, the sealed size for encrypted
  // single-part objects (multipart objects: the sum of `segments`).
  uint64_t StoredSize() const { return sealed() ? encryption.stored_size : size; }
};

// An access key's status (IAM's Active / Inactive). An Inactive key does not authenticate.
// The numbers are stored: never renumber.
enum class KeyStatus : uint8_t { kActive = 0, kInactive = 1 };

struct AccessKeyRecord {
  std::string access_key_id;
  SecretKey secret;
  bool all_buckets = false;                  // the root key: every bucket, every right, admin ops
  std::map<std::string, AccessMode> grants;  // bucket name -> rights (keys issued by COSI: one entry)
  std::string grant_name;                    // COSI BucketAccess name ("ba-<uid>"); empty for root
  int64_t created_ms = 0;
  std::string user_id;  // the owning user's canonical id; empty: none
                        // (only keys written before format 2)
  KeyStatus status = KeyStatus::kActive;
};

// A user (IAM's model): https://docs.aws.amazon.com/IAM/latest/APIReference/API_User.html
// Its ARN is not stored: UserArn(account id, name) in storage/users.h.
struct UserRecord {
  std::string user_id;  // canonical id: 64 lowercase hex characters, random, never reused
  std::string name;     // unique, compared case-insensitively (ValidateUserName)
  std::string path = "/";
  std::string display_name;  // for ACL owner elements; defaults to the name
  std::string email;         // optional; unique (case-insensitively) when set
  int64_t created_ms = 0;    // Unix epoch milliseconds
  std::vector<std::pair<std::string, std::string>> tags;  // key -> value, in the order added
  // Inline policies: name -> document as given (PutUserPolicy). Parsing and validation belong
  // to iam/ (the policy language); storage keeps the text.
  std::map<std::string, std::string> policies;
};

}  // namespace cubby::storage
