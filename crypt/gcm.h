// One-shot AES-256-GCM with a 12-byte nonce and a 16-byte tag (OpenSSL EVP), shared by the
// segment sealer and key wrapping, and exposed so a test can check it against published
// vectors. Callers with many messages under one key use the streaming classes in seal.h.
#pragma once

#include <string>
#include <string_view>

#include "crypt/key.h"
#include "crypt/status.h"

namespace cubby::crypt {

inline constexpr size_t kGcmNonceBytes = 12;
inline constexpr size_t kGcmTagBytes = 16;

// ciphertext || tag of `plaintext` under key, nonce, aad. REQUIRES: nonce.size() == 12.
// kInternal if OpenSSL fails.
Result<std::string> GcmSeal(const Key256& key, std::string_view nonce, std::string_view aad,
                            std::string_view plaintext);
// The plaintext of `sealed` (ciphertext || tag), returned only when the tag verifies.
// kAuthFailed: shorter than a tag or the tag does not verify. REQUIRES: nonce.size() == 12.
Result<std::string> GcmOpen(const Key256& key, std::string_view nonce, std::string_view aad,
                            std::string_view sealed);

}  // namespace cubby::crypt
