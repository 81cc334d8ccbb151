#include "storage/bucket_config_codec.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace cubby::storage::codec {
namespace {

// Every record here starts with this version byte; a change of layout gets a new one and the
// decoder keeps reading the old.
constexpr uint8_t kVersion1 = 1;

// codec.cc's helpers live in its anonymous namespace; these are the same encoding.
void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
void PutSigned(std::string* out, int64_t v) {
  PutVarint(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}
void PutBytes(std::string* out, std::string_view s) {
  PutVarint(out, s.size());
  out->append(s);
}
void PutByte(std::string* out, uint8_t b) { out->push_back(static_cast<char>(b)); }

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}

  bool GetVarint(uint64_t* v) {
    uint64_t result = 0;
    for (int shift = 0; shift <= 63; shift += 7) {
      if (in_.empty()) return false;
      uint8_t b = static_cast<uint8_t>(in_.front());
      in_.remove_prefix(1);
      if (shift == 63 && b > 1) return false;  // overflow
      result |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        *v = result;
        return true;
      }
    }
    return false;
  }
  bool GetSigned(int64_t* v) {
    uint64_t u;
    if (!GetVarint(&u)) return false;
    *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
    return true;
  }
  bool GetU32(uint32_t* v) {
    uint64_t u;
    if (!GetVarint(&u) || u > UINT32_MAX) return false;
    *v = static_cast<uint32_t>(u);
    return true;
  }
  bool GetString(std::string* s) {
    uint64_t n;
    if (!GetVarint(&n) || n > in_.size()) return false;
    s->assign(in_.substr(0, n));
    in_.remove_prefix(n);
    return true;
  }
  bool GetByte(uint8_t* b) {
    if (in_.empty()) return false;
    *b = static_cast<uint8_t>(in_.front());
    in_.remove_prefix(1);
    return true;
  }
  // A count of elements each at least `min_bytes` long: bounded by what is left, so a corrupt
  // count cannot make us loop (or reserve) far past the input.
  bool GetCount(uint64_t* n, size_t min_bytes) {
    return GetVarint(n) && *n <= in_.size() / min_bytes;
  }
  bool Version() {
    uint8_t v;
    return GetByte(&v) && v == kVersion1;
  }
  bool done() const { return in_.empty(); }

 private:
  std::string_view in_;
};

Status Corrupt(const char* what) {
  return Status(Code::kCorruption, std::string("bad ") + what + " record");
}

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

bool GetOptionalU64(Reader* rd, uint8_t has, uint8_t bit, std::optional<uint64_t>* v) {
  if ((has & bit) == 0) return true;
  uint64_t u;
  if (!rd->GetVarint(&u)) return false;
  *v = u;
  return true;
}
bool GetOptionalU32(Reader* rd, uint8_t has, uint8_t bit, std::optional<uint32_t>* v) {
  if ((has & bit) == 0) return true;
  uint32_t u;
  if (!rd->GetU32(&u)) return false;
  *v = u;
  return true;
}

bool GetRule(Reader* rd, LifecycleRule* r) {
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

}  // namespace

// ---- VersioningState: version, state byte.
std::string EncodeVersioning(VersioningState state) {
  std::string out;
  PutByte(&out, kVersion1);
  PutByte(&out, static_cast<uint8_t>(state));
  return out;
}

Result<VersioningState> DecodeVersioning(std::string_view in) {
  Reader rd(in);
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
  Reader rd(in);
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
  Reader rd(in);
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
  Reader rd(in);
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
