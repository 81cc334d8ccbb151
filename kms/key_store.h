// KeyService's key store (kms.h), shared by the two halves of kms/: key_store.cc (the keys, their
// material and the data keys of SSE-KMS) and json_api.cc (the KMS JSON API over them). Private to
// kms/: nothing else includes it.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "crypt/key.h"
#include "kms/kms.h"
#include "storage/kms_records.h"
#include "storage/store.h"

namespace cubby::kms {

inline constexpr std::string_view kAliasPrefix = "alias/";

// A storage failure as kInternal, its message prefixed with `what`.
Status FromStorage(const storage::Status& s, std::string_view what);

struct KeyService::Impl {
  storage::Store* store;
  const crypt::Key256* kek;
  std::string region;

  std::mutex mu;  // guards account_id and materials
  std::string account_id;
  std::unordered_map<std::string, crypt::Key256> materials;  // key id → unwrapped material
  // Serialises read-modify-write changes of key records (state changes) and the creation of
  // the AWS-managed key, so two requests cannot both make alias/aws/s3's key.
  std::mutex change_mu;

  Status Account(std::string* out);
  Status KeyArn(std::string_view key_id, std::string* out);
  Status AliasArn(std::string_view alias_name, std::string* out);

  // What `id` names: a key id, key ARN, alias name or alias ARN (the last two only with
  // `aliases`). alias/aws/s3 is made on first use when `create_aws` is set.
  Status Resolve(std::string_view id, bool aliases, bool create_aws, storage::KmsKeyRecord* out);
  Status ResolveAlias(std::string_view alias_name, bool create_aws, storage::KmsKeyRecord* out);
  // OK for an Enabled key, else kDisabled / kInvalidState naming its ARN.
  Status RequireEnabled(const storage::KmsKeyRecord& key);
  Status Material(const storage::KmsKeyRecord& key, crypt::Key256* out);
  // A new key with fresh material (and `alias`, in the same write). REQUIRES: change_mu held
  // when `alias` is the AWS-managed one.
  Status NewKey(std::string description, bool aws_managed, const storage::KmsAliasRecord* alias,
                int64_t now_ms, storage::KmsKeyRecord* out);
};

}  // namespace cubby::kms
