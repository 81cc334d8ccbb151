#include "s3api/bucket_config_xml.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <set>

#include "s3api/format.h"
#include "s3api/xml.h"
#include "text/ascii.h"
#include "text/iso8601.h"
#include "text/names.h"

namespace cubby::s3api {
namespace {

using storage::LegalHold;
using storage::RetentionMode;
using storage::VersioningState;
using text::TrimXmlSpace;

XmlBodyError MalformedXml() { return {ErrorCode::kMalformedXML, ""}; }
XmlBodyError InvalidArgument(std::string message) {
  return {ErrorCode::kInvalidArgument, std::move(message)};
}
XmlBodyError InvalidRequest(std::string message) {
  return {ErrorCode::kInvalidRequest, std::move(message)};
}

// An xs:int / xs:long as S3's schema reads it: an optional sign and decimal digits, surrounding
// whitespace allowed. False when it is not one or does not fit in [min, max].
bool ParseInteger(std::string_view text, int64_t min, int64_t max, int64_t* out) {
  text = TrimXmlSpace(text);
  const bool plus = !text.empty() && text.front() == '+';
  if (plus) text.remove_prefix(1);
  if (text.empty() || text.front() == '+' || (plus && text.front() == '-')) return false;
  int64_t v;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max) return false;
  *out = v;
  return true;
}

constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// The modes a request names (kNone has no name).
constexpr text::Named<RetentionMode> kRetentionModes[] = {
    {RetentionMode::kGovernance, "GOVERNANCE"}, {RetentionMode::kCompliance, "COMPLIANCE"}};

bool ParseMode(std::string_view value, RetentionMode* mode) {
  std::optional<RetentionMode> named = text::ValueNamed(kRetentionModes, TrimXmlSpace(value));
  if (named) *mode = *named;
  return named.has_value();
}

std::string_view ModeName(RetentionMode mode) { return text::NameOf(kRetentionModes, mode); }

constexpr int64_t kDayMs = 86400 * int64_t{1000};
// S3's longest default retention.
constexpr int64_t kMaxDefaultRetentionDays = 36500;
constexpr int64_t kMaxDefaultRetentionYears = 100;

}  // namespace

// ---- VersioningConfiguration ----

std::string VersioningConfigurationXml(VersioningState state) {
  XmlWriter w;
  w.Open("VersioningConfiguration", kS3Namespace);
  switch (state) {
    case VersioningState::kUnversioned:
      break;
    case VersioningState::kEnabled:
      w.Element("Status", "Enabled");
      break;
    case VersioningState::kSuspended:
      w.Element("Status", "Suspended");
      break;
  }
  return std::move(w).Finish();
}

XmlBodyError ParseVersioningConfiguration(std::string_view body,
                                          std::optional<VersioningState>* out) {
  XmlNode root;
  if (!ParseXml(body, &root) || root.name != "VersioningConfiguration" ||
      !ChildrenAmong(root, {"Status", "MfaDelete"})) {
    return MalformedXml();
  }
  std::optional<VersioningState> state;
  if (const XmlNode* status = root.Child("Status")) {
    const std::string_view s = TrimXmlSpace(status->text);
    if (s == "Enabled") {
      state = VersioningState::kEnabled;
    } else if (s == "Suspended") {
      state = VersioningState::kSuspended;
    } else {
      return MalformedXml();
    }
  }
  if (const XmlNode* mfa = root.Child("MfaDelete")) {
    const std::string_view s = TrimXmlSpace(mfa->text);
    if (s == "Enabled") {
      return {ErrorCode::kAccessDenied, "Mfa Authentication must be used for this request"};
    }
    if (s != "Disabled") return MalformedXml();
  }
  *out = state;
  return {};
}

XmlBodyError CheckVersioningChange(const storage::ObjectLockConfig& lock,
                                   VersioningState requested) {
  if (lock.enabled && requested != VersioningState::kEnabled) {
    return {ErrorCode::kInvalidBucketState,
            "An Object Lock configuration is present on this bucket, so the versioning state "
            "cannot be changed."};
  }
  return {};
}

// ---- ObjectLockConfiguration ----

std::string ObjectLockConfigurationXml(const storage::ObjectLockConfig& config) {
  XmlWriter w;
  w.Open("ObjectLockConfiguration", kS3Namespace);
  w.Element("ObjectLockEnabled", "Enabled");
  if (config.default_retention) {
    const storage::DefaultRetention& d = *config.default_retention;
    w.Open("Rule");
    w.Open("DefaultRetention");
    w.Element("Mode", ModeName(d.mode));
    if (d.years > 0) {
      w.Element("Years", std::to_string(d.years));
    } else {
      w.Element("Days", std::to_string(d.days));
    }
    w.Close();
    w.Close();
  }
  return std::move(w).Finish();
}

XmlBodyError ParseObjectLockConfiguration(std::string_view body, storage::ObjectLockConfig* out) {
  XmlNode root;
  if (!ParseXml(body, &root) || root.name != "ObjectLockConfiguration" ||
      !ChildrenAmong(root, {"ObjectLockEnabled", "Rule"})) {
    return MalformedXml();
  }
  const XmlNode* enabled = root.Child("ObjectLockEnabled");
  if (enabled == nullptr || TrimXmlSpace(enabled->text) != "Enabled") return MalformedXml();
  storage::ObjectLockConfig config;
  config.enabled = true;
  if (const XmlNode* rule = root.Child("Rule")) {
    if (!ChildrenAmong(*rule, {"DefaultRetention"})) return MalformedXml();
    const XmlNode* retention = rule->Child("DefaultRetention");
    if (retention == nullptr || !ChildrenAmong(*retention, {"Mode", "Days", "Years"})) {
      return MalformedXml();
    }
    const XmlNode* mode = retention->Child("Mode");
    const XmlNode* days = retention->Child("Days");
    const XmlNode* years = retention->Child("Years");
    storage::DefaultRetention d;
    int64_t n;
    if (mode == nullptr || !ParseMode(mode->text, &d.mode) ||
        (days == nullptr) == (years == nullptr) ||
        !ParseInteger((days != nullptr ? days : years)->text, kInt32Min, kInt32Max, &n)) {
      return MalformedXml();
    }
    if (n <= 0)
      return InvalidArgument("Default retention period must be a positive integer value.");
    if (n > (days != nullptr ? kMaxDefaultRetentionDays : kMaxDefaultRetentionYears)) {
      return InvalidArgument("Default retention period too large.");
    }
    (days != nullptr ? d.days : d.years) = static_cast<uint32_t>(n);
    config.default_retention = d;
  }
  *out = std::move(config);
  return {};
}

XmlBodyError CheckObjectLockConfigurationAllowed(VersioningState versioning) {
  if (versioning != VersioningState::kEnabled) {
    return {ErrorCode::kInvalidBucketState,
            "Versioning must be 'Enabled' on the bucket to apply a Object Lock configuration"};
  }
  return {};
}

storage::ObjectRetention DefaultRetentionFor(const storage::ObjectLockConfig& config,
                                             int64_t created_ms) {
  if (!config.enabled || !config.default_retention) return {};
  const storage::DefaultRetention& d = *config.default_retention;
  const int64_t days = d.years > 0 ? int64_t{d.years} * 365 : int64_t{d.days};
  return {d.mode, created_ms + days * kDayMs};
}

// ---- Retention and LegalHold ----

std::string RetentionXml(const storage::ObjectRetention& retention) {
  XmlWriter w;
  w.Open("Retention", kS3Namespace);
  w.Element("Mode", ModeName(retention.mode));
  w.Element("RetainUntilDate", Iso8601(retention.retain_until_ms));
  return std::move(w).Finish();
}

XmlBodyError ParseRetention(std::string_view body, int64_t now_ms, storage::ObjectRetention* out) {
  XmlNode root;
  if (!ParseXml(body, &root) || root.name != "Retention" ||
      !ChildrenAmong(root, {"Mode", "RetainUntilDate"})) {
    return MalformedXml();
  }
  const XmlNode* mode = root.Child("Mode");
  const XmlNode* date = root.Child("RetainUntilDate");
  if ((mode == nullptr) != (date == nullptr)) return MalformedXml();
  storage::ObjectRetention retention;
  if (mode != nullptr) {
    std::optional<text::TimePoint> until = text::ParseIso8601Extended(TrimXmlSpace(date->text));
    if (!ParseMode(mode->text, &retention.mode) || !until) return MalformedXml();
    retention.retain_until_ms = text::ToUnixMillis(*until);
    if (retention.retain_until_ms <= now_ms) {
      return InvalidArgument("The retain until date must be in the future!");
    }
  }
  *out = retention;
  return {};
}

std::string LegalHoldXml(LegalHold hold) {
  XmlWriter w;
  w.Open("LegalHold", kS3Namespace);
  w.Element("Status", hold == LegalHold::kOn ? "ON" : "OFF");
  return std::move(w).Finish();
}

XmlBodyError ParseLegalHold(std::string_view body, LegalHold* out) {
  XmlNode root;
  if (!ParseXml(body, &root) || root.name != "LegalHold" || !ChildrenAmong(root, {"Status"}) ||
      root.Child("Status") == nullptr) {
    return MalformedXml();
  }
  const std::string_view status = TrimXmlSpace(root.Child("Status")->text);
  if (status == "ON") {
    *out = LegalHold::kOn;
  } else if (status == "OFF") {
    *out = LegalHold::kOff;
  } else {
    return MalformedXml();
  }
  return {};
}

// ---- Object-lock headers ----

XmlBodyError ParseObjectLockHeaders(const HttpRequest& request, int64_t now_ms,
                                    storage::ObjectLockState* out) {
  const std::string* mode = request.Find(kAmzObjectLockMode);
  const std::string* date = request.Find(kAmzObjectLockRetainUntilDate);
  const std::string* hold = request.Find(kAmzObjectLockLegalHold);
  storage::ObjectLockState state;
  if ((mode == nullptr) != (date == nullptr)) {
    return InvalidArgument(
        "x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied");
  }
  if (mode != nullptr) {
    std::optional<RetentionMode> named = text::ValueNamed(kRetentionModes, *mode);
    if (!named) return InvalidArgument("Unknown wormMode directive.");
    state.retention.mode = *named;
    std::optional<text::TimePoint> until = text::ParseIso8601Extended(*date);
    if (!until) {
      return InvalidArgument("The retain until date must be provided in ISO 8601 format");
    }
    state.retention.retain_until_ms = text::ToUnixMillis(*until);
    if (state.retention.retain_until_ms <= now_ms) {
      return InvalidArgument("The retain until date must be in the future!");
    }
  }
  if (hold != nullptr) {
    if (*hold == "ON") {
      state.legal_hold = LegalHold::kOn;
    } else if (*hold == "OFF") {
      state.legal_hold = LegalHold::kOff;
    } else {
      return InvalidArgument("Legal Hold must be either of 'ON' or 'OFF'");
    }
  }
  *out = state;
  return {};
}

std::vector<std::pair<std::string, std::string>> ObjectLockResponseHeaders(
    const storage::ObjectLockState& state) {
  std::vector<std::pair<std::string, std::string>> headers;
  if (state.retention.mode != RetentionMode::kNone) {
    headers.emplace_back(kAmzObjectLockMode, ModeName(state.retention.mode));
    headers.emplace_back(kAmzObjectLockRetainUntilDate, Iso8601(state.retention.retain_until_ms));
  }
  switch (state.legal_hold) {
    case LegalHold::kNever:
      break;
    case LegalHold::kOff:
      headers.emplace_back(kAmzObjectLockLegalHold, "OFF");
      break;
    case LegalHold::kOn:
      headers.emplace_back(kAmzObjectLockLegalHold, "ON");
      break;
  }
  return headers;
}

// ---- LifecycleConfiguration ----

namespace {

void WriteTag(XmlWriter* w, const std::pair<std::string, std::string>& tag) {
  w->Open("Tag");
  w->Element("Key", tag.first);
  w->Element("Value", tag.second);
  w->Close();
}

void WriteFilter(XmlWriter* w, const storage::LifecycleFilter& f) {
  const size_t conditions = (f.prefix.empty() ? 0 : 1) + f.tags.size() +
                            (f.size_greater_than ? 1 : 0) + (f.size_less_than ? 1 : 0);
  w->Open("Filter");
  if (conditions > 1) w->Open("And");
  if (!f.prefix.empty()) w->Element("Prefix", f.prefix);
  for (const auto& tag : f.tags) WriteTag(w, tag);
  if (f.size_greater_than)
    w->Element("ObjectSizeGreaterThan", std::to_string(*f.size_greater_than));
  if (f.size_less_than) w->Element("ObjectSizeLessThan", std::to_string(*f.size_less_than));
  if (conditions > 1) w->Close();
  w->Close();
}

// A Tag element: exactly one Key and one Value.
bool ParseTag(const XmlNode& node, std::pair<std::string, std::string>* tag) {
  if (!ChildrenAmong(node, {"Key", "Value"}) || node.Child("Key") == nullptr ||
      node.Child("Value") == nullptr) {
    return false;
  }
  *tag = {node.Child("Key")->text, node.Child("Value")->text};
  return true;
}

XmlBodyError ParseSizes(const XmlNode& node, storage::LifecycleFilter* f) {
  int64_t n;
  if (const XmlNode* gt = node.Child("ObjectSizeGreaterThan")) {
    if (!ParseInteger(gt->text, kInt64Min, kInt64Max, &n)) return MalformedXml();
    if (n < 0) return InvalidArgument("'ObjectSizeGreaterThan' must be a non-negative integer");
    f->size_greater_than = static_cast<uint64_t>(n);
  }
  if (const XmlNode* lt = node.Child("ObjectSizeLessThan")) {
    if (!ParseInteger(lt->text, kInt64Min, kInt64Max, &n)) return MalformedXml();
    if (n <= 0) return InvalidArgument("'ObjectSizeLessThan' must be a positive integer");
    f->size_less_than = static_cast<uint64_t>(n);
  }
  if (f->size_greater_than && f->size_less_than && *f->size_greater_than >= *f->size_less_than) {
    return InvalidArgument("'ObjectSizeGreaterThan' must be less than 'ObjectSizeLessThan'");
  }
  return {};
}

XmlBodyError ParseFilter(const XmlNode& node, storage::LifecycleFilter* f) {
  if (!ChildrenAmong(node,
                     {"Prefix", "Tag", "ObjectSizeGreaterThan", "ObjectSizeLessThan", "And"}) ||
      node.children.size() > 1) {
    return MalformedXml();
  }
  if (const XmlNode* prefix = node.Child("Prefix")) f->prefix = prefix->text;
  if (const XmlNode* tag = node.Child("Tag")) {
    f->tags.emplace_back();
    if (!ParseTag(*tag, &f->tags.back())) return MalformedXml();
  }
  if (XmlBodyError e = ParseSizes(node, f); !e.ok()) return e;
  if (const XmlNode* conj = node.Child("And")) {
    if (conj->children.empty() ||
        !ChildrenAmong(*conj, {"Prefix", "Tag", "ObjectSizeGreaterThan", "ObjectSizeLessThan"},
                       {"Tag"})) {
      return MalformedXml();
    }
    if (const XmlNode* prefix = conj->Child("Prefix")) f->prefix = prefix->text;
    std::set<std::string> keys;
    for (const XmlNode& child : conj->children) {
      if (child.name != "Tag") continue;
      f->tags.emplace_back();
      if (!ParseTag(child, &f->tags.back())) return MalformedXml();
    }
    for (const auto& [key, value] : f->tags) {
      if (!keys.insert(key).second) return InvalidRequest("Duplicate Tag Keys are not allowed.");
    }
    if (XmlBodyError e = ParseSizes(*conj, f); !e.ok()) return e;
  }
  return {};
}

// A positive xs:int element's value, or the error S3 answers: kMalformedXML when it is not an
// integer, kInvalidArgument `message` when it is not positive.
XmlBodyError PositiveInt(const XmlNode& node, const char* message, uint32_t* out) {
  int64_t n;
  if (!ParseInteger(node.text, kInt32Min, kInt32Max, &n)) return MalformedXml();
  if (n <= 0) return InvalidArgument(message);
  *out = static_cast<uint32_t>(n);
  return {};
}

XmlBodyError ParseExpiration(const XmlNode& node, bool tag_filter, storage::LifecycleRule* r) {
  if (!ChildrenAmong(node, {"Days", "Date", "ExpiredObjectDeleteMarker"}) ||
      node.children.size() != 1) {
    return MalformedXml();
  }
  if (const XmlNode* days = node.Child("Days")) {
    uint32_t n;
    if (XmlBodyError e =
            PositiveInt(*days, "'Days' for Expiration action must be a positive integer", &n);
        !e.ok()) {
      return e;
    }
    r->expiration_days = n;
  }
  if (const XmlNode* date = node.Child("Date")) {
    std::optional<text::TimePoint> t = text::ParseIso8601Extended(TrimXmlSpace(date->text));
    if (!t) return MalformedXml();
    const int64_t ms = text::ToUnixMillis(*t);
    if (ms % kDayMs != 0) return InvalidArgument("'Date' must be at midnight GMT");
    r->expiration_date_ms = ms;
  }
  if (const XmlNode* marker = node.Child("ExpiredObjectDeleteMarker")) {
    const std::string_view v = TrimXmlSpace(marker->text);
    if (v != "true" && v != "false") return MalformedXml();
    r->expired_object_delete_marker = v == "true";
    if (r->expired_object_delete_marker && tag_filter) {
      return InvalidRequest("ExpiredObjectDeleteMarker cannot be specified with tags");
    }
  }
  return {};
}

XmlBodyError ParseRule(const XmlNode& node, storage::LifecycleRule* r) {
  if (!ChildrenAmong(node,
                     {"ID", "Prefix", "Filter", "Status", "Expiration", "Transition",
                      "NoncurrentVersionTransition", "NoncurrentVersionExpiration",
                      "AbortIncompleteMultipartUpload"},
                     {"Transition", "NoncurrentVersionTransition"})) {
    return MalformedXml();
  }
  const XmlNode* status = node.Child("Status");
  if (status == nullptr) return MalformedXml();
  const std::string_view s = TrimXmlSpace(status->text);
  if (s != "Enabled" && s != "Disabled") return MalformedXml();
  r->enabled = s == "Enabled";
  if (const XmlNode* id = node.Child("ID")) {
    if (id->text.size() > kMaxLifecycleRuleIdLength) {
      return InvalidArgument("ID length should not exceed allowed limit of 255");
    }
    r->id = id->text;
  }
  const XmlNode* legacy = node.Child("Prefix");
  const XmlNode* filter = node.Child("Filter");
  if ((legacy == nullptr) == (filter == nullptr)) return MalformedXml();
  if (legacy != nullptr) {
    r->legacy_prefix = true;
    r->filter.prefix = legacy->text;
  } else if (XmlBodyError e = ParseFilter(*filter, &r->filter); !e.ok()) {
    return e;
  }
  if (node.Child("Transition") != nullptr || node.Child("NoncurrentVersionTransition") != nullptr) {
    return {ErrorCode::kNotImplemented,
            "Lifecycle transitions are not supported: cubby has a single storage class."};
  }
  const bool tag_filter = !r->filter.tags.empty();
  if (const XmlNode* expiration = node.Child("Expiration")) {
    if (XmlBodyError e = ParseExpiration(*expiration, tag_filter, r); !e.ok()) return e;
  }
  const XmlNode* noncurrent = node.Child("NoncurrentVersionExpiration");
  if (noncurrent != nullptr) {
    if (!ChildrenAmong(*noncurrent, {"NoncurrentDays", "NewerNoncurrentVersions"}) ||
        noncurrent->Child("NoncurrentDays") == nullptr) {
      return MalformedXml();
    }
    uint32_t n;
    if (XmlBodyError e = PositiveInt(
            *noncurrent->Child("NoncurrentDays"),
            "'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer",
            &n);
        !e.ok()) {
      return e;
    }
    r->noncurrent_days = n;
    if (const XmlNode* newer = noncurrent->Child("NewerNoncurrentVersions")) {
      int64_t v;
      if (!ParseInteger(newer->text, kInt32Min, kInt32Max, &v)) return MalformedXml();
      if (v < 1 || v > 100) {
        return InvalidArgument(
            "'NewerNoncurrentVersions' for NoncurrentVersionExpiration action must be between 1 "
            "and 100");
      }
      r->newer_noncurrent_versions = static_cast<uint32_t>(v);
    }
  }
  const XmlNode* abort = node.Child("AbortIncompleteMultipartUpload");
  if (abort != nullptr) {
    if (!ChildrenAmong(*abort, {"DaysAfterInitiation"}) ||
        abort->Child("DaysAfterInitiation") == nullptr) {
      return MalformedXml();
    }
    uint32_t n;
    if (XmlBodyError e = PositiveInt(*abort->Child("DaysAfterInitiation"),
                                     "'DaysAfterInitiation' for AbortIncompleteMultipartUpload "
                                     "action must be a positive integer",
                                     &n);
        !e.ok()) {
      return e;
    }
    if (tag_filter) {
      return InvalidRequest("AbortIncompleteMultipartUpload cannot be specified with Tags.");
    }
    r->abort_incomplete_days = n;
  }
  // An Expiration of only ExpiredObjectDeleteMarker false does nothing, so it is no action.
  if (!r->expiration_days && !r->expiration_date_ms && !r->expired_object_delete_marker &&
      noncurrent == nullptr && abort == nullptr) {
    return InvalidRequest("At least one action needs to be specified in a rule");
  }
  return {};
}

}  // namespace

std::string LifecycleConfigurationXml(const storage::LifecycleConfig& config) {
  XmlWriter w;
  w.Open("LifecycleConfiguration", kS3Namespace);
  for (const storage::LifecycleRule& r : config.rules) {
    w.Open("Rule");
    w.Element("ID", r.id);
    if (r.legacy_prefix) {
      w.Element("Prefix", r.filter.prefix);
    } else {
      WriteFilter(&w, r.filter);
    }
    w.Element("Status", r.enabled ? "Enabled" : "Disabled");
    if (r.expiration_days || r.expiration_date_ms || r.expired_object_delete_marker) {
      w.Open("Expiration");
      if (r.expiration_days) w.Element("Days", std::to_string(*r.expiration_days));
      if (r.expiration_date_ms) w.Element("Date", Iso8601(*r.expiration_date_ms));
      if (r.expired_object_delete_marker) w.Element("ExpiredObjectDeleteMarker", "true");
      w.Close();
    }
    if (r.noncurrent_days) {
      w.Open("NoncurrentVersionExpiration");
      w.Element("NoncurrentDays", std::to_string(*r.noncurrent_days));
      if (r.newer_noncurrent_versions) {
        w.Element("NewerNoncurrentVersions", std::to_string(*r.newer_noncurrent_versions));
      }
      w.Close();
    }
    if (r.abort_incomplete_days) {
      w.Open("AbortIncompleteMultipartUpload");
      w.Element("DaysAfterInitiation", std::to_string(*r.abort_incomplete_days));
      w.Close();
    }
    w.Close();
  }
  return std::move(w).Finish();
}

XmlBodyError ParseLifecycleConfiguration(std::string_view body, const RuleIdGenerator& new_rule_id,
                                         storage::LifecycleConfig* out) {
  XmlNode root;
  if (!ParseXml(body, &root) || root.name != "LifecycleConfiguration" ||
      !ChildrenAmong(root, {"Rule"}, {"Rule"}) || root.children.empty() ||
      root.children.size() > kMaxLifecycleRules) {
    return MalformedXml();
  }
  storage::LifecycleConfig config;
  std::set<std::string> ids;
  for (const XmlNode& node : root.children) {
    storage::LifecycleRule rule;
    if (XmlBodyError e = ParseRule(node, &rule); !e.ok()) return e;
    if (!rule.id.empty() && !ids.insert(rule.id).second) {
      return InvalidArgument("Rule ID must be unique. Found same ID for more than one rule");
    }
    config.rules.push_back(std::move(rule));
  }
  for (storage::LifecycleRule& rule : config.rules) {
    if (!rule.id.empty()) continue;
    // A generated id must not repeat one given (or generated) already: ask again, a bounded
    // number of times (a random generator practically never repeats).
    for (int attempt = 0; attempt < 100 && (rule.id.empty() || ids.contains(rule.id)); ++attempt) {
      rule.id = new_rule_id();
    }
    ids.insert(rule.id);
  }
  *out = std::move(config);
  return {};
}

// ---- CORSConfiguration ----

std::string CorsConfigurationXml(const storage::CorsConfig& config) {
  XmlWriter w;
  w.Open("CORSConfiguration", kS3Namespace);
  for (const storage::CorsRule& r : config.rules) {
    w.Open("CORSRule");
    if (r.id) w.Element("ID", *r.id);
    for (const std::string& v : r.allowed_methods) w.Element("AllowedMethod", v);
    for (const std::string& v : r.allowed_origins) w.Element("AllowedOrigin", v);
    for (const std::string& v : r.allowed_headers) w.Element("AllowedHeader", v);
    if (r.max_age_seconds) w.Element("MaxAgeSeconds", std::to_string(*r.max_age_seconds));
    for (const std::string& v : r.expose_headers) w.Element("ExposeHeader", v);
    w.Close();
  }
  return std::move(w).Finish();
}

namespace {

// Text other than XML whitespace directly inside an element that holds only elements.
bool HasText(const XmlNode& node) { return !TrimXmlSpace(node.text).empty(); }

size_t CodePoints(std::string_view utf8) {
  return static_cast<size_t>(std::count_if(utf8.begin(), utf8.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

// One CORSRule's elements, with only the structural checks (MalformedXML).
bool ReadCorsRule(const XmlNode& node, storage::CorsRule* rule) {
  if (HasText(node) || !ChildrenAmong(node,
                                      {"ID", "AllowedMethod", "AllowedOrigin", "AllowedHeader",
                                       "ExposeHeader", "MaxAgeSeconds"},
                                      {"AllowedMethod", "AllowedOrigin", "AllowedHeader",
                                       "ExposeHeader"})) {
    return false;
  }
  for (const XmlNode& child : node.children) {
    if (!child.children.empty()) return false;  // a value is text only
    const std::string& v = child.text;
    if (child.name == "ID") {
      if (CodePoints(v) > kMaxCorsRuleIdLength) return false;
      rule->id = v;
    } else if (child.name == "AllowedMethod") {
      rule->allowed_methods.push_back(v);
    } else if (child.name == "AllowedOrigin") {
      rule->allowed_origins.push_back(v);
    } else if (child.name == "AllowedHeader") {
      rule->allowed_headers.push_back(v);
    } else if (child.name == "ExposeHeader") {
      rule->expose_headers.push_back(v);
    } else {  // MaxAgeSeconds: xs:int, not negative
      const std::string_view digits = TrimXmlSpace(v);
      int64_t seconds;
      if (digits.empty() || !std::all_of(digits.begin(), digits.end(),
                                         [](char c) { return c >= '0' && c <= '9'; }) ||
          !ParseInteger(digits, 0, kInt32Max, &seconds)) {
        return false;
      }
      rule->max_age_seconds = static_cast<uint32_t>(seconds);
    }
  }
  return !rule->allowed_methods.empty() && !rule->allowed_origins.empty();
}

bool IsCorsMethod(std::string_view m) {
  return m == "GET" || m == "PUT" || m == "POST" || m == "DELETE" || m == "HEAD";
}

// A rule's values (InvalidRequest), in S3's order: methods, origins, allowed headers, exposed
// headers.
XmlBodyError CheckCorsRule(const storage::CorsRule& rule) {
  for (const std::string& m : rule.allowed_methods) {
    if (!IsCorsMethod(m)) {
      return InvalidRequest("Found unsupported HTTP method in CORS config. Unsupported method is " +
                            m);
    }
  }
  for (const std::string& o : rule.allowed_origins) {
    if (std::count(o.begin(), o.end(), '*') > 1) {
      return InvalidRequest("AllowedOrigin \"" + o + "\" can not have more than one wildcard.");
    }
  }
  for (const std::string& h : rule.allowed_headers) {
    if (std::count(h.begin(), h.end(), '*') > 1) {
      return InvalidRequest("AllowedHeader \"" + h + "\" can not have more than one wildcard.");
    }
  }
  for (const std::string& h : rule.expose_headers) {
    if (h.find('*') != std::string::npos) {
      return InvalidRequest("ExposeHeader \"" + h +
                            "\" contains wildcard. We currently do not support wildcard for "
                            "ExposeHeader.");
    }
  }
  return {};
}

}  // namespace

XmlBodyError ParseCorsConfiguration(std::string_view body, storage::CorsConfig* out) {
  XmlNode root;
  if (!ParseXml(body, &root) || root.name != "CORSConfiguration" || HasText(root) ||
      !ChildrenAmong(root, {"CORSRule"}, {"CORSRule"}) || root.children.empty() ||
      root.children.size() > kMaxCorsRules) {
    return MalformedXml();
  }
  storage::CorsConfig config;
  config.rules.resize(root.children.size());
  for (size_t i = 0; i < root.children.size(); ++i) {
    if (!ReadCorsRule(root.children[i], &config.rules[i])) return MalformedXml();
  }
  for (const storage::CorsRule& rule : config.rules) {
    if (XmlBodyError e = CheckCorsRule(rule); !e.ok()) return e;
  }
  *out = std::move(config);
  return {};
}

// ---- ServerSideEncryptionConfiguration ----
// https://docs.aws.amazon.com/AmazonS3/latest/API/API_ServerSideEncryptionRule.html

namespace {

bool ParseSseAlgorithm(std::string_view value, storage::SseAlgorithm* out) {
  std::optional<storage::SseAlgorithm> named =
      text::ValueNamed(storage::kSseAlgorithms, TrimXmlSpace(value));
  if (named) *out = *named;
  return named.has_value();
}

// An element that holds only text: no child elements.
bool TextOnly(const XmlNode& node) { return node.children.empty(); }

}  // namespace

std::string ServerSideEncryptionConfigurationXml(const storage::BucketEncryption& config) {
  XmlWriter w;
  w.Open("ServerSideEncryptionConfiguration", kS3Namespace);
  for (const storage::BucketEncryptionRule& r : config.rules) {
    w.Open("Rule");
    w.Open("ApplyServerSideEncryptionByDefault");
    w.Element("SSEAlgorithm", storage::SseAlgorithmName(r.algorithm));
    if (!r.kms_master_key_id.empty()) w.Element("KMSMasterKeyID", r.kms_master_key_id);
    w.Close();
    w.Element("BucketKeyEnabled", r.bucket_key_enabled ? "true" : "false");
    w.Close();
  }
  return std::move(w).Finish();
}

XmlBodyError ParseServerSideEncryptionConfiguration(std::string_view body,
                                                    storage::BucketEncryption* out) {
  XmlNode root;
  // S3 keeps one rule: a second is MalformedXML, as S3 answers it.
  if (!ParseXml(body, &root) || root.name != "ServerSideEncryptionConfiguration" || HasText(root) ||
      !ChildrenAmong(root, {"Rule"}) || root.children.size() != 1) {
    return MalformedXml();
  }
  const XmlNode& rule = root.children.front();
  if (HasText(rule) ||
      !ChildrenAmong(rule, {"ApplyServerSideEncryptionByDefault", "BucketKeyEnabled"})) {
    return MalformedXml();
  }
  const XmlNode* by_default = rule.Child("ApplyServerSideEncryptionByDefault");
  if (by_default == nullptr || HasText(*by_default) ||
      !ChildrenAmong(*by_default, {"SSEAlgorithm", "KMSMasterKeyID"})) {
    return MalformedXml();
  }
  storage::BucketEncryptionRule parsed;
  const XmlNode* algorithm = by_default->Child("SSEAlgorithm");
  if (algorithm == nullptr || !TextOnly(*algorithm) ||
      !ParseSseAlgorithm(algorithm->text, &parsed.algorithm)) {
    return MalformedXml();
  }
  const XmlNode* key_id = by_default->Child("KMSMasterKeyID");
  if (key_id != nullptr && !TextOnly(*key_id)) return MalformedXml();
  if (const XmlNode* bucket_key = rule.Child("BucketKeyEnabled")) {
    const std::string_view v = TrimXmlSpace(bucket_key->text);
    if (!TextOnly(*bucket_key) || (v != "true" && v != "false")) return MalformedXml();
    parsed.bucket_key_enabled = v == "true";
  }
  switch (parsed.algorithm) {
    case storage::SseAlgorithm::kAes256:
      if (key_id != nullptr) {
        return InvalidArgument(
            "a KMSMasterKeyID is not applicable if the default sse algorithm is not aws:kms or "
            "aws:kms:dsse");
      }
      break;
    case storage::SseAlgorithm::kAwsKms:
      if (key_id != nullptr) parsed.kms_master_key_id = std::string(TrimXmlSpace(key_id->text));
      break;
    case storage::SseAlgorithm::kAwsKmsDsse:
      return {ErrorCode::kNotImplemented,
              "Dual-layer server-side encryption (aws:kms:dsse) is not supported: cubby encrypts "
              "with one layer. Use aws:kms or AES256."};
  }
  *out = storage::BucketEncryption{{std::move(parsed)}};
  return {};
}

}  // namespace cubby::s3api
