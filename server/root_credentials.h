// The root access key: the key with every right on every bucket.
//
// Configured (CUBBY_ROOT_ACCESS_KEY / CUBBY_ROOT_SECRET_KEY): stored as the root key, replacing a
// previously persisted root key with a different id (which stops working), and any
// root-credentials file left from a generated key is removed (it would name a dead key).
// Not configured: generated on first start and persisted; `<data dir>/root-credentials` (mode
// 0600, AWS shared-credentials format) holds it, and later starts reuse the stored key and
// rewrite the file if it is missing or stale.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "server/config.h"
#include "storage/status.h"
#include "storage/store.h"
#include "storage/users.h"

namespace cubby::server {

using storage::kRootKeySetting;  // storage/users.h: the format-2 migration reads it too
inline constexpr std::string_view kRootCredentialsFile = "root-credentials";

struct RootCredentials {
  std::string access_key_id;
  std::string file;        // path of the credentials file; empty when the key was configured
  bool generated = false;  // a new key was made on this start
};

// The AWS shared-credentials document for a key:
//   [default]\naws_access_key_id = ID\naws_secret_access_key = SECRET\n
std::string SharedCredentialsText(const storage::AccessKeyRecord& key);

// Makes sure the store holds the root key (see the file comment) and returns its id and the
// credentials file. `now_ms` stamps a new record. Errors: storage errors from `store`
// (message prefixed with what was being done); kInvalidArgument if the configured id belongs to
// an existing non-root key; kIOError if the credentials file cannot be written.
storage::Result<RootCredentials> EnsureRootCredentials(storage::Store& store,
                                                       const std::string& data_dir,
                                                       const std::optional<RootKeyConfig>& configured,
                                                       int64_t now_ms);

}  // namespace cubby::server
