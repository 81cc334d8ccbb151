#include "storage/db_options.h"

#include <rocksdb/cache.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/table.h>

#include "storage/codec.h"

namespace cubby::storage {
namespace {

constexpr size_t kMiB = 1 << 20;

rocksdb::ColumnFamilyOptions BaseCfOptions(const std::shared_ptr<rocksdb::Cache>& cache,
                                           bool bloom, size_t write_buffer) {
  rocksdb::ColumnFamilyOptions cf;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache;
  // Index and filter blocks live in (and are bounded by) the shared cache.
  table.cache_index_and_filter_blocks = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  if (bloom) table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  cf.write_buffer_size = write_buffer;
  cf.max_write_buffer_number = 2;
  cf.compression = rocksdb::kNoCompression;  // object bytes are often already compressed
  return cf;
}

// Bucket stats: each change merges an (objects, bytes) delta into the bucket's stats record in
// the change's own batch, so concurrent commits need no shared lock and the sum stays exact.
class StatsMergeOperator final : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice&, const rocksdb::Slice* existing, const rocksdb::Slice& value,
             std::string* new_value, rocksdb::Logger*) const override {
    int64_t objects = 0, bytes = 0, d_objects, d_bytes;
    if (existing != nullptr &&
        !codec::DecodeStatsDelta(std::string_view(existing->data(), existing->size()), &objects,
                                 &bytes)) {
      return false;
    }
    if (!codec::DecodeStatsDelta(std::string_view(value.data(), value.size()), &d_objects,
                                 &d_bytes)) {
      return false;
    }
    *new_value = codec::EncodeStatsDelta(objects + d_objects, bytes + d_bytes);
    return true;
  }
  const char* Name() const override { return "cubby.StatsMerge"; }
};

// For tests (StoreOptions::fail_log_append): appends to write-ahead log files fail with ENOSPC
// while the predicate says so, as on a full disk. Everything else passes through.
class LogAppendFaults final : public rocksdb::FileSystemWrapper {
 public:
  LogAppendFaults(const std::shared_ptr<rocksdb::FileSystem>& base, std::function<bool()> fail)
      : FileSystemWrapper(base), fail_(std::move(fail)) {}
  const char* Name() const override { return "cubby.LogAppendFaults"; }

  rocksdb::IOStatus NewWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* file,
                                    rocksdb::IODebugContext* dbg) override {
    rocksdb::IOStatus s = target()->NewWritableFile(name, options, file, dbg);
    if (s.ok() && name.ends_with(".log")) {
      *file = std::make_unique<FailingFile>(std::move(*file), fail_);
    }
    return s;
  }

 private:
  class FailingFile final : public rocksdb::FSWritableFileOwnerWrapper {
   public:
    FailingFile(std::unique_ptr<rocksdb::FSWritableFile> file, std::function<bool()> fail)
        : FSWritableFileOwnerWrapper(std::move(file)), fail_(std::move(fail)) {}
    rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override {
      if (fail_()) return NoSpace();
      return FSWritableFileOwnerWrapper::Append(data, options, dbg);
    }
    rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                             const rocksdb::DataVerificationInfo& info,
                             rocksdb::IODebugContext* dbg) override {
      if (fail_()) return NoSpace();
      return FSWritableFileOwnerWrapper::Append(data, options, info, dbg);
    }

   private:
    static rocksdb::IOStatus NoSpace() {
      return rocksdb::IOStatus::NoSpace("injected for a test: No space left on device");
    }
    std::function<bool()> fail_;
  };

  std::function<bool()> fail_;
};

}  // namespace

DbConfig MakeDbConfig(const StoreOptions& options) {
  DbConfig config;
  rocksdb::DBOptions& db = config.db;
  db.create_if_missing = true;
  db.create_missing_column_families = true;
  db.max_background_jobs = 2;
  db.bytes_per_sync = 1 * kMiB;
  // Every family shares the WAL: cap it so rarely written families get flushed and old logs go.
  db.max_total_wal_size = 64 * kMiB;

  if (options.fail_log_append) {
    config.env = rocksdb::NewCompositeEnv(std::make_shared<LogAppendFaults>(
        rocksdb::FileSystem::Default(), options.fail_log_append));
    db.env = config.env.get();
  }

  auto cache = rocksdb::NewLRUCache(options.block_cache_bytes);

  rocksdb::ColumnFamilyOptions defaults = BaseCfOptions(cache, false, 2 * kMiB);
  defaults.merge_operator = std::make_shared<StatsMergeOperator>();
  rocksdb::ColumnFamilyOptions buckets = BaseCfOptions(cache, true, 2 * kMiB);
  rocksdb::ColumnFamilyOptions objects = BaseCfOptions(cache, true, 8 * kMiB);
  rocksdb::ColumnFamilyOptions uploads = BaseCfOptions(cache, false, 2 * kMiB);
  rocksdb::ColumnFamilyOptions keys = BaseCfOptions(cache, true, 2 * kMiB);
  // Noncurrent versions and delete markers: point reads (a version id names its key) and
  // short scans of one key's versions.
  rocksdb::ColumnFamilyOptions versions = BaseCfOptions(cache, true, 2 * kMiB);

  // Object chunks: large values go to blob files at flush, so compaction does not rewrite them;
  // blob GC reclaims space of deleted objects. Only single chunks of objects up to 1 MiB come
  // here (larger ones are files), so a small write buffer suffices, and it bounds the memory
  // an idle server keeps in memtables (the target: idle RSS < 64 MiB).
  rocksdb::ColumnFamilyOptions data = BaseCfOptions(cache, false, 4 * kMiB);
  data.enable_blob_files = true;
  data.min_blob_size = 64 * 1024;
  data.blob_file_size = 64 * kMiB;
  data.enable_blob_garbage_collection = true;
  data.blob_garbage_collection_age_cutoff = 0.25;

  config.column_families = {
      {kCfDefault, defaults}, {kCfBuckets, buckets}, {kCfObjects, objects},   {kCfData, data},
      {kCfUploads, uploads},  {kCfKeys, keys},       {kCfVersions, versions},
  };
  return config;
}

}  // namespace cubby::storage
