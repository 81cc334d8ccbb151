// StoreImpl (store_impl.h, which maps its parts to files): Open, construction and shutdown, the
// format upgrade, settings and backup, and the point reads and scans every part uses.
#include "storage/store.h"

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "storage/backup.h"
#include "storage/blob_files.h"
#include "storage/db_options.h"
#include "storage/engine_log.h"
#include "storage/format_internal.h"
#include "storage/store_impl.h"
#include "text/time.h"

namespace cubby::storage::internal {

namespace {

StoreOptions WithStatFs(StoreOptions options) {
  if (!options.statfs) options.statfs = StatFs;
  return options;
}

}  // namespace

Status FromRocks(const rocksdb::Status& s) {
  if (s.ok()) return Status::Ok();
  if (s.IsCorruption()) return Status(Code::kCorruption, s.ToString());
  // ENOSPC, and every write while the background error it set stops the DB.
  if (s.IsNoSpace()) return Status(Code::kNoSpace, "the store is full: " + s.ToString());
  return Status(Code::kIOError, s.ToString());
}

StoreImpl::StoreImpl(const StoreOptions& options, rocksdb::DB* db,
                     std::vector<rocksdb::ColumnFamilyHandle*> handles,
                     std::unique_ptr<BlobFiles> files,
                     std::shared_ptr<EngineErrorListener> engine_errors,
                     std::shared_ptr<rocksdb::Env> env)
    : options_(WithStatFs(options)),
      env_(std::move(env)),
      db_(db),
      handles_(std::move(handles)),
      files_(std::move(files)),
      engine_errors_(std::move(engine_errors)) {
  sync_.sync = options_.sync;
  reclaimer_ = std::thread([this] { ReclaimLoop(); });
}

StoreImpl::~StoreImpl() {
  {
    std::lock_guard lock(reclaim_mu_);
    stopping_ = true;
    reclaim_cancel_.store(true);
  }
  reclaim_cv_.notify_all();
  reclaimer_.join();
  for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  db_->Close().PermitUncheckedError();
  delete db_;
}

Status StoreImpl::UpgradeFormat(bool existed,
                                const std::function<void(const MigrationEvent&)>& on_event) {
  Result<std::optional<uint32_t>> marker = ReadFormatMarker(db_, cf(kDefaultCf));
  if (!marker.ok()) return marker.status();
  // A store created just now holds nothing older: it starts at the current format.
  if (!existed && !marker->has_value()) return WriteFormatMarker(db_, cf(kDefaultCf));
  const uint32_t version = marker->value_or(0);
  if (version > kFormatVersion) return FormatTooNew(version);
  return Migrate(db_, handles_, version, on_event);
}

Result<std::string> StoreImpl::GetSetting(std::string_view name) {
  Result<std::optional<std::string>> raw = GetRaw(kDefaultCf, name, nullptr);
  if (!raw.ok()) return raw.status();
  if (!raw->has_value()) return Status(Code::kNoSuchKey, "no such setting: " + std::string(name));
  return std::move(**raw);
}

Status StoreImpl::PutSetting(std::string_view name, std::string_view value) {
  return ApplyPut(cf(kDefaultCf), ToSlice(name), ToSlice(value));
}

Status StoreImpl::Backup(const std::string& target_dir, const BackupProgressFn& progress) {
  return BackupStore(db_, options_, files_.get(), target_dir, progress);
}

Result<std::optional<std::string>> StoreImpl::GetRaw(CfIndex family, std::string_view key,
                                                     const rocksdb::Snapshot* snapshot) {
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  std::string value;
  rocksdb::Status s = db_->Get(ro, cf(family), ToSlice(key), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (!s.ok()) return FromRocks(s);
  return std::optional<std::string>(std::move(value));
}

Result<bool> StoreImpl::HasRaw(CfIndex family, std::string_view key) {
  Result<std::optional<std::string>> raw = GetRaw(family, key, nullptr);
  if (!raw.ok()) return raw.status();
  return raw->has_value();
}

Result<bool> StoreImpl::AnyKeyIn(CfIndex family, const std::string& begin, const std::string& end) {
  rocksdb::Slice upper(end);
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf(family)));
  it->Seek(begin);
  if (!it->status().ok()) return FromRocks(it->status());
  return it->Valid();
}

}  // namespace cubby::storage::internal

namespace cubby::storage {

// RocksDB.Open's failure as Open reports it. A folder whose LOCK file another process holds
// reads "IO error: While lock file: <path>/LOCK: Resource temporarily unavailable" (fcntl's
// EAGAIN, or EACCES on some systems), which does not tell a person what to do; a second open in
// this process reads "lock hold by current process". Both are said in words.
Status OpenFailure(const rocksdb::Status& s, const std::string& path) {
  const std::string text = s.ToString();
  auto has = [&text](const std::string& part) { return text.find(part) != std::string::npos; };
  if (s.IsIOError() && has("While lock file: ") &&
      (has(std::strerror(EAGAIN)) || has(std::strerror(EACCES)))) {
    return Status(Code::kIOError, "another cubby process is using this data folder (it holds " +
                                      path + "/LOCK); stop it, or use another folder");
  }
  if (s.IsIOError() && has("lock hold by current process")) {
    return Status(Code::kIOError, "the store in " + path + " is already open in this process");
  }
  return Status(Code::kIOError, text);
}

Result<std::unique_ptr<Store>> Store::Open(const StoreOptions& options) {
  if (options.path.empty() || options.chunk_size == 0) {
    return Status(Code::kInvalidArgument, "store path is empty or chunk_size is 0");
  }
  std::error_code ec;
  std::filesystem::create_directories(options.path, ec);
  if (ec) return Status(Code::kIOError, "create " + options.path + ": " + ec.message());
  // The format is checked before anything below writes to the folder (a read-write open of
  // RocksDB writes files itself), so a folder of a newer release stays as it was.
  Result<std::optional<uint32_t>> found = ReadFormatVersion(options.path);
  if (!found.ok()) return found.status();
  if (found->has_value() && **found > kFormatVersion) return FormatTooNew(**found);
  DbConfig config = MakeDbConfig(options);
  Result<std::unique_ptr<BlobFiles>> files = BlobFiles::Open(options.path + "/blobs");
  if (!files.ok()) return files.status();
  config.db.info_log = NewEngineLog(options.path);
  auto engine_errors = std::make_shared<internal::EngineErrorListener>();
  config.db.listeners.push_back(engine_errors);
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  rocksdb::Status s =
      rocksdb::DB::Open(config.db, options.path, config.column_families, &handles, &db);
  if (!s.ok()) return OpenFailure(s, options.path);
  auto store =
      std::make_unique<internal::StoreImpl>(options, db, std::move(handles), std::move(*files),
                                            std::move(engine_errors), std::move(config.env));
  Status formatted = store->UpgradeFormat(found->has_value(), options.on_migration);
  if (!formatted.ok()) return formatted;
  Status recovered = store->Recover();
  if (!recovered.ok()) return recovered;
  if (Status s = store->LoadVersioning(); !s.ok()) return s;
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace cubby::storage
