// Private to storage/: the RocksDB engine behind Store (store.h), in the shape of leveldb's
// db_impl.h. Key layout and record encoding: codec.h. Options: db_options.cc. Includes rocksdb.
//
// StoreImpl is one class whose parts live in their own files, one topic each:
//   store.cc            Open, construction and shutdown, the format upgrade, settings, backup,
//                       the point reads and scans every part uses (GetRaw, AnyKeyIn)
//   store_buckets.cc    buckets, their emptiness and their stats
//   store_read.cc       ReaderImpl: HeadObject, OpenObject
//   store_write.cc      ChunkStream, WriterImpl: object commits, deletes and metadata updates,
//                       the write condition, releasing replaced data
//   store_list.cc       the one delimiter walk under ListObjects and ListUploads
//   store_multipart.cc  uploads and parts, PartWriterImpl
//   store_keys.cc       access keys, COSI grants, users and their policies and tags
//   store_versions.cc   object versions: the versioning state, versioned commits and deletes,
//                       reads and deletes by version id, ListObjectVersions
//   store_recovery.cc   what Open cleans up after a crash; the engine's background error and
//                       resuming writes after ENOSPC
//   store_space.cc      free space and the engine headroom every write passes (Apply), the
//                       space reclaimer, the engine figures (stats, memory)
//
// Locking (always acquired in this order, never two of one kind):
//   bucket stripe (shared_mutex on hash(bucket)): shared by object commits/deletes and grant
//     creation, exclusive by bucket create/update/delete, so a bucket cannot vanish between a
//     commit's existence check and its write.
//   upload stripe (shared_mutex on hash(upload id)): shared by part commits, exclusive by
//     complete and abort, so no part appears while an upload's parts are gathered.
//   key stripe (mutex on hash(bucket, key)): makes a commit's or delete's read of the current
//     object and its write one step, so replaced data is released exactly once. A part stripe
//     (mutex on hash(upload id, part number)) does the same for a part.
//   grant_mu_: the keys family: access keys, the grant index, users and their indexes.
//   versioning_mu_ (a leaf: nothing is taken while it is held): the in-memory map of versioned
//     buckets; changed only while the bucket's stripe is held exclusive.
// Locks are held across the synced Write on purpose, but they are fine-grained, so commits of
// different keys reach DB::Write concurrently and share fsyncs through group commit.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/listener.h>
#include <rocksdb/write_batch.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "storage/blob_files.h"
#include "storage/capacity.h"
#include "storage/codec.h"
#include "storage/db_options.h"
#include "storage/records.h"
#include "storage/stats_cache.h"
#include "storage/status.h"
#include "storage/store.h"

namespace cubby::storage::internal {

inline constexpr size_t kStripes = 64;
// Key and part stripes are held across the synced write, so two commits whose keys share a
// stripe are serialised for a whole sync. With 32 commits in flight over 64 stripes about 7
// pairs collide at any time (birthday bound 32*31/2/64); over 1024, about 0.5. In an A/B of
// 4 KiB PUTs at c=32 this raised the commits sharing one WAL sync from 9.7 to 12.0.
inline constexpr size_t kKeyStripes = 1024;
// How long a retried CompleteUpload is answered (and Open keeps completed-upload records).
inline constexpr int64_t kCompletedTtlMs = 24 * 3600 * 1000;

// The one mapping from rocksdb::Status. Callers handle NotFound themselves before this.
Status FromRocks(const rocksdb::Status& s);

// Whether retention `r` still runs at `now_ms`.
bool RetentionRuns(const ObjectRetention& r, int64_t now_ms);
// Whether object lock lets a version go (object-lock.html: retention modes, legal hold): OK, or
// kObjectLocked naming the legal hold or the retention.
Status CheckDeletable(const ObjectLockState& lock, bool bypass_governance, int64_t now_ms);

inline rocksdb::Slice ToSlice(std::string_view s) { return rocksdb::Slice(s.data(), s.size()); }
inline std::string_view ToView(const rocksdb::Slice& s) {
  return std::string_view(s.data(), s.size());
}

// The data segments of an object: empty for inline objects, one for a plain chunked object,
// one per part for a completed multipart upload.
std::vector<DataSegment> SegmentsOf(const ObjectMeta& meta);

// Gives `meta` the fields that say where an object's bytes are (size, part sizes and
// checksums, data id, chunk size, inline data, segments) of `source`; the caller-visible metadata
// stays.
void SetDataOf(const ObjectMeta& source, ObjectMeta* meta);

// Tracks RocksDB's background error: once set (a flush, compaction or WAL write failed, e.g.
// with ENOSPC) the DB refuses every write until DB::Resume succeeds, and
// rocksdb.is-write-stopped does not say so (it reports stalls only). Also notes whether the
// error came from a foreground write (its WAL append; see StoreImpl::ResumeIfRoom). Callbacks
// come from RocksDB's threads. store_recovery.cc.
// https://github.com/facebook/rocksdb/wiki/Background-Error-Handling
class EngineErrorListener final : public rocksdb::EventListener {
 public:
  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* error) override;
  // Refuses RocksDB's own recovery (see the definition).
  void OnErrorRecoveryBegin(rocksdb::BackgroundErrorReason, rocksdb::Status,
                            bool* auto_recovery) override;
  void OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) override;
  bool stopped() const { return stopped_.load(); }
  bool log_write_failed() const { return log_write_failed_.load(); }
  void Recovered() {
    log_write_failed_.store(false);
    stopped_.store(false);
  }

 private:
  std::atomic<bool> stopped_{false};
  std::atomic<bool> log_write_failed_{false};
};

// A change's batch, plus the data files it releases: they are unlinked once the batch is
// durable (BlobFiles::Release), never before, so a failed write loses nothing.
class Batch : public rocksdb::WriteBatch {
 public:
  std::vector<uint64_t> released_files;
};

class StoreImpl;

// Receives a stream of bytes for one object or part. Up to one chunk is kept in memory and
// goes into the final batch (inline in the record when small enough, else as one chunk in the
// data family). A stream that grows past one chunk moves to a data file of its own, written as
// it arrives and synced at Finish; without a commit the file is removed (by the destructor, or
// after a crash by the next Open, since no record references it). store_write.cc.
class ChunkStream {
 public:
  ChunkStream(StoreImpl* store);
  ~ChunkStream();

  Status Append(std::string_view data);
  uint64_t size() const { return size_; }
  // Makes the data durable and adds what the record needs to `batch` (the last chunk, or the
  // file's reference); returns where the data is. With allow_inline, small data is returned in
  // *inline_data instead (segment data_id 0). An empty stream has data_id 0.
  Result<DataSegment> Finish(Batch* batch, bool allow_inline, std::string* inline_data);
  // The final batch was written: the data now belongs to a committed record.
  void Committed() { committed_ = true; }

 private:
  Status StartFile();
  Status WriteFile(std::string_view data);

  StoreImpl* store_;
  const uint32_t chunk_size_;
  const size_t inline_limit_;
  std::string buffer_;  // bytes not yet written: at most one chunk
  uint64_t size_ = 0;
  uint64_t file_id_ = 0;  // non-zero once the stream moved to a file
  int fd_ = -1;
  uint64_t kicked_ = 0;         // file bytes whose writeback was started
  uint64_t space_checked_ = 0;  // file size at the last free-space check
  Status status_;               // sticky write failure
  bool committed_ = false;
};

struct ListingWalk;  // store_list.cc

class StoreImpl final : public Store {
 public:
  StoreImpl(const StoreOptions& options, rocksdb::DB* db,
            std::vector<rocksdb::ColumnFamilyHandle*> handles, std::unique_ptr<BlobFiles> files,
            std::shared_ptr<EngineErrorListener> engine_errors, std::shared_ptr<rocksdb::Env> env);
  ~StoreImpl() override;

  // ---- Called by Store::Open, in this order (store.cc, store_recovery.cc).
  // Brings the store to kFormatVersion (format.h). The marker is read again now that DB::Open
  // holds the lock: another release may have written the folder since Store::Open looked.
  Status UpgradeFormat(bool existed, const std::function<void(const MigrationEvent&)>& on_event);
  // Removes the data of writers that never committed and seeds the data id counter.
  Status Recover();
  // Reads the versioning state of every bucket into memory (store_versions.cc).
  Status LoadVersioning();

  // ---- Used by readers and writers.
  rocksdb::ColumnFamilyHandle* cf(CfIndex i) { return handles_[i]; }
  const StoreOptions& options() const { return options_; }
  uint64_t AllocateDataId() { return next_data_id_.fetch_add(1); }
  BlobFiles& files() { return *files_; }
  // Adds to `batch` the object `meta` at (bucket, key) and the release of the object it
  // replaces, after checking `cond`; writes it synced. Takes the bucket stripe (shared) and
  // the key stripe. store_write.cc.
  // In a versioned bucket the commit makes a new version: *meta's version fields are set.
  Status CommitObject(std::string_view bucket, std::string_view key, ObjectMeta* meta,
                      const WriteCondition& cond, Batch* batch);
  // Commits a part: stores `part` (its data's last chunk is already in `batch`) and releases
  // the part it replaces, if the upload still exists. Takes the bucket and upload stripes
  // (shared) and the part stripe. store_multipart.cc.
  Status CommitPart(std::string_view bucket, std::string_view key, std::string_view upload_id,
                    const PartRecord& part, Batch* batch);

  // ---- Store. Buckets: store_buckets.cc.
  Status CreateBucket(const BucketRecord& bucket) override;
  Result<BucketRecord> GetOrCreateBucket(const BucketRecord& candidate, bool* created) override;
  Result<BucketRecord> GetBucket(std::string_view name) override;
  Status UpdateBucket(std::string_view name, const BucketChange& change) override;
  uint64_t AccessGeneration() override {
    return access_generation_.load(std::memory_order_acquire);
  }
  Result<std::vector<BucketRecord>> ListBuckets() override;
  Status DeleteBucket(std::string_view name, bool force) override;
  Result<bool> BucketIsEmpty(std::string_view name) override;
  Result<BucketStats> GetBucketStats(std::string_view bucket) override;

  // Objects: store_read.cc, store_write.cc; listing: store_list.cc.
  Result<ObjectMeta> HeadObject(std::string_view bucket, std::string_view key) override;
  Result<std::unique_ptr<ObjectReader>> OpenObject(std::string_view bucket,
                                                   std::string_view key) override;
  Result<std::unique_ptr<ObjectWriter>> NewObjectWriter(std::string_view bucket) override;
  Status DeleteObject(std::string_view bucket, std::string_view key) override;
  Result<ListPage> ListObjects(const ListQuery& q) override;
  Result<ObjectMeta> UpdateObjectMeta(std::string_view bucket, std::string_view key,
                                      ObjectMeta meta, const WriteCondition& cond) override;

  // Versions: store_versions.cc.
  VersioningState BucketVersioning(std::string_view bucket) override {
    return VersioningOf(bucket);
  }
  Status SetBucketVersioning(std::string_view bucket, VersioningState state) override;
  Result<DeleteResult> DeleteObjectVersioned(std::string_view bucket,
                                             std::string_view key) override;
  Result<DeleteResult> DeleteObjectVersion(std::string_view bucket, std::string_view key,
                                           std::string_view version_id,
                                           bool bypass_governance) override;
  Status UpdateObjectAccess(std::string_view bucket, std::string_view key,
                            std::string_view version_id, const ObjectChange& change) override;
  Result<std::string> PutObjectTags(std::string_view bucket, std::string_view key,
                                    std::string_view version_id, const ObjectTags& tags) override;
  Status PutObjectRetention(std::string_view bucket, std::string_view key,
                            std::string_view version_id, const ObjectRetention& retention,
                            bool bypass_governance) override;
  Status PutObjectLegalHold(std::string_view bucket, std::string_view key,
                            std::string_view version_id, LegalHold hold) override;
  Result<ObjectMeta> HeadObjectVersion(std::string_view bucket, std::string_view key,
                                       std::string_view version_id,
                                       DeleteMarkerInfo* marker) override;
  Result<std::unique_ptr<ObjectReader>> OpenObjectVersion(std::string_view bucket,
                                                          std::string_view key,
                                                          std::string_view version_id,
                                                          DeleteMarkerInfo* marker) override;
  Result<VersionsPage> ListObjectVersions(const VersionsQuery& q) override;

  // Multipart uploads: store_multipart.cc (ListUploads: store_list.cc).
  Result<UploadRecord> CreateUpload(std::string_view bucket, std::string_view key,
                                    const ObjectMeta& meta, std::string_view checksum_algorithm,
                                    std::string_view checksum_type,
                                    std::string_view initiator_id) override;
  Result<UploadRecord> GetUpload(std::string_view bucket, std::string_view key,
                                 std::string_view upload_id) override;
  Result<std::unique_ptr<PartWriter>> NewPartWriter(std::string_view bucket, std::string_view key,
                                                    std::string_view upload_id) override;
  Result<std::vector<PartRecord>> ListParts(std::string_view bucket, std::string_view key,
                                            std::string_view upload_id, uint32_t part_number_marker,
                                            size_t max_parts, bool* truncated) override;
  Result<ListUploadsPage> ListUploads(const ListUploadsQuery& q) override;
  Result<ObjectMeta> CompleteUpload(std::string_view bucket, std::string_view key,
                                    std::string_view upload_id,
                                    const std::vector<uint32_t>& part_numbers, ObjectMeta meta,
                                    const WriteCondition& cond) override;
  Result<ObjectMeta> CompletedUpload(std::string_view bucket, std::string_view key,
                                     std::string_view upload_id) override;
  Status AbortUpload(std::string_view bucket, std::string_view key,
                     std::string_view upload_id) override;

  // Disk space, free space, engine figures: store_space.cc.
  Status ReclaimSpace() override;
  Status DebugWaitForReclaim() override;
  Result<Capacity> GetCapacity() override;
  Status CheckSpaceFor(uint64_t bytes) override;
  Result<uint64_t> DebugCountDataPieces() override;
  size_t DebugDeferredFiles() override;
  Result<EngineStats> GetEngineStats() override;
  Result<MemoryUsage> GetMemoryUsage() override;
  Status ReleaseIdleMemory() override;

  // Access keys and users: store_keys.cc. Every change holds grant_mu_, which guards the whole
  // keys family (keys, grants, users and their indexes), so the checks (name free, key count)
  // and the write are one step.
  Result<AccessKeyRecord> GetAccessKey(std::string_view access_key_id) override;
  Status PutAccessKey(const AccessKeyRecord& key) override;
  Status DeleteAccessKey(std::string_view access_key_id) override;
  Result<AccessKeyRecord> GetOrCreateGrant(std::string_view bucket, std::string_view grant_name,
                                           const AccessKeyRecord& candidate,
                                           bool* created) override;
  Result<std::vector<AccessKeyRecord>> ListGrants(std::string_view bucket) override;
  Result<AccessKeyRecord> GetOrCreateMultiGrant(std::string_view grant_name,
                                                const AccessKeyRecord& candidate,
                                                bool* created) override;
  Result<std::string> GetAccountId() override;
  Result<UserRecord> CreateUser(const UserRecord& candidate) override;
  Result<UserRecord> GetUser(std::string_view name) override;
  Result<UserRecord> GetUserById(std::string_view user_id) override;
  Result<UserRecord> FindUserByEmail(std::string_view email) override;
  Result<UsersPage> ListUsers(std::string_view marker, size_t max_items) override;
  Status DeleteUser(std::string_view name) override;
  Status PutUserPolicy(std::string_view name, std::string_view policy_name,
                       std::string_view document) override;
  Result<std::string> GetUserPolicy(std::string_view name, std::string_view policy_name) override;
  Result<std::vector<std::string>> ListUserPolicies(std::string_view name) override;
  Status DeleteUserPolicy(std::string_view name, std::string_view policy_name) override;
  Status TagUser(std::string_view name, const std::vector<UserTag>& tags) override;
  Status UntagUser(std::string_view name, const std::vector<std::string>& keys) override;
  Result<std::vector<UserTag>> ListUserTags(std::string_view name) override;
  Result<AccessKeyRecord> CreateAccessKey(std::string_view user_name,
                                          const AccessKeyRecord& candidate) override;
  Result<std::vector<AccessKeyRecord>> ListAccessKeys(std::string_view user_name) override;
  Status UpdateAccessKeyStatus(std::string_view user_name, std::string_view access_key_id,
                               KeyStatus status) override;
  Status DeleteUserAccessKey(std::string_view user_name, std::string_view access_key_id) override;

  // Settings and backup: store.cc.
  Result<std::string> GetSetting(std::string_view name) override;
  Status PutSetting(std::string_view name, std::string_view value) override;
  Status Backup(const std::string& target_dir, const BackupProgressFn& progress) override;

  // The KMS's keys and aliases: store_kms.cc. Changes hold kms_mu_.
  Status PutKmsKey(const KmsKeyRecord& key, const KmsAliasRecord* alias) override;
  Result<KmsKeyRecord> GetKmsKey(std::string_view key_id) override;
  Result<KmsKeysPage> ListKmsKeys(std::string_view marker, size_t max_items) override;
  Status CreateKmsAlias(const KmsAliasRecord& alias) override;
  Result<KmsAliasRecord> GetKmsAlias(std::string_view alias_name) override;
  Status DeleteKmsAlias(std::string_view alias_name) override;
  Result<std::vector<KmsAliasRecord>> ListKmsAliases() override;

 private:
  // ---- Reads and scans (store.cc). None takes a lock.
  // A value, or nullopt when the key is absent.
  Result<std::optional<std::string>> GetRaw(CfIndex family, std::string_view key,
                                            const rocksdb::Snapshot* snapshot);
  Result<bool> HasRaw(CfIndex family, std::string_view key);
  // Whether [begin, end) of `family` holds a key.
  Result<bool> AnyKeyIn(CfIndex family, const std::string& begin, const std::string& end);
  // Calls fn(key, value) for each key in [begin, end) of `family`; stops at the first error.
  template <typename Fn>
  Status ForEach(CfIndex family, const std::string& begin, const std::string& end, Fn&& fn) {
    rocksdb::Slice upper(end);
    rocksdb::ReadOptions ro;
    ro.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf(family)));
    for (it->Seek(begin); it->Valid(); it->Next()) {
      Status s = fn(ToView(it->key()), ToView(it->value()));
      if (!s.ok()) return s;
    }
    return FromRocks(it->status());
  }

  // An exclusive lock on a mutex that guards what access control reads (a bucket stripe,
  // grant_mu_). Releasing it moves AccessGeneration, after the change it guarded was written
  // (or refused: a needless move costs a cache miss, nothing more).
  template <class Mutex>
  class AccessChangeLock {
   public:
    AccessChangeLock(Mutex& mu, std::atomic<uint64_t>* generation)
        : lock_(mu), generation_(generation) {}
    ~AccessChangeLock() { generation_->fetch_add(1, std::memory_order_acq_rel); }
    AccessChangeLock(const AccessChangeLock&) = delete;
    AccessChangeLock& operator=(const AccessChangeLock&) = delete;

   private:
    std::unique_lock<Mutex> lock_;
    std::atomic<uint64_t>* generation_;
  };
  AccessChangeLock<std::shared_mutex> LockBucketForChange(std::string_view bucket) {
    return {BucketMutex(bucket), &access_generation_};
  }
  AccessChangeLock<std::mutex> LockKeysForChange() { return {grant_mu_, &access_generation_}; }

  // ---- Lock stripes (see the top of this file).
  std::shared_mutex& BucketMutex(std::string_view bucket) {
    return bucket_mu_[std::hash<std::string_view>{}(bucket) % kStripes];
  }
  std::mutex& KeyMutex(std::string_view bucket, std::string_view key) {
    size_t h = std::hash<std::string_view>{}(bucket)*31 + std::hash<std::string_view>{}(key);
    return key_mu_[h % kKeyStripes];
  }
  std::shared_mutex& UploadMutex(std::string_view upload_id) {
    return upload_mu_[std::hash<std::string_view>{}(upload_id) % kStripes];
  }
  std::mutex& PartMutex(std::string_view upload_id, uint32_t part_number) {
    return part_mu_[(std::hash<std::string_view>{}(upload_id)*31 + part_number) % kKeyStripes];
  }

  // ---- Buckets (store_buckets.cc).
  // OK when bucket `name` exists; else kNoSuchBucket, or the read's error.
  Status RequireBucket(std::string_view name);
  // True when the bucket holds no objects and no uploads. The answer holds only while the
  // caller keeps BucketMutex(name) exclusive (DeleteBucket does; BucketIsEmpty need not).
  Result<bool> IsEmptyLocked(std::string_view name);
  // Adds a change of the bucket's stats record (merged, so no read) to `batch`.
  void AddStatsDelta(std::string_view bucket, int64_t objects, int64_t bytes,
                     rocksdb::WriteBatch* batch);

  // ---- Objects (store_read.cc, store_write.cc).
  Result<std::optional<ObjectMeta>> GetObjectMeta(const std::string& object_key,
                                                  const rocksdb::Snapshot* snapshot);
  // kNoSuchKey, or kNoSuchBucket when the bucket itself is missing.
  Status MissingObject(std::string_view bucket, std::string_view key);
  // The object at `object_key` (nullopt: none), once `cond` holds for it. REQUIRES: the
  // object's key stripe held, so the check and the write that follows are one step.
  Result<std::optional<ObjectMeta>> GetForWrite(const std::string& object_key,
                                                const WriteCondition& cond);
  // Adds to `batch` `meta` at `object_key` in `bucket` in place of `current` (nullopt: none):
  // the release of current's data and the bucket's stats change. REQUIRES: the bucket stripe
  // (shared) and the key stripe held since `current` was read.
  void AddReplaceObject(std::string_view bucket, const std::string& object_key,
                        const ObjectMeta& meta, const std::optional<ObjectMeta>& current,
                        Batch* batch);
  // Adds the release of an object's (or a part's) data to `batch`: chunks are deleted, files
  // are unlinked once the batch is durable (WriteReleasing).
  void AddReleaseData(const ObjectMeta& meta, Batch* batch);
  void AddReleaseSegment(const DataSegment& seg, Batch* batch);
  // Writes a metadata batch (synced); then unlinks the data files it released and wakes the
  // reclaimer when enough chunk data has been released.
  Status WriteReleasing(Batch* batch);

  // ---- Versions (store_versions.cc). Invariant per key: the newest version, when it is not a
  // delete marker, is the current object (objects family); every other version and marker is
  // in the versions family, and the null pointer is there exactly when the null version is.
  // The bucket's versioning state, from memory: no read. Changed only under the bucket stripe
  // held exclusive, so a caller holding it shared sees a state that stays until it lets go.
  VersioningState VersioningOf(std::string_view bucket);
  // Records a bucket's state in memory. REQUIRES: BucketMutex(bucket) exclusive, after the
  // change is durable (or when loading).
  void NoteVersioning(std::string_view bucket, VersioningState state);
  // Adds to `batch` the commit of *meta at (bucket, key) in place of `current` (read under the
  // key stripe): AddReplaceObject in an unversioned bucket, else a new version per the
  // bucket's state; sets *meta's version fields. REQUIRES: the bucket stripe (shared) and the
  // key stripe held since `current` was read.
  Status AddCommitObject(std::string_view bucket, std::string_view key,
                         const std::string& object_key, ObjectMeta* meta,
                         const std::optional<ObjectMeta>& current, Batch* batch);
  // The newest entry of (bucket, key) in the versions family other than the one of sequence
  // `skip` (nullopt: none skipped).
  Result<std::optional<codec::StoredVersion>> NewestNoncurrent(std::string_view bucket,
                                                               std::string_view key,
                                                               const rocksdb::Snapshot* snapshot,
                                                               std::optional<uint64_t> skip);
  // The null version's entry in the versions family (nullopt: none there).
  Result<std::optional<codec::StoredVersion>> NoncurrentNull(std::string_view bucket,
                                                             std::string_view key,
                                                             const rocksdb::Snapshot* snapshot);
  // Moves the current version `current` into the versions family (in `batch`).
  void AddDemote(std::string_view bucket, std::string_view key, const ObjectMeta& current,
                 Batch* batch);
  // Moves `v` (the newest entry in the versions family, not a marker) to the objects family.
  void AddPromote(std::string_view bucket, std::string_view key, const std::string& object_key,
                  const codec::StoredVersion& v, Batch* batch);
  // Removes a noncurrent null version (or null delete marker) and releases its data.
  Status AddDropNoncurrentNull(std::string_view bucket, std::string_view key, Batch* batch);
  // The version that `version_id` (empty: the latest) names, and whether it is the current
  // object. nullopt: none. kInvalidArgument for a malformed id.
  struct FoundVersion {
    codec::StoredVersion version;
    bool current = false;
  };
  Result<std::optional<FoundVersion>> FindVersion(std::string_view bucket, std::string_view key,
                                                  std::string_view version_id,
                                                  const rocksdb::Snapshot* snapshot);
  // Reads the version `version_id` names (not a marker), applies `change` (which may refuse)
  // to its meta and writes it back in place. Takes the bucket (shared) and key stripes.
  template <typename Change>
  Status ChangeVersion(std::string_view bucket, std::string_view key, std::string_view version_id,
                       Change&& change);

  // ---- Listing (store_list.cc).
  template <typename NameOf, typename OnEntry, typename OnPrefix>
  Result<bool> WalkListing(const ListingWalk& w, NameOf&& name_of, OnEntry&& on_entry,
                           OnPrefix&& on_prefix);

  // ---- Multipart (store_multipart.cc).
  // Strictly increasing within this process, and at least now_ms << 16.
  uint64_t NextUploadStamp(int64_t now_ms);
  // The upload; kNoSuchUpload when unknown (or known under another bucket or key).
  Result<UploadRecord> FindUpload(std::string_view bucket, std::string_view key,
                                  std::string_view upload_id,
                                  const rocksdb::Snapshot* snapshot = nullptr);
  // Every part of an upload, ascending. Complete while the caller holds the upload stripe
  // exclusive (or the bucket stripe exclusive): no part commit can run meanwhile.
  Result<std::vector<PartRecord>> AllParts(std::string_view upload_id);
  // Adds the removal of an upload's parts and the release of their data to `batch`.
  // REQUIRES: as AllParts.
  Status AddReleaseParts(std::string_view upload_id, Batch* batch);

  // ---- Access keys and users (store_keys.cc). Reads need no lock; REQUIRES grant_mu_ where a
  // name ends in Locked.
  static Status NoSuchUser(std::string_view name);
  static Status NoSuchUserPolicy(std::string_view policy_name);
  static Status UserExists(std::string_view name);
  // Checks a new user and fills its defaults (path "/", display name = name, created now).
  static Status ValidateNewUser(UserRecord* user);
  // The user an index entry names; kCorruption when it is missing.
  Result<UserRecord> UserByIndex(std::string_view user_id);
  // The access key an entry of `index` (its name, for the message) names; kCorruption when it
  // is missing.
  Result<AccessKeyRecord> KeyByIndex(std::string_view access_key_id, std::string_view index);
  // Reads user `name`, applies `change` (which may refuse) and writes it back, under grant_mu_.
  template <typename Change>
  Status ChangeUser(std::string_view name, Change&& change);
  // The keys `user_id` owns, by id.
  Result<std::vector<AccessKeyRecord>> KeysOf(std::string_view user_id);
  // Key `access_key_id` of user `user_name`: kNoSuchEntity when either is missing or the key
  // belongs to someone else (IAM's answer).
  Result<AccessKeyRecord> KeyOfUser(std::string_view user_name, std::string_view access_key_id);
  // Adds to `batch` the removal of `key`, its grant index entries (those still naming it) and
  // its entry in its user's key index. With `drop_cosi_user`, a key issued by COSI takes its
  // user along when the user owns no other key. REQUIRES: grant_mu_ held.
  Status AddDeleteKeyLocked(const AccessKeyRecord& key, bool drop_cosi_user,
                            rocksdb::WriteBatch* batch);
  // The user a new COSI grant's key belongs to: named after the grant; when that name is not a
  // valid or free user name (e.g. a v1alpha2 account name longer than IAM's 64 characters),
  // GrantUserName(grant_name), so that a later call finds the grant again by name; when that is
  // taken too, "cosi-<key id>". REQUIRES: grant_mu_ held.
  Result<UserRecord> NewGrantUserLocked(std::string_view grant_name, std::string_view key_id);
  // Writes `candidate` (a new grant's key) with a new user (NewGrantUserLocked) and a grant
  // index entry per bucket it names, in one batch; kAborted when its key id is taken.
  // REQUIRES: grant_mu_ held; its buckets exist.
  Result<AccessKeyRecord> IssueGrantLocked(std::string_view grant_name,
                                           const AccessKeyRecord& candidate, bool* created);
  // The key of grant `grant_name` (a v1alpha2 one: !all_buckets) owned by the user named after
  // it, as NewGrantUserLocked names them; nullopt if none. REQUIRES: grant_mu_ held.
  Result<std::optional<AccessKeyRecord>> GrantKeyByUserLocked(std::string_view grant_name);
  // Adds to `batch` the revocation of key `key_id`'s grant on `bucket`: the key goes when the
  // bucket was its only grant. REQUIRES: grant_mu_ held.
  Status RevokeLocked(std::string_view key_id, std::string_view bucket, rocksdb::WriteBatch* batch);

  // ---- Recovery (store_recovery.cc).
  // A store written before bucket stats existed: count every bucket once.
  Status InitStats(rocksdb::WriteBatch* batch);
  // Resumes a DB stopped by a background error once the reserve is free again; true when it
  // writes again (see the definition for the one stop that needs a restart). Takes resume_mu_.
  bool ResumeIfRoom(const FsSpace& space, uint64_t reserve);
  // Whether some family's active memtable holds an entry. A family RocksDB does not report on
  // counts as holding one, so the answer errs towards resuming as RocksDB itself would.
  bool AnyMemtableHoldsData();

  // ---- Space (store_space.cc).
  uint64_t ReserveFor(const FsSpace& space) const;
  // Every change to RocksDB goes through these two, synced unless options_.sync is false.
  // Below the engine's headroom nothing is written, deletes included (storage/capacity.h).
  Status Apply(rocksdb::WriteBatch* batch);
  Status ApplyPut(rocksdb::ColumnFamilyHandle* family, const rocksdb::Slice& key,
                  const rocksdb::Slice& value);
  Status CheckEngineHeadroom();
  // Remembers released data for the reclaimer. Noted before the release is written: compacting
  // a range whose release then failed costs a little work and changes nothing. Takes
  // reclaim_mu_.
  void NoteReleased(uint64_t data_id, uint64_t bytes);
  // After a successful write: wakes the reclaimer once enough bytes were released. Takes
  // reclaim_mu_.
  void MaybeWakeReclaimer(const Status& write_status);
  // The reclaimer thread's body: ReclaimSpace whenever woken, until stopping_.
  void ReclaimLoop();

  const StoreOptions options_;
  const std::shared_ptr<rocksdb::Env> env_;  // the DB's Env when not the default; outlives db_
  rocksdb::DB* db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  const std::unique_ptr<BlobFiles> files_;
  const std::shared_ptr<EngineErrorListener> engine_errors_;
  std::mutex resume_mu_;                    // one DB::Resume at a time
  std::atomic<bool> needs_restart_{false};  // see ResumeIfRoom; never cleared in this process
  rocksdb::WriteOptions sync_;  // for metadata changes: synced unless options_.sync is false
  std::atomic<uint64_t> next_data_id_{1};
  std::atomic<uint64_t> last_upload_stamp_{0};
  std::array<std::shared_mutex, kStripes> bucket_mu_;
  std::array<std::mutex, kKeyStripes> key_mu_;
  std::array<std::shared_mutex, kStripes> upload_mu_;
  std::array<std::mutex, kKeyStripes> part_mu_;
  std::mutex grant_mu_;
  std::atomic<uint64_t> access_generation_{1};  // see AccessGeneration
  // Buckets that are not unversioned (store_versions.cc), and whether there is any, so a store
  // without versioned buckets never takes versioning_mu_.
  std::mutex versioning_mu_;
  std::unordered_map<std::string, VersioningState> versioning_;
  std::atomic<bool> any_versioned_{false};

  // The reclaimer: compacts the data family after enough bytes were released.
  std::vector<uint64_t> released_ids_;       // data ids released since the last reclaim
  uint64_t released_bytes_ = 0;              // their bytes
  std::atomic<bool> reclaim_cancel_{false};  // set on shutdown to cut a running compaction short
  std::mutex reclaim_mu_;
  std::condition_variable reclaim_cv_;
  bool reclaim_wanted_ = false;
  bool reclaiming_ = false;
  bool stopping_ = false;
  Status last_reclaim_;
  StatsCache stats_cache_;  // GetBucketStats without a merge-chain walk; Apply keeps it in step
  std::mutex kms_mu_;      // the KMS's key and alias records (store_kms.cc): check, then write
  std::thread reclaimer_;  // last: started once everything above exists
};

}  // namespace cubby::storage::internal
