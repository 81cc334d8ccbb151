#include "storage/keygen.h"

#include <openssl/rand.h>

#include <string_view>

namespace cubby::storage {
namespace {

constexpr std::string_view kIdAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
constexpr std::string_view kSecretAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kIdPrefix = "CB";
constexpr size_t kIdLength = 20;
constexpr size_t kSecretLength = 40;

// Appends `count` characters drawn uniformly from `alphabet`. Rejection sampling keeps the
// distribution uniform when the alphabet size does not divide 256.
bool AppendRandom(std::string_view alphabet, size_t count, std::string* out) {
  const unsigned limit = 256 - (256 % alphabet.size());
  unsigned char buf[64];
  while (count > 0) {
    if (RAND_bytes(buf, sizeof(buf)) != 1) return false;
    for (unsigned char b : buf) {
      if (count == 0) break;
      if (b >= limit) continue;
      out->push_back(alphabet[b % alphabet.size()]);
      --count;
    }
  }
  return true;
}

constexpr std::string_view kHexAlphabet = "0123456789abcdef";
constexpr std::string_view kDigits = "0123456789";

}  // namespace

Result<std::string> GenerateCanonicalId() {
  std::string id;
  if (!AppendRandom(kHexAlphabet, 64, &id)) return Status(Code::kIOError, "RAND_bytes failed");
  return id;
}

Result<std::string> GenerateAccountId() {
  std::string id;
  if (!AppendRandom(kDigits, 12, &id)) return Status(Code::kIOError, "RAND_bytes failed");
  return id;
}

Result<AccessKeyRecord> GenerateAccessKey() {
  AccessKeyRecord record;
  std::string id(kIdPrefix);
  std::string secret;
  if (!AppendRandom(kIdAlphabet, kIdLength - kIdPrefix.size(), &id) ||
      !AppendRandom(kSecretAlphabet, kSecretLength, &secret)) {
    return Status(Code::kIOError, "RAND_bytes failed");
  }
  record.access_key_id = std::move(id);
  record.secret = SecretKey(std::move(secret));
  return record;
}

}  // namespace cubby::storage
