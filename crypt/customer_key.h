// SSE-C: the customer's key arrives with each request (x-amz-server-side-encryption-customer-
// key, base64 of 256 bits, and -key-MD5, base64 of the key's MD5); cubby never stores it, only a
// salted HMAC to recognise it on a later request.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/ServerSideEncryptionCustomerKeys.html
#pragma once

#include <string>
#include <string_view>

#include "crypt/key.h"
#include "crypt/status.h"

namespace cubby::crypt {

// What is wrong with a customer key, one value per distinct AWS answer; the caller (s3api)
// picks the S3 error and message for each.
enum class CustomerKeyProblem {
  kNone,
  kKeyNotBase64,   // the key header is not strict base64
  kKeyNot256Bits,  // it decodes to other than 32 bytes ("The secret key was invalid for the
                   // specified algorithm.")
  kMd5NotBase64,   // the key-MD5 header is not base64 of 16 bytes
  kMd5Mismatch,    // the key's MD5 differs from the key-MD5 header ("The calculated MD5 hash
                   // of the key did not match the hash that was provided.")
};

// Checks the two header values; on kNone, *key holds the customer key. Missing headers are
// the caller's to detect (it knows which ones the operation needs).
CustomerKeyProblem ParseCustomerKey(std::string_view key_base64, std::string_view key_md5_base64,
                                    Key256* key);

// A value to store with the object that recognises `key` later without revealing it:
// "v1:" base64(16-byte random salt) ":" hex(HMAC-SHA256(key = salt, message = customer key)).
// kInternal if OpenSSL fails.
Result<std::string> NewCustomerKeyCheck(const Key256& key);
// True when `stored` (from NewCustomerKeyCheck) was made from `key`; false for another key or a
// malformed value. Constant-time in the key.
bool CustomerKeyMatches(const Key256& key, std::string_view stored);

}  // namespace cubby::crypt
