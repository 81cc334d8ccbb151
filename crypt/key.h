// Key material and envelope encryption: random 256-bit data keys, key-encryption keys (KEKs)
// derived from a master key per purpose with HKDF-SHA256, and data keys wrapped by a KEK into
// a small versioned blob with AES-256-GCM. OpenSSL 3 EVP only.
//
// Wrapped key blob (kWrappedKeyBytes = 61 bytes), version 1:
//   0x01 | nonce (12 random bytes) | AES-256-GCM(kek, nonce, aad, key) (32) | tag (16)
//   aad = "cubby-wrap-v1" 0x00 context
// `context` names what the key protects and under which purpose (e.g. "sse-s3" or a KMS key id
// plus bucket/key/version); unwrapping with another context fails like a wrong KEK.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "crypt/status.h"

namespace cubby::crypt {

// 256 bits of key material (a data key, a KEK, a master key, an SSE-C key). Zeroed
// (OPENSSL_cleanse) on destruction and when moved from; no stream operator and no conversion
// to a string, so it cannot reach a log by accident: reveal() is the one, greppable way to its
// bytes. Copies are explicit (Clone) so key bytes are not duplicated unnoticed.
class Key256 {
 public:
  static constexpr size_t kBytes = 32;

  Key256() = default;  // all zero: a placeholder, never a real key
  // REQUIRES: bytes points at kBytes bytes.
  static Key256 FromBytes(const unsigned char* bytes);
  ~Key256();
  Key256(Key256&& other) noexcept;
  Key256& operator=(Key256&& other) noexcept;
  Key256(const Key256&) = delete;
  Key256& operator=(const Key256&) = delete;

  Key256 Clone() const { return FromBytes(bytes_.data()); }
  const unsigned char* reveal() const { return bytes_.data(); }
  unsigned char* mutable_bytes() { return bytes_.data(); }
  // Constant-time comparison (CRYPTO_memcmp).
  bool SameAs(const Key256& other) const;

 private:
  std::array<unsigned char, kBytes> bytes_{};
};

using DataKey = Key256;

// Zeroes a string that held secret bytes (base64 of a key, a decoded key), then clears it.
void Cleanse(std::string* secret);

// A fresh random key (RAND_bytes). kInternal if the random generator fails.
Result<Key256> NewRandomKey();

// What a KEK protects; each purpose gets its own KEK from the same master key, so a blob
// wrapped for one purpose never unwraps under another.
enum class KekPurpose {
  kSseS3,           // data keys of SSE-S3 objects and parts
  kKmsKeyMaterial,  // the key material of the built-in KMS's keys
};
// The label HKDF's info carries for `purpose` ("cubby kek sse-s3 v1", ...).
const char* KekLabel(KekPurpose purpose);

// HKDF-SHA256(ikm = master, salt = "cubby-kek-salt-v1", info = KekLabel(purpose)), 32 bytes.
// kInternal if OpenSSL fails.
Result<Key256> DeriveKek(const Key256& master, KekPurpose purpose);

inline constexpr size_t kWrappedKeyBytes = 1 + 12 + Key256::kBytes + 16;
inline constexpr unsigned char kWrapVersion = 1;

// Wraps `key` under `kek` with a random nonce (blob format above). kInternal on OpenSSL failure.
Result<std::string> WrapKey(const Key256& kek, std::string_view context, const Key256& key);
// The key inside `blob`. kBadFormat: not kWrappedKeyBytes long or an unknown version. kWrongKey:
// the tag does not verify: another KEK or context, or an altered blob (indistinguishable).
Result<Key256> UnwrapKey(const Key256& kek, std::string_view context, std::string_view blob);
// Master key rotation: the same data key, unwrapped under `old_kek` and wrapped again under
// `new_kek` with a fresh nonce; the data sealed with it is untouched. Errors as UnwrapKey and
// WrapKey.
Result<std::string> RewrapKey(const Key256& old_kek, const Key256& new_kek,
                              std::string_view context, std::string_view blob);

}  // namespace cubby::crypt
