// KeyService's key store (kms.h, key_store.h): the keys, their material and the data keys of
// SSE-KMS. The JSON API over it is json_api.cc's.
//   https://docs.aws.amazon.com/kms/latest/developerguide/key-state.html (what each state allows)
//
// Key material: 32 random bytes per key, kept in the Store wrapped under the KMS KEK with the
// context "kms-key:<key id>" (so a record's material cannot be moved to another key id). A data
// key is wrapped under its key's material with the context "sse-kms:<caller's context>".
// Unwrapped material is cached in memory (the material of an id never changes); the key's
// state is read from the Store on every use, so DisableKey or ScheduleKeyDeletion stops the
// very next GenerateDataKey / DecryptDataKey.
#include "kms/key_store.h"

#include <optional>
#include <string>
#include <vector>

#include "text/encoding.h"
#include "text/time.h"

namespace cubby::kms {
namespace {

using storage::KmsAliasRecord;
using storage::KmsKeyRecord;
using storage::KmsKeyState;

constexpr std::string_view kAwsS3Alias = "alias/aws/s3";
// AWS's description of the AWS-managed key for S3.
constexpr std::string_view kAwsS3Description =
    "Default key that protects my S3 objects when no other key is defined";

Status Fail(Code code, std::string message) { return Status{code, std::move(message)}; }

// 8-4-4-4-12 hex digits: the shape of a KMS key id.
bool IsKeyId(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : text::HexDigitValue(s[i]) < 0) return false;
  }
  return true;
}

// A random (version 4) UUID, lower case, from the CSPRNG.
std::optional<std::string> NewKeyId() {
  crypt::Result<crypt::Key256> random = crypt::NewRandomKey();
  if (!random.ok()) return std::nullopt;
  std::string bytes(reinterpret_cast<const char*>(random->reveal()), 16);
  bytes[6] = static_cast<char>((bytes[6] & 0x0f) | 0x40);
  bytes[8] = static_cast<char>((bytes[8] & 0x3f) | 0x80);
  const std::string hex = text::HexEncode(bytes);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

std::string MaterialContext(std::string_view key_id) { return "kms-key:" + std::string(key_id); }
std::string DataKeyContext(std::string_view context) { return "sse-kms:" + std::string(context); }

}  // namespace

Status FromStorage(const storage::Status& s, std::string_view what) {
  return Fail(Code::kInternal, std::string(what) + ": " + s.ToString());
}

Status KeyService::Impl::Account(std::string* out) {
  std::lock_guard lock(mu);
  if (account_id.empty()) {
    storage::Result<std::string> id = store->GetAccountId();
    if (!id.ok()) return FromStorage(id.status(), "reading the account id");
    account_id = std::move(id).value();
  }
  *out = account_id;
  return {};
}

Status KeyService::Impl::KeyArn(std::string_view key_id, std::string* out) {
  std::string account;
  if (Status s = Account(&account); !s.ok()) return s;
  *out = "arn:aws:kms:" + region + ":" + account + ":key/" + std::string(key_id);
  return {};
}

Status KeyService::Impl::AliasArn(std::string_view alias_name, std::string* out) {
  std::string account;
  if (Status s = Account(&account); !s.ok()) return s;
  *out = "arn:aws:kms:" + region + ":" + account + ":" + std::string(alias_name);
  return {};
}

Status KeyService::Impl::Resolve(std::string_view id, bool aliases, bool create_aws,
                                 KmsKeyRecord* out) {
  std::string key_id;
  if (id.starts_with("arn:")) {
    // arn:aws:kms:<region>:<account>:key/<id> or ...:alias/<name>
    std::vector<std::string_view> parts;
    std::string_view rest = id;
    for (int i = 0; i < 5; ++i) {
      const size_t colon = rest.find(':');
      if (colon == std::string_view::npos)
        return Fail(Code::kInvalidKeyId, "Invalid arn " + std::string(id));
      parts.push_back(rest.substr(0, colon));
      rest.remove_prefix(colon + 1);
    }
    if (parts[1] != "aws" || parts[2] != "kms") {
      return Fail(Code::kInvalidKeyId, "Invalid arn " + std::string(id));
    }
    std::string account;
    if (Status s = Account(&account); !s.ok()) return s;
    const bool ours = parts[3] == region && parts[4] == account;
    if (rest.starts_with("key/")) {
      if (!ours) return Fail(Code::kNotFound, "Key '" + std::string(id) + "' does not exist");
      key_id = std::string(rest.substr(4));
    } else if (rest.starts_with(kAliasPrefix) && aliases) {
      if (!ours) return Fail(Code::kNotFound, "Alias " + std::string(id) + " is not found.");
      return ResolveAlias(rest, create_aws, out);
    } else {
      return Fail(Code::kInvalidKeyId, "Invalid arn " + std::string(id));
    }
  } else if (id.starts_with(kAliasPrefix)) {
    if (!aliases) return Fail(Code::kInvalidKeyId, "Invalid keyId " + std::string(id));
    return ResolveAlias(id, create_aws, out);
  } else {
    key_id = std::string(id);
  }
  if (!IsKeyId(key_id)) return Fail(Code::kInvalidKeyId, "Invalid keyId " + std::string(id));
  storage::Result<KmsKeyRecord> key = store->GetKmsKey(key_id);
  if (!key.ok()) {
    if (key.status().code() != storage::Code::kNoSuchEntity) {
      return FromStorage(key.status(), "reading a KMS key");
    }
    std::string arn;
    if (Status s = KeyArn(key_id, &arn); !s.ok()) return s;
    return Fail(Code::kNotFound, "Key '" + arn + "' does not exist");
  }
  *out = std::move(key).value();
  return {};
}

Status KeyService::Impl::ResolveAlias(std::string_view alias_name, bool create_aws,
                                      KmsKeyRecord* out) {
  storage::Result<KmsAliasRecord> alias = store->GetKmsAlias(alias_name);
  std::optional<std::unique_lock<std::mutex>> creating;
  if (!alias.ok() && alias.status().code() == storage::Code::kNoSuchEntity && create_aws &&
      alias_name == kAwsS3Alias) {
    // Made on first use: look again under change_mu, so only one request makes it.
    creating.emplace(change_mu);
    alias = store->GetKmsAlias(alias_name);
  }
  if (!alias.ok()) {
    if (alias.status().code() != storage::Code::kNoSuchEntity) {
      return FromStorage(alias.status(), "reading a KMS alias");
    }
    if (creating) {
      const int64_t now = text::NowUnixMillis();
      KmsAliasRecord made{std::string(kAwsS3Alias), {}, now};
      return NewKey(std::string(kAwsS3Description), /*aws_managed=*/true, &made, now, out);
    }
    std::string arn;
    if (Status s = AliasArn(alias_name, &arn); !s.ok()) return s;
    return Fail(Code::kNotFound, "Alias " + arn + " is not found.");
  }
  storage::Result<KmsKeyRecord> key = store->GetKmsKey(alias->key_id);
  if (!key.ok()) {
    // An alias whose key is gone cannot be made through this service; say what is missing.
    if (key.status().code() == storage::Code::kNoSuchEntity) {
      return Fail(Code::kNotFound, "Alias " + std::string(alias_name) + " names a missing key");
    }
    return FromStorage(key.status(), "reading a KMS key");
  }
  *out = std::move(key).value();
  return {};
}

Status KeyService::Impl::RequireEnabled(const KmsKeyRecord& key) {
  std::string arn;
  if (Status s = KeyArn(key.key_id, &arn); !s.ok()) return s;
  switch (key.state) {
    case KmsKeyState::kEnabled:
      return {};
    case KmsKeyState::kDisabled:
      return Fail(Code::kDisabled, arn + " is disabled.");
    case KmsKeyState::kPendingDeletion:
      return Fail(Code::kInvalidState, arn + " is pending deletion.");
  }
  return Fail(Code::kInternal, "unknown key state");
}

Status KeyService::Impl::Material(const KmsKeyRecord& key, crypt::Key256* out) {
  std::lock_guard lock(mu);
  auto it = materials.find(key.key_id);
  if (it == materials.end()) {
    crypt::Result<crypt::Key256> material =
        crypt::UnwrapKey(*kek, MaterialContext(key.key_id), key.wrapped_material);
    if (!material.ok()) {
      return Fail(Code::kInternal, "the key material of KMS key " + key.key_id +
                                       " does not unwrap: " + material.status().ToString());
    }
    it = materials.emplace(key.key_id, std::move(material).value()).first;
  }
  *out = it->second.Clone();
  return {};
}

Status KeyService::Impl::NewKey(std::string description, bool aws_managed,
                                const KmsAliasRecord* alias, int64_t now_ms, KmsKeyRecord* out) {
  std::optional<std::string> id = NewKeyId();
  crypt::Result<crypt::Key256> material = crypt::NewRandomKey();
  if (!id || !material.ok()) return Fail(Code::kInternal, "the random generator failed");
  crypt::Result<std::string> wrapped = crypt::WrapKey(*kek, MaterialContext(*id), *material);
  if (!wrapped.ok())
    return Fail(Code::kInternal, "wrapping key material: " + wrapped.status().ToString());
  KmsKeyRecord key;
  key.key_id = *id;
  key.description = std::move(description);
  key.created_ms = now_ms;
  key.state = KmsKeyState::kEnabled;
  key.wrapped_material = std::move(wrapped).value();
  key.aws_managed = aws_managed;
  std::optional<KmsAliasRecord> with;
  if (alias != nullptr) {
    with = *alias;
    with->key_id = key.key_id;
  }
  if (storage::Status s = store->PutKmsKey(key, with ? &*with : nullptr); !s.ok()) {
    return FromStorage(s, "writing a KMS key");
  }
  {
    std::lock_guard lock(mu);
    materials.emplace(key.key_id, std::move(material).value());
  }
  *out = std::move(key);
  return {};
}

// ---- KeyService.

KeyService::KeyService(storage::Store* store, const crypt::Key256* kms_kek, std::string region)
    : impl_(new Impl{store, kms_kek, std::move(region), {}, {}, {}, {}}) {}

KeyService::~KeyService() = default;

Status KeyService::GenerateDataKey(std::string_view key_id, std::string_view context,
                                   DataKey* out) {
  KmsKeyRecord key;
  const std::string_view id = key_id.empty() ? kAwsS3Alias : key_id;
  if (Status s = impl_->Resolve(id, /*aliases=*/true, /*create_aws=*/true, &key); !s.ok()) return s;
  if (Status s = impl_->RequireEnabled(key); !s.ok()) return s;
  crypt::Key256 material;
  if (Status s = impl_->Material(key, &material); !s.ok()) return s;
  crypt::Result<crypt::Key256> data_key = crypt::NewRandomKey();
  if (!data_key.ok()) return Fail(Code::kInternal, "the random generator failed");
  crypt::Result<std::string> wrapped = crypt::WrapKey(material, DataKeyContext(context), *data_key);
  if (!wrapped.ok()) {
    return Fail(Code::kInternal, "wrapping a data key: " + wrapped.status().ToString());
  }
  if (Status s = impl_->KeyArn(key.key_id, &out->key_arn); !s.ok()) return s;
  out->plaintext = std::move(data_key).value();
  out->wrapped = std::move(wrapped).value();
  return {};
}

Status KeyService::DecryptDataKey(std::string_view key_arn, std::string_view context,
                                  std::string_view wrapped, crypt::DataKey* out) {
  KmsKeyRecord key;
  if (Status s = impl_->Resolve(key_arn, /*aliases=*/true, /*create_aws=*/false, &key); !s.ok()) {
    return s;
  }
  if (Status s = impl_->RequireEnabled(key); !s.ok()) return s;
  crypt::Key256 material;
  if (Status s = impl_->Material(key, &material); !s.ok()) return s;
  crypt::Result<crypt::Key256> data_key =
      crypt::UnwrapKey(material, DataKeyContext(context), wrapped);
  if (!data_key.ok()) {
    return Fail(Code::kInternal, "a data key of KMS key " + key.key_id +
                                     " does not unwrap: " + data_key.status().ToString());
  }
  *out = std::move(data_key).value();
  return {};
}

Status KeyService::ResolveKey(std::string_view key_id, std::string* key_arn) {
  KmsKeyRecord key;
  const std::string_view id = key_id.empty() ? kAwsS3Alias : key_id;
  if (Status s = impl_->Resolve(id, /*aliases=*/true, /*create_aws=*/true, &key); !s.ok()) return s;
  if (Status s = impl_->RequireEnabled(key); !s.ok()) return s;
  return impl_->KeyArn(key.key_id, key_arn);
}

}  // namespace cubby::kms
