#include "crypt/customer_key.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "text/encoding.h"

namespace cubby::crypt {
namespace {

constexpr size_t kSaltBytes = 16;
constexpr std::string_view kCheckPrefix = "v1:";

std::string_view Bytes(const unsigned char* p, size_t n) {
  return std::string_view(reinterpret_cast<const char*>(p), n);
}

// HMAC-SHA256(salt, key) as lowercase hex; "" if OpenSSL fails.
std::string KeyMac(std::string_view salt, const Key256& key) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  size_t mac_len = 0;
  if (EVP_Q_mac(nullptr, "HMAC", nullptr, "SHA256", nullptr, salt.data(), salt.size(), key.reveal(),
                Key256::kBytes, mac, sizeof mac, &mac_len) == nullptr) {
    return "";
  }
  return text::HexEncode(Bytes(mac, mac_len));
}

}  // namespace

CustomerKeyProblem ParseCustomerKey(std::string_view key_base64, std::string_view key_md5_base64,
                                    Key256* key) {
  std::string raw;
  if (!text::Base64Decode(key_base64, &raw)) return CustomerKeyProblem::kKeyNotBase64;
  if (raw.size() != Key256::kBytes) {
    Cleanse(&raw);
    return CustomerKeyProblem::kKeyNot256Bits;
  }
  std::string md5;
  if (!text::Base64Decode(key_md5_base64, &md5) || md5.size() != 16) {
    Cleanse(&raw);
    return CustomerKeyProblem::kMd5NotBase64;
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_len = 0;
  const bool hashed =
      EVP_Digest(raw.data(), raw.size(), digest, &digest_len, EVP_md5(), nullptr) == 1;
  Key256 parsed = Key256::FromBytes(reinterpret_cast<const unsigned char*>(raw.data()));
  Cleanse(&raw);
  // A failed digest cannot match: reported as a mismatch (the request cannot proceed either way).
  if (!hashed || digest_len != 16 || CRYPTO_memcmp(digest, md5.data(), 16) != 0) {
    return CustomerKeyProblem::kMd5Mismatch;
  }
  *key = std::move(parsed);
  return CustomerKeyProblem::kNone;
}

Result<std::string> NewCustomerKeyCheck(const Key256& key) {
  unsigned char salt[kSaltBytes];
  if (RAND_bytes(salt, sizeof salt) != 1) return Status(Code::kInternal, "RAND_bytes failed");
  std::string mac = KeyMac(Bytes(salt, sizeof salt), key);
  if (mac.empty()) return Status(Code::kInternal, "HMAC-SHA256 failed");
  return std::string(kCheckPrefix) + text::Base64Encode(Bytes(salt, sizeof salt)) + ":" + mac;
}

bool CustomerKeyMatches(const Key256& key, std::string_view stored) {
  if (stored.substr(0, kCheckPrefix.size()) != kCheckPrefix) return false;
  stored.remove_prefix(kCheckPrefix.size());
  size_t colon = stored.find(':');
  if (colon == std::string_view::npos) return false;
  std::string salt;
  if (!text::Base64Decode(stored.substr(0, colon), &salt) || salt.size() != kSaltBytes) {
    return false;
  }
  std::string_view mac = stored.substr(colon + 1);
  std::string expected = KeyMac(salt, key);
  return !expected.empty() && expected.size() == mac.size() &&
         CRYPTO_memcmp(expected.data(), mac.data(), mac.size()) == 0;
}

}  // namespace cubby::crypt
