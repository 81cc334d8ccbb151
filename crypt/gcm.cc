#include "crypt/gcm.h"

#include <openssl/evp.h>

#include <climits>

#include "crypt/gcm_internal.h"

namespace cubby::crypt {
namespace internal {

namespace {

// The cipher, fetched from the default provider once: OpenSSL 3 otherwise fetches it again on
// every context set-up (a provider lookup under a lock), which showed in small encrypted GETs,
// where a context is set up per data key. Never freed: it lives as long as the process.
const EVP_CIPHER* Aes256Gcm() {
  static const EVP_CIPHER* const fetched = EVP_CIPHER_fetch(nullptr, "AES-256-GCM", nullptr);
  return fetched != nullptr ? fetched : EVP_aes_256_gcm();
}

}  // namespace

GcmContext::GcmContext(bool encrypt, const Key256& key) {
  ctx_ = EVP_CIPHER_CTX_new();
  if (ctx_ == nullptr) return;
  // The key schedule is computed once here; each message then sets only its nonce.
  ok_ = EVP_CipherInit_ex(ctx_, Aes256Gcm(), nullptr, key.reveal(), nullptr, encrypt ? 1 : 0) == 1;
}

GcmContext::~GcmContext() { EVP_CIPHER_CTX_free(ctx_); }  // frees and cleanses the schedule

Status GcmContext::Seal(const unsigned char* nonce, const unsigned char* aad, size_t aad_n,
                        const unsigned char* in, size_t n, unsigned char* out, unsigned char* tag) {
  if (!ok_) return Status(Code::kInternal, "AES-256-GCM context setup failed");
  if (n > INT_MAX || aad_n > INT_MAX) return Status(Code::kInvalidArgument, "message too large");
  int len = 0;
  if (EVP_EncryptInit_ex(ctx_, nullptr, nullptr, nullptr, nonce) != 1 ||
      (aad_n > 0 && EVP_EncryptUpdate(ctx_, nullptr, &len, aad, static_cast<int>(aad_n)) != 1) ||
      (n > 0 && EVP_EncryptUpdate(ctx_, out, &len, in, static_cast<int>(n)) != 1) ||
      EVP_EncryptFinal_ex(ctx_, out + (n > 0 ? len : 0), &len) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_GCM_GET_TAG, static_cast<int>(kGcmTagBytes), tag) != 1) {
    return Status(Code::kInternal, "AES-256-GCM encryption failed");
  }
  return Status::Ok();
}

Status GcmContext::Open(const unsigned char* nonce, const unsigned char* aad, size_t aad_n,
                        const unsigned char* in, size_t n, const unsigned char* tag,
                        unsigned char* out) {
  if (!ok_) return Status(Code::kInternal, "AES-256-GCM context setup failed");
  if (n > INT_MAX || aad_n > INT_MAX) return Status(Code::kInvalidArgument, "message too large");
  int len = 0;
  if (EVP_DecryptInit_ex(ctx_, nullptr, nullptr, nullptr, nonce) != 1 ||
      (aad_n > 0 && EVP_DecryptUpdate(ctx_, nullptr, &len, aad, static_cast<int>(aad_n)) != 1) ||
      (n > 0 && EVP_DecryptUpdate(ctx_, out, &len, in, static_cast<int>(n)) != 1) ||
      EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_GCM_SET_TAG, static_cast<int>(kGcmTagBytes),
                          const_cast<unsigned char*>(tag)) != 1) {
    return Status(Code::kInternal, "AES-256-GCM decryption failed");
  }
  // The tag is checked here; a mismatch is the data's fault, not OpenSSL's.
  if (EVP_DecryptFinal_ex(ctx_, out + (n > 0 ? len : 0), &len) != 1) {
    return Status(Code::kAuthFailed, "AES-256-GCM tag mismatch");
  }
  return Status::Ok();
}

}  // namespace internal

namespace {
const unsigned char* U(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}
}  // namespace

Result<std::string> GcmSeal(const Key256& key, std::string_view nonce, std::string_view aad,
                            std::string_view plaintext) {
  if (nonce.size() != kGcmNonceBytes) return Status(Code::kInvalidArgument, "nonce not 12 bytes");
  internal::GcmContext ctx(true, key);
  std::string out(plaintext.size() + kGcmTagBytes, '\0');
  auto* o = reinterpret_cast<unsigned char*>(out.data());
  Status s = ctx.Seal(U(nonce), U(aad), aad.size(), U(plaintext), plaintext.size(), o,
                      o + plaintext.size());
  if (!s.ok()) return s;
  return out;
}

Result<std::string> GcmOpen(const Key256& key, std::string_view nonce, std::string_view aad,
                            std::string_view sealed) {
  if (nonce.size() != kGcmNonceBytes) return Status(Code::kInvalidArgument, "nonce not 12 bytes");
  if (sealed.size() < kGcmTagBytes) return Status(Code::kAuthFailed, "shorter than a tag");
  const size_t n = sealed.size() - kGcmTagBytes;
  internal::GcmContext ctx(false, key);
  std::string out(n, '\0');
  Status s = ctx.Open(U(nonce), U(aad), aad.size(), U(sealed), n, U(sealed) + n,
                      reinterpret_cast<unsigned char*>(out.data()));
  if (!s.ok()) {
    Cleanse(&out);  // unauthenticated bytes are never released
    return s;
  }
  return out;
}

}  // namespace cubby::crypt
