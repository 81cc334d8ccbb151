// KeyService::HandleApi (kms.h): the KMS JSON API over the key store (key_store.h).
//   https://docs.aws.amazon.com/kms/latest/APIReference/Welcome.html
//
// ScheduleKeyDeletion only marks the key PendingDeletion with its DeletionDate: no background
// job deletes the key when the date passes (a key that stays PendingDeletion cannot be used,
// and CancelKeyDeletion still brings it back). Deleting key material for real would make every
// object under it unreadable; an operator-run purge is left for later.
#include <cassert>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kms/key_store.h"
#include "text/json.h"
#include "text/names.h"

namespace cubby::kms {
namespace {

using storage::KmsAliasRecord;
using storage::KmsKeyRecord;
using storage::KmsKeyState;
using text::JsonWriter;

constexpr std::string_view kAwsAliasPrefix = "alias/aws/";
constexpr std::string_view kSymmetricDefault = "SYMMETRIC_DEFAULT";
constexpr size_t kMaxRequestBytes = 64 << 10;
constexpr int64_t kDayMs = 24LL * 3600 * 1000;

constexpr text::Named<KmsKeyState> kStates[] = {{KmsKeyState::kEnabled, "Enabled"},
                                                {KmsKeyState::kDisabled, "Disabled"},
                                                {KmsKeyState::kPendingDeletion, "PendingDeletion"}};

std::string_view StateName(KmsKeyState state) { return text::NameOf(kStates, state, "Unknown"); }

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

// The JSON API over the key store, one function per operation (kOperations below): either an
// error or the response JSON in *json. One per request; `now_ms` stamps what it makes.
class JsonApi {
 public:
  JsonApi(KeyService::Impl& keys, int64_t now_ms) : keys_(keys), now_ms_(now_ms) {}

  std::optional<ApiError> CreateKey(const Input& in, std::string* json);
  std::optional<ApiError> DescribeKey(const Input& in, std::string* json);
  std::optional<ApiError> ListKeys(const Input& in, std::string* json);
  std::optional<ApiError> CreateAlias(const Input& in, std::string* json);
  std::optional<ApiError> ListAliases(const Input& in, std::string* json);
  std::optional<ApiError> DeleteAlias(const Input& in, std::string* json);
  std::optional<ApiError> EnableKey(const Input& in, std::string* json);
  std::optional<ApiError> DisableKey(const Input& in, std::string* json);
  std::optional<ApiError> ScheduleKeyDeletion(const Input& in, std::string* json);
  std::optional<ApiError> CancelKeyDeletion(const Input& in, std::string* json);

 private:
  std::optional<ApiError> SetEnabled(const Input& in, bool enabled, std::string* json);
  // Reads KeyId (a key id or key ARN, as the state-changing operations take it).
  std::optional<ApiError> TargetKey(const Input& in, std::string_view member, bool aliases,
                                    KmsKeyRecord* out);
  // Reads the key `member` names (a key id or key ARN) for a change, and its ARN: AWS allows
  // none on an AWS-managed key or one pending deletion.
  std::optional<ApiError> ChangeableKey(const Input& in, std::string_view member, KmsKeyRecord* key,
                                        std::string* arn);
  // CreateKey's and DescribeKey's answer: {"KeyMetadata": {...}}.
  std::optional<ApiError> KeyMetadata(const KmsKeyRecord& key, std::string* json);

  KeyService::Impl& keys_;
  const int64_t now_ms_;
};

std::optional<ApiError> JsonApi::KeyMetadata(const KmsKeyRecord& key, std::string* json) {
  std::string account, arn;
  if (Status s = keys_.Account(&account); !s.ok()) return ToApi(s);
  if (Status s = keys_.KeyArn(key.key_id, &arn); !s.ok()) return ToApi(s);
  JsonWriter w;
  w.BeginObject().Key("KeyMetadata").BeginObject();
  w.Key("AWSAccountId").String(account);
  w.Key("KeyId").String(key.key_id);
  w.Key("Arn").String(arn);
  w.Key("CreationDate").EpochSeconds(key.created_ms);
  w.Key("Enabled").Bool(key.state == KmsKeyState::kEnabled);
  w.Key("Description").String(key.description);
  w.Key("KeyUsage").String("ENCRYPT_DECRYPT");
  w.Key("KeyState").String(StateName(key.state));
  if (key.state == KmsKeyState::kPendingDeletion) {
    w.Key("DeletionDate").EpochSeconds(key.deletion_date_ms);
  }
  w.Key("Origin").String("AWS_KMS");
  w.Key("KeyManager").String(key.aws_managed ? "AWS" : "CUSTOMER");
  w.Key("CustomerMasterKeySpec").String(kSymmetricDefault);
  w.Key("KeySpec").String(kSymmetricDefault);
  w.Key("EncryptionAlgorithms").BeginArray().String(kSymmetricDefault).EndArray();
  w.Key("MultiRegion").Bool(false);
  w.EndObject().EndObject();
  *json = w.str();
  return std::nullopt;
}

std::optional<ApiError> JsonApi::TargetKey(const Input& in, std::string_view member, bool aliases,
                                           KmsKeyRecord* out) {
  std::string id;
  if (auto e = RequireString(in, member, &id)) return e;
  if (Status s = keys_.Resolve(id, aliases, /*create_aws=*/aliases, out); !s.ok()) return ToApi(s);
  return std::nullopt;
}

std::optional<ApiError> JsonApi::ChangeableKey(const Input& in, std::string_view member,
                                               KmsKeyRecord* key, std::string* arn) {
  if (auto e = TargetKey(in, member, /*aliases=*/false, key)) return e;
  if (Status s = keys_.KeyArn(key->key_id, arn); !s.ok()) return ToApi(s);
  if (key->aws_managed) {
    return ApiError{"NotAuthorizedException",
                    *arn + " is an AWS managed key; it cannot be changed."};
  }
  if (key->state == KmsKeyState::kPendingDeletion) {
    return ApiError{"KMSInvalidStateException", *arn + " is pending deletion."};
  }
  return std::nullopt;
}

std::optional<ApiError> JsonApi::CreateKey(const Input& in, std::string* json) {
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
  if (Status s =
          keys_.NewKey(description.value_or(""), /*aws_managed=*/false, nullptr, now_ms_, &key);
      !s.ok()) {
    return ToApi(s);
  }
  return KeyMetadata(key, json);
}

std::optional<ApiError> JsonApi::DescribeKey(const Input& in, std::string* json) {
  KmsKeyRecord key;
  if (auto e = TargetKey(in, "KeyId", /*aliases=*/true, &key)) return e;
  return KeyMetadata(key, json);
}

std::optional<ApiError> JsonApi::ListKeys(const Input& in, std::string* json) {
  size_t limit = 0;
  if (auto e = ReadLimit(in, 1000, 100, &limit)) return e;
  std::optional<std::string> marker;
  if (auto e = in.String("Marker", &marker)) return e;
  storage::Result<storage::KmsKeysPage> page = keys_.store->ListKmsKeys(marker.value_or(""), limit);
  if (!page.ok()) return ToApi(FromStorage(page.status(), "listing KMS keys"));
  JsonWriter w;
  w.BeginObject().Key("Keys").BeginArray();
  for (const KmsKeyRecord& key : page->keys) {
    std::string arn;
    if (Status s = keys_.KeyArn(key.key_id, &arn); !s.ok()) return ToApi(s);
    w.BeginObject().Key("KeyId").String(key.key_id).Key("KeyArn").String(arn).EndObject();
  }
  w.EndArray();
  if (page->truncated) w.Key("NextMarker").String(page->next_marker);
  w.Key("Truncated").Bool(page->truncated);
  w.EndObject();
  *json = w.str();
  return std::nullopt;
}

std::optional<ApiError> JsonApi::CreateAlias(const Input& in, std::string* json) {
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
  std::string arn;
  if (auto e = ChangeableKey(in, "TargetKeyId", &key, &arn)) return e;
  const storage::Status s = keys_.store->CreateKmsAlias({name, key.key_id, now_ms_});
  if (s.code() == storage::Code::kEntityAlreadyExists) {
    std::string alias_arn;
    if (Status a = keys_.AliasArn(name, &alias_arn); !a.ok()) return ToApi(a);
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

std::optional<ApiError> JsonApi::ListAliases(const Input& in, std::string* json) {
  size_t limit = 0;
  if (auto e = ReadLimit(in, 100, 50, &limit)) return e;
  std::optional<std::string> marker, key_filter;
  if (auto e = in.String("Marker", &marker)) return e;
  if (auto e = in.String("KeyId", &key_filter)) return e;
  std::optional<std::string> only;
  if (key_filter) {
    KmsKeyRecord key;
    if (Status s = keys_.Resolve(*key_filter, /*aliases=*/false, false, &key); !s.ok())
      return ToApi(s);
    only = key.key_id;
  }
  storage::Result<std::vector<KmsAliasRecord>> all = keys_.store->ListKmsAliases();
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
    if (Status s = keys_.AliasArn(alias.alias_name, &arn); !s.ok()) return ToApi(s);
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

std::optional<ApiError> JsonApi::DeleteAlias(const Input& in, std::string* json) {
  std::string name;
  if (auto e = RequireString(in, "AliasName", &name)) return e;
  if (name.starts_with(kAwsAliasPrefix)) {
    return ApiError{"NotAuthorizedException",
                    "Alias names starting with alias/aws/ are reserved for AWS managed keys."};
  }
  const storage::Status s = keys_.store->DeleteKmsAlias(name);
  if (s.code() == storage::Code::kNoSuchEntity) {
    std::string arn;
    if (Status a = keys_.AliasArn(name, &arn); !a.ok()) return ToApi(a);
    return ApiError{"NotFoundException", "Alias " + arn + " is not found."};
  }
  if (!s.ok()) return ToApi(FromStorage(s, "deleting a KMS alias"));
  json->clear();
  return std::nullopt;
}

std::optional<ApiError> JsonApi::SetEnabled(const Input& in, bool enabled, std::string* json) {
  std::lock_guard lock(keys_.change_mu);
  KmsKeyRecord key;
  std::string arn;
  if (auto e = ChangeableKey(in, "KeyId", &key, &arn)) return e;
  const KmsKeyState want = enabled ? KmsKeyState::kEnabled : KmsKeyState::kDisabled;
  if (key.state != want) {
    key.state = want;
    if (storage::Status s = keys_.store->PutKmsKey(key, nullptr); !s.ok()) {
      return ToApi(FromStorage(s, "writing a KMS key"));
    }
  }
  json->clear();
  return std::nullopt;
}

std::optional<ApiError> JsonApi::EnableKey(const Input& in, std::string* json) {
  return SetEnabled(in, true, json);
}

std::optional<ApiError> JsonApi::DisableKey(const Input& in, std::string* json) {
  return SetEnabled(in, false, json);
}

std::optional<ApiError> JsonApi::ScheduleKeyDeletion(const Input& in, std::string* json) {
  std::optional<int64_t> days;
  if (auto e = in.Integer("PendingWindowInDays", &days)) return e;
  if (days && (*days < 7 || *days > 30)) {
    return Validation("1 validation error detected: Value '" + std::to_string(*days) +
                      "' at 'pendingWindowInDays' failed to satisfy constraint: Member must have "
                      "value between 7 and 30");
  }
  std::lock_guard lock(keys_.change_mu);
  KmsKeyRecord key;
  std::string arn;
  if (auto e = ChangeableKey(in, "KeyId", &key, &arn)) return e;
  const int64_t window = days.value_or(30);
  key.state = KmsKeyState::kPendingDeletion;
  key.deletion_date_ms = now_ms_ + window * kDayMs;
  if (storage::Status s = keys_.store->PutKmsKey(key, nullptr); !s.ok()) {
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

std::optional<ApiError> JsonApi::CancelKeyDeletion(const Input& in, std::string* json) {
  std::lock_guard lock(keys_.change_mu);
  KmsKeyRecord key;
  if (auto e = TargetKey(in, "KeyId", /*aliases=*/false, &key)) return e;
  std::string arn;
  if (Status s = keys_.KeyArn(key.key_id, &arn); !s.ok()) return ToApi(s);
  if (key.state != KmsKeyState::kPendingDeletion) {
    return ApiError{"KMSInvalidStateException", arn + " is not pending deletion."};
  }
  // A key whose deletion is cancelled comes back Disabled (API_CancelKeyDeletion.html).
  key.state = KmsKeyState::kDisabled;
  key.deletion_date_ms = 0;
  if (storage::Status s = keys_.store->PutKmsKey(key, nullptr); !s.ok()) {
    return ToApi(FromStorage(s, "writing a KMS key"));
  }
  JsonWriter w;
  w.BeginObject().Key("KeyId").String(arn).EndObject();
  *json = w.str();
  return std::nullopt;
}

namespace {

// The operations HandleApi serves, by X-Amz-Target's part after "TrentService.".
using Operation = std::optional<ApiError> (JsonApi::*)(const Input&, std::string*);
constexpr std::pair<std::string_view, Operation> kOperations[] = {
    {"CreateKey", &JsonApi::CreateKey},
    {"DescribeKey", &JsonApi::DescribeKey},
    {"ListKeys", &JsonApi::ListKeys},
    {"CreateAlias", &JsonApi::CreateAlias},
    {"ListAliases", &JsonApi::ListAliases},
    {"DeleteAlias", &JsonApi::DeleteAlias},
    {"EnableKey", &JsonApi::EnableKey},
    {"DisableKey", &JsonApi::DisableKey},
    {"ScheduleKeyDeletion", &JsonApi::ScheduleKeyDeletion},
    {"CancelKeyDeletion", &JsonApi::CancelKeyDeletion},
};

std::optional<Operation> FindOperation(std::string_view name) {
  for (const auto& [n, op] : kOperations) {
    if (n == name) return op;
  }
  return std::nullopt;
}

}  // namespace

bool IsApiOperation(std::string_view operation) { return FindOperation(operation).has_value(); }

void KeyService::HandleApi(std::string_view operation, std::string_view body, int64_t now_ms,
                           int* status, std::string* json) {
  std::optional<ApiError> error;
  const std::optional<Operation> op = FindOperation(operation);
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
    JsonApi api(*impl_, now_ms);
    error = (api.**op)(Input(doc), json);
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
