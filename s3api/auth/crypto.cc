#include "s3api/auth/crypto.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <cstdlib>
#include <limits>

namespace cubby::s3api::auth {
namespace {

// Explicitly fetched algorithms, once per process: the EVP_sha256()-style getters make OpenSSL 3
// fetch the implementation again on every init, which shows up on the per-request hot path.
// A fetched EVP_MD / EVP_MAC is immutable and safe to share between threads.
const EVP_MD* FetchDigest(const char* name, const EVP_MD* fallback) {
  EVP_MD* md = EVP_MD_fetch(nullptr, name, nullptr);
  return md != nullptr ? md : fallback;
}

const EVP_MD* Digest(HashAlgorithm algorithm) {
  static const EVP_MD* const md5 = FetchDigest("MD5", EVP_md5());
  static const EVP_MD* const sha1 = FetchDigest("SHA1", EVP_sha1());
  static const EVP_MD* const sha256 = FetchDigest("SHA256", EVP_sha256());
  switch (algorithm) {
    case HashAlgorithm::kMd5:
      return md5;
    case HashAlgorithm::kSha1:
      return sha1;
    case HashAlgorithm::kSha256:
      return sha256;
  }
  std::abort();
}

// Running out of memory inside OpenSSL leaves no sensible result to return from a hash; like
// operator new, treat it as fatal rather than hand back a digest that is not one.
void Check(bool ok) {
  if (!ok) std::abort();
}

std::string OneShot(HashAlgorithm algorithm, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  Check(EVP_Digest(data.data(), data.size(), out, &n, Digest(algorithm), nullptr) == 1);
  return std::string(reinterpret_cast<char*>(out), n);
}

struct MacCtxDeleter {
  void operator()(EVP_MAC_CTX* ctx) const { EVP_MAC_CTX_free(ctx); }
};

// One HMAC context per thread and digest, its digest parameter set once; EVP_MAC_init with a
// new key and no parameters re-keys it for each call (SigV4 derives four keys per request).
EVP_MAC_CTX* HmacContext(const char* digest_name) {
  static EVP_MAC* const mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  Check(mac != nullptr);
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
  Check(ctx != nullptr);
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, const_cast<char*>(digest_name), 0),
      OSSL_PARAM_construct_end()};
  Check(EVP_MAC_CTX_set_params(ctx, params) == 1);
  return ctx;
}

std::string Hmac(EVP_MAC_CTX* ctx, std::string_view key, std::string_view data) {
  // HMAC accepts an empty key, but EVP_MAC_init treats a null key pointer as "keep the old one".
  static const unsigned char kEmpty = 0;
  const auto* key_bytes =
      key.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(key.data());
  Check(EVP_MAC_init(ctx, key_bytes, key.size(), nullptr) == 1);
  Check(EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(data.data()), data.size()) ==
        1);
  unsigned char out[EVP_MAX_MD_SIZE];
  size_t n = 0;
  Check(EVP_MAC_final(ctx, out, &n, sizeof(out)) == 1);
  return std::string(reinterpret_cast<char*>(out), n);
}

}  // namespace

struct Hasher::Impl {
  EVP_MD_CTX* ctx = nullptr;
  ~Impl() { EVP_MD_CTX_free(ctx); }
};

Hasher::Hasher(HashAlgorithm algorithm) : impl_(std::make_unique<Impl>()) {
  impl_->ctx = EVP_MD_CTX_new();
  Check(impl_->ctx != nullptr);
  Check(EVP_DigestInit_ex2(impl_->ctx, Digest(algorithm), nullptr) == 1);
}

Hasher::~Hasher() = default;
Hasher::Hasher(Hasher&&) noexcept = default;
Hasher& Hasher::operator=(Hasher&&) noexcept = default;

void Hasher::Update(std::string_view data) {
  Check(EVP_DigestUpdate(impl_->ctx, data.data(), data.size()) == 1);
}

std::string Hasher::Finish() {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  Check(EVP_DigestFinal_ex(impl_->ctx, out, &n) == 1);
  return std::string(reinterpret_cast<char*>(out), n);
}

std::string Sha256(std::string_view data) { return OneShot(HashAlgorithm::kSha256, data); }
std::string Md5(std::string_view data) { return OneShot(HashAlgorithm::kMd5, data); }

std::string HmacSha256(std::string_view key, std::string_view data) {
  thread_local std::unique_ptr<EVP_MAC_CTX, MacCtxDeleter> ctx(HmacContext("SHA256"));
  return Hmac(ctx.get(), key, data);
}

std::string HmacSha1(std::string_view key, std::string_view data) {
  thread_local std::unique_ptr<EVP_MAC_CTX, MacCtxDeleter> ctx(HmacContext("SHA1"));
  return Hmac(ctx.get(), key, data);
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

void Cleanse(std::string* s) {
  if (!s->empty()) OPENSSL_cleanse(s->data(), s->size());
  s->clear();
}

bool RandomBytes(size_t n, std::string* out) {
  if (n > static_cast<size_t>(std::numeric_limits<int>::max())) return false;
  std::string buf;
  buf.resize(n);
  if (n > 0 && RAND_bytes(reinterpret_cast<unsigned char*>(buf.data()), static_cast<int>(n)) != 1) {
    return false;
  }
  *out = std::move(buf);
  return true;
}

}  // namespace cubby::s3api::auth
