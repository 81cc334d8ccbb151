// The built-in KMS's records (kms/ owns their meaning; storage only keeps them): one record
// per key and one per alias. Engine-neutral plain structs; the key material is stored WRAPPED
// (kms/ wraps it under the KMS KEK), so storage never sees crypt/ or a plaintext key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cubby::storage {

// AWS KMS's KeyState values cubby has (no import, no multi-Region, no creation pending).
enum class KmsKeyState : uint8_t {
  kEnabled = 0,
  kDisabled = 1,
  kPendingDeletion = 2,
};

struct KmsKeyRecord {
  std::string key_id;  // a UUID (lower-case, 36 chars); the ARN is derived, never stored
  std::string description;
  int64_t created_ms = 0;
  KmsKeyState state = KmsKeyState::kEnabled;
  int64_t deletion_date_ms = 0;  // when state is kPendingDeletion; else 0
  std::string wrapped_material;  // opaque: the key material wrapped by kms/
  bool aws_managed = false;      // KeyManager AWS (alias/aws/s3), else CUSTOMER
};

struct KmsAliasRecord {
  std::string alias_name;  // "alias/..." as the client gave it
  std::string key_id;      // the key it points at
  int64_t created_ms = 0;
};

// One page of keys in key id order. next_marker: the id to pass as the next marker.
struct KmsKeysPage {
  std::vector<KmsKeyRecord> keys;
  bool truncated = false;
  std::string next_marker;
};

}  // namespace cubby::storage
