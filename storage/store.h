// Store: cubby's metadata and object data in one RocksDB.
//
// Column families: "buckets", "objects" (the current version of each key), "data", "uploads"
// (multipart uploads and in-flight writes), "keys" (access keys, the COSI grant index, users
// and their indexes), "versions" (noncurrent object versions and delete markers). Only
// storage/ sees rocksdb::.
//
// Versioning (https://docs.aws.amazon.com/AmazonS3/latest/userguide/Versioning.html): a bucket
// is unversioned, Enabled or Suspended (BucketRecord::versioning). In an Enabled bucket every
// write (ObjectWriter::Commit, CompleteUpload) adds a version with a new id and the previous
// one becomes noncurrent; in a Suspended or unversioned one a write makes the "null" version
// (ObjectMeta::version_id empty), replacing any null version, current or not, and releasing
// its data; other versions stay. Objects written before versioning are null versions. A
// version id passed in is kNullVersionId or a 32-character id this store made; anything else
// is kInvalidArgument ("Invalid version id specified"); a well-formed id that names no version
// of the key is kNoSuchVersion. Versions of a key are ordered newest first by a per-key
// clock (max(now in microseconds, the key's newest + 1)), so a wall clock stepping back cannot
// reorder them.
//
// Thread-safety: a Store is safe for concurrent use from any number of threads. Readers and
// writers returned by it are used by one thread at a time. REQUIRES: the Store outlives every
// reader and writer it returned.
//
// Durability: every call that changes metadata returns only after its WriteBatch is in a synced
// WAL (WriteOptions::sync); concurrent callers share syncs through RocksDB's group commit.
// Each multi-key change is one WriteBatch, so a crash leaves the old state or the new one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/capacity.h"
#include "storage/format.h"
#include "storage/kms_records.h"
#include "storage/records.h"
#include "storage/status.h"

namespace cubby::storage {

struct StoreOptions {
  std::string path;                      // data folder; created if missing
  bool sync = true;                      // false only for benchmarks of the unsynced path
  size_t block_cache_bytes = 32 << 20;
  size_t inline_limit = 64 << 10;        // objects up to this size are stored beside their metadata
  uint32_t chunk_size = 1 << 20;         // larger objects are split into chunks of this size
  // Deleted or replaced object data is dropped from disk by compacting the data family; a
  // background thread does that once this many bytes were released since the last time.
  uint64_t reclaim_after_bytes = 256ull << 20;
  // Told about each migration step Open runs on a folder of an older format (format.h).
  std::function<void(const MigrationEvent&)> on_migration = nullptr;
  // Free space kept for deletes (see storage/capacity.h); nullopt: DefaultReserve of the
  // filesystem's size.
  std::optional<uint64_t> reserve_bytes = std::nullopt;
  // Reads the data folder's filesystem figures; null: StatFs (statvfs). Tests inject a fake.
  StatFsFn statfs = nullptr;
  // For tests: asked before each append to a write-ahead log file; true makes that append fail
  // with ENOSPC, as on a full disk. null (always outside tests): appends are not intercepted.
  std::function<bool()> fail_log_append = nullptr;
};

// Preconditions checked atomically with a write.
struct WriteCondition {
  std::optional<std::string> if_match;  // etag (no quotes) the current object must have
  bool if_none_match_any = false;       // the key must not exist ("If-None-Match: *")
};

// Reads one object version. The version is pinned (a RocksDB snapshot) from OpenObject until the
// reader is destroyed: an overwrite or delete meanwhile does not change what it returns.
class ObjectReader {
 public:
  virtual ~ObjectReader() = default;
  virtual const ObjectMeta& meta() const = 0;
  // Positions the next Read at `offset`. REQUIRES: offset <= meta().size.
  virtual Status Seek(uint64_t offset) = 0;
  // Copies up to n bytes from the current position into buf and advances. Returns the count;
  // 0 means end of object. kCorruption / kIOError when the stored data is missing or unreadable.
  virtual Result<size_t> Read(char* buf, size_t n) = 0;

  // Zero-copy path for large objects, whose bytes sit in plain files. When the bytes at the
  // current position are in a file: up to `max` of them as (fd, file offset, length), and the
  // position advances past them, as if Read had returned them. The fd belongs to the reader and
  // stays valid until the next NextFileSpan/Read/Seek call or the reader's destruction; the
  // caller may pread or sendfile from it. nullopt when the next bytes are not in a file (inline
  // or chunked data) or at the end of the object: use Read for those. kCorruption / kIOError
  // when the file is missing or unreadable. REQUIRES: max > 0.
  struct FileSpan {
    int fd = -1;
    uint64_t offset = 0;
    size_t length = 0;
  };
  virtual Result<std::optional<FileSpan>> NextFileSpan(size_t max) {
    (void)max;
    return std::optional<FileSpan>();
  }
};

// Streams a new object into storage. Data is written in chunks as it arrives (memory bounded by
// one chunk); nothing is visible until Commit. Destroying a writer without a successful Commit
// releases everything it wrote. After a crash, leftovers of writers that never committed are
// removed when the Store is next opened.
class ObjectWriter {
 public:
  virtual ~ObjectWriter() = default;
  // kInvalidArgument after Commit; kIOError if writing a chunk failed (the failure sticks).
  virtual Status Append(std::string_view data) = 0;
  virtual uint64_t size() const = 0;  // bytes appended so far
  // Atomically makes the object visible at `key` with `meta` (size and data location are filled
  // in by the writer) and releases the data of the object it replaces. Durable on return.
  // In a versioned bucket the object is a new version (store.h's top): the returned meta's
  // version_id is its id (empty: the null version), and `cond` is checked against the
  // current version (a latest delete marker counts as no object).
  // Errors: kNoSuchBucket (bucket deleted meanwhile), kPreconditionFailed (cond not met; nothing
  // changes; If-Match on a missing key is kPreconditionFailed too), kIOError. At most one
  // Commit per writer: a second one (even after a failed first) is kInvalidArgument.
  virtual Result<ObjectMeta> Commit(std::string_view key, ObjectMeta meta,
                                    const WriteCondition& cond = {}) = 0;
};

// A multipart upload in progress.
struct UploadRecord {
  std::string bucket;
  std::string key;
  std::string upload_id;       // URL-safe; ids of one key sort by initiation time
  int64_t initiated_ms = 0;    // Unix epoch milliseconds
  // What the completed object will carry (content headers, user metadata, checksums...), as
  // given to CreateUpload. Size, etag and data location are meaningless here.
  ObjectMeta meta;
  std::string checksum_algorithm;  // e.g. "CRC32"; empty: none requested
  std::string checksum_type;       // e.g. "COMPOSITE" or "FULL_OBJECT"; empty: none
  // The canonical id of the user who started it (S3's Initiator); empty for uploads started
  // before it was kept.
  std::string initiator_id;
};

// One uploaded part.
struct PartRecord {
  uint32_t part_number = 0;     // 1..10000
  uint64_t size = 0;            // set by storage on commit
  std::string etag;             // without quotes
  int64_t last_modified_ms = 0; // set by storage on commit when 0
  std::map<std::string, std::string> checksums;  // e.g. "CRC32" -> base64 value
  // Where the bytes are. Set by storage on commit; callers leave it alone. data.size is the
  // stored size; `size` the plaintext size (equal unless the part is sealed).
  DataSegment data;
  // A part of an encrypted upload: its data key, wrapped (as EncryptionRecord::wrapped_key);
  // the caller sets it and `size` (the plaintext size) before Commit. Empty: stored in clear.
  std::string wrapped_key;
};

// Streams one part of a multipart upload: like ObjectWriter (chunks written as they arrive,
// memory bounded by one chunk, released on destruction without Commit, cleaned after a crash).
class PartWriter {
 public:
  virtual ~PartWriter() = default;
  // kInvalidArgument after Commit; kIOError if writing a chunk failed (the failure sticks).
  virtual Status Append(std::string_view data) = 0;
  virtual uint64_t size() const = 0;
  // Atomically stores `meta` as part `part_number` of the upload (size, data and, when 0,
  // last_modified_ms are filled in), replacing and releasing a part of that number. Durable on
  // return. Errors: kInvalidArgument (part_number not in 1..10000, or a second Commit),
  // kNoSuchUpload (the upload was completed or aborted meanwhile), kIOError.
  virtual Result<PartRecord> Commit(uint32_t part_number, PartRecord meta) = 0;
};

struct ListUploadsQuery {
  std::string bucket;
  std::string prefix;
  std::string delimiter;         // empty: no grouping
  std::string key_marker;        // exclusive, see upload_id_marker
  std::string upload_id_marker;  // with key_marker: uploads of key_marker after this id too
  size_t max_uploads = 1000;     // uploads + common prefixes per page; 0: empty page
};

struct ListUploadsPage {
  std::vector<UploadRecord> uploads;         // by key, then initiation time
  std::vector<std::string> common_prefixes;  // in byte order, each ends with the delimiter
  bool truncated = false;
  // When truncated: the markers for the next page (next_upload_id_marker empty when the page
  // ended with a common prefix).
  std::string next_key_marker;
  std::string next_upload_id_marker;
};

// Per-bucket figures, kept exact in the same batch as every change (no scan). In a versioned
// bucket they count current versions only (what ListObjects lists), not noncurrent versions
// or delete markers.
struct BucketStats {
  uint64_t objects = 0;
  uint64_t bytes = 0;  // sum of the objects' sizes (not counting uploads in progress)
};

// The version id that names the null version (in requests, markers and S3's headers). In
// ObjectMeta::version_id, ObjectVersion::version_id and DeleteResult::version_id the null
// version's id is the empty string instead.
inline constexpr std::string_view kNullVersionId = "null";

// What a read found when the version it addressed is a delete marker (S3 answers 404 with
// x-amz-delete-marker and x-amz-version-id for the latest version, 405 for a named one).
struct DeleteMarkerInfo {
  bool delete_marker = false;
  std::string version_id;  // the marker's; empty: the null version
};

// What a delete did.
struct DeleteResult {
  // true: a delete marker was made (delete without version id in a versioned bucket) or
  // removed (delete by the version id of a marker).
  bool delete_marker = false;
  // The version made or removed; empty for the null version (and for a plain delete in an
  // unversioned bucket).
  std::string version_id;
};

struct VersionsQuery {
  std::string bucket;
  std::string prefix;
  std::string delimiter;          // empty: no grouping
  std::string key_marker;         // exclusive, see version_id_marker
  std::string version_id_marker;  // with key_marker: versions of key_marker older than this
                                  // one too ("null" names the null version). Requires
                                  // key_marker (kInvalidArgument otherwise)
  size_t max_keys = 1000;         // versions + markers + common prefixes per page; 0: empty page
};

// One entry of ListObjectVersions: a version or a delete marker.
struct ObjectVersion {
  std::string key;
  std::string version_id;  // empty: the null version
  bool is_latest = false;
  bool delete_marker = false;
  int64_t last_modified_ms = 0;
  std::string etag;      // versions only
  uint64_t size = 0;     // versions only
  std::string owner_id;  // empty: the bucket's owner
  std::vector<std::pair<std::string, std::string>> tags;  // versions only (lifecycle filters)
  std::string storage_class;                              // versions only; empty: STANDARD
};

struct VersionsPage {
  std::vector<ObjectVersion> versions;       // by key, then newest first
  std::vector<std::string> common_prefixes;  // in byte order, each ends with the delimiter
  bool truncated = false;
  // When truncated: the markers for the next page. next_version_id_marker is "null" for the
  // null version, empty when the page ended with a common prefix.
  std::string next_key_marker;
  std::string next_version_id_marker;
};

struct ListQuery {
  std::string bucket;
  std::string prefix;
  std::string delimiter;    // empty: no grouping
  std::string start_after;  // exclusive; also used for V1 marker and V2 continuation
  size_t max_keys = 1000;   // objects + common prefixes per page; 0 is allowed (empty page,
                            // truncated == false, as S3 answers max-keys=0)
};

struct ListEntry {
  std::string key;
  uint64_t size = 0;
  std::string etag;
  int64_t last_modified_ms = 0;
  std::string storage_class;  // empty: STANDARD
};

struct ListPage {
  std::vector<ListEntry> objects;            // in UTF-8 binary (byte) order
  std::vector<std::string> common_prefixes;  // in byte order, each ends with the delimiter
  bool truncated = false;
  // The last key or common prefix in this page: pass it as start_after for the next page.
  // A common prefix passed as start_after skips every key under it; more generally a common
  // prefix that sorts <= start_after is never returned.
  std::string last;
};

// A user tag: key, value.
using UserTag = std::pair<std::string, std::string>;

// One page of Store::ListUsers.
struct UsersPage {
  std::vector<UserRecord> users;  // by folded name
  bool truncated = false;
  std::string next_marker;  // when truncated: the marker of the next page
};

// How far a Store::Backup is. Totals are known once the checkpoint is taken (the first call).
struct BackupProgress {
  uint64_t bytes_done = 0;
  uint64_t bytes_total = 0;
  uint64_t files_done = 0;
  uint64_t files_total = 0;
  uint64_t files_copied = 0;  // of files_done: copied because a hard link was not possible
};
// Called by Store::Backup on its own thread; returning false cancels the backup.
using BackupProgressFn = std::function<bool(const BackupProgress&)>;

class Store {
 public:
  // Opens (creating if needed) the store at options.path, migrates a folder of an older format
  // to kFormatVersion (format.h; each step reported to options.on_migration) and removes
  // leftovers of writes that never committed. kFormatTooNew, with nothing in the folder
  // changed, when a newer release wrote it: "data folder format N is newer than this cubby
  // supports (M); use a newer release". kIOError on failure: "another cubby process is using
  // this data folder ..." when another process holds the folder's lock, "... already open in
  // this process" for a second open here, RocksDB's message otherwise. kCorruption when the
  // format marker is unreadable.
  static Result<std::unique_ptr<Store>> Open(const StoreOptions& options);
  virtual ~Store() = default;

  // A number that changes whenever something access control reads changes through this
  // Store: a bucket (created, deleted or its record updated), a user, an access key or a COSI
  // grant. While two calls answer the same number none of that changed in between, so a caller
  // may keep what it derived from those records (iam::Authorizer does): read the number before
  // the records. Thread-safe and cheap (an atomic load).
  virtual uint64_t AccessGeneration() = 0;

  // ---- Buckets. Names are validated by callers (S3 naming rules live in s3api/cosi).
  // kBucketAlreadyExists if the name is taken.
  virtual Status CreateBucket(const BucketRecord& bucket) = 0;
  // Creates `candidate` unless a bucket of that name exists; returns the stored record either
  // way. `*created` tells which. Atomic with respect to concurrent calls. The record is stored
  // as given, its versioning state and object lock included, in one write (a bucket created
  // with object lock is versioning-enabled from its first moment; BucketVersioning tells it).
  virtual Result<BucketRecord> GetOrCreateBucket(const BucketRecord& candidate, bool* created) = 0;
  virtual Result<BucketRecord> GetBucket(std::string_view name) = 0;  // kNoSuchBucket
  // Reads bucket `name`'s record, lets `change` edit it and writes it back, as one step: no
  // other change of the record comes between the read and the write, so two concurrent
  // read-modify-writes (an ACL and a policy, say) both count. `change` runs while the bucket is
  // locked: it must be quick and must not change buckets itself. When it returns an error,
  // nothing is written and UpdateBucket returns that error. The name and the versioning state
  // cannot change (SetBucketVersioning changes the latter). kNoSuchBucket.
  using BucketChange = std::function<Status(BucketRecord*)>;
  virtual Status UpdateBucket(std::string_view name, const BucketChange& change) = 0;
  virtual Result<std::vector<BucketRecord>> ListBuckets() = 0;       // by name
  // Deletes the bucket and every access-key grant on it (keys issued for it are deleted; they
  // stop working at once). Without `force`: kBucketNotEmpty if it holds objects, noncurrent
  // versions, delete markers or multipart uploads, and nothing changes. With `force`: all of
  // them and their data go too, unless a version is under retention (either mode) or a legal
  // hold: then kObjectLocked and nothing changes. kNoSuchBucket if absent.
  virtual Status DeleteBucket(std::string_view name, bool force) = 0;
  // True when the bucket holds no objects, versions, delete markers or multipart uploads.
  // kNoSuchBucket.
  virtual Result<bool> BucketIsEmpty(std::string_view name) = 0;

  // Sets the bucket's versioning state (PutBucketVersioning): kEnabled or kSuspended. Versions
  // already stored stay as they are. kInvalidArgument for kUnversioned on a bucket that is not
  // unversioned (a bucket never goes back; setting kUnversioned on an unversioned bucket is
  // OK and changes nothing), and for any change of a bucket with object lock enabled (it stays
  // kEnabled), kNoSuchBucket. Durable on return; writes that start after it see
  // the new state.
  virtual Status SetBucketVersioning(std::string_view bucket, VersioningState state) = 0;
  // The bucket's versioning state as SetBucketVersioning last left it, without a read (kept in
  // memory: cheap enough for every request); kUnversioned for a bucket that does not exist.
  virtual VersioningState BucketVersioning(std::string_view bucket) = 0;

  // ---- Objects. Without a version id these address the current version; in a versioned
  // bucket whose latest version of the key is a delete marker they answer kNoSuchKey (the
  // *Version calls below tell the marker).
  virtual Result<ObjectMeta> HeadObject(std::string_view bucket, std::string_view key) = 0;
  // kNoSuchBucket, kNoSuchKey.
  virtual Result<std::unique_ptr<ObjectReader>> OpenObject(std::string_view bucket,
                                                           std::string_view key) = 0;
  // kNoSuchBucket if the bucket does not exist now (it is checked again at Commit).
  virtual Result<std::unique_ptr<ObjectWriter>> NewObjectWriter(std::string_view bucket) = 0;
  // Deletes the object and releases its data. OK when the key does not exist; kNoSuchBucket.
  // In a versioned bucket this is DeleteObjectVersioned (a delete marker), its result dropped.
  virtual Status DeleteObject(std::string_view bucket, std::string_view key) = 0;

  // ---- Object versions (see the top of this file).
  // DELETE without a version id
  // (https://docs.aws.amazon.com/AmazonS3/latest/userguide/DeletingObjectVersions.html):
  //   unversioned bucket: as DeleteObject; the result is {false, ""}.
  //   Enabled: a delete marker with a new id becomes the latest version (also when the key has
  //     no version at all); the current version, if any, becomes noncurrent. {true, its id}.
  //   Suspended: a delete marker whose id is null becomes the latest version, replacing (and
  //     releasing) any null version; the current version, if not null, becomes noncurrent.
  //     {true, ""}.
  // kNoSuchBucket. Durable on return.
  virtual Result<DeleteResult> DeleteObjectVersioned(std::string_view bucket,
                                                     std::string_view key) = 0;
  // Removes one version or delete marker for good, releasing a version's data. When it was the
  // current version, the next newer one becomes current (if that is a delete marker, the key
  // reads as deleted); removing the latest delete marker makes the version below it current
  // again. In any bucket ("null" removes the object of an unversioned bucket). Returns what
  // was removed. Object lock
  // (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html): kObjectLocked,
  // nothing changed, while the version's legal hold is ON or its retention runs (retain until
  // later than now): COMPLIANCE always, GOVERNANCE unless `bypass_governance` (the caller
  // checked s3:BypassGovernanceRetention). kInvalidArgument (malformed id), kNoSuchVersion,
  // kNoSuchBucket. Durable on return.
  virtual Result<DeleteResult> DeleteObjectVersion(std::string_view bucket, std::string_view key,
                                                   std::string_view version_id,
                                                   bool bypass_governance = false) = 0;
  // Object lock of one version (empty version_id: the latest); HeadObjectVersion's meta.lock
  // reads it back. PutObjectRetention replaces the retention: a running COMPLIANCE retention
  // can only be kept or extended (same mode, retain until no earlier); a running GOVERNANCE
  // one can be shortened, removed or changed only with `bypass_governance`; otherwise
  // kObjectLocked and nothing changes. kInvalidArgument when retention.mode is kNone but a
  // date is set, or a mode without a date. PutObjectLegalHold sets kOn or kOff (kNever is
  // kInvalidArgument). Both: kNoSuchKey (no latest version, or the version is a delete
  // marker), kNoSuchVersion, kInvalidArgument (malformed id), kNoSuchBucket. The version's id
  // and data stay. Durable on return.
  virtual Status PutObjectRetention(std::string_view bucket, std::string_view key,
                                    std::string_view version_id, const ObjectRetention& retention,
                                    bool bypass_governance) = 0;
  virtual Status PutObjectLegalHold(std::string_view bucket, std::string_view key,
                                    std::string_view version_id, LegalHold hold) = 0;
  // Reads version `version_id` of the key (empty: the latest), lets `change` edit its access
  // control (owner_id, acl) and writes it back in place, as one step: no other change of the
  // key comes between the read and the write (PutObjectAcl). Only owner_id and acl are taken
  // from the edited meta; the rest stays as stored. `change` runs while the key is locked: it
  // must be quick and must not write to the store; when it returns an error nothing is written
  // and UpdateObjectAccess returns that error. kNoSuchKey (no latest version, or a delete
  // marker), kNoSuchVersion, kInvalidArgument (malformed id), kNoSuchBucket. Durable on return.
  using ObjectChange = std::function<Status(ObjectMeta*)>;
  virtual Status UpdateObjectAccess(std::string_view bucket, std::string_view key,
                                    std::string_view version_id, const ObjectChange& change) = 0;
  // Replaces the tags of version `version_id` of the key (empty: the latest) with `tags`
  // (empty: removes them) in place, as UpdateObjectAccess does: the version keeps its id, data,
  // etag and last-modified time, and nothing else of it changes
  // (PutObjectTagging / DeleteObjectTagging). Tags are stored as given: S3's limits are the
  // caller's. Returns the id of the version changed (empty: the null version). kNoSuchKey (no
  // latest version, or a delete marker), kNoSuchVersion, kInvalidArgument (malformed id),
  // kNoSuchBucket. Durable on return.
  using ObjectTags = std::vector<std::pair<std::string, std::string>>;
  virtual Result<std::string> PutObjectTags(std::string_view bucket, std::string_view key,
                                            std::string_view version_id,
                                            const ObjectTags& tags) = 0;
  // The version `version_id` of the key (empty: the latest, as HeadObject). When that is a
  // delete marker: kNoSuchKey, and *marker (may be null) says so with the marker's id;
  // otherwise *marker is left {false, ""}. kNoSuchKey (no latest version), kNoSuchVersion,
  // kInvalidArgument (malformed id), kNoSuchBucket.
  virtual Result<ObjectMeta> HeadObjectVersion(std::string_view bucket, std::string_view key,
                                               std::string_view version_id,
                                               DeleteMarkerInfo* marker) = 0;
  // As HeadObjectVersion, returning a reader of that version (pinned as OpenObject's).
  virtual Result<std::unique_ptr<ObjectReader>> OpenObjectVersion(std::string_view bucket,
                                                                  std::string_view key,
                                                                  std::string_view version_id,
                                                                  DeleteMarkerInfo* marker) = 0;
  // ListObjectVersions: versions and delete markers by key ascending, each key's newest first,
  // with common prefixes as ListObjects. One consistent snapshot per page. kInvalidArgument
  // (a version_id_marker without key_marker, or malformed), kNoSuchBucket.
  virtual Result<VersionsPage> ListObjectVersions(const VersionsQuery& query) = 0;
  // kNoSuchBucket.
  virtual Result<ListPage> ListObjects(const ListQuery& query) = 0;

  // Replaces the metadata of an existing object, keeping its bytes (CopyObject onto itself with
  // the REPLACE directive). Size, data location and part_sizes are kept; etag too when
  // meta.etag is empty; last_modified_ms is set to now when 0. Checked atomically with `cond`.
  // Errors: kNoSuchBucket, kNoSuchKey, kPreconditionFailed (nothing changes; If-Match on a
  // missing key is kPreconditionFailed, as for ObjectWriter::Commit).
  virtual Result<ObjectMeta> UpdateObjectMeta(std::string_view bucket, std::string_view key,
                                              ObjectMeta meta,
                                              const WriteCondition& cond = {}) = 0;

  // kNoSuchBucket. Cheap: one point read.
  virtual Result<BucketStats> GetBucketStats(std::string_view bucket) = 0;

  // ---- Multipart uploads. An upload belongs to (bucket, key); every call naming an upload
  // answers kNoSuchUpload when the id is unknown, or known under another bucket or key.
  // Starts an upload, by the user `initiator_id`, whose object will carry `meta` (see
  // UploadRecord). kNoSuchBucket.
  virtual Result<UploadRecord> CreateUpload(std::string_view bucket, std::string_view key,
                                            const ObjectMeta& meta,
                                            std::string_view checksum_algorithm = {},
                                            std::string_view checksum_type = {},
                                            std::string_view initiator_id = {}) = 0;
  virtual Result<UploadRecord> GetUpload(std::string_view bucket, std::string_view key,
                                         std::string_view upload_id) = 0;
  // kNoSuchUpload if the upload does not exist now (checked again at Commit).
  virtual Result<std::unique_ptr<PartWriter>> NewPartWriter(std::string_view bucket,
                                                            std::string_view key,
                                                            std::string_view upload_id) = 0;
  // Parts with number > part_number_marker, ascending, at most max_parts (0: none, not
  // truncated); *truncated tells whether more follow. kNoSuchUpload.
  virtual Result<std::vector<PartRecord>> ListParts(std::string_view bucket, std::string_view key,
                                                    std::string_view upload_id,
                                                    uint32_t part_number_marker, size_t max_parts,
                                                    bool* truncated) = 0;
  // kNoSuchBucket.
  virtual Result<ListUploadsPage> ListUploads(const ListUploadsQuery& query) = 0;
  // In one synced batch: the object at `key` becomes the concatenation of `part_numbers`'
  // data (no bytes are copied) with metadata `meta` (callers start from GetUpload().meta and
  // set etag and checksums; storage fills size, part_sizes, data location, part_checksums
  // (each chosen part's checksum of the upload's checksum_algorithm, when all have one) and,
  // when 0, last_modified_ms); parts not listed and the replaced object are released; the upload is
  // removed and a completed-upload record kept (see CompletedUpload). The caller validates
  // order, sizes and etags (from ListParts); storage requires part_numbers non-empty and
  // strictly ascending (kInvalidArgument) and each one present (kInvalidPart).
  // Errors: kNoSuchUpload, kNoSuchBucket, kInvalidPart, kInvalidArgument,
  // kPreconditionFailed (cond does not hold: nothing changes).
  virtual Result<ObjectMeta> CompleteUpload(std::string_view bucket, std::string_view key,
                                            std::string_view upload_id,
                                            const std::vector<uint32_t>& part_numbers,
                                            ObjectMeta meta, const WriteCondition& cond = {}) = 0;
  // For a retried CompleteUpload: the object an earlier CompleteUpload of `upload_id` produced,
  // while it is still the current object at `key` and was completed less than 24 hours ago.
  // kNoSuchUpload otherwise.
  virtual Result<ObjectMeta> CompletedUpload(std::string_view bucket, std::string_view key,
                                             std::string_view upload_id) = 0;
  // Removes the upload and releases its parts. kNoSuchUpload.
  virtual Status AbortUpload(std::string_view bucket, std::string_view key,
                             std::string_view upload_id) = 0;

  // ---- Disk space. Compacts the key ranges of data released since the last reclaim and
  // flushes, so their space is returned to the filesystem (the background reclaimer does the
  // same on its own; see StoreOptions).
  virtual Status ReclaimSpace() = 0;
  // For tests: waits until the background reclaimer has nothing pending or running, and
  // returns the status of its last run.
  virtual Status DebugWaitForReclaim() = 0;

  // ---- Free space (see storage/capacity.h). Writes (objects, parts, buckets, uploads, keys)
  // ask CheckSpaceFor first; deletes do not, so they may use the reserve to free space.
  // The figures now. Also where the store heals: when the engine stopped writing for lack of
  // space (RocksDB's background error after ENOSPC) and the reserve is free again, it is
  // resumed first, so a caller that polls this (the server does, every tick) brings writes
  // back without a restart. kIOError when the figures cannot be read. Thread-safe.
  virtual Result<Capacity> GetCapacity() = 0;
  // OK when writing `bytes` more leaves the reserve free and the engine writes; kNoSpace
  // otherwise, with the figures in the message. A size not known in advance passes 0: object
  // and part writers check again as their data arrives (every MiB) and fail with kNoSpace
  // once free space is below the reserve. Thread-safe.
  virtual Status CheckSpaceFor(uint64_t bytes) = 0;

  // ---- Access keys. Looked up on every request, so a change is effective on the next one.
  // The record is returned whatever its status: callers refuse an Inactive key.
  virtual Result<AccessKeyRecord> GetAccessKey(std::string_view access_key_id) = 0;  // kNoSuchAccessKey
  // Creates or replaces a key record (used for the root key), with its entry in its user's key
  // index (moved when the record names another user than before). No key limit is checked.
  virtual Status PutAccessKey(const AccessKeyRecord& key) = 0;
  // Deletes a key, its grant index entry and its user's index entry; a key issued by COSI takes
  // its user along when the user owns no other key (revoking the grant). OK if absent.
  virtual Status DeleteAccessKey(std::string_view access_key_id) = 0;
  // COSI grants: the key granted as (bucket, grant_name). If one exists it is returned unchanged
  // (`*created` false); otherwise `candidate` (whose grants must be exactly {bucket: mode} and
  // grant_name == grant_name) is stored with its index and a new user owning it, named
  // grant_name (or GrantUserName(grant_name), or "cosi-<lowercase key id>", when the name
  // before is not a valid or free user name),
  // in one batch; the stored key (its user_id set) is returned. kNoSuchBucket if the bucket
  // does not exist. Atomic with respect to concurrent calls and to DeleteBucket, which deletes
  // the keys granted on the bucket and their users.
  virtual Result<AccessKeyRecord> GetOrCreateGrant(std::string_view bucket,
                                                   std::string_view grant_name,
                                                   const AccessKeyRecord& candidate,
                                                   bool* created) = 0;
  // Every key granted on `bucket` (for tests and admin views).
  virtual Result<std::vector<AccessKeyRecord>> ListGrants(std::string_view bucket) = 0;
  // COSI v1alpha2 grants: one key for several buckets, found again by its grant name. The
  // existing key is the one a grant index entry (b, grant_name) names for some bucket b of
  // candidate.grants, or else the key with that grant_name owned by the user named grant_name
  // or GrantUserName(grant_name) (users.h: a name too long or taken for a user);
  // it is returned unchanged (`*created` false; the caller compares its grants). Otherwise
  // `candidate` (grants non-empty, grant_name == grant_name, !all_buckets) is stored with one
  // grant index entry per bucket and a new user, as GetOrCreateGrant does, in one batch.
  // kNoSuchBucket naming the first missing bucket; kInvalidArgument for a bad candidate.
  // Atomic with respect to concurrent calls and to DeleteBucket (which drops only that
  // bucket's grant from the key, and the key with its last grant).
  virtual Result<AccessKeyRecord> GetOrCreateMultiGrant(std::string_view grant_name,
                                                        const AccessKeyRecord& candidate,
                                                        bool* created) = 0;

  // ---- Users and their access keys (IAM's model; the rules are in storage/users.h). Names
  // are unique compared case-insensitively and looked up so; e-mail addresses too, when set.
  // Every change is one synced batch: a user with its indexes, a key with its user's key index.
  // Errors common to the calls naming a user: kNoSuchEntity ("The user with name N cannot be
  // found."). Thread-safe; a change is seen by the next call (and the next request).

  // The data folder's 12-digit account id (users' ARNs: UserArn). kNoSuchKey if absent.
  virtual Result<std::string> GetAccountId() = 0;
  // Stores a new user. `candidate.name` is checked (ValidateUserName), as are the e-mail
  // address when set, the tags and the path; an empty user_id gets a new random one; empty
  // path, display name and created_ms default to "/", the name and now. Returns the stored
  // record. Errors: kInvalidArgument (a rule broken), kEntityAlreadyExists (the name, the
  // e-mail address or the given user id is taken), kLimitExceeded (more than 50 tags).
  virtual Result<UserRecord> CreateUser(const UserRecord& candidate) = 0;
  virtual Result<UserRecord> GetUser(std::string_view name) = 0;           // kNoSuchEntity
  virtual Result<UserRecord> GetUserById(std::string_view user_id) = 0;    // kNoSuchEntity
  virtual Result<UserRecord> FindUserByEmail(std::string_view email) = 0;  // kNoSuchEntity
  // Users by folded name, after `marker` (exclusive; empty: from the first), at most
  // `max_items`; UsersPage::next_marker continues a truncated page.
  virtual Result<UsersPage> ListUsers(std::string_view marker, size_t max_items) = 0;
  // Deletes a user. kDeleteConflict while it owns access keys or inline policies, and for
  // `root`. Buckets it owns keep their owner id (root can still reach them).
  virtual Status DeleteUser(std::string_view name) = 0;

  // Inline policies, stored as given: the policy language (parsing, validation) is iam/'s,
  // and callers validate before PutUserPolicy. Put creates or replaces; kInvalidArgument for
  // a bad policy name (ValidatePolicyName) or a document not 1-131072 bytes; kLimitExceeded
  // when the user's policies together pass kMaxUserPolicyChars (nothing changes).
  virtual Status PutUserPolicy(std::string_view name, std::string_view policy_name,
                               std::string_view document) = 0;
  // kNoSuchEntity for a missing user or policy.
  virtual Result<std::string> GetUserPolicy(std::string_view name,
                                            std::string_view policy_name) = 0;
  virtual Result<std::vector<std::string>> ListUserPolicies(std::string_view name) = 0;  // sorted
  virtual Status DeleteUserPolicy(std::string_view name, std::string_view policy_name) = 0;

  // Tags: TagUser adds each tag, replacing the value of a key already present (keys compare
  // exactly); kInvalidArgument (ValidateTag), kLimitExceeded past 50 tags (nothing changes).
  // UntagUser removes the keys named; absent ones are ignored.
  virtual Status TagUser(std::string_view name, const std::vector<UserTag>& tags) = 0;
  virtual Status UntagUser(std::string_view name, const std::vector<std::string>& keys) = 0;
  virtual Result<std::vector<UserTag>> ListUserTags(std::string_view name) = 0;  // as added

  // A new key for user `user_name`: candidate's access_key_id and secret (GenerateAccessKey's,
  // or given ones for fixtures), Active, created now (unless candidate.created_ms is set); a
  // key of `root` is an all-buckets key. Errors: kInvalidArgument (id or secret empty),
  // kLimitExceeded (the user has kMaxAccessKeysPerUser keys), kEntityAlreadyExists (the id is
  // in use by any key).
  virtual Result<AccessKeyRecord> CreateAccessKey(std::string_view user_name,
                                                  const AccessKeyRecord& candidate) = 0;
  // The user's keys, by id.
  virtual Result<std::vector<AccessKeyRecord>> ListAccessKeys(std::string_view user_name) = 0;
  // kNoSuchEntity when the key does not exist or is not the user's.
  virtual Status UpdateAccessKeyStatus(std::string_view user_name, std::string_view access_key_id,
                                       KeyStatus status) = 0;
  // kNoSuchEntity when the key does not exist or is not the user's.
  virtual Status DeleteUserAccessKey(std::string_view user_name,
                                     std::string_view access_key_id) = 0;

  // ---- Small settings (e.g. the persisted root key id). NotFound is kNoSuchKey.
  virtual Result<std::string> GetSetting(std::string_view name) = 0;
  virtual Status PutSetting(std::string_view name, std::string_view value) = 0;

  // ---- Introspection for tests: the number of pieces of object data stored (committed or
  // not): chunks in the data family plus data files of large objects and parts.
  virtual Result<uint64_t> DebugCountDataPieces() = 0;
  // Data files released while a reader still had them open, not yet removed.
  virtual size_t DebugDeferredFiles() = 0;

  // ---- Online backup. Writes a consistent copy of the store as it was at one instant during
  // the call into `target_dir`: a store folder that Store::Open opens as it is (restoring is
  // opening it). The store keeps serving reads and writes meanwhile. Each file is hard-linked
  // when target_dir is on the store's filesystem (seconds, little space; the files are never
  // modified in place) and copied and synced otherwise. The copy is built under a temporary
  // name beside target_dir (".<name>.partial-*") and renamed into place once synced, so a
  // crash never leaves a folder at target_dir that looks complete (a ".partial-" one may stay;
  // delete it). While a backup runs, files of deleted or replaced large objects stay on disk
  // until it ends. `progress` may be empty; it is called after the checkpoint and after each
  // data file. Errors: kInvalidArgument (target_dir is not absolute, its parent is not a
  // folder, or it exists and is not an empty folder: nothing is ever overwritten), kAborted
  // (`progress` returned false; nothing is left at target_dir), kIOError, kCorruption (a data
  // file the checkpoint references is missing). Thread-safe, also concurrently with itself.
  virtual Status Backup(const std::string& target_dir, const BackupProgressFn& progress) = 0;

  // ---- Engine figures for monitoring (no scan, cheap). Each engine reports its own; the
  // fields name the RocksDB properties the RocksDB engine reads.
  struct EngineStats {
    uint64_t pending_compaction_bytes = 0;  // rocksdb.estimate-pending-compaction-bytes
    uint64_t delayed_write_rate = 0;        // rocksdb.actual-delayed-write-rate, bytes/s; 0: none
    bool write_stopped = false;             // rocksdb.is-write-stopped, or a background
                                            // error (e.g. ENOSPC) stops writes until resumed
  };
  // kIOError if the engine does not report a figure. Thread-safe.
  virtual Result<EngineStats> GetEngineStats() = 0;

  // ---- Memory the engine holds (no scan, cheap), in bytes; the fields name the RocksDB
  // properties the RocksDB engine reads.
  struct MemoryUsage {
    // rocksdb.size-all-mem-tables summed over the families: the active memtables, those not
    // flushed yet, and flushed ones a reader still pins.
    uint64_t memtables = 0;
    uint64_t block_cache = 0;         // rocksdb.block-cache-usage (data, index, filter blocks)
    uint64_t block_cache_pinned = 0;  // rocksdb.block-cache-pinned-usage: of that, held by a
                                      // reader or pinned (level-0 index and filter blocks)
    uint64_t table_readers = 0;       // rocksdb.estimate-table-readers-mem (outside the cache)
  };
  // kIOError if the engine does not report a figure. Thread-safe.
  virtual Result<MemoryUsage> GetMemoryUsage() = 0;

  // Gives back memory that an idle server does not need (the target: idle RSS < 64 MiB): flushes
  // the memtables of each family that holds at least a quarter of its write buffer and waits
  // for those flushes, then drops the block-cache entries no reader holds. Nothing is lost or
  // changed: the flush is an ordinary one (writers meanwhile are not stalled), and later reads
  // fill the cache again from disk. A family written less than that since its last flush
  // keeps its memtable, so calling this after every idle spell, however short, cannot produce
  // a string of tiny level-0 files. Returns only once the flushes are done (a memtable of a
  // few MiB: well under a second). kIOError if a flush fails. Thread-safe.
  virtual Status ReleaseIdleMemory() = 0;

  // ---- The built-in KMS's keys and aliases (kms_records.h; kms/ gives them meaning). Stored
  // as they are given; no rule of KMS is checked here beyond the ones named. Thread-safe.
  // Writes `key` (replacing a record of the same id) and, when `alias` is not null, the alias
  // in the same batch. kEntityAlreadyExists (nothing written) when `alias` names an existing
  // alias; kInvalidArgument for an empty key id or alias name.
  virtual Status PutKmsKey(const KmsKeyRecord& key, const KmsAliasRecord* alias) = 0;
  virtual Result<KmsKeyRecord> GetKmsKey(std::string_view key_id) = 0;  // kNoSuchEntity
  // Keys with an id greater than `marker` (empty: from the first), by id, at most max_items.
  virtual Result<KmsKeysPage> ListKmsKeys(std::string_view marker, size_t max_items) = 0;
  // kEntityAlreadyExists when the alias exists; kNoSuchEntity when its key does not.
  virtual Status CreateKmsAlias(const KmsAliasRecord& alias) = 0;
  virtual Result<KmsAliasRecord> GetKmsAlias(std::string_view alias_name) = 0;  // kNoSuchEntity
  virtual Status DeleteKmsAlias(std::string_view alias_name) = 0;               // kNoSuchEntity
  // Every alias, by name.
  virtual Result<std::vector<KmsAliasRecord>> ListKmsAliases() = 0;
};

}  // namespace cubby::storage
