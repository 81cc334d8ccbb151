#include "storage/format.h"

#include <filesystem>
#include <iterator>
#include <memory>
#include <set>
#include <system_error>

#include "storage/codec.h"
#include "storage/db_options.h"
#include "storage/engine_log.h"
#include "storage/format_internal.h"
#include "storage/keygen.h"
#include "storage/users.h"
#include "storage/users_internal.h"
#include "text/ascii.h"
#include "text/time.h"

namespace cubby::storage {
namespace {

rocksdb::Slice ToSlice(std::string_view s) { return rocksdb::Slice(s.data(), s.size()); }

Status FromRocks(const rocksdb::Status& s) {
  if (s.ok()) return Status::Ok();
  return Status(s.IsCorruption() ? Code::kCorruption : Code::kIOError, s.ToString());
}

// One migration step: puts what it changes into `batch`, which the caller writes together
// with the version `from + 1`. See format.h for a step that cannot be one batch.
struct MigrationStep {
  uint32_t from;
  std::string_view what;
  Status (*apply)(rocksdb::DB* db, const std::vector<rocksdb::ColumnFamilyHandle*>& families,
                  rocksdb::WriteBatch* batch);
};

// 0 → 1: format 1 is format 0 plus the marker, which Migrate adds to the batch.
Status MarkFormat(rocksdb::DB*, const std::vector<rocksdb::ColumnFamilyHandle*>&,
                  rocksdb::WriteBatch*) {
  return Status::Ok();
}

std::string_view ToView(const rocksdb::Slice& s) { return std::string_view(s.data(), s.size()); }

// A new user named `name`, owning nothing yet.
Result<UserRecord> NewUser(std::string_view name, int64_t now_ms) {
  Result<std::string> id = GenerateCanonicalId();
  if (!id.ok()) return id.status();
  UserRecord user;
  user.user_id = std::move(id).value();
  user.name = std::string(name);
  user.display_name = std::string(name);
  user.created_ms = now_ms;
  return user;
}

// 1 → 2: users. One batch, so a crash leaves format 1 untouched and the next start reruns it:
//  - the folder's account id;
//  - the user `root`, owning the root key (the key the root-key setting names, and any other
//    all-buckets key);
//  - each COSI key (one with a grant name) becomes a user named after its grant (or
//    "cosi-<key id>" when that name is not a valid or free user name) owning it, its grants
//    kept;
//  - every bucket is owned by root, with the ACL its anonymous mode amounts to (BucketAclFor).
// Objects are not rewritten: an object without an owner is owned by its bucket's owner.
Status AddUsers(rocksdb::DB* db, const std::vector<rocksdb::ColumnFamilyHandle*>& families,
                rocksdb::WriteBatch* batch) {
  rocksdb::ColumnFamilyHandle* keys = families[kKeysCf];
  const int64_t now = text::NowUnixMillis();
  Result<std::string> account = GenerateAccountId();
  if (!account.ok()) return account.status();
  if (Status s = FromRocks(batch->Put(families[kDefaultCf], ToSlice(kAccountIdSetting), *account));
      !s.ok()) {
    return s;
  }
  Result<UserRecord> root = NewUser(kRootUserName, now);
  if (!root.ok()) return root.status();
  AddPutUser(batch, keys, *root);

  std::string root_key_id;
  rocksdb::Status got =
      db->Get(rocksdb::ReadOptions(), families[kDefaultCf], ToSlice(kRootKeySetting), &root_key_id);
  if (!got.ok() && !got.IsNotFound()) return FromRocks(got);

  std::set<std::string> taken = {FoldName(kRootUserName)};
  {
    const std::string begin = codec::AccessKeyKey(""), end = codec::PrefixSuccessor(begin);
    rocksdb::Slice upper(end);
    rocksdb::ReadOptions ro;
    ro.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro, keys));
    for (it->Seek(begin); it->Valid(); it->Next()) {
      Result<AccessKeyRecord> key = codec::DecodeAccessKey(ToView(it->value()));
      if (!key.ok()) return key.status();
      if (key->all_buckets || key->access_key_id == root_key_id) {
        key->user_id = root->user_id;
      } else if (!key->grant_name.empty()) {
        std::string name = key->grant_name;
        if (!ValidateUserName(name).ok() || taken.contains(FoldName(name))) {
          name = "cosi-" + FoldName(key->access_key_id);
        }
        Result<UserRecord> user = NewUser(name, key->created_ms != 0 ? key->created_ms : now);
        if (!user.ok()) return user.status();
        taken.insert(FoldName(name));
        AddPutUser(batch, keys, *user);
        key->user_id = user->user_id;
      }
      AddPutUserKey(batch, keys, *key);
    }
    if (!it->status().ok()) return FromRocks(it->status());
  }
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator({}, families[kBucketsCf]));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    Result<BucketRecord> bucket = codec::DecodeBucket(ToView(it->value()));
    if (!bucket.ok()) return bucket.status();
    bucket->owner_id = root->user_id;
    bucket->acl = BucketAclFor(root->user_id, bucket->anonymous);
    batch->Put(families[kBucketsCf], it->key(), codec::EncodeBucket(*bucket));
  }
  return FromRocks(it->status());
}

// 2 → 3: versioning. The only new thing on disk is the empty "versions" family, and DB::Open
// creates it (create_missing_column_families) before any step runs: RocksDB records a new
// family in its MANIFEST atomically, so after a crash the folder either has it or not, and
// the next open creates it again. Old records need no rewrite (they decode as unversioned
// buckets and null versions). The step checks the family exists; its batch carries the
// version 3 alone.
Status AddVersions(rocksdb::DB*, const std::vector<rocksdb::ColumnFamilyHandle*>& families,
                   rocksdb::WriteBatch*) {
  if (families.size() <= kVersionsCf || families[kVersionsCf] == nullptr ||
      families[kVersionsCf]->GetName() != kCfVersions) {
    return Status(Code::kCorruption, "the versions column family is missing");
  }
  return Status::Ok();
}

constexpr MigrationStep kSteps[] = {
    {0, "record the data folder's format version", &MarkFormat},
    {1, "add users: root owns the root key and every bucket, each COSI key gets its user",
     &AddUsers},
    {2, "add object versioning: the versions column family", &AddVersions},
};
static_assert(std::size(kSteps) == kFormatVersion, "one step per version, from 0");

// The marker of the store in `path`, opened read-only with the default family alone (a
// read-only open may leave the other families out, and a newer release may have more).
Result<std::optional<uint32_t>> ReadMarkerReadOnly(const std::string& path) {
  StoreOptions options;
  options.path = path;
  options.block_cache_bytes = 1 << 20;
  DbConfig config = MakeDbConfig(options);
  config.db.create_if_missing = false;
  config.db.create_missing_column_families = false;
  config.db.info_log = NewSilentEngineLog();  // a read-only open writes nothing, not even LOG
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {config.column_families[kDefaultCf]};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::OpenForReadOnly(config.db, path, families, &handles, &raw);
  if (!s.ok()) return OpenFailure(s, path);
  std::unique_ptr<rocksdb::DB> db(raw);
  Result<std::optional<uint32_t>> marker = ReadFormatMarker(db.get(), handles[0]);
  // Closing a read-only instance cannot lose anything: nothing was written.
  db->DestroyColumnFamilyHandle(handles[0]).PermitUncheckedError();
  db->Close().PermitUncheckedError();
  return marker;
}

}  // namespace

Result<std::optional<uint32_t>> ReadFormatVersion(const std::string& path) {
  std::error_code ec;
  const bool exists = std::filesystem::exists(path + "/CURRENT", ec);
  if (ec) return Status(Code::kIOError, "stat " + path + "/CURRENT: " + ec.message());
  if (!exists) return std::optional<uint32_t>();
  // A read-only open of a store another process is writing is undefined in RocksDB: take the
  // lock first, so that case is refused as Store::Open refuses it.
  rocksdb::Env* env = rocksdb::Env::Default();
  rocksdb::FileLock* lock = nullptr;
  rocksdb::Status locked = env->LockFile(path + "/LOCK", &lock);
  if (!locked.ok()) return OpenFailure(locked, path);
  Result<std::optional<uint32_t>> marker = ReadMarkerReadOnly(path);
  // Store::Open takes the lock again through DB::Open; failing to drop it here would make
  // that open fail with "lock hold by current process", which it reports.
  env->UnlockFile(lock).PermitUncheckedError();
  if (!marker.ok()) return marker.status();
  return std::optional<uint32_t>(marker->value_or(0));
}

Status FormatTooNew(uint32_t version) {
  return Status(Code::kFormatTooNew, "data folder format " + std::to_string(version) +
                                         " is newer than this cubby supports (" +
                                         std::to_string(kFormatVersion) + "); use a newer release");
}

Result<std::optional<uint32_t>> ReadFormatMarker(rocksdb::DB* db,
                                                 rocksdb::ColumnFamilyHandle* settings) {
  std::string value;
  rocksdb::Status s =
      db->Get(rocksdb::ReadOptions(), settings, ToSlice(kFormatVersionSetting), &value);
  if (s.IsNotFound()) return std::optional<uint32_t>();
  if (!s.ok()) return FromRocks(s);
  uint64_t version = 0;
  if (!text::ParseUint64(value, &version) || version > UINT32_MAX) {
    return Status(Code::kCorruption, "the data folder's format marker is not a version number");
  }
  return std::optional<uint32_t>(static_cast<uint32_t>(version));
}

Status WriteFormatMarker(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* settings) {
  Result<std::string> account = GenerateAccountId();
  if (!account.ok()) return account.status();
  rocksdb::WriteBatch batch;
  rocksdb::Status s =
      batch.Put(settings, ToSlice(kFormatVersionSetting), std::to_string(kFormatVersion));
  if (s.ok()) s = batch.Put(settings, ToSlice(kAccountIdSetting), *account);
  if (!s.ok()) return FromRocks(s);
  rocksdb::WriteOptions sync;
  sync.sync = true;
  return FromRocks(db->Write(sync, &batch));
}

Status Migrate(rocksdb::DB* db, const std::vector<rocksdb::ColumnFamilyHandle*>& families,
               uint32_t on_disk, const std::function<void(const MigrationEvent&)>& on_event) {
  for (uint32_t version = on_disk; version < kFormatVersion; ++version) {
    const MigrationStep& step = kSteps[version];
    MigrationEvent event{.from = version, .to = version + 1, .what = step.what, .done = false};
    if (on_event) on_event(event);
    rocksdb::WriteBatch batch;
    if (Status s = step.apply(db, families, &batch); !s.ok()) return s;
    // The new version rides in the step's own batch: a crash leaves all of it or none.
    const std::string next = std::to_string(version + 1);
    Status put = FromRocks(batch.Put(families[kDefaultCf], ToSlice(kFormatVersionSetting), next));
    if (!put.ok()) return put;
    rocksdb::WriteOptions sync;
    sync.sync = true;
    if (Status s = FromRocks(db->Write(sync, &batch)); !s.ok()) return s;
    event.done = true;
    if (on_event) on_event(event);
  }
  return Status::Ok();
}

}  // namespace cubby::storage
