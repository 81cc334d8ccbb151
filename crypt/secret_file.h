// Files that hold secrets (the master key file, the keyring, the root credentials): written
// atomically and durably, and never readable by group or others, not even for a moment.
#pragma once

#include <string>
#include <string_view>

#include "crypt/status.h"

namespace cubby::crypt {

// Writes `content` to `path` through a temporary file beside it, "<path>.tmp-<16 random hex
// digits>" (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600 whatever the umask): written, fsynced, renamed
// into place (replace: over what `path` holds; else with RENAME_NOREPLACE, so a file that
// appeared meanwhile is never overwritten), then the folder fsynced. The temporary file is
// removed on failure; a crash can leave it behind (RemoveSecretTempFiles).
// kAlreadyExists: !replace and `path` exists (nothing changed). kIOError: a file system call
// failed, "WHAT FILE: strerror". kInternal: RAND_bytes failed.
Status WriteSecretFile(const std::string& path, std::string_view content, bool replace);

// Removes the temporary files interrupted WriteSecretFile calls for `path` left behind, never
// `path` itself. Best effort: a file that cannot be removed stays, harmlessly. REQUIRES: no
// WriteSecretFile for `path` runs meanwhile (it would lose its temporary file and fail).
void RemoveSecretTempFiles(const std::string& path);

}  // namespace cubby::crypt
