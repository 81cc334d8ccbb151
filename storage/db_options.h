// RocksDB options for cubby's store, in one place so the benchmark can open a DB the same way.
// Private to storage/ (and bench/): includes rocksdb headers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include "storage/store.h"

namespace cubby::storage {

// Column family names. kDefault holds settings.
inline constexpr char kCfDefault[] = "default";
inline constexpr char kCfBuckets[] = "buckets";
inline constexpr char kCfObjects[] = "objects";
inline constexpr char kCfData[] = "data";
inline constexpr char kCfUploads[] = "uploads";
inline constexpr char kCfKeys[] = "keys";
inline constexpr char kCfVersions[] = "versions";  // format 3

// Index of each family in DbConfig::column_families and in the handles DB::Open returns.
enum CfIndex {
  kDefaultCf = 0,
  kBucketsCf,
  kObjectsCf,
  kDataCf,
  kUploadsCf,
  kKeysCf,
  kVersionsCf,
  kNumCfs
};

struct DbConfig {
  rocksdb::DBOptions db;
  std::vector<rocksdb::ColumnFamilyDescriptor> column_families;  // in CfIndex order
  // The Env db.env points to when it is not the default one; must outlive the DB.
  std::shared_ptr<rocksdb::Env> env;
};

// The options for a store at options.path: one shared LRU block cache of
// options.block_cache_bytes, bloom filters on point-lookup families, integrated BlobDB on
// "data", small write buffers so streaming large objects keeps memory bounded.
DbConfig MakeDbConfig(const StoreOptions& options);

}  // namespace cubby::storage
