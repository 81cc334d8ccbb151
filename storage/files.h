// Small file-system helpers shared by the store's data files, its backups and the server's
// backup of a whole data folder. No RocksDB here: server/ may include this.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "storage/status.h"

namespace cubby::storage {

// The current errno as a Status "WHAT PATH: strerror": kNoSpace for ENOSPC and EDQUOT (the
// store is full, answered as such), kIOError otherwise.
Status ErrnoStatus(std::string_view what, const std::string& path);

// fsync(2) of `path`, a folder (its entries made durable) or, with directory == false, a file.
Status SyncPath(const std::string& path, bool directory = true);

// `target` without "." or ".." steps and without a trailing '/', so that its parent is the
// folder that holds it ("/b/x/" is "/b/x", not an entry "" inside it).
std::filesystem::path NormalTarget(const std::string& target);

// OK when `target` may receive a backup of `source_dir`: absolute, naming a folder that is not
// `source_dir` nor inside it, in an existing folder, and absent or an empty folder. Otherwise
// kInvalidArgument whose message calls the source `source_name` ("the store", ...); kIOError
// when the target cannot be looked at.
Status CheckBackupTarget(const std::string& source_dir, std::string_view source_name,
                         const std::string& target);

}  // namespace cubby::storage
