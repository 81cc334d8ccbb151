// KeyService (kms.h): the built-in key store behind SSE-KMS, and the KMS JSON API on top of it.
//   https://docs.aws.amazon.com/kms/latest/APIReference/Welcome.html
//   https://docs.aws.amazon.com/kms/latest/developerguide/key-state.html (what each state allows)
//
// Key material: 32 random bytes per key, kept in the Store wrapped under the KMS KEK with the
// context "kms-key:<key id>" (so a record's material cannot be moved to another key id). A data
// key is wrapped under its key's material with the context "sse-kms:<caller's context>".
// Unwrapped material is cached in memory (the material of an id never changes); the key's
// state is read from the Store on every use, so DisableKey or ScheduleKeyDeletion stops the
// very next GenerateDataKey / DecryptDataKey.
//
// ScheduleKeyDeletion only marks the key PendingDeletion with its DeletionDate: no background
// job deletes the key when the date passes (a key that stays PendingDeletion cannot be used,
// and CancelKeyDeletion still brings it back). Deleting key material for real would make every
// object under it unreadable; an operator-run purge is left for later.
#include <cassert>
#include <cmath>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "crypt/key.h"
#include "kms/kms.h"
#include "storage/kms_records.h"
#include "text/encoding.h"
#include "text/json.h"
#include "text/time.h"

namespace cubby::kms {
namespace {

using storage::KmsAliasRecord;
using storage::KmsKeyRecord;
using storage::KmsKeyState;
using text::JsonWriter;

constexpr std::string_view kAwsS3Alias = "alias/aws/s3";
constexpr std::string_view kAwsAliasPrefix = "alias/aws/";
constexpr std::string_view kAliasPrefix = "alias/";
constexpr std::string_view kSymmetricDefault = "SYMMETRIC_DEFAULT";
// AWS's description of the AWS-managed key for S3.
constexpr std::string_view kAwsS3Description =
    "Default key that protects my S3 objects when no other key is defined";
constexpr size_t kMaxRequestBytes = 64 << 10;
constexpr int64_t kDayMs = 24LL * 3600 * 1000;

Status Fail(Code code, std::string message) { return Status{code, std::move(message)}; }

Status FromStorage(const storage::Status& s, std::string_view what) {
  return Fail(Code::kInternal, std::string(what) + ": " + s.ToString());
}

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// 8-4-4-4-12 hex digits: the shape of a KMS key id.
bool IsKeyId(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !IsHex(s[i])) return false;
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

const char* StateName(KmsKeyState state) {
  switch (state) {
    case KmsKeyState::kEnabled:
      return "Enabled";
    case KmsKeyState::kDisabled:
      return "Disabled";
    case KmsKeyState::kPendingDeletion:
      return "PendingDeletion";
  }
  return "Unknown";
}

// ---- The JSON API's error shapes (https://docs.aws.amazon.com/kms/latest/APIReference/
// CommonErrors.html and each operation's Errors section).
struct ApiError {
  std::string type;
  std::string message;
  int status = 400;
};

ApiError Validation(std::string message) { return {"ValidationException", std::move(message)}; }
ApiError Serialization(std::string message) {
  return {"SerializationException", std::move(message)};
}
ApiError Unsupported(std::string message) {
  return {"UnsupportedOperationException", std::move(message)};
}

ApiError ToApi(const Status& s) {
  switch (s.code) {
    case Code::kOk:
      break;
    case Code::kNotFound:
    case Code::kInvalidKeyId:
      return {"NotFoundException", s.message};
    case Code::kDisabled:
      return {"DisabledException", s.message};
    case Code::kInvalidState:
      return {"KMSInvalidStateException", s.message};
    case Code::kInternal:
      return {"KMSInternalException",
              "The request was rejected because an internal exception "
              "occurred. The request can be retried.",
              500};
  }
  assert(false && "ToApi of an OK status");
  return {"KMSInternalException", "internal error", 500};
}

// A request's members, read with the type each must have. AWS's JSON protocol answers a member
// of the wrong type with SerializationException; unknown members are ignored as AWS does.
class Input {
 public:
  explicit Input(const text::JsonValue& doc) : doc_(doc) {}

  std::optional<ApiError> String(std::string_view name, std::optional<std::string>* out) const {
    const text::JsonValue* v = doc_.Find(name);
    if (v == nullptr || v->type == text::JsonType::kNull) return std::nullopt;
    if (v->type != text::JsonType::kString) return WrongType(name, "a string");
    *out = v->text;
    return std::nullopt;
  }
  std::optional<ApiError> Integer(std::string_view name, std::optional<int64_t>* out) const {
    const text::JsonValue* v = doc_.Find(name);
    if (v == nullptr || v->type == text::JsonType::kNull) return std::nullopt;
    const std::optional<double> d = v->Number();
    if (!d || std::floor(*d) != *d || std::fabs(*d) > 1e15) return WrongType(name, "an integer");
    *out = static_cast<int64_t>(*d);
    return std::nullopt;
  }
  std::optional<ApiError> Bool(std::string_view name, std::optional<bool>* out) const {
    const text::JsonValue* v = doc_.Find(name);
    if (v == nullptr || v->type == text::JsonType::kNull) return std::nullopt;
    if (v->type != text::JsonType::kBool) return WrongType(name, "a boolean");
    *out = v->boolean;
    return std::nullopt;
  }
  // Whether the member is there with a value other than null (or an empty list).
  bool Given(std::string_view name) const {
    const text::JsonValue* v = doc_.Find(name);
    if (v == nullptr || v->type == text::JsonType::kNull) return false;
    return !(v->type == text::JsonType::kArray && v->items.empty());
  }

 private:
  static ApiError WrongType(std::string_view name, std::string_view what) {
    return Serialization("The member " + std::string(name) + " must be " + std::string(what) + ".");
  }
  const text::JsonValue& doc_;
};

std::optional<ApiError> RequireString(const Input& in, std::string_view name, std::string* out) {
  std::optional<std::string> v;
  if (auto e = in.String(name, &v)) return e;
  if (!v || v->empty()) {
    return Validation("1 validation error detected: Value null at '" + std::string(name) +
                      "' failed to satisfy constraint: Member must not be null");
  }
  *out = std::move(*v);
  return std::nullopt;
}

// Limit: absent → `fallback`; else within [1, max] or ValidationException.
std::optional<ApiError> ReadLimit(const Input& in, int64_t max, int64_t fallback, size_t* out) {
  std::optional<int64_t> limit;
  if (auto e = in.Integer("Limit", &limit)) return e;
  if (limit && (*limit < 1 || *limit > max)) {
    return Validation("1 validation error detected: Value '" + std::to_string(*limit) +
                      "' at 'limit' failed to satisfy constraint: Member must have value between "
                      "1 and " +
                      std::to_string(max));
  }
  *out = static_cast<size_t>(limit.value_or(fallback));
  return std::nullopt;
}

enum class Op {
  kCreateKey,
  kDescribeKey,
  kListKeys,
  kCreateAlias,
  kListAliases,
  kDeleteAlias,
  kEnableKey,
  kDisableKey,
  kScheduleKeyDeletion,
  kCancelKeyDeletion,
};

std::optional<Op> ParseOp(std::string_view name) {
  static constexpr std::pair<std::string_view, Op> kOps[] = {
      {"CreateKey", Op::kCreateKey},
      {"DescribeKey", Op::kDescribeKey},
      {"ListKeys", Op::kListKeys},
      {"CreateAlias", Op::kCreateAlias},
      {"ListAliases", Op::kListAliases},
      {"DeleteAlias", Op::kDeleteAlias},
      {"EnableKey", Op::kEnableKey},
      {"DisableKey", Op::kDisableKey},
      {"ScheduleKeyDeletion", Op::kScheduleKeyDeletion},
      {"CancelKeyDeletion", Op::kCancelKeyDeletion},
  };
  for (const auto& [n, op] : kOps) {
    if (n == name) return op;
  }
  return std::nullopt;
}

// AliasName: 1-256 of [a-zA-Z0-9:/_-] (API_CreateAlias.html, Request Parameters).
bool AliasNameChars(std::string_view name) {
  if (name.empty() || name.size() > 256) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == ':' || c == '/' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

bool IsApiOperation(std::string_view operation) { return ParseOp(operation).has_value(); }

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
  Status Resolve(std::string_view id, bool aliases, bool create_aws, KmsKeyRecord* out);
  Status ResolveAlias(std::string_view alias_name, bool create_aws, KmsKeyRecord* out);
  // OK for an Enabled key, else kDisabled / kInvalidState naming its ARN.
  Status RequireEnabled(const KmsKeyRecord& key);
  Status Material(const KmsKeyRecord& key, crypt::Key256* out);
  // A new key with fresh material (and `alias`, in the same write). REQUIRES: change_mu held
  // when `alias` is the AWS-managed one.
  Status NewKey(std::string description, bool aws_managed, const KmsAliasRecord* alias,
                int64_t now_ms, KmsKeyRecord* out);

  // ---- The JSON API, one function per operation: either an error or the response JSON.
  std::optional<ApiError> CreateKey(const Input& in, int64_t now_ms, std::string* json);
  std::optional<ApiError> DescribeKey(const Input& in, std::string* json);
  std::optional<ApiError> ListKeys(const Input& in, std::string* json);
  std::optional<ApiError> CreateAlias(const Input& in, int64_t now_ms, std::string* json);
  std::optional<ApiError> ListAliases(const Input& in, std::string* json);
  std::optional<ApiError> DeleteAlias(const Input& in, std::string* json);
  std::optional<ApiError> SetEnabled(const Input& in, bool enabled, std::string* json);
  std::optional<ApiError> ScheduleKeyDeletion(const Input& in, int64_t now_ms, std::string* json);
  std::optional<ApiError> CancelKeyDeletion(const Input& in, std::string* json);

  // Reads KeyId (a key id or key ARN, as the state-changing operations take it).
  std::optional<ApiError> TargetKey(const Input& in, std::string_view member, bool aliases,
                                    KmsKeyRecord* out);
  std::optional<ApiError> WriteMetadata(const KmsKeyRecord& key, JsonWriter* w);
  // Refuses a change of an AWS-managed key (AWS allows none of these on one).
  static std::optional<ApiError> RefuseAwsManaged(const KmsKeyRecord& key, std::string_view arn);
};

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

// ---- The JSON API.

std::optional<ApiError> KeyService::Impl::WriteMetadata(const KmsKeyRecord& key, JsonWriter* w) {
  std::string account, arn;
  if (Status s = Account(&account); !s.ok()) return ToApi(s);
  if (Status s = KeyArn(key.key_id, &arn); !s.ok()) return ToApi(s);
  w->BeginObject();
  w->Key("AWSAccountId").String(account);
  w->Key("KeyId").String(key.key_id);
  w->Key("Arn").String(arn);
  w->Key("CreationDate").EpochSeconds(key.created_ms);
  w->Key("Enabled").Bool(key.state == KmsKeyState::kEnabled);
  w->Key("Description").String(key.description);
  w->Key("KeyUsage").String("ENCRYPT_DECRYPT");
  w->Key("KeyState").String(StateName(key.state));
  if (key.state == KmsKeyState::kPendingDeletion) {
    w->Key("DeletionDate").EpochSeconds(key.deletion_date_ms);
  }
  w->Key("Origin").String("AWS_KMS");
  w->Key("KeyManager").String(key.aws_managed ? "AWS" : "CUSTOMER");
  w->Key("CustomerMasterKeySpec").String(kSymmetricDefault);
  w->Key("KeySpec").String(kSymmetricDefault);
  w->Key("EncryptionAlgorithms").BeginArray().String(kSymmetricDefault).EndArray();
  w->Key("MultiRegion").Bool(false);
  w->EndObject();
  return std::nullopt;
}

std::optional<ApiError> KeyService::Impl::TargetKey(const Input& in, std::string_view member,
                                                    bool aliases, KmsKeyRecord* out) {
  std::string id;
  if (auto e = RequireString(in, member, &id)) return e;
  if (Status s = Resolve(id, aliases, /*create_aws=*/aliases, out); !s.ok()) return ToApi(s);
  return std::nullopt;
}

std::optional<ApiError> KeyService::Impl::RefuseAwsManaged(const KmsKeyRecord& key,
                                                           std::string_view arn) {
  if (!key.aws_managed) return std::nullopt;
  return ApiError{"NotAuthorizedException",
                  std::string(arn) + " is an AWS managed key; it cannot be changed."};
}

std::optional<ApiError> KeyService::Impl::CreateKey(const Input& in, int64_t now_ms,
                                                    std::string* json) {
  std::optional<std::string> description, key_spec, cmk_spec, usage, origin;
  std::optional<bool> multi_region, bypass;
  for (auto [name, out] : {std::pair{"Description", &description}, std::pair{"KeySpec", &key_spec},
                           std::pair{"CustomerMasterKeySpec", &cmk_spec},
                           std::pair{"KeyUsage", &usage}, std::pair{"Origin", &origin}}) {
    if (auto e = in.String(name, out)) return e;
  }
  if (auto e = in.Bool("MultiRegion", &multi_region)) return e;
  if (auto e = in.Bool("BypassPolicyLockoutSafetyCheck", &bypass)) return e;
  if (description && description->size() > 8192) {
    return Validation(
        "1 validation error detected: Value at 'description' failed to satisfy constraint: "
        "Member must have length less than or equal to 8192");
  }
  // Only what this key store makes; anything else is refused, never silently dropped.
  if ((key_spec && *key_spec != kSymmetricDefault) ||
      (cmk_spec && *cmk_spec != kSymmetricDefault)) {
    return Unsupported("Only KeySpec SYMMETRIC_DEFAULT is supported.");
  }
  if (usage && *usage != "ENCRYPT_DECRYPT") {
    return Unsupported("Only KeyUsage ENCRYPT_DECRYPT is supported.");
  }
  if (origin && *origin != "AWS_KMS") return Unsupported("Only Origin AWS_KMS is supported.");
  if (multi_region.value_or(false)) return Unsupported("Multi-Region keys are not supported.");
  for (const char* member : {"Policy", "Tags", "CustomKeyStoreId", "XksKeyId"}) {
    if (in.Given(member)) {
      return Unsupported(std::string(member) + " is not supported by this key store.");
    }
  }
  KmsKeyRecord key;
  if (Status s = NewKey(description.value_or(""), /*aws_managed=*/false, nullptr, now_ms, &key);
      !s.ok()) {
    return ToApi(s);
  }
  JsonWriter w;
  w.BeginObject().Key("KeyMetadata");
  if (auto e = WriteMetadata(key, &w)) return e;
  w.EndObject();
  *json = w.str();
  return std::nullopt;
}

std::optional<ApiError> KeyService::Impl::DescribeKey(const Input& in, std::string* json) {
  KmsKeyRecord key;
  if (auto e = TargetKey(in, "KeyId", /*aliases=*/true, &key)) return e;
  JsonWriter w;
  w.BeginObject().Key("KeyMetadata");
  if (auto e = WriteMetadata(key, &w)) return e;
  w.EndObject();
  *json = w.str();
  return std::nullopt;
}

std::optional<ApiError> KeyService::Impl::ListKeys(const Input& in, std::string* json) {
  size_t limit = 0;
  if (auto e = ReadLimit(in, 1000, 100, &limit)) return e;
  std::optional<std::string> marker;
  if (auto e = in.String("Marker", &marker)) return e;
  storage::Result<storage::KmsKeysPage> page = store->ListKmsKeys(marker.value_or(""), limit);
  if (!page.ok()) return ToApi(FromStorage(page.status(), "listing KMS keys"));
  JsonWriter w;
  w.BeginObject().Key("Keys").BeginArray();
  for (const KmsKeyRecord& key : page->keys) {
    std::string arn;
    if (Status s = KeyArn(key.key_id, &arn); !s.ok()) return ToApi(s);
    w.BeginObject().Key("KeyId").String(key.key_id).Key("KeyArn").String(arn).EndObject();
  }
  w.EndArray();
  if (page->truncated) w.Key("NextMarker").String(page->next_marker);
  w.Key("Truncated").Bool(page->truncated);
  w.EndObject();
  *json = w.str();
  return std::nullopt;
}

std::optional<ApiError> KeyService::Impl::CreateAlias(const Input& in, int64_t now_ms,
                                                      std::string* json) {
  std::string name;
  if (auto e = RequireString(in, "AliasName", &name)) return e;
  if (!AliasNameChars(name)) {
    return Validation("1 validation error detected: Value '" + name +
                      "' at 'aliasName' failed to satisfy constraint: Member must satisfy "
                      "regular expression pattern: ^[a-zA-Z0-9:/_-]+$");
  }
  if (!name.starts_with(kAliasPrefix) || name.size() == kAliasPrefix.size()) {
    return ApiError{"InvalidAliasNameException", "Alias must start with the prefix \"alias/\"."};
  }
  if (name.starts_with(kAwsAliasPrefix)) {
    return ApiError{"NotAuthorizedException",
                    "Alias names starting with alias/aws/ are reserved for AWS managed keys."};
  }
  KmsKeyRecord key;
  if (auto e = TargetKey(in, "TargetKeyId", /*aliases=*/false, &key)) return e;
  std::string arn;
  if (Status s = KeyArn(key.key_id, &arn); !s.ok()) return ToApi(s);
  if (auto e = RefuseAwsManaged(key, arn)) return e;
  if (key.state == KmsKeyState::kPendingDeletion) {
    return ApiError{"KMSInvalidStateException", arn + " is pending deletion."};
  }
  const storage::Status s = store->CreateKmsAlias({name, key.key_id, now_ms});
  if (s.code() == storage::Code::kEntityAlreadyExists) {
    std::string alias_arn;
    if (Status a = AliasArn(name, &alias_arn); !a.ok()) return ToApi(a);
    return ApiError{"AlreadyExistsException",
                    "An alias with the name " + alias_arn + " already exists"};
  }
  if (s.code() == storage::Code::kNoSuchEntity) {
    return ApiError{"NotFoundException", "Key '" + arn + "' does not exist"};
  }
  if (!s.ok()) return ToApi(FromStorage(s, "writing a KMS alias"));
  json->clear();  // CreateAlias has no response body
  return std::nullopt;
}

std::optional<ApiError> KeyService::Impl::ListAliases(const Input& in, std::string* json) {
  size_t limit = 0;
  if (auto e = ReadLimit(in, 100, 50, &limit)) return e;
  std::optional<std::string> marker, key_filter;
  if (auto e = in.String("Marker", &marker)) return e;
  if (auto e = in.String("KeyId", &key_filter)) return e;
  std::optional<std::string> only;
  if (key_filter) {
    KmsKeyRecord key;
    if (Status s = Resolve(*key_filter, /*aliases=*/false, false, &key); !s.ok()) return ToApi(s);
    only = key.key_id;
  }
  storage::Result<std::vector<KmsAliasRecord>> all = store->ListKmsAliases();
  if (!all.ok()) return ToApi(FromStorage(all.status(), "listing KMS aliases"));
  JsonWriter w;
  w.BeginObject().Key("Aliases").BeginArray();
  size_t n = 0;
  bool truncated = false;
  std::string last;
  for (const KmsAliasRecord& alias : *all) {
    if (marker && alias.alias_name <= *marker) continue;
    if (only && alias.key_id != *only) continue;
    if (n == limit) {
      truncated = true;
      break;
    }
    std::string arn;
    if (Status s = AliasArn(alias.alias_name, &arn); !s.ok()) return ToApi(s);
    w.BeginObject()
        .Key("AliasName")
        .String(alias.alias_name)
        .Key("AliasArn")
        .String(arn)
        .Key("TargetKeyId")
        .String(alias.key_id)
        .Key("CreationDate")
        .EpochSeconds(alias.created_ms)
        .Key("LastUpdatedDate")
        .EpochSeconds(alias.created_ms)
        .EndObject();
    ++n;
    last = alias.alias_name;
  }
  w.EndArray();
  if (truncated) w.Key("NextMarker").String(last);
  w.Key("Truncated").Bool(truncated);
  w.EndObject();
  *json = w.str();
  return std::nullopt;
}

std::optional<ApiError> KeyService::Impl::DeleteAlias(const Input& in, std::string* json) {
  std::string name;
  if (auto e = RequireString(in, "AliasName", &name)) return e;
  if (name.starts_with(kAwsAliasPrefix)) {
    return ApiError{"NotAuthorizedException",
                    "Alias names starting with alias/aws/ are reserved for AWS managed keys."};
  }
  const storage::Status s = store->DeleteKmsAlias(name);
  if (s.code() == storage::Code::kNoSuchEntity) {
    std::string arn;
    if (Status a = AliasArn(name, &arn); !a.ok()) return ToApi(a);
    return ApiError{"NotFoundException", "Alias " + arn + " is not found."};
  }
  if (!s.ok()) return ToApi(FromStorage(s, "deleting a KMS alias"));
  json->clear();
  return std::nullopt;
}

std::optional<ApiError> KeyService::Impl::SetEnabled(const Input& in, bool enabled,
                                                     std::string* json) {
  std::lock_guard lock(change_mu);
  KmsKeyRecord key;
  if (auto e = TargetKey(in, "KeyId", /*aliases=*/false, &key)) return e;
  std::string arn;
  if (Status s = KeyArn(key.key_id, &arn); !s.ok()) return ToApi(s);
  if (auto e = RefuseAwsManaged(key, arn)) return e;
  if (key.state == KmsKeyState::kPendingDeletion) {
    return ApiError{"KMSInvalidStateException", arn + " is pending deletion."};
  }
  const KmsKeyState want = enabled ? KmsKeyState::kEnabled : KmsKeyState::kDisabled;
  if (key.state != want) {
    key.state = want;
    if (storage::Status s = store->PutKmsKey(key, nullptr); !s.ok()) {
      return ToApi(FromStorage(s, "writing a KMS key"));
    }
  }
  json->clear();
  return std::nullopt;
}

std::optional<ApiError> KeyService::Impl::ScheduleKeyDeletion(const Input& in, int64_t now_ms,
                                                              std::string* json) {
  std::optional<int64_t> days;
  if (auto e = in.Integer("PendingWindowInDays", &days)) return e;
  if (days && (*days < 7 || *days > 30)) {
    return Validation("1 validation error detected: Value '" + std::to_string(*days) +
                      "' at 'pendingWindowInDays' failed to satisfy constraint: Member must have "
                      "value between 7 and 30");
  }
  std::lock_guard lock(change_mu);
  KmsKeyRecord key;
  if (auto e = TargetKey(in, "KeyId", /*aliases=*/false, &key)) return e;
  std::string arn;
  if (Status s = KeyArn(key.key_id, &arn); !s.ok()) return ToApi(s);
  if (auto e = RefuseAwsManaged(key, arn)) return e;
  if (key.state == KmsKeyState::kPendingDeletion) {
    return ApiError{"KMSInvalidStateException", arn + " is pending deletion."};
  }
  const int64_t window = days.value_or(30);
  key.state = KmsKeyState::kPendingDeletion;
  key.deletion_date_ms = now_ms + window * kDayMs;
  if (storage::Status s = store->PutKmsKey(key, nullptr); !s.ok()) {
    return ToApi(FromStorage(s, "writing a KMS key"));
  }
  JsonWriter w;
  w.BeginObject()
      .Key("KeyId")
      .String(arn)
      .Key("DeletionDate")
      .EpochSeconds(key.deletion_date_ms)
      .Key("KeyState")
      .String(StateName(key.state))
      .Key("PendingWindowInDays")
      .Int(window)
      .EndObject();
  *json = w.str();
  return std::nullopt;
}

std::optional<ApiError> KeyService::Impl::CancelKeyDeletion(const Input& in, std::string* json) {
  std::lock_guard lock(change_mu);
  KmsKeyRecord key;
  if (auto e = TargetKey(in, "KeyId", /*aliases=*/false, &key)) return e;
  std::string arn;
  if (Status s = KeyArn(key.key_id, &arn); !s.ok()) return ToApi(s);
  if (key.state != KmsKeyState::kPendingDeletion) {
    return ApiError{"KMSInvalidStateException", arn + " is not pending deletion."};
  }
  // A key whose deletion is cancelled comes back Disabled (API_CancelKeyDeletion.html).
  key.state = KmsKeyState::kDisabled;
  key.deletion_date_ms = 0;
  if (storage::Status s = store->PutKmsKey(key, nullptr); !s.ok()) {
    return ToApi(FromStorage(s, "writing a KMS key"));
  }
  JsonWriter w;
  w.BeginObject().Key("KeyId").String(arn).EndObject();
  *json = w.str();
  return std::nullopt;
}

// ---- KeyService.

KeyService::KeyService(storage::Store* store, const crypt::Key256* kms_kek, std::string region)
    : impl_(new Impl{store, kms_kek, std::move(region), {}, {}, {}, {}}) {}

KeyService::~KeyService() { delete impl_; }

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

void KeyService::HandleApi(std::string_view operation, std::string_view body, int64_t now_ms,
                           int* status, std::string* json) {
  std::optional<ApiError> error;
  const std::optional<Op> op = ParseOp(operation);
  text::JsonValue doc;
  text::JsonError why;
  if (!op) {
    error = ApiError{"UnknownOperationException", ""};
  } else if (body.size() > kMaxRequestBytes) {
    error = Validation("The request body is larger than " + std::to_string(kMaxRequestBytes) +
                       " bytes.");
  } else if (!text::ParseJson(body.empty() ? std::string_view("{}") : body, kMaxRequestBytes, &doc,
                              &why)) {
    error = Serialization("The request body is not valid JSON: " + why.reason + " at byte " +
                          std::to_string(why.offset) + ".");
  } else if (doc.type != text::JsonType::kObject) {
    error = Serialization("The request body must be a JSON object.");
  } else {
    const Input in(doc);
    switch (*op) {
      case Op::kCreateKey:
        error = impl_->CreateKey(in, now_ms, json);
        break;
      case Op::kDescribeKey:
        error = impl_->DescribeKey(in, json);
        break;
      case Op::kListKeys:
        error = impl_->ListKeys(in, json);
        break;
      case Op::kCreateAlias:
        error = impl_->CreateAlias(in, now_ms, json);
        break;
      case Op::kListAliases:
        error = impl_->ListAliases(in, json);
        break;
      case Op::kDeleteAlias:
        error = impl_->DeleteAlias(in, json);
        break;
      case Op::kEnableKey:
        error = impl_->SetEnabled(in, true, json);
        break;
      case Op::kDisableKey:
        error = impl_->SetEnabled(in, false, json);
        break;
      case Op::kScheduleKeyDeletion:
        error = impl_->ScheduleKeyDeletion(in, now_ms, json);
        break;
      case Op::kCancelKeyDeletion:
        error = impl_->CancelKeyDeletion(in, json);
        break;
    }
  }
  if (!error) {
    *status = 200;
    return;
  }
  *status = error->status;
  *json = ErrorJson(error->type, error->message);
}

std::string ErrorJson(std::string_view type, std::string_view message) {
  JsonWriter w;
  w.BeginObject().Key("__type").String(type).Key("message").String(message).EndObject();
  return w.str();
}

}  // namespace cubby::kms
