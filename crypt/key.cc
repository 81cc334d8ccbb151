#include "crypt/key.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <cstring>
#include <memory>

#include "crypt/gcm.h"
#include "crypt/key_internal.h"

namespace cubby::crypt {

Key256 Key256::FromBytes(const unsigned char* bytes) {
  Key256 k;
  std::memcpy(k.bytes_.data(), bytes, kBytes);
  return k;
}

Key256::~Key256() { OPENSSL_cleanse(bytes_.data(), kBytes); }

Key256::Key256(Key256&& other) noexcept : bytes_(other.bytes_) {
  OPENSSL_cleanse(other.bytes_.data(), kBytes);
}

Key256& Key256::operator=(Key256&& other) noexcept {
  if (this != &other) {
    bytes_ = other.bytes_;
    OPENSSL_cleanse(other.bytes_.data(), kBytes);
  }
  return *this;
}

bool Key256::SameAs(const Key256& other) const {
  return CRYPTO_memcmp(bytes_.data(), other.bytes_.data(), kBytes) == 0;
}

void Cleanse(std::string* secret) {
  if (!secret->empty()) OPENSSL_cleanse(secret->data(), secret->size());
  secret->clear();
}

Result<Key256> NewRandomKey() {
  Key256 k;
  if (RAND_bytes(k.mutable_bytes(), static_cast<int>(Key256::kBytes)) != 1) {
    return Status(Code::kInternal, "RAND_bytes failed");
  }
  return k;
}

const char* KekLabel(KekPurpose purpose) {
  switch (purpose) {
    case KekPurpose::kSseS3:
      return "cubby kek sse-s3 v1";
    case KekPurpose::kKmsKeyMaterial:
      return "cubby kek kms-key-material v1";
  }
  return "cubby kek unknown";
}

namespace internal {
Result<Key256> Hkdf(const Key256& ikm, std::string_view salt, std::string_view info) {
  std::unique_ptr<EVP_KDF, decltype(&EVP_KDF_free)> kdf(EVP_KDF_fetch(nullptr, "HKDF", nullptr),
                                                        EVP_KDF_free);
  if (!kdf) return Status(Code::kInternal, "HKDF unavailable");
  std::unique_ptr<EVP_KDF_CTX, decltype(&EVP_KDF_CTX_free)> ctx(EVP_KDF_CTX_new(kdf.get()),
                                                                EVP_KDF_CTX_free);
  if (!ctx) return Status(Code::kInternal, "HKDF context allocation failed");
  char digest[] = "SHA256";
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY,
                                        const_cast<unsigned char*>(ikm.reveal()), Key256::kBytes),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, const_cast<char*>(salt.data()),
                                        salt.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, const_cast<char*>(info.data()),
                                        info.size()),
      OSSL_PARAM_construct_end(),
  };
  Key256 out;
  if (EVP_KDF_derive(ctx.get(), out.mutable_bytes(), Key256::kBytes, params) != 1) {
    return Status(Code::kInternal, "HKDF derivation failed");
  }
  return out;
}
}  // namespace internal

Result<Key256> DeriveKek(const Key256& master, KekPurpose purpose) {
  return internal::Hkdf(master, "cubby-kek-salt-v1", KekLabel(purpose));
}

namespace {
std::string WrapAad(std::string_view context) {
  std::string aad("cubby-wrap-v1");
  aad.push_back('\0');
  aad.append(context);
  return aad;
}
}  // namespace

Result<std::string> WrapKey(const Key256& kek, std::string_view context, const Key256& key) {
  unsigned char nonce[kGcmNonceBytes];
  if (RAND_bytes(nonce, sizeof nonce) != 1) return Status(Code::kInternal, "RAND_bytes failed");
  std::string_view nonce_view(reinterpret_cast<const char*>(nonce), sizeof nonce);
  auto sealed =
      GcmSeal(kek, nonce_view, WrapAad(context),
              std::string_view(reinterpret_cast<const char*>(key.reveal()), Key256::kBytes));
  if (!sealed.ok()) return sealed.status();
  std::string blob;
  blob.reserve(kWrappedKeyBytes);
  blob.push_back(static_cast<char>(kWrapVersion));
  blob.append(nonce_view);
  blob.append(*sealed);  // ciphertext of a key: safe to leave in memory
  return blob;
}

Result<Key256> UnwrapKey(const Key256& kek, std::string_view context, std::string_view blob) {
  if (blob.size() != kWrappedKeyBytes) {
    return Status(Code::kBadFormat, "wrapped key of " + std::to_string(blob.size()) +
                                        " bytes, expected " + std::to_string(kWrappedKeyBytes));
  }
  if (static_cast<unsigned char>(blob[0]) != kWrapVersion) {
    return Status(Code::kBadFormat,
                  "wrapped key version " + std::to_string(static_cast<unsigned char>(blob[0])));
  }
  auto opened = GcmOpen(kek, blob.substr(1, kGcmNonceBytes), WrapAad(context),
                        blob.substr(1 + kGcmNonceBytes));
  if (!opened.ok()) {
    if (opened.status().code() == Code::kAuthFailed) {
      return Status(Code::kWrongKey, "wrapped key does not verify (wrong key or context)");
    }
    return opened.status();
  }
  Key256 key = Key256::FromBytes(reinterpret_cast<const unsigned char*>(opened->data()));
  Cleanse(&*opened);
  return key;
}

Result<std::string> RewrapKey(const Key256& old_kek, const Key256& new_kek,
                              std::string_view context, std::string_view blob) {
  auto key = UnwrapKey(old_kek, context, blob);
  if (!key.ok()) return key.status();
  return WrapKey(new_kek, context, *key);
}

}  // namespace cubby::crypt
