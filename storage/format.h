// The data folder's format version, and how a folder written by an older release is migrated.
//
// The store records its format as the setting "\0format-version" (decimal ASCII) in RocksDB's
// default column family, so a RocksDB checkpoint (a backup) carries it and a migration can
// write its changes and the new version in one WriteBatch. Versions:
//   0  no marker: every release up to cubby 0.1.0 (fixture test/fixtures/format0)
//   1  the marker itself; records are as in format 0 (fixture test/fixtures/format1)
//   2  users: the account id setting, user records and their indexes, every key owned by a
//      user (root's key by `root`, each COSI key by a user named after its grant), every
//      bucket owned by root with the ACL of its anonymous mode (format.cc AddUsers; fixture
//      test/fixtures/format2)
//   3  object versioning: the "versions" column family (noncurrent versions and delete
//      markers), bucket records with a versioning state, object records with a version id;
//      older records decode as unversioned buckets and null versions (format.cc AddVersions;
//      fixture test/fixtures/format3)
//
// Store::Open (store.h) reads the version before anything writes to the folder: it opens
// RocksDB read-only (which writes no file) and refuses a folder newer than kFormatVersion with
// kFormatTooNew, untouched. An older folder is migrated step by step, N to N+1, before the
// store serves anything.
//
// Adding a format change, in this order:
//   1. Before changing anything, write the fixture of today's format with today's release
//      (test/fixtures/README.md) so the new code is tested against a real old folder.
//   2. Bump kFormatVersion, add a line above, and add a step to the list in format.cc.
//   3. A step whose changes are RocksDB records puts them into the batch it is given; the
//      framework adds the new version to that batch and writes it synced. One batch is atomic:
//      after a crash the folder is wholly at N or wholly at N+1, and the next start resumes.
//   4. A step that cannot be one batch (it rewrites files under <store>/blobs, or more records
//      than fit one batch) must be idempotent, because it may be interrupted anywhere and run
//      again from the start on a folder that is still at version N: create new files under
//      temporary names, fsync them, rename them into place (rename is atomic), never delete or
//      overwrite anything that version N still reads until the version is N+1; write record
//      changes in batches that are each valid for the code of step N+1 rerun over them; and
//      write the version N+1 last, alone or in the last batch. Whatever version N still needs
//      and N+1 does not is removed by a later start (as Recover removes unreferenced files).
//   5. Extend test/e2e/test_upgrade.py if the step changes something a client can see.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/status.h"

namespace cubby::storage {

// The format this build writes, and the newest one it opens.
inline constexpr uint32_t kFormatVersion = 3;

// One migration step as Store::Open reports it: once with done == false just before the step
// writes anything, once with done == true right after its version is durable.
struct MigrationEvent {
  uint32_t from = 0;
  uint32_t to = 0;
  std::string_view what;  // what the step changes, in words
  bool done = false;
};

// The format of the store in `path` (the folder StoreOptions::path names), read without
// writing to the folder: nullopt when no store exists there yet (no RocksDB CURRENT file), 0
// for a store without a marker. kIOError when RocksDB cannot open it read-only (including
// "another cubby process is using this data folder" when another process holds its lock);
// kCorruption when the marker is not a number.
Result<std::optional<uint32_t>> ReadFormatVersion(const std::string& path);

}  // namespace cubby::storage
