// Private to storage/: the parts of format.h that work on an open RocksDB. Includes rocksdb.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rocksdb/db.h>

#include "storage/format.h"
#include "storage/status.h"

namespace cubby::storage {

// The setting that holds the format version (decimal ASCII) in the default family. Starts with
// NUL, as kStatsReadySetting in store_recovery.cc: no setting name of a caller does.
inline constexpr std::string_view kFormatVersionSetting("\0format-version", 15);

// RocksDB's open failure as Store::Open reports it (a held LOCK file said in words). store.cc.
Status OpenFailure(const rocksdb::Status& s, const std::string& path);

// kFormatTooNew for a folder of format `version` (> kFormatVersion), in words.
Status FormatTooNew(uint32_t version);

// The version marker of an open store, in the default family `settings`: nullopt when absent,
// kCorruption when it is not a number, kIOError when the read fails.
Result<std::optional<uint32_t>> ReadFormatMarker(rocksdb::DB* db,
                                                 rocksdb::ColumnFamilyHandle* settings);

// Writes kFormatVersion as the marker of a store created just now, and a new account id
// (kAccountIdSetting, users.h), in one synced batch.
Status WriteFormatMarker(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* settings);

// Migrates an open store from `on_disk` to kFormatVersion: each step N→N+1 of format.cc in its
// own synced WriteBatch together with the version N+1, reporting each step to `on_event` (may
// be empty) before and after it. Returns the first failure; the folder is then at the version
// of the last step that succeeded. REQUIRES: on_disk <= kFormatVersion; `families` in CfIndex
// order (db_options.h); nothing else writes to `db` meanwhile.
Status Migrate(rocksdb::DB* db, const std::vector<rocksdb::ColumnFamilyHandle*>& families,
               uint32_t on_disk, const std::function<void(const MigrationEvent&)>& on_event);

}  // namespace cubby::storage
