// Hashes, HMAC, constant-time comparison and randomness on OpenSSL 3 EVP (no deprecated
// APIs). Incremental hashers are used while a body streams; one-shot helpers for short strings.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace cubby::s3api::auth {

enum class HashAlgorithm { kMd5, kSha1, kSha256 };

class Hasher {
 public:
  explicit Hasher(HashAlgorithm algorithm);
  ~Hasher();
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;
  Hasher(Hasher&&) noexcept;
  Hasher& operator=(Hasher&&) noexcept;

  void Update(std::string_view data);
  // Raw digest bytes. The hasher must not be used afterwards.
  std::string Finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

std::string Sha256(std::string_view data);                          // raw 32 bytes
std::string Md5(std::string_view data);                             // raw 16 bytes
std::string HmacSha256(std::string_view key, std::string_view data);  // raw 32 bytes
std::string HmacSha1(std::string_view key, std::string_view data);    // raw 20 bytes (SigV2)

// Constant-time comparison (CRYPTO_memcmp); different lengths compare unequal.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// Overwrites the string's bytes with zeros in a way the compiler cannot elide
// (OPENSSL_cleanse), then clears it. For secret material that is about to be dropped.
void Cleanse(std::string* s);

// n bytes from the OpenSSL CSPRNG. Returns false if the RNG failed.
bool RandomBytes(size_t n, std::string* out);

}  // namespace cubby::s3api::auth
