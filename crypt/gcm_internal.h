// crypt/'s private AES-256-GCM context: the key schedule set once, then one message per
// Seal/Open with its own nonce. Not thread-safe (one per writer or reader).
#pragma once

#include <openssl/evp.h>

#include <cstddef>

#include "crypt/key.h"
#include "crypt/status.h"

namespace cubby::crypt::internal {

class GcmContext {
 public:
  GcmContext(bool encrypt, const Key256& key);
  ~GcmContext();
  GcmContext(const GcmContext&) = delete;
  GcmContext& operator=(const GcmContext&) = delete;

  // False if OpenSSL could not set the context up (every call then fails with kInternal).
  bool ok() const { return ok_; }

  // Encrypts n bytes of `in` into `out` (n bytes) and writes the 16-byte tag to `tag`.
  // `in` and `out` may be the same buffer. REQUIRES: an encrypting context, nonce of 12 bytes,
  // n <= INT_MAX, aad_n <= INT_MAX.
  Status Seal(const unsigned char* nonce, const unsigned char* aad, size_t aad_n,
              const unsigned char* in, size_t n, unsigned char* out, unsigned char* tag);
  // Decrypts n bytes of `in` into `out` and checks `tag`; kAuthFailed if it does not verify
  // (then `out` holds unauthenticated bytes the caller must not release).
  Status Open(const unsigned char* nonce, const unsigned char* aad, size_t aad_n,
              const unsigned char* in, size_t n, const unsigned char* tag, unsigned char* out);

 private:
  EVP_CIPHER_CTX* ctx_ = nullptr;
  bool ok_ = false;
};

}  // namespace cubby::crypt::internal
