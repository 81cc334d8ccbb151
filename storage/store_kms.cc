// StoreImpl: the built-in KMS's key and alias records (store.h "KMS", kms_codec.h for the
// layout). Reads take no lock; each change holds kms_mu_ so its check (alias free, key there)
// and its write are one step.
#include <rocksdb/write_batch.h>

#include <mutex>
#include <string>
#include <vector>

#include "storage/codec.h"
#include "storage/kms_codec.h"
#include "storage/store_impl.h"

namespace cubby::storage::internal {
namespace {

Status NoSuchKmsKey(std::string_view key_id) {
  return Status(Code::kNoSuchEntity, "no such KMS key: " + std::string(key_id));
}
Status NoSuchKmsAlias(std::string_view alias_name) {
  return Status(Code::kNoSuchEntity, "no such KMS alias: " + std::string(alias_name));
}

}  // namespace

Status StoreImpl::PutKmsKey(const KmsKeyRecord& key, const KmsAliasRecord* alias) {
  if (key.key_id.empty()) return Status(Code::kInvalidArgument, "empty KMS key id");
  if (alias != nullptr && alias->alias_name.empty()) {
    return Status(Code::kInvalidArgument, "empty KMS alias name");
  }
  std::lock_guard lock(kms_mu_);
  rocksdb::WriteBatch batch;
  if (alias != nullptr) {
    Result<bool> taken = HasRaw(kKeysCf, codec::KmsAliasKey(alias->alias_name));
    if (!taken.ok()) return taken.status();
    if (*taken) {
      return Status(Code::kEntityAlreadyExists, "KMS alias exists: " + alias->alias_name);
    }
    batch.Put(cf(kKeysCf), codec::KmsAliasKey(alias->alias_name), codec::EncodeKmsAlias(*alias));
  }
  batch.Put(cf(kKeysCf), codec::KmsKeyKey(key.key_id), codec::EncodeKmsKey(key));
  return Apply(&batch);
}

Result<KmsKeyRecord> StoreImpl::GetKmsKey(std::string_view key_id) {
  if (key_id.empty()) return NoSuchKmsKey(key_id);
  Result<std::optional<std::string>> raw = GetRaw(kKeysCf, codec::KmsKeyKey(key_id), nullptr);
  if (!raw.ok()) return raw.status();
  if (!raw->has_value()) return NoSuchKmsKey(key_id);
  return codec::DecodeKmsKey(**raw);
}

Result<KmsKeysPage> StoreImpl::ListKmsKeys(std::string_view marker, size_t max_items) {
  KmsKeysPage page;
  const std::string prefix(1, codec::kKmsKeyTag);
  // <marker> 0x00 is the first key after <marker> itself.
  const std::string begin =
      marker.empty() ? prefix : codec::KmsKeyKey(marker) + std::string(1, '\0');
  Status s = ForEach(kKeysCf, begin, codec::PrefixSuccessor(prefix),
                     [&](std::string_view, std::string_view value) {
                       if (page.keys.size() == max_items) {
                         page.truncated = true;
                         return Status(Code::kAborted, "page full");
                       }
                       Result<KmsKeyRecord> key = codec::DecodeKmsKey(value);
                       if (!key.ok()) return key.status();
                       page.keys.push_back(std::move(key).value());
                       return Status::Ok();
                     });
  if (!s.ok() && !page.truncated) return s;
  if (page.truncated) page.next_marker = page.keys.back().key_id;
  return page;
}

Status StoreImpl::CreateKmsAlias(const KmsAliasRecord& alias) {
  if (alias.alias_name.empty()) return Status(Code::kInvalidArgument, "empty KMS alias name");
  std::lock_guard lock(kms_mu_);
  Result<bool> taken = HasRaw(kKeysCf, codec::KmsAliasKey(alias.alias_name));
  if (!taken.ok()) return taken.status();
  if (*taken) return Status(Code::kEntityAlreadyExists, "KMS alias exists: " + alias.alias_name);
  Result<bool> key = HasRaw(kKeysCf, codec::KmsKeyKey(alias.key_id));
  if (!key.ok()) return key.status();
  if (!*key || alias.key_id.empty()) return NoSuchKmsKey(alias.key_id);
  return ApplyPut(cf(kKeysCf), codec::KmsAliasKey(alias.alias_name), codec::EncodeKmsAlias(alias));
}

Result<KmsAliasRecord> StoreImpl::GetKmsAlias(std::string_view alias_name) {
  if (alias_name.empty()) return NoSuchKmsAlias(alias_name);
  Result<std::optional<std::string>> raw = GetRaw(kKeysCf, codec::KmsAliasKey(alias_name), nullptr);
  if (!raw.ok()) return raw.status();
  if (!raw->has_value()) return NoSuchKmsAlias(alias_name);
  return codec::DecodeKmsAlias(**raw);
}

Status StoreImpl::DeleteKmsAlias(std::string_view alias_name) {
  if (alias_name.empty()) return NoSuchKmsAlias(alias_name);
  std::lock_guard lock(kms_mu_);
  const std::string key = codec::KmsAliasKey(alias_name);
  Result<bool> there = HasRaw(kKeysCf, key);
  if (!there.ok()) return there.status();
  if (!*there) return NoSuchKmsAlias(alias_name);
  rocksdb::WriteBatch batch;
  batch.Delete(cf(kKeysCf), key);
  return Apply(&batch);
}

Result<std::vector<KmsAliasRecord>> StoreImpl::ListKmsAliases() {
  std::vector<KmsAliasRecord> out;
  const std::string prefix(1, codec::kKmsAliasTag);
  Status s = ForEach(kKeysCf, prefix, codec::PrefixSuccessor(prefix),
                     [&](std::string_view, std::string_view value) {
                       Result<KmsAliasRecord> alias = codec::DecodeKmsAlias(value);
                       if (!alias.ok()) return alias.status();
                       out.push_back(std::move(alias).value());
                       return Status::Ok();
                     });
  if (!s.ok()) return s;
  return out;
}

}  // namespace cubby::storage::internal
