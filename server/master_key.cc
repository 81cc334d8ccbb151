#include "server/master_key.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

#include "crypt/master_key.h"
#include "crypt/secret_file.h"
#include "text/encoding.h"

namespace cubby::server {
namespace {

using storage::Code;
using storage::Result;
using storage::Status;

constexpr std::string_view kKeyringHeader = "cubby-keyring v";
constexpr std::string_view kSseS3Context = "root:sse-s3";
constexpr std::string_view kKmsContext = "root:kms";
constexpr size_t kMaxKeyringBytes = 4096;  // a v1 keyring is about 270 bytes
constexpr std::string_view kSetting = "--master-key-file (CUBBY_MASTER_KEY_FILE)";

Status Errno(std::string_view what, const std::string& path, int err) {
  return Status(Code::kIOError, std::string(what) + " " + path + ": " + std::strerror(err));
}

// A file descriptor closed on scope exit.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd& operator=(Fd&&) = delete;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string Join(const std::string& dir, std::string_view name) {
  return dir + "/" + std::string(name);
}

Status SyncDir(const std::string& dir) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return Errno("open folder", dir, errno);
  if (::fsync(fd.get()) != 0) return Errno("fsync folder", dir, errno);
  return Status::Ok();
}

// The content of a small file; nullopt when it does not exist.
Result<std::optional<std::string>> ReadSmallFile(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (fd.get() < 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return Errno("open", path, errno);
  }
  std::string content(kMaxKeyringBytes + 1, '\0');
  size_t got = 0;
  while (got < content.size()) {
    ssize_t r = ::read(fd.get(), content.data() + got, content.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Errno("read", path, errno);
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  content.resize(got);
  return std::optional<std::string>(std::move(content));
}

// Writes `content` to DIR/NAME with crypt::WriteSecretFile. kInvalidArgument "<path> exists"
// when !replace and the file exists; kIOError for any other failure.
Status WriteFileAtomic(const std::string& dir, std::string_view name, std::string_view content,
                       bool replace) {
  const std::string path = Join(dir, name);
  const crypt::Status s = crypt::WriteSecretFile(path, content, replace);
  if (s.ok()) return Status::Ok();
  // Only kAlreadyExists, kIOError and kInternal (random numbers) come from it.
  if (s.code() == crypt::Code::kAlreadyExists) {
    return Status(Code::kInvalidArgument, path + " exists");
  }
  return Status(Code::kIOError, s.message());
}

// Removes the temporary files interrupted writes of the keyring and the master key files left
// (never the files themselves). Best effort: a file that cannot be removed stays, harmlessly.
void RemoveLeftovers(const std::string& dir) {
  for (std::string_view name : {kKeyringFile, kGeneratedMasterKeyFile, kNextMasterKeyFile}) {
    crypt::RemoveSecretTempFiles(Join(dir, name));
  }
}

bool SameFile(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;
}

// A master key file's failure to load, as this layer reports it: a configuration error
// (exit 2) unless the machine failed.
Status KeyFileError(const crypt::Status& s, const std::string& path, std::string_view setting) {
  switch (s.code()) {
    case crypt::Code::kNotFound:
      return Status(Code::kInvalidArgument,
                    "master key file " + path + " (" + std::string(setting) + ") does not exist");
    case crypt::Code::kBadPermissions:
    case crypt::Code::kBadFormat:
      return Status(Code::kInvalidArgument, s.message());
    case crypt::Code::kIOError:
    case crypt::Code::kOk:
    case crypt::Code::kInvalidArgument:
    case crypt::Code::kAuthFailed:
    case crypt::Code::kWrongKey:
    case crypt::Code::kAlreadyExists:
    case crypt::Code::kSinkFailed:
    case crypt::Code::kInternal:
      return Status(Code::kIOError, s.message());
  }
  return Status(Code::kIOError, s.message());
}

// A crypt failure where only the machine can be at fault (OpenSSL, random numbers).
Status Internal(const crypt::Status& s, std::string_view what) {
  return Status(Code::kIOError, std::string(what) + ": " + s.message());
}

Status WrongKey(const std::string& keyring_path) {
  return Status(Code::kInvalidArgument,
                "the master key does not match this data folder's keyring (" + keyring_path + ")");
}

// OK when `master` is the key whose check value the keyring holds.
Status Verify(const crypt::Key256& master, const KeyringFile& keyring,
              const std::string& keyring_path) {
  crypt::Status s = crypt::VerifyMasterKeyCheckValue(master, keyring.check);
  switch (s.code()) {
    case crypt::Code::kOk:
      return Status::Ok();
    case crypt::Code::kWrongKey:
      return WrongKey(keyring_path);
    case crypt::Code::kBadFormat:
      return Status(Code::kCorruption, keyring_path + ": the check value is malformed");
    case crypt::Code::kInvalidArgument:
    case crypt::Code::kAuthFailed:
    case crypt::Code::kNotFound:
    case crypt::Code::kAlreadyExists:
    case crypt::Code::kBadPermissions:
    case crypt::Code::kIOError:
    case crypt::Code::kSinkFailed:
    case crypt::Code::kInternal:
      return Internal(s, "verifying the master key");
  }
  return Internal(s, "verifying the master key");
}

// The master key of a data folder that has a keyring, verified against it (see OpenKeyring and
// RotateMasterKey). Writes nothing: what the folder needs tidied is noted in *opened
// (generated_key_file, complete_rotation, drop_next_key) for FinishKeyringOpen. A rotation a
// crash interrupted after its keyring step shows as DATA/master.key.next matching the keyring
// and DATA/master.key not.
Result<crypt::Key256> ResolveMasterKey(const std::string& data_dir, const std::string& configured,
                                       std::string_view setting, const KeyringFile& keyring,
                                       OpenedKeyring* opened) {
  bool* generated = &opened->generated_key_file;
  const std::string keyring_path = Join(data_dir, kKeyringFile);
  const std::string generated_path = Join(data_dir, kGeneratedMasterKeyFile);
  *generated = configured.empty() || SameFile(configured, generated_path);
  if (!*generated) {
    auto key = crypt::LoadMasterKeyFile(configured);
    if (!key.ok()) return KeyFileError(key.status(), configured, setting);
    if (Status s = Verify(*key, keyring, keyring_path); !s.ok()) return s;
    return std::move(key).value();
  }
  auto key = crypt::LoadMasterKeyFile(generated_path);
  if (!key.ok()) {
    if (key.status().code() == crypt::Code::kNotFound) {
      // Never a new key over existing data: its objects would be unreadable.
      return Status(Code::kInvalidArgument,
                    "this data folder has a keyring (" + keyring_path + ") but no master key: " +
                        generated_path + " is missing and " + std::string(setting) +
                        " is not set; give the master key this data was written with");
    }
    return KeyFileError(key.status(), generated_path, "generated");
  }
  Status verified = Verify(*key, keyring, keyring_path);
  const std::string next_path = Join(data_dir, kNextMasterKeyFile);
  if (verified.ok()) {
    // A rotation that stopped before its keyring step: its new key was never used.
    struct stat st {};
    opened->drop_next_key = ::lstat(next_path.c_str(), &st) == 0;
    return std::move(key).value();
  }
  if (verified.code() != Code::kInvalidArgument) return verified;
  auto next = crypt::LoadMasterKeyFile(next_path);
  if (!next.ok() || !Verify(*next, keyring, keyring_path).ok()) return verified;
  opened->complete_rotation = true;
  return std::move(next).value();
}

struct Keks {
  crypt::Key256 sse_s3;
  crypt::Key256 kms;
};

Result<Keks> DeriveKeks(const crypt::Key256& master) {
  auto sse_s3 = crypt::DeriveKek(master, crypt::KekPurpose::kSseS3);
  if (!sse_s3.ok()) return Internal(sse_s3.status(), "deriving a KEK");
  auto kms = crypt::DeriveKek(master, crypt::KekPurpose::kKmsKeyMaterial);
  if (!kms.ok()) return Internal(kms.status(), "deriving a KEK");
  return Keks{std::move(sse_s3).value(), std::move(kms).value()};
}

// A wrapped root key that does not open under a master key whose check value matched.
Status Altered(const crypt::Status& s, const std::string& keyring_path, std::string_view entry) {
  if (s.code() == crypt::Code::kWrongKey || s.code() == crypt::Code::kBadFormat) {
    return Status(Code::kCorruption, keyring_path + ": the " + std::string(entry) +
                                         " root key does not unwrap under the master key whose "
                                         "check value matches (altered keyring?)");
  }
  return Internal(s, "unwrapping a root key");
}

Result<crypt::ServiceKeys> UnwrapRoots(const crypt::Key256& master, const KeyringFile& keyring,
                                       const std::string& keyring_path) {
  auto keks = DeriveKeks(master);
  if (!keks.ok()) return keks.status();
  auto sse_s3 = crypt::UnwrapKey(keks->sse_s3, kSseS3Context, keyring.sse_s3_wrapped);
  if (!sse_s3.ok()) return Altered(sse_s3.status(), keyring_path, "sse-s3");
  auto kms = crypt::UnwrapKey(keks->kms, kKmsContext, keyring.kms_wrapped);
  if (!kms.ok()) return Altered(kms.status(), keyring_path, "kms");
  return crypt::ServiceKeys{std::move(sse_s3).value(), std::move(kms).value()};
}

Result<KeyringFile> ReadKeyring(const std::string& keyring_path, bool* exists) {
  auto text = ReadSmallFile(keyring_path);
  if (!text.ok()) return text.status();
  *exists = text->has_value();
  if (!*exists) return KeyringFile{};
  auto parsed = ParseKeyring(**text);
  if (!parsed.ok()) {
    return Status(parsed.status().code(), keyring_path + ": " + parsed.status().message());
  }
  return parsed;
}

// First start (or a data folder from before encryption at rest): a master key, two new root
// keys, a new keyring. kInvalidArgument "exists" when another process wrote a keyring meanwhile.
Result<OpenedKeyring> CreateKeyring(const std::string& data_dir, const std::string& configured,
                                    std::string_view setting) {
  OpenedKeyring opened;
  const std::string generated_path = Join(data_dir, kGeneratedMasterKeyFile);
  opened.generated_key_file = configured.empty() || SameFile(configured, generated_path);
  opened.master_key_file = opened.generated_key_file ? generated_path : configured;
  auto master = crypt::LoadMasterKeyFile(opened.master_key_file);
  if (!master.ok() && master.status().code() == crypt::Code::kNotFound &&
      opened.generated_key_file) {
    master = crypt::GenerateMasterKeyFile(generated_path);
    opened.key_generated = master.ok();
    if (!master.ok() && master.status().code() == crypt::Code::kAlreadyExists) {
      master = crypt::LoadMasterKeyFile(generated_path);  // another process was quicker
    }
  }
  if (!master.ok()) {
    return KeyFileError(master.status(), opened.master_key_file,
                        opened.generated_key_file ? "generated" : setting);
  }
  auto keks = DeriveKeks(*master);
  if (!keks.ok()) return keks.status();
  auto check = crypt::MasterKeyCheckValue(*master);
  if (!check.ok()) return Internal(check.status(), "computing the check value");
  auto sse_s3 = crypt::NewRandomKey();
  if (!sse_s3.ok()) return Internal(sse_s3.status(), "making a root key");
  auto kms = crypt::NewRandomKey();
  if (!kms.ok()) return Internal(kms.status(), "making a root key");
  KeyringFile keyring;
  keyring.check = *check;
  auto sse_wrapped = crypt::WrapKey(keks->sse_s3, kSseS3Context, *sse_s3);
  if (!sse_wrapped.ok()) return Internal(sse_wrapped.status(), "wrapping a root key");
  auto kms_wrapped = crypt::WrapKey(keks->kms, kKmsContext, *kms);
  if (!kms_wrapped.ok()) return Internal(kms_wrapped.status(), "wrapping a root key");
  keyring.sse_s3_wrapped = std::move(*sse_wrapped);
  keyring.kms_wrapped = std::move(*kms_wrapped);
  if (Status s = WriteFileAtomic(data_dir, kKeyringFile, FormatKeyring(keyring),
                                 /*replace=*/false);
      !s.ok()) {
    return s;
  }
  opened.keys = crypt::ServiceKeys{std::move(sse_s3).value(), std::move(kms).value()};
  opened.keyring_created = true;
  return opened;
}

std::string GeneratedKeyWarning(const std::string& path) {
  return "the master key is " + path +
         ", generated by cubby next to the data it protects: it keeps encrypted objects "
         "unreadable only in copies of the data that leave this file behind (a `cubby backup`, "
         "the db/ folder copied on its own), not on a stolen or recycled disk that holds the "
         "whole data folder. To protect against that, keep the master key on another medium "
         "(a Kubernetes Secret, a USB key) and pass --master-key-file (CUBBY_MASTER_KEY_FILE); "
         "`cubby master-key rotate` replaces a key that has been on this disk";
}

// The store's lock (DATA/db/LOCK, the fcntl lock RocksDB takes) held for the scope of a
// rotation, so a running cubby is not changed under its feet. No store yet: no lock needed.
Result<Fd> LockStore(const std::string& data_dir) {
  const std::string path = data_dir + "/db/LOCK";
  Fd fd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return Fd();
    return Errno("open", path, errno);
  }
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  if (::fcntl(fd.get(), F_SETLK, &lock) != 0) {
    if (errno == EAGAIN || errno == EACCES) {
      return Status(Code::kAborted, "a cubby process is using the data folder " + data_dir +
                                        " (it holds " + path +
                                        "); stop it before rotating the master key");
    }
    return Errno("lock", path, errno);
  }
  return fd;
}

}  // namespace

bool IsMasterKeyFileName(std::string_view name) {
  return name == kGeneratedMasterKeyFile ||
         name.starts_with(std::string(kGeneratedMasterKeyFile) + ".");
}

std::string FormatKeyring(const KeyringFile& keyring) {
  return std::string(kKeyringHeader) + "1\ncheck " + keyring.check + "\nsse-s3 " +
         text::Base64Encode(keyring.sse_s3_wrapped) + "\nkms " +
         text::Base64Encode(keyring.kms_wrapped) + "\n";
}

Result<KeyringFile> ParseKeyring(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    if (nl == std::string_view::npos) {
      return Status(Code::kCorruption, "truncated (the last line has no newline)");
    }
    lines.push_back(text.substr(0, nl));
    text.remove_prefix(nl + 1);
  }
  if (lines.empty() || !lines[0].starts_with(kKeyringHeader)) {
    return Status(Code::kCorruption, "not a cubby keyring (line 1)");
  }
  const std::string_view version = lines[0].substr(kKeyringHeader.size());
  if (version != "1") {
    if (!version.empty() && version.find_first_not_of("0123456789") == std::string_view::npos) {
      return Status(Code::kFormatTooNew, "keyring version " + std::string(version) +
                                             " is newer than this cubby supports (1); use a "
                                             "newer release");
    }
    return Status(Code::kCorruption, "not a cubby keyring (line 1)");
  }
  if (lines.size() != 4) {
    return Status(Code::kCorruption, "expected 4 lines, found " + std::to_string(lines.size()));
  }
  KeyringFile keyring;
  struct Entry {
    std::string_view name;
    std::string* value;
    bool base64;
  };
  const Entry entries[] = {{"check", &keyring.check, false},
                           {"sse-s3", &keyring.sse_s3_wrapped, true},
                           {"kms", &keyring.kms_wrapped, true}};
  for (size_t i = 0; i < std::size(entries); ++i) {
    const Entry& e = entries[i];
    const std::string_view line = lines[i + 1];
    const std::string where = " (line " + std::to_string(i + 2) + ")";
    if (!line.starts_with(e.name) || line.size() <= e.name.size() || line[e.name.size()] != ' ') {
      return Status(Code::kCorruption, "expected \"" + std::string(e.name) + " ...\"" + where);
    }
    const std::string_view value = line.substr(e.name.size() + 1);
    if (!e.base64) {
      *e.value = std::string(value);
      continue;
    }
    if (!text::Base64Decode(value, e.value) || e.value->size() != crypt::kWrappedKeyBytes) {
      return Status(Code::kCorruption, "malformed wrapped " + std::string(e.name) + " key" + where);
    }
  }
  return keyring;
}

Result<std::optional<OpenedKeyring>> OpenExistingKeyring(const std::string& data_dir,
                                                         const std::string& master_key_file,
                                                         const WarnFn& warn) {
  const std::string keyring_path = Join(data_dir, kKeyringFile);
  bool exists = false;
  auto keyring = ReadKeyring(keyring_path, &exists);
  if (!keyring.ok()) return keyring.status();
  if (!exists) {
    const std::string generated_path = Join(data_dir, kGeneratedMasterKeyFile);
    if (!master_key_file.empty() && !SameFile(master_key_file, generated_path)) {
      auto key = crypt::LoadMasterKeyFile(master_key_file);
      if (!key.ok()) return KeyFileError(key.status(), master_key_file, kSetting);
    }
    return std::optional<OpenedKeyring>();
  }
  OpenedKeyring opened;
  auto master = ResolveMasterKey(data_dir, master_key_file, kSetting, *keyring, &opened);
  if (!master.ok()) return master.status();
  auto keys = UnwrapRoots(*master, *keyring, keyring_path);
  if (!keys.ok()) return keys.status();
  opened.keys = std::move(keys).value();
  opened.master_key_file =
      opened.generated_key_file ? Join(data_dir, kGeneratedMasterKeyFile) : master_key_file;
  if (opened.generated_key_file && warn) warn(GeneratedKeyWarning(opened.master_key_file));
  return std::optional<OpenedKeyring>(std::move(opened));
}

Result<OpenedKeyring> OpenKeyring(const std::string& data_dir, const std::string& master_key_file,
                                  const WarnFn& warn) {
  const std::string keyring_path = Join(data_dir, kKeyringFile);
  // Twice at most: a keyring another process created between our look and our write is read.
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto existing = OpenExistingKeyring(data_dir, master_key_file, warn);
    if (!existing.ok()) return existing.status();
    if (existing->has_value()) {
      if (Status s = FinishKeyringOpen(data_dir, **existing, warn); !s.ok()) return s;
      return std::move(**existing);
    }
    auto created = CreateKeyring(data_dir, master_key_file, kSetting);
    if (!created.ok() && created.status().code() == Code::kInvalidArgument &&
        created.status().message() == keyring_path + " exists") {
      continue;
    }
    if (created.ok() && created->generated_key_file && warn) {
      warn(GeneratedKeyWarning(created->master_key_file));
    }
    if (created.ok()) RemoveLeftovers(data_dir);
    return created;
  }
  return Status(Code::kIOError, keyring_path + " appeared and vanished while starting");
}

Status RotateMasterKey(const std::string& data_dir, const std::string& old_key_file,
                       const std::string& new_key_file,
                       const std::function<bool(std::string_view step)>& stop_after) {
  auto lock = LockStore(data_dir);
  if (!lock.ok()) return lock.status();
  const std::string keyring_path = Join(data_dir, kKeyringFile);
  bool exists = false;
  auto keyring = ReadKeyring(keyring_path, &exists);
  if (!keyring.ok()) return keyring.status();
  if (!exists) {
    return Status(Code::kInvalidArgument,
                  "no keyring in " + data_dir + " (" + keyring_path +
                      "): start cubby on it once, which creates it with the master key");
  }
  OpenedKeyring current;
  auto old_key = ResolveMasterKey(data_dir, old_key_file, "--master-key-file", *keyring, &current);
  if (!old_key.ok()) return old_key.status();
  // First the tidying an interrupted rotation left (master.key must open the keyring before
  // master.key.next is written again).
  if (Status s = FinishKeyringOpen(data_dir, current, {}); !s.ok()) return s;
  const bool generated = current.generated_key_file;
  auto new_key = crypt::LoadMasterKeyFile(new_key_file);
  if (!new_key.ok()) return KeyFileError(new_key.status(), new_key_file, "--new-master-key-file");
  if (new_key->SameAs(*old_key)) {
    return Status(Code::kInvalidArgument,
                  "the new master key (" + new_key_file + ") is the current one");
  }
  auto old_keks = DeriveKeks(*old_key);
  if (!old_keks.ok()) return old_keks.status();
  auto new_keks = DeriveKeks(*new_key);
  if (!new_keks.ok()) return new_keks.status();
  KeyringFile next;
  auto check = crypt::MasterKeyCheckValue(*new_key);
  if (!check.ok()) return Internal(check.status(), "computing the check value");
  next.check = *check;
  auto sse_s3 =
      crypt::RewrapKey(old_keks->sse_s3, new_keks->sse_s3, kSseS3Context, keyring->sse_s3_wrapped);
  if (!sse_s3.ok()) return Altered(sse_s3.status(), keyring_path, "sse-s3");
  auto kms = crypt::RewrapKey(old_keks->kms, new_keks->kms, kKmsContext, keyring->kms_wrapped);
  if (!kms.ok()) return Altered(kms.status(), keyring_path, "kms");
  next.sse_s3_wrapped = std::move(*sse_s3);
  next.kms_wrapped = std::move(*kms);

  if (generated) {
    std::string key_text = text::Base64Encode(
        std::string_view(reinterpret_cast<const char*>(new_key->reveal()), crypt::Key256::kBytes));
    key_text.push_back('\n');
    Status s = WriteFileAtomic(data_dir, kNextMasterKeyFile, key_text, /*replace=*/true);
    crypt::Cleanse(&key_text);
    if (!s.ok()) return s;
    if (stop_after && stop_after("next-key")) return Status::Ok();
  }
  if (Status s = WriteFileAtomic(data_dir, kKeyringFile, FormatKeyring(next), /*replace=*/true);
      !s.ok()) {
    return s;
  }
  if (stop_after && stop_after("keyring")) return Status::Ok();
  if (generated) {
    const std::string from = Join(data_dir, kNextMasterKeyFile);
    const std::string to = Join(data_dir, kGeneratedMasterKeyFile);
    if (::rename(from.c_str(), to.c_str()) != 0) return Errno("rename " + from + " to", to, errno);
    if (Status s = SyncDir(data_dir); !s.ok()) return s;
  }
  RemoveLeftovers(data_dir);
  return Status::Ok();
}

Status FinishKeyringOpen(const std::string& data_dir, const OpenedKeyring& opened,
                         const WarnFn& warn) {
  const std::string next_path = Join(data_dir, kNextMasterKeyFile);
  const std::string generated_path = Join(data_dir, kGeneratedMasterKeyFile);
  if (opened.complete_rotation) {
    if (::rename(next_path.c_str(), generated_path.c_str()) != 0) {
      return Errno("rename " + next_path + " to", generated_path, errno);
    }
    if (Status s = SyncDir(data_dir); !s.ok()) return s;
    if (warn) {
      warn("completed an interrupted master key rotation: " + generated_path + " replaced by " +
           next_path);
    }
  } else if (opened.drop_next_key) {
    if (::unlink(next_path.c_str()) != 0 && errno != ENOENT) {
      return Errno("remove", next_path, errno);
    }
  }
  RemoveLeftovers(data_dir);
  return Status::Ok();
}

Result<crypt::ServiceKeys> EphemeralServiceKeys() {
  auto sse_s3 = crypt::NewRandomKey();
  if (!sse_s3.ok()) return Internal(sse_s3.status(), "making a root key");
  auto kms = crypt::NewRandomKey();
  if (!kms.ok()) return Internal(kms.status(), "making a root key");
  return crypt::ServiceKeys{std::move(sse_s3).value(), std::move(kms).value()};
}

}  // namespace cubby::server
