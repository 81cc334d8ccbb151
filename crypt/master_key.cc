#include "crypt/master_key.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "crypt/key_internal.h"
#include "crypt/secret_file.h"
#include "text/encoding.h"

namespace cubby::crypt {
namespace {

constexpr size_t kBase64KeyChars = 44;
constexpr size_t kMaxKeyFileBytes = 128;  // anything longer is not a key file of ours

Status Errno(Code code, const std::string& what, const std::string& path, int err) {
  return Status(code, what + " " + path + ": " + std::strerror(err));
}

// A file descriptor closed on scope exit.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

Result<Key256> LoadMasterKeyFile(const std::string& path) {
  // O_NONBLOCK: a FIFO or device named by mistake must not hang start-up (fstat refuses it).
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
    int err = errno;
    return Errno(err == ENOENT ? Code::kNotFound : Code::kIOError, "open master key file", path,
                 err);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Errno(Code::kIOError, "stat", path, errno);
  if (!S_ISREG(st.st_mode)) return Status(Code::kBadFormat, path + " is not a regular file");
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return Status(Code::kBadPermissions, "master key file " + path + " has mode " + mode +
                                             "; it must not be accessible to group or others "
                                             "(chmod 600)");
  }
  std::string text(kMaxKeyFileBytes + 1, '\0');
  size_t got = 0;
  while (got < text.size()) {
    ssize_t r = ::read(fd.get(), text.data() + got, text.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int err = errno;
      Cleanse(&text);
      return Errno(Code::kIOError, "read", path, err);
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  text.resize(got);
  std::string_view body = text;
  if (!body.empty() && body.back() == '\n') body.remove_suffix(1);
  std::string raw;
  const bool decoded = body.size() == kBase64KeyChars && text::Base64Decode(body, &raw) &&
                       raw.size() == Key256::kBytes;
  Cleanse(&text);
  if (!decoded) {
    Cleanse(&raw);
    // The message says what the file must hold, never what it holds.
    return Status(Code::kBadFormat, "master key file " + path +
                                        " must hold a 32-byte key in base64 (44 characters, "
                                        "e.g. `openssl rand -base64 32`)");
  }
  Key256 key = Key256::FromBytes(reinterpret_cast<const unsigned char*>(raw.data()));
  Cleanse(&raw);
  return key;
}

Result<Key256> GenerateMasterKeyFile(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    return Status(Code::kAlreadyExists, "master key file " + path + " already exists");
  }
  auto key = NewRandomKey();
  if (!key.ok()) return key.status();
  std::string text = text::Base64Encode(
      std::string_view(reinterpret_cast<const char*>(key->reveal()), Key256::kBytes));
  text.push_back('\n');

  const Status status = WriteSecretFile(path, text, /*replace=*/false);
  Cleanse(&text);
  if (!status.ok()) return status;
  return std::move(key).value();
}

namespace {
constexpr std::string_view kCheckPrefix = "v1:";
constexpr size_t kCheckHexChars = 64;
}  // namespace

Result<std::string> MasterKeyCheckValue(const Key256& master) {
  auto check_key = internal::Hkdf(master, "cubby-check-salt-v1", "cubby master key check v1");
  if (!check_key.ok()) return check_key.status();
  static constexpr char kLabel[] = "cubby master key check value";
  unsigned char mac[EVP_MAX_MD_SIZE];
  size_t mac_len = 0;
  if (EVP_Q_mac(nullptr, "HMAC", nullptr, "SHA256", nullptr, check_key->reveal(), Key256::kBytes,
                reinterpret_cast<const unsigned char*>(kLabel), sizeof kLabel - 1, mac, sizeof mac,
                &mac_len) == nullptr) {
    return Status(Code::kInternal, "HMAC-SHA256 failed");
  }
  return std::string(kCheckPrefix) +
         text::HexEncode(std::string_view(reinterpret_cast<const char*>(mac), mac_len));
}

Status VerifyMasterKeyCheckValue(const Key256& master, std::string_view stored) {
  if (stored.size() != kCheckPrefix.size() + kCheckHexChars ||
      stored.substr(0, kCheckPrefix.size()) != kCheckPrefix) {
    return Status(Code::kBadFormat, "not a master key check value");
  }
  auto expected = MasterKeyCheckValue(master);
  if (!expected.ok()) return expected.status();
  if (CRYPTO_memcmp(expected->data(), stored.data(), expected->size()) != 0) {
    return Status(Code::kWrongKey,
                  "the master key does not match the one this data was written with");
  }
  return Status::Ok();
}

}  // namespace cubby::crypt
