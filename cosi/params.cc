#include "cosi/params.h"

#include <openssl/evp.h>

#include <algorithm>
#include <charconv>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "storage/bucket_name.h"
#include "text/encoding.h"
#include "text/names.h"

namespace cubby::cosi {
namespace {

using storage::AccessMode;
using storage::Code;
using storage::Status;

Status Invalid(std::string message) { return Status(Code::kInvalidArgument, std::move(message)); }

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

Status UnknownKey(std::string_view key) {
  return Invalid("unknown parameter \"" + std::string(key) + "\"");
}

Status BadValue(std::string_view key, std::string_view allowed) {
  return Invalid("parameter \"" + std::string(key) + "\" must be one of " + std::string(allowed));
}

std::string Quoted(std::string_view key) { return "\"" + std::string(key) + "\""; }

// What the parameters that take one of a few named values accept, in the order BadValue lists
// them.
constexpr text::Named<AccessMode> kAnonymousModes[] = {
    {AccessMode::kNone, "Private"},
    {AccessMode::kReadOnly, "ReadOnly"},
    {AccessMode::kWriteOnly, "WriteOnly"},
    {AccessMode::kReadWrite, "ReadWrite"},
};
constexpr text::Named<AccessMode> kAccessModes[] = {
    {AccessMode::kReadWrite, "ReadWrite"},
    {AccessMode::kReadOnly, "ReadOnly"},
    {AccessMode::kWriteOnly, "WriteOnly"},
};
constexpr text::Named<bool> kBooleans[] = {{true, "true"}, {false, "false"}};
// https://docs.aws.amazon.com/AmazonS3/latest/API/API_VersioningConfiguration.html
constexpr text::Named<storage::VersioningState> kVersioningStates[] = {
    {storage::VersioningState::kEnabled, "Enabled"},
    {storage::VersioningState::kSuspended, "Suspended"},
};
constexpr text::Named<storage::RetentionMode> kLockModes[] = {
    {storage::RetentionMode::kGovernance, "GOVERNANCE"},
    {storage::RetentionMode::kCompliance, "COMPLIANCE"},
};

// `value` as one of `choices`, named exactly (no other case, no spaces), into *out; otherwise
// BadValue listing the names.
template <typename T, size_t N, typename Out>
Status ParseChoice(std::string_view key, std::string_view value, const text::Named<T> (&choices)[N],
                   Out* out) {
  std::string names;
  for (const auto& [choice, name] : choices) {
    if (value == name) {
      *out = choice;
      return Status::Ok();
    }
    names += names.empty() ? "" : ", ";
    names += name;
  }
  return BadValue(key, names);
}

// A decimal integer of digits only, from `min` to `max`; nullopt for anything else (a sign,
// spaces, a unit suffix, an exponent, an empty string, a value out of range). Leading zeros are
// fine: they do not change the number.
std::optional<uint64_t> ParseDecimal(std::string_view text, uint64_t min, uint64_t max) {
  if (text.empty()) return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (value < min || value > max) return std::nullopt;
  return value;
}

Status BadNumber(std::string_view key, uint64_t min, uint64_t max, std::string_view what) {
  return Invalid("parameter " + Quoted(key) + " must be a decimal integer from " +
                 std::to_string(min) + " to " + std::to_string(max) + " (" + std::string(what) +
                 ", digits only)");
}

// What the separately parsed keys said, before the rules that tie them together.
struct Stated {
  std::optional<storage::VersioningState> versioning;
  std::optional<bool> lock_enabled;
  std::optional<storage::RetentionMode> lock_mode;
  std::optional<uint32_t> lock_days;
};

// objectLock* and versioning together: S3 object lock needs versioning Enabled
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html), and a default
// retention is a mode and a period together
// (https://docs.aws.amazon.com/AmazonS3/latest/API/API_DefaultRetention.html).
Status ApplyVersioningAndLock(const Stated& stated, BucketParams* params) {
  if (stated.lock_mode.has_value() != stated.lock_days.has_value()) {
    const std::string_view given = stated.lock_mode ? kObjectLockMode : kObjectLockDays;
    const std::string_view missing = stated.lock_mode ? kObjectLockDays : kObjectLockMode;
    return Invalid("parameter " + Quoted(missing) + " is required with " + Quoted(given) +
                   ": a default retention is a mode and a number of days");
  }
  const bool lock = stated.lock_enabled.value_or(false);
  if (stated.lock_mode && !lock) {
    return Invalid("parameters " + Quoted(kObjectLockMode) + " and " + Quoted(kObjectLockDays) +
                   " need " + Quoted(kObjectLockEnabled) + ": \"true\"");
  }
  if (lock && stated.versioning == storage::VersioningState::kSuspended) {
    return Invalid("parameter " + Quoted(kVersioning) + " must be Enabled or unset with " +
                   Quoted(kObjectLockEnabled) + ": \"true\" (object lock needs versioning)");
  }
  params->versioning = stated.versioning.value_or(storage::VersioningState::kUnversioned);
  if (lock) {
    params->versioning = storage::VersioningState::kEnabled;
    params->object_lock.enabled = true;
    if (stated.lock_mode) {
      params->object_lock.default_retention =
          storage::DefaultRetention{.mode = *stated.lock_mode, .days = *stated.lock_days};
    }
  }
  return Status::Ok();
}

std::string_view RetentionModeName(storage::RetentionMode mode) {
  switch (mode) {
    case storage::RetentionMode::kNone:
      return "NONE";
    case storage::RetentionMode::kGovernance:
      return "GOVERNANCE";
    case storage::RetentionMode::kCompliance:
      return "COMPLIANCE";
  }
  return "NONE";
}

bool ExpiresWholeBucketAfter(const storage::LifecycleConfig& lifecycle, uint32_t days) {
  return std::any_of(lifecycle.rules.begin(), lifecycle.rules.end(),
                     [days](const storage::LifecycleRule& rule) {
                       return rule.enabled && rule.filter == storage::LifecycleFilter{} &&
                              rule.expiration_days == days;
                     });
}

}  // namespace

Status CheckStringSize(std::string_view field, std::string_view value) {
  if (value.size() > kMaxStringBytes) {
    return Invalid(std::string(field) + " is longer than " + std::to_string(kMaxStringBytes) +
                   " bytes");
  }
  return Status::Ok();
}

Status CheckMapSize(std::string_view field, const Parameters& map) {
  size_t bytes = 0;
  for (const auto& [key, value] : map) bytes += key.size() + value.size();
  if (bytes > kMaxMapBytes) {
    return Invalid(std::string(field) + " is larger than " + std::to_string(kMaxMapBytes) +
                   " bytes");
  }
  return Status::Ok();
}

Status ValidateDriverName(std::string_view name) {
  if (name.empty()) return Invalid("driver name is empty");
  if (name.size() > 63) return Invalid("driver name is longer than 63 characters");
  if (!IsAlnum(name.front()) || !IsAlnum(name.back())) {
    return Invalid("driver name must begin and end with a letter or digit");
  }
  for (char c : name) {
    if (!IsAlnum(c) && c != '-' && c != '.') {
      return Invalid("driver name may contain only letters, digits, '-' and '.'");
    }
  }
  return Status::Ok();
}

storage::LifecycleConfig ExpireRule(uint32_t days) {
  storage::LifecycleRule rule;
  rule.id = std::string(kExpireRuleId);
  rule.enabled = true;
  rule.expiration_days = days;
  return storage::LifecycleConfig{.rules = {rule}};
}

storage::BucketEncryption SseS3Encryption() {
  storage::BucketEncryptionRule rule;
  rule.algorithm = storage::SseAlgorithm::kAes256;
  return storage::BucketEncryption{.rules = {rule}};
}

storage::Result<BucketParams> ParseBucketParameters(const Parameters& parameters) {
  BucketParams params;
  Stated stated;
  for (const auto& [key, value] : parameters) {
    if (key == kAnonymousAccessMode) {
      if (Status s = ParseChoice(key, value, kAnonymousModes, &params.anonymous); !s.ok()) return s;
    } else if (key == kForceDelete) {
      if (Status s = ParseChoice(key, value, kBooleans, &params.force_delete); !s.ok()) return s;
    } else if (key == kQuotaBytes || key == kQuotaObjects) {
      constexpr uint64_t kMax = UINT64_MAX;
      const std::optional<uint64_t> n = ParseDecimal(value, 1, kMax);
      const std::string_view unit = key == kQuotaBytes ? "bytes, no unit suffix" : "objects";
      if (!n) return BadNumber(key, 1, kMax, unit);
      (key == kQuotaBytes ? params.quota.bytes : params.quota.objects) = *n;
    } else if (key == kVersioning) {
      if (Status s = ParseChoice(key, value, kVersioningStates, &stated.versioning); !s.ok()) {
        return s;
      }
    } else if (key == kObjectLockEnabled) {
      if (Status s = ParseChoice(key, value, kBooleans, &stated.lock_enabled); !s.ok()) return s;
    } else if (key == kObjectLockMode) {
      if (Status s = ParseChoice(key, value, kLockModes, &stated.lock_mode); !s.ok()) return s;
    } else if (key == kObjectLockDays) {
      const std::optional<uint64_t> n = ParseDecimal(value, 1, kMaxObjectLockDays);
      if (!n) return BadNumber(key, 1, kMaxObjectLockDays, "days");
      stated.lock_days = static_cast<uint32_t>(*n);
    } else if (key == kExpireAfterDays) {
      const std::optional<uint64_t> n = ParseDecimal(value, 1, kMaxExpireAfterDays);
      if (!n) return BadNumber(key, 1, kMaxExpireAfterDays, "days");
      params.lifecycle = ExpireRule(static_cast<uint32_t>(*n));
    } else if (key == kEncryption) {
      // AES256 is PutBucketEncryption's name for SSE-S3
      // (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ServerSideEncryptionByDefault.html).
      if (value == "SSE-S3" || value == "AES256") {
        params.encryption = SseS3Encryption();
      } else if (value == "aws:kms" || value == "aws:kms:dsse" || value == "SSE-KMS") {
        return Invalid("parameter " + Quoted(key) +
                       ": SSE-KMS needs a KMS key, which a BucketClass cannot name; use SSE-S3 "
                       "or set SSE-KMS with PutBucketEncryption");
      } else if (value == "SSE-C") {
        return Invalid("parameter " + Quoted(key) +
                       ": SSE-C is chosen per request by the client, not per bucket; use SSE-S3");
      } else {
        return BadValue(key, "SSE-S3 (or its S3 name AES256)");
      }
    } else {
      return UnknownKey(key);
    }
  }
  if (Status s = ApplyVersioningAndLock(stated, &params); !s.ok()) return s;
  return params;
}

BucketParams BucketParamsOf(const storage::BucketRecord& bucket) {
  return BucketParams{.anonymous = bucket.anonymous,
                      .force_delete = bucket.force_delete,
                      .versioning = bucket.versioning,
                      .object_lock = bucket.object_lock,
                      .lifecycle = bucket.lifecycle,
                      .encryption = bucket.encryption,
                      .quota = bucket.quota};
}

Parameters EffectiveParameters(const BucketParams& params) {
  Parameters out{
      {std::string(kAnonymousAccessMode), std::string(AnonymousModeName(params.anonymous))},
      {std::string(kForceDelete), params.force_delete ? "true" : "false"},
  };
  auto put = [&out](std::string_view key, std::string value) {
    out.emplace(std::string(key), std::move(value));
  };
  switch (params.versioning) {
    case storage::VersioningState::kUnversioned:
      break;
    case storage::VersioningState::kEnabled:
      put(kVersioning, "Enabled");
      break;
    case storage::VersioningState::kSuspended:
      put(kVersioning, "Suspended");
      break;
  }
  if (params.object_lock.enabled) put(kObjectLockEnabled, "true");
  if (const auto& retention = params.object_lock.default_retention) {
    put(kObjectLockMode, std::string(RetentionModeName(retention->mode)));
    put(kObjectLockDays, retention->days > 0 && retention->years == 0
                             ? std::to_string(retention->days)
                             : "<" + std::to_string(retention->years) + " years>");
  }
  const std::vector<storage::LifecycleRule>& rules = params.lifecycle.rules;
  if (rules.size() == 1 && params.lifecycle == ExpireRule(rules[0].expiration_days.value_or(0))) {
    put(kExpireAfterDays, std::to_string(*rules[0].expiration_days));
  } else if (!rules.empty()) {
    put(kExpireAfterDays, "<" + std::to_string(rules.size()) + " lifecycle rules>");
  }
  if (params.encryption == SseS3Encryption()) {
    put(kEncryption, "SSE-S3");
  } else if (!params.encryption.rules.empty()) {
    put(kEncryption,
        "<" + std::string(storage::SseAlgorithmName(params.encryption.rules[0].algorithm)) +
            " default encryption>");
  }
  if (params.quota.bytes) put(kQuotaBytes, std::to_string(*params.quota.bytes));
  if (params.quota.objects) put(kQuotaObjects, std::to_string(*params.quota.objects));
  return out;
}

std::string DescribeParameters(const Parameters& parameters) {
  std::string out;
  for (const auto& [key, value] : parameters) {
    if (!out.empty()) out += ", ";
    out += key + "=" + value;
  }
  return out;
}

std::string StatedParametersMismatch(const Parameters& stated, const BucketParams& wanted,
                                     const BucketParams& actual) {
  const Parameters have = EffectiveParameters(actual);
  const Parameters want = EffectiveParameters(wanted);
  auto shown = [](const Parameters& p, std::string_view key) {
    auto it = p.find(key);
    if (it != p.end()) return it->second;
    return std::string(key == kObjectLockEnabled ? "false" : "unset");
  };
  std::vector<std::string_view> differing;
  for (const auto& [key, value] : stated) {
    bool agrees = true;
    if (key == kAnonymousAccessMode) {
      agrees = actual.anonymous == wanted.anonymous;
    } else if (key == kVersioning) {
      agrees = actual.versioning == wanted.versioning;
    } else if (key == kObjectLockEnabled) {
      agrees = actual.object_lock.enabled == wanted.object_lock.enabled;
    } else if (key == kObjectLockMode || key == kObjectLockDays) {
      const auto& have_retention = actual.object_lock.default_retention;
      const auto& want_retention = wanted.object_lock.default_retention;
      agrees = have_retention.has_value() && want_retention.has_value() &&
               (key == kObjectLockMode
                    ? have_retention->mode == want_retention->mode
                    : have_retention->days == want_retention->days && have_retention->years == 0);
    } else if (key == kExpireAfterDays) {
      agrees = !wanted.lifecycle.rules.empty() &&
               ExpiresWholeBucketAfter(actual.lifecycle,
                                       wanted.lifecycle.rules[0].expiration_days.value_or(0));
    } else if (key == kEncryption) {
      agrees = !actual.encryption.rules.empty() &&
               actual.encryption.rules[0].algorithm == storage::SseAlgorithm::kAes256;
    } else if (key == kQuotaBytes) {
      agrees = actual.quota.bytes == wanted.quota.bytes;
    } else if (key == kQuotaObjects) {
      agrees = actual.quota.objects == wanted.quota.objects;
    }
    if (!agrees) differing.push_back(key);
  }
  std::string out;
  for (std::string_view key : differing) {
    if (!out.empty()) out += "; ";
    out += std::string(key) + " is " + shown(have, key) + ", not " + shown(want, key);
  }
  return out;
}

storage::Result<AccessMode> ParseAccessParameters(const Parameters& parameters) {
  AccessMode mode = AccessMode::kReadWrite;
  for (const auto& [key, value] : parameters) {
    if (key != kAccessMode) return UnknownKey(key);
    if (Status s = ParseChoice(key, value, kAccessModes, &mode); !s.ok()) return s;
  }
  return mode;
}

std::string DeriveBucketName(std::string_view name) {
  if (storage::ValidateBucketName(name).ok()) return std::string(name);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_len = 0;
  // EVP_Digest cannot fail for SHA-256 on an in-memory buffer short of allocation failure; then
  // the digest stays zeros, which is still deterministic.
  std::fill(std::begin(digest), std::end(digest), 0);
  (void)EVP_Digest(name.data(), name.size(), digest, &digest_len, EVP_sha256(), nullptr);
  const std::string hash =
      text::HexEncode(std::string_view(reinterpret_cast<const char*>(digest), 8));
  constexpr size_t kMaxPrefix = 63 - 1 - 16;
  std::string prefix;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (keep) {
      prefix.push_back(c);
    } else if (!prefix.empty() && prefix.back() != '-') {
      prefix.push_back('-');
    }
    if (prefix.size() >= kMaxPrefix) break;
  }
  if (prefix.size() > kMaxPrefix) prefix.resize(kMaxPrefix);
  while (!prefix.empty() && prefix.back() == '-') prefix.pop_back();
  std::string derived = (prefix.empty() ? std::string("cosi") : prefix) + "-" + hash;
  if (!storage::ValidateBucketName(derived).ok()) derived = "cosi-" + hash;  // reserved prefix
  return derived;
}

bool IsDnsSafeBucketName(std::string_view name) {
  return storage::ValidateBucketName(name).ok() && name.find('.') == std::string_view::npos;
}

Status ParseGrantParameters(const Parameters& parameters) {
  if (!parameters.empty()) return UnknownKey(parameters.begin()->first);
  return Status::Ok();
}

std::string_view AnonymousModeName(AccessMode mode) {
  return text::NameOf(kAnonymousModes, mode, "Private");
}

std::string_view AccessModeName(AccessMode mode) {
  return text::NameOf(kAccessModes, mode, "None");
}

}  // namespace cubby::cosi
