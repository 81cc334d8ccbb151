// The master key and the data folder's keyring (encryption at rest).
//
// Key hierarchy: the master key (a file; crypt/master_key.h) derives one KEK per purpose
// (crypt::DeriveKek); each KEK wraps one random root key kept in DATA/keyring; the root keys
// (crypt::ServiceKeys) wrap the data keys of SSE-S3 objects and the key material of the built-in
// KMS. Rotating the master key therefore re-wraps two root keys and touches no object.
//
// DATA/keyring is a file of its own, not a RocksDB record, so a wrong master key is refused
// before the store is opened and nothing in the data folder changes. Text, version 1:
//   cubby-keyring v1
//   check v1:<64 hex>          crypt::MasterKeyCheckValue(master)
//   sse-s3 <base64>            WrapKey(DeriveKek(master, kSseS3), "root:sse-s3", root key)
//   kms <base64>               WrapKey(DeriveKek(master, kKmsKeyMaterial), "root:kms", root key)
// each line ending in "\n", nothing else. It is replaced only atomically (a temporary file
// created O_EXCL 0600, fsynced, renamed over it, the folder fsynced): after a crash the folder
// holds the old keyring or the new one, each complete.
//
// Where the master key comes from: --master-key-file / CUBBY_MASTER_KEY_FILE (must exist, mode
// 0600 or 0400), else DATA/master.key, generated on the first start. A generated key sits next
// to the data: it protects copies of the data that leave that file behind (a `cubby backup`,
// the db/ folder copied on its own), not a stolen disk holding the whole data folder.
//
// Secrets: no message, log line or warning here holds key material (keys are crypt::Key256).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "crypt/key.h"
#include "crypt/service_keys.h"
#include "storage/status.h"

namespace cubby::server {

inline constexpr std::string_view kKeyringFile = "keyring";
// The master key cubby generates when none is configured.
inline constexpr std::string_view kGeneratedMasterKeyFile = "master.key";
// The new generated master key while a rotation replaces DATA/master.key (see RotateMasterKey).
inline constexpr std::string_view kNextMasterKeyFile = "master.key.next";

// Whether `name`, a file at the top of a data folder, holds master key material (master.key,
// master.key.next and their temporary files): a backup leaves these out, so it never carries
// the key that opens it.
bool IsMasterKeyFileName(std::string_view name);

// The keyring's content: the check value and the two wrapped root keys (raw blobs).
struct KeyringFile {
  std::string check;           // "v1:" + 64 hex digits
  std::string sse_s3_wrapped;  // crypt::kWrappedKeyBytes bytes
  std::string kms_wrapped;
};

// The text of `keyring` (the format above).
std::string FormatKeyring(const KeyringFile& keyring);
// The keyring in `text`. kFormatTooNew: a "cubby-keyring vN" of a later version. kCorruption:
// anything else that is not exactly the format above (the message says which line).
storage::Result<KeyringFile> ParseKeyring(std::string_view text);

// What OpenKeyring found and did, for the start-up log line.
struct OpenedKeyring {
  crypt::ServiceKeys keys;          // the unwrapped root keys
  std::string master_key_file;      // the file the master key was read from (or written to)
  bool generated_key_file = false;  // that file is DATA/master.key, made by cubby
  bool key_generated = false;       // ... on this very start
  bool keyring_created = false;     // DATA/keyring was written on this start
  // Tidying OpenExistingKeyring leaves to FinishKeyringOpen (it writes nothing itself):
  bool complete_rotation = false;  // DATA/master.key.next opens the keyring, master.key not
  bool drop_next_key = false;      // DATA/master.key.next of a rotation that never got further
};

// Called with a one-line, secret-free warning for the start-up log.
using WarnFn = std::function<void(const std::string& message)>;

// The root keys of the data folder `data_dir` (which must exist), unwrapped with the master key
// from `master_key_file` (empty: DATA/master.key). Without a keyring (a first start, or a data
// folder from before encryption at rest) it makes two random root keys and writes the keyring;
// without a configured file it then uses DATA/master.key, generating it (0600) when absent. With
// a keyring it never generates a key. Calls `warn` when the key is DATA/master.key (what it
// protects and what not) and when it completes a rotation a crash interrupted (DATA/
// master.key.next, see RotateMasterKey). After a successful open, the folder is tidied as by
// FinishKeyringOpen. REQUIRES: the store is open (its lock held), so no rotation runs.
// Errors (nothing in the folder changed, except that no keyring means one may be created):
//   kInvalidArgument: the configured key file does not exist, has group/other permissions or
//     is not a key file; a keyring exists but no master key was configured and DATA/master.key
//     is missing; the master key does not match the keyring ("the master key does not match
//     this data folder's keyring (PATH)").
//   kCorruption: the keyring is not in the format above, or a root key does not unwrap under a
//     master key whose check value matched (an altered keyring).
//   kFormatTooNew: a keyring of a later version.
//   kIOError: a file could not be read or written.
storage::Result<OpenedKeyring> OpenKeyring(const std::string& data_dir,
                                           const std::string& master_key_file, const WarnFn& warn);

// Offline master key rotation of the data folder `data_dir`: the master key from
// `old_key_file` (empty: DATA/master.key) is verified against the keyring, the two root keys are
// re-wrapped under the KEKs of the key in `new_key_file`, and the keyring is replaced
// atomically. Objects are not touched. When the old key is DATA/master.key, that file is
// replaced by the new key too, in three steps that a crash can interrupt anywhere:
//   1. DATA/master.key.next := new key      (keyring old, master.key old: opens with the old key)
//   2. DATA/keyring := re-wrapped keyring   (keyring new, master.key old, .next new: OpenKeyring
//                                            finds .next matches and renames it: step 3)
//   3. rename master.key.next -> master.key (done)
// so the folder always holds a key that opens its keyring. With an external old key only step 2
// happens: after a crash the keyring opens with the old key or with the new one.
// `stop_after` (tests only: simulates a crash) is called with "next-key", "keyring" after steps
// 1 and 2; returning true stops there with OK.
// Errors: kAborted: a cubby holds the store's lock (DATA/db/LOCK): stop it first.
// kInvalidArgument: a key file is missing, badly protected or malformed, the old key does not
// match the keyring, the new key is the old one, or there is no keyring (never started).
// kCorruption, kFormatTooNew, kIOError: as OpenKeyring. Nothing changed unless OK.
storage::Status RotateMasterKey(const std::string& data_dir, const std::string& old_key_file,
                                const std::string& new_key_file,
                                const std::function<bool(std::string_view step)>& stop_after = {});

// The step before the store is opened, which writes nothing: the keyring's root keys as
// OpenKeyring returns them when DATA/keyring exists (same errors, the generated key's warning),
// leaving the folder's tidying to FinishKeyringOpen; nullopt when there is no keyring, after
// checking that a configured key file loads (kInvalidArgument as OpenKeyring). The keyring is
// then created by OpenKeyring once the store has opened, so a data folder the store refuses (a
// newer format) is left as it was.
storage::Result<std::optional<OpenedKeyring>> OpenExistingKeyring(
    const std::string& data_dir, const std::string& master_key_file, const WarnFn& warn);

// Tidies the data folder after OpenExistingKeyring: completes an interrupted rotation (renames
// DATA/master.key.next over DATA/master.key, calling `warn`), removes a master.key.next that was
// never used, and the temporary files of interrupted writes. REQUIRES: the store is open (its
// lock held), so no rotation runs meanwhile. kIOError when a rename or removal fails.
storage::Status FinishKeyringOpen(const std::string& data_dir, const OpenedKeyring& opened,
                                  const WarnFn& warn);

// Random root keys that live in memory only (an --ephemeral instance, whose data dies with it).
storage::Result<crypt::ServiceKeys> EphemeralServiceKeys();

}  // namespace cubby::server
