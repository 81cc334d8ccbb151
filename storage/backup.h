// The RocksDB engine's half of Store::Backup (see store.h for the contract). Private to
// storage/: includes rocksdb headers.
#pragma once

#include <rocksdb/db.h>

#include <string>

#include "storage/blob_files.h"
#include "storage/status.h"
#include "storage/store.h"

namespace cubby::storage {

// Backs up the store open as `db` (opened with `options`) whose data files are `files` into
// `target_dir`. REQUIRES: db and files stay open for the call.
Status BackupStore(rocksdb::DB* db, const StoreOptions& options, BlobFiles* files,
                   const std::string& target_dir, const BackupProgressFn& progress);

}  // namespace cubby::storage
