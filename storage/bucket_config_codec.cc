#include "storage/bucket_config_codec.h"

#include "storage/codec_internal.h"

namespace cubby::storage::codec {

namespace {

bool ModeFromByte(uint8_t b, RetentionMode* mode) {
  if (b > static_cast<uint8_t>(RetentionMode::kCompliance)) return false;
  *mode = static_cast<RetentionMode>(b);
  return true;
}

// LifecycleRule flags.
constexpr uint8_t kRuleEnabled = 1;
constexpr uint8_t kRuleLegacyPrefix = 2;
constexpr uint8_t kRuleExpiredObjectDeleteMarker = 4;
constexpr uint8_t kRuleFlags = 7;
// LifecycleRule: which optional fields follow, in this order.
constexpr uint8_t kHasSizeGreaterThan = 1;
constexpr uint8_t kHasSizeLessThan = 2;
constexpr uint8_t kHasExpirationDays = 4;
constexpr uint8_t kHasExpirationDate = 8;
constexpr uint8_t kHasNoncurrentDays = 16;
constexpr uint8_t kHasNewerNoncurrentVersions = 32;
constexpr uint8_t kHasAbortIncompleteDays = 64;
constexpr uint8_t kHasAll = 127;

void PutRule(std::string* out, const LifecycleRule& r) {
  PutBytes(out, r.id);
  PutByte(out, static_cast<uint8_t>(
                   (r.enabled ? kRuleEnabled : 0) | (r.legacy_prefix ? kRuleLegacyPrefix : 0) |
                   (r.expired_object_delete_marker ? kRuleExpiredObjectDeleteMarker : 0)));
  PutBytes(out, r.filter.prefix);
  PutVarint(out, r.filter.tags.size());
  for (const auto& [k, v] : r.filter.tags) {
    PutBytes(out, k);
    PutBytes(out, v);
  }
  const LifecycleFilter& f = r.filter;
  PutByte(out,
          static_cast<uint8_t>((f.size_greater_than ? kHasSizeGreaterThan : 0) |
                               (f.size_less_than ? kHasSizeLessThan : 0) |
                               (r.expiration_days ? kHasExpirationDays : 0) |
                               (r.expiration_date_ms ? kHasExpirationDate : 0) |
                               (r.noncurrent_days ? kHasNoncurrentDays : 0) |
                               (r.newer_noncurrent_versions ? kHasNewerNoncurrentVersions : 0) |
                               (r.abort_incomplete_days ? kHasAbortIncompleteDays : 0)));
  if (f.size_greater_than) PutVarint(out, *f.size_greater_than);
  if (f.size_less_than) PutVarint(out, *f.size_less_than);
  if (r.expiration_days) PutVarint(out, *r.expiration_days);
  if (r.expiration_date_ms) PutSigned(out, *r.expiration_date_ms);
  if (r.noncurrent_days) PutVarint(out, *r.noncurrent_days);
  if (r.newer_noncurrent_versions) PutVarint(out, *r.newer_noncurrent_versions);
  if (r.abort_incomplete_days) PutVarint(out, *r.abort_incomplete_days);
}

bool GetOptionalU64(RecordReader* rd, uint8_t has, uint8_t bit, std::optional<uint64_t>* v) {
  if ((has & bit) == 0) return true;
  uint64_t u;
  if (!rd->GetVarint(&u)) return false;
  *v = u;
  return true;
}
bool GetOptionalU32(RecordReader* rd, uint8_t has, uint8_t bit, std::optional<uint32_t>* v) {
  if ((has & bit) == 0) return true;
  uint32_t u;
  if (!rd->GetU32(&u)) return false;
  *v = u;
  return true;
}

bool GetRule(RecordReader* rd, LifecycleRule* r) {
  uint8_t flags, has;
  uint64_t n;
  if (!rd->GetString(&r->id) || !rd->GetByte(&flags) || (flags & ~kRuleFlags) != 0 ||
      !rd->GetString(&r->filter.prefix) || !rd->GetCount(&n, 2)) {
    return false;
  }
  r->enabled = (flags & kRuleEnabled) != 0;
  r->legacy_prefix = (flags & kRuleLegacyPrefix) != 0;
  r->expired_object_delete_marker = (flags & kRuleExpiredObjectDeleteMarker) != 0;
  r->filter.tags.resize(n);
  for (auto& [k, v] : r->filter.tags) {
    if (!rd->GetString(&k) || !rd->GetString(&v)) return false;
  }
  if (!rd->GetByte(&has) || (has & ~kHasAll) != 0) return false;
  if (!GetOptionalU64(rd, has, kHasSizeGreaterThan, &r->filter.size_greater_than) ||
      !GetOptionalU64(rd, has, kHasSizeLessThan, &r->filter.size_less_than) ||
      !GetOptionalU32(rd, has, kHasExpirationDays, &r->expiration_days)) {
    return false;
  }
  if ((has & kHasExpirationDate) != 0) {
    int64_t ms;
    if (!rd->GetSigned(&ms)) return false;
    r->expiration_date_ms = ms;
  }
  return GetOptionalU32(rd, has, kHasNoncurrentDays, &r->noncurrent_days) &&
         GetOptionalU32(rd, has, kHasNewerNoncurrentVersions, &r->newer_noncurrent_versions) &&
         GetOptionalU32(rd, has, kHasAbortIncompleteDays, &r->abort_incomplete_days);
}

// CorsRule: which optional fields follow, in this order.
constexpr uint8_t kCorsHasId = 1;
constexpr uint8_t kCorsHasMaxAge = 2;
constexpr uint8_t kCorsHasAll = 3;

void PutStrings(std::string* out, const std::vector<std::string>& v) {
  PutVarint(out, v.size());
  for (const std::string& s : v) PutBytes(out, s);
}

bool GetStrings(RecordReader* rd, std::vector<std::string>* v) {
  uint64_t n;
  if (!rd->GetCount(&n, 1)) return false;
  v->resize(n);
  for (std::string& s : *v) {
    if (!rd->GetString(&s)) return false;
  }
  return true;
}

void PutCorsRule(std::string* out, const CorsRule& r) {
  PutByte(out,
          static_cast<uint8_t>((r.id ? kCorsHasId : 0) | (r.max_age_seconds ? kCorsHasMaxAge : 0)));
  if (r.id) PutBytes(out, *r.id);
  if (r.max_age_seconds) PutVarint(out, *r.max_age_seconds);
  PutStrings(out, r.allowed_methods);
  PutStrings(out, r.allowed_origins);
  PutStrings(out, r.allowed_headers);
  PutStrings(out, r.expose_headers);
}

bool GetCorsRule(RecordReader* rd, CorsRule* r) {
  uint8_t has;
  if (!rd->GetByte(&has) || (has & ~kCorsHasAll) != 0) return false;
  if ((has & kCorsHasId) != 0 && !rd->GetString(&r->id.emplace())) return false;
  if ((has & kCorsHasMaxAge) != 0 && !rd->GetU32(&r->max_age_seconds.emplace())) return false;
  return GetStrings(rd, &r->allowed_methods) && GetStrings(rd, &r->allowed_origins) &&
         GetStrings(rd, &r->allowed_headers) && GetStrings(rd, &r->expose_headers);
}

}  // namespace

// ---- VersioningState: version, state byte.
std::string EncodeVersioning(VersioningState state) {
  std::string out;
  PutByte(&out, kVersion1);
  PutByte(&out, static_cast<uint8_t>(state));
  return out;
}

Result<VersioningState> DecodeVersioning(std::string_view in) {
  RecordReader rd(in);
  uint8_t b;
  if (!rd.Version() || !rd.GetByte(&b) || b > static_cast<uint8_t>(VersioningState::kSuspended) ||
      !rd.done()) {
    return Corrupt("versioning");
  }
  return static_cast<VersioningState>(b);
}

// ---- ObjectLockConfig: version, enabled, has-default; then mode, days, years.
std::string EncodeObjectLockConfig(const ObjectLockConfig& c) {
  std::string out;
  PutByte(&out, kVersion1);
  PutByte(&out, c.enabled ? 1 : 0);
  PutByte(&out, c.default_retention ? 1 : 0);
  if (c.default_retention) {
    PutByte(&out, static_cast<uint8_t>(c.default_retention->mode));
    PutVarint(&out, c.default_retention->days);
    PutVarint(&out, c.default_retention->years);
  }
  return out;
}

Result<ObjectLockConfig> DecodeObjectLockConfig(std::string_view in) {
  RecordReader rd(in);
  ObjectLockConfig c;
  uint8_t enabled, has_default;
  if (!rd.Version() || !rd.GetByte(&enabled) || enabled > 1 || !rd.GetByte(&has_default) ||
      has_default > 1) {
    return Corrupt("object lock");
  }
  c.enabled = enabled == 1;
  if (has_default == 1) {
    DefaultRetention d;
    uint8_t mode;
    if (!rd.GetByte(&mode) || !ModeFromByte(mode, &d.mode) || !rd.GetU32(&d.days) ||
        !rd.GetU32(&d.years)) {
      return Corrupt("object lock");
    }
    c.default_retention = d;
  }
  if (!rd.done()) return Corrupt("object lock");
  return c;
}

// ---- LifecycleConfig: version, rule count, rules.
std::string EncodeLifecycleConfig(const LifecycleConfig& c) {
  std::string out;
  PutByte(&out, kVersion1);
  PutVarint(&out, c.rules.size());
  for (const LifecycleRule& r : c.rules) PutRule(&out, r);
  return out;
}

Result<LifecycleConfig> DecodeLifecycleConfig(std::string_view in) {
  RecordReader rd(in);
  LifecycleConfig c;
  uint64_t n;
  // A rule is at least 5 bytes: id length, flags, prefix length, tag count, presence byte.
  if (!rd.Version() || !rd.GetCount(&n, 5)) return Corrupt("lifecycle");
  c.rules.resize(n);
  for (LifecycleRule& r : c.rules) {
    if (!GetRule(&rd, &r)) return Corrupt("lifecycle");
  }
  if (!rd.done()) return Corrupt("lifecycle");
  return c;
}

// ---- CorsConfig: version, rule count, rules (presence byte, id, max age, then the method,
// origin, allowed-header and expose-header lists).
std::string EncodeCorsConfig(const CorsConfig& c) {
  std::string out;
  PutByte(&out, kVersion1);
  PutVarint(&out, c.rules.size());
  for (const CorsRule& r : c.rules) PutCorsRule(&out, r);
  return out;
}

Result<CorsConfig> DecodeCorsConfig(std::string_view in) {
  RecordReader rd(in);
  CorsConfig c;
  uint64_t n;
  // A rule is at least 5 bytes: the presence byte and four list counts.
  if (!rd.Version() || !rd.GetCount(&n, 5)) return Corrupt("cors");
  c.rules.resize(n);
  for (CorsRule& r : c.rules) {
    if (!GetCorsRule(&rd, &r)) return Corrupt("cors");
  }
  if (!rd.done()) return Corrupt("cors");
  return c;
}

// ---- BucketEncryption: version, rule count, rules (algorithm byte, KMS key id, bucket-key
// flag).
std::string EncodeBucketEncryption(const BucketEncryption& c) {
  std::string out;
  PutByte(&out, kVersion1);
  PutVarint(&out, c.rules.size());
  for (const BucketEncryptionRule& r : c.rules) {
    PutByte(&out, static_cast<uint8_t>(r.algorithm));
    PutBytes(&out, r.kms_master_key_id);
    PutBool(&out, r.bucket_key_enabled);
  }
  return out;
}

Result<BucketEncryption> DecodeBucketEncryption(std::string_view in) {
  RecordReader rd(in);
  BucketEncryption c;
  uint64_t n;
  // A rule is 3 bytes at least: algorithm, key id length, flag.
  if (!rd.Version() || !rd.GetCount(&n, 3)) return Corrupt("bucket encryption");
  c.rules.resize(n);
  for (BucketEncryptionRule& r : c.rules) {
    uint8_t algorithm;
    if (!rd.GetByte(&algorithm) || algorithm < static_cast<uint8_t>(SseAlgorithm::kAes256) ||
        algorithm > static_cast<uint8_t>(SseAlgorithm::kAwsKmsDsse) ||
        !rd.GetString(&r.kms_master_key_id) || !rd.GetBool(&r.bucket_key_enabled)) {
      return Corrupt("bucket encryption");
    }
    r.algorithm = static_cast<SseAlgorithm>(algorithm);
  }
  if (!rd.done()) return Corrupt("bucket encryption");
  return c;
}

// ---- ObjectLockState: version, mode, retain-until, legal hold.
std::string EncodeObjectLockState(const ObjectLockState& s) {
  std::string out;
  PutByte(&out, kVersion1);
  PutByte(&out, static_cast<uint8_t>(s.retention.mode));
  PutSigned(&out, s.retention.retain_until_ms);
  PutByte(&out, static_cast<uint8_t>(s.legal_hold));
  return out;
}

Result<ObjectLockState> DecodeObjectLockState(std::string_view in) {
  RecordReader rd(in);
  ObjectLockState s;
  uint8_t mode, hold;
  if (!rd.Version() || !rd.GetByte(&mode) || !ModeFromByte(mode, &s.retention.mode) ||
      !rd.GetSigned(&s.retention.retain_until_ms) || !rd.GetByte(&hold) ||
      hold > static_cast<uint8_t>(LegalHold::kOn) || !rd.done()) {
    return Corrupt("object lock state");
  }
  s.legal_hold = static_cast<LegalHold>(hold);
  return s;
}

}  // namespace cubby::storage::codec
