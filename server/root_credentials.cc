#include "server/root_credentials.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "crypt/secret_file.h"
#include "storage/keygen.h"

namespace cubby::server {
namespace {

using storage::Code;
using storage::Result;
using storage::Status;

Status Context(const Status& status, std::string_view what) {
  return Status(status.code(), std::string(what) + ": " + status.message());
}

Status Errno(std::string_view what, const std::string& path) {
  return Status(Code::kIOError, std::string(what) + " " + path + ": " + std::strerror(errno));
}

// The file's current content, or nullopt if it cannot be read (missing, unreadable).
std::optional<std::string> ReadFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return std::nullopt;
  std::string content;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    content.append(buf, static_cast<size_t>(n));
    if (content.size() > (1 << 16)) break;  // not ours; will be replaced
  }
  ::close(fd);
  return content;
}

// The id of the user `root`, which owns the root key: made here on a new data folder (the
// format-2 migration makes it for an older one).
Result<std::string> RootUserId(storage::Store& store, int64_t now_ms) {
  Result<storage::UserRecord> root = store.GetUser(storage::kRootUserName);
  if (!root.ok() && root.status().code() == Code::kNoSuchEntity) {
    storage::UserRecord user;
    user.name = std::string(storage::kRootUserName);
    user.display_name = std::string(storage::kRootUserName);
    user.created_ms = now_ms;
    root = store.CreateUser(user);
  }
  if (!root.ok()) return Context(root.status(), "making the root user");
  return root->user_id;
}

Result<RootCredentials> UseConfiguredKey(storage::Store& store, const std::string& path,
                                         const RootKeyConfig& configured, int64_t now_ms) {
  Result<std::string> root_user = RootUserId(store, now_ms);
  if (!root_user.ok()) return root_user.status();
  const std::string& id = configured.access_key_id;
  std::optional<std::string> previous;
  if (auto setting = store.GetSetting(kRootKeySetting); setting.ok()) {
    previous = *setting;
  } else if (setting.status().code() != Code::kNoSuchKey) {
    return Context(setting.status(), "reading the root key id");
  }
  // Refuse to turn a COSI-issued key into root.
  if (auto existing = store.GetAccessKey(id); existing.ok()) {
    if (!existing->all_buckets && previous != id) {
      return Status(Code::kInvalidArgument,
                    "CUBBY_ROOT_ACCESS_KEY names an existing non-root access key");
    }
  } else if (existing.status().code() != Code::kNoSuchAccessKey) {
    return Context(existing.status(), "reading the root key");
  }
  // Old key out first, then the new key, then the setting: a crash in between leaves at most
  // the new key, which the next start (with the same configuration) records.
  if (previous && *previous != id) {
    if (Status s = store.DeleteAccessKey(*previous); !s.ok()) {
      return Context(s, "deleting the previous root key");
    }
  }
  storage::AccessKeyRecord record;
  record.access_key_id = id;
  record.secret = configured.secret;
  record.all_buckets = true;
  record.created_ms = now_ms;
  record.user_id = *root_user;
  if (Status s = store.PutAccessKey(record); !s.ok()) return Context(s, "storing the root key");
  if (!previous || *previous != id) {
    if (Status s = store.PutSetting(kRootKeySetting, id); !s.ok()) {
      return Context(s, "storing the root key id");
    }
  }
  // A file left from a generated key names a key that no longer works (or, for the same id,
  // duplicates a secret the operator manages): remove it.
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return Errno("cannot remove", path);
  return RootCredentials{id, "", false};
}

}  // namespace

std::string SharedCredentialsText(const storage::AccessKeyRecord& key) {
  return "[default]\naws_access_key_id = " + key.access_key_id +
         "\naws_secret_access_key = " + key.secret.reveal() + "\n";
}

Result<RootCredentials> EnsureRootCredentials(storage::Store& store, const std::string& data_dir,
                                              const std::optional<RootKeyConfig>& configured,
                                              int64_t now_ms) {
  const std::string path = data_dir + "/" + std::string(kRootCredentialsFile);
  if (configured) return UseConfiguredKey(store, path, *configured, now_ms);
  Result<std::string> root_user = RootUserId(store, now_ms);
  if (!root_user.ok()) return root_user.status();

  std::optional<storage::AccessKeyRecord> key;
  if (auto setting = store.GetSetting(kRootKeySetting); setting.ok()) {
    if (auto stored = store.GetAccessKey(*setting); stored.ok()) {
      key = std::move(*stored);
    } else if (stored.status().code() != Code::kNoSuchAccessKey) {
      return Context(stored.status(), "reading the root key");
    }
  } else if (setting.status().code() != Code::kNoSuchKey) {
    return Context(setting.status(), "reading the root key id");
  }

  bool generated = false;
  if (!key) {
    auto fresh = storage::GenerateAccessKey();
    if (!fresh.ok()) return Context(fresh.status(), "generating the root key");
    fresh->all_buckets = true;
    fresh->created_ms = now_ms;
    fresh->user_id = *root_user;
    // Setting first, then the key: a crash in between leaves a setting naming a missing key,
    // which the next start replaces; never a root key nobody knows about.
    if (Status s = store.PutSetting(kRootKeySetting, fresh->access_key_id); !s.ok()) {
      return Context(s, "storing the root key id");
    }
    if (Status s = store.PutAccessKey(*fresh); !s.ok()) return Context(s, "storing the root key");
    key = std::move(*fresh);
    generated = true;
  } else if (key->user_id != *root_user) {
    key->user_id = *root_user;  // a key stored before its user existed
    if (Status s = store.PutAccessKey(*key); !s.ok()) return Context(s, "storing the root key");
  }

  std::string text = SharedCredentialsText(*key);
  if (ReadFile(path) != text) {
    // A write a crash interrupted left its temporary file, holding a secret: not for long.
    crypt::RemoveSecretTempFiles(path);
    if (crypt::Status s = crypt::WriteSecretFile(path, text, /*replace=*/true); !s.ok()) {
      return Status(Code::kIOError, s.message());
    }
  } else if (::chmod(path.c_str(), 0600) != 0) {
    return Errno("cannot chmod", path);
  }
  return RootCredentials{key->access_key_id, path, generated};
}

}  // namespace cubby::server
