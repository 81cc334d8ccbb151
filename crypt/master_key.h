// The master key: the root the SSE-S3 and KMS key-encryption keys are derived from (key.h
// DeriveKek). It lives in a file of its own so it can sit on another medium than the data (a
// Kubernetes Secret, a USB key, a TPM-unsealed tmpfs) — which is what makes a stolen data disk
// unreadable. A key generated into the data folder protects against a recycled or stolen disk
// only if that file is not on it; the server's start-up warning says so.
//
// File format: the 32-byte key in standard base64 (44 characters), optionally followed by one
// "\n" and nothing else; e.g. made with `openssl rand -base64 32 > key`. Text survives copy and
// paste, YAML (`stringData`) and editors; a raw binary file is refused (kBadFormat) rather
// than guessed at. The file must not be accessible to group or others (mode & 077 == 0): a
// Kubernetes Secret volume needs `defaultMode: 0400`.
//
// Check value: the server stores MasterKeyCheckValue(master) beside the data and compares it at
// start-up (VerifyMasterKeyCheckValue) to refuse a wrong master key before touching anything.
// It reveals nothing of the key: an HMAC-SHA256 of a fixed label under a key HKDF derives from
// the master for this purpose alone.
#pragma once

#include <string>
#include <string_view>

#include "crypt/key.h"
#include "crypt/status.h"

namespace cubby::crypt {

// Reads the master key at `path` (symbolic links followed). kNotFound: no such file.
// kBadPermissions: group or others may read or write it (the message gives the mode).
// kBadFormat: not the format above. kIOError: any other open/stat/read failure.
Result<Key256> LoadMasterKeyFile(const std::string& path);

// Creates a new random master key at `path` with mode 0600, atomically: written to a temporary
// file in the same folder (O_CREAT|O_EXCL, 0600), fsynced, renamed into place with
// RENAME_NOREPLACE (so a key that appeared meanwhile is never overwritten), then the folder is
// fsynced. kAlreadyExists: `path` exists (nothing changed). kIOError: anything else failed (the
// temporary file is removed). Returns the key written.
Result<Key256> GenerateMasterKeyFile(const std::string& path);

// The check value of `master`: "v1:" followed by 64 lowercase hex digits.
Result<std::string> MasterKeyCheckValue(const Key256& master);
// OK when `stored` is MasterKeyCheckValue(master) (constant-time compare). kWrongKey: it is the
// check value of another key. kBadFormat: `stored` is not a check value of a known version.
Status VerifyMasterKeyCheckValue(const Key256& master, std::string_view stored);

}  // namespace cubby::crypt
