#include "s3api/bucket_config_xml.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "s3api/xml.h"

namespace cubby::s3api {
namespace {

using storage::LegalHold;
using storage::LifecycleConfig;
using storage::LifecycleRule;
using storage::ObjectLockConfig;
using storage::ObjectLockState;
using storage::ObjectRetention;
using storage::RetentionMode;
using storage::VersioningState;

constexpr std::string_view kDecl = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
constexpr int64_t k2030 = 1893456000000;  // 2030-01-01T00:00:00Z
constexpr int64_t kNow = 1767225600000;   // 2026-01-01T00:00:00Z

// An expected parse error: code and message ("" for the table's default).
struct Want {
  ErrorCode code = ErrorCode::kNone;
  std::string message;
};

void ExpectError(const XmlBodyError& got, const Want& want, std::string_view body) {
  EXPECT_EQ(got.code, want.code) << body << "\nmessage: " << got.message;
  EXPECT_EQ(got.message, want.message) << body;
}

const Want kOk{};
const Want kMalformed{ErrorCode::kMalformedXML, ""};

// ---- Versioning ----

TEST(BucketConfigXmlTest, VersioningRenders) {
  EXPECT_EQ(VersioningConfigurationXml(VersioningState::kEnabled),
            std::string(kDecl) +
                "<VersioningConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                "<Status>Enabled</Status></VersioningConfiguration>");
  EXPECT_EQ(VersioningConfigurationXml(VersioningState::kSuspended),
            std::string(kDecl) +
                "<VersioningConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                "<Status>Suspended</Status></VersioningConfiguration>");
  // Never versioned: the element empty, no Status.
  XmlNode root;
  ASSERT_TRUE(ParseXml(VersioningConfigurationXml(VersioningState::kUnversioned), &root));
  EXPECT_EQ(root.name, "VersioningConfiguration");
  EXPECT_TRUE(root.children.empty());
}

TEST(BucketConfigXmlTest, VersioningParses) {
  struct Case {
    std::string body;
    Want want;
    std::optional<VersioningState> state;
  };
  const std::string ns = " xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"";
  const Case cases[] = {
      {"<VersioningConfiguration" + ns + "><Status>Enabled</Status></VersioningConfiguration>", kOk,
       VersioningState::kEnabled},
      {"<VersioningConfiguration><Status> Suspended </Status></VersioningConfiguration>", kOk,
       VersioningState::kSuspended},
      {"<VersioningConfiguration><Status>Enabled</Status><MfaDelete>Disabled</MfaDelete>"
       "</VersioningConfiguration>",
       kOk, VersioningState::kEnabled},
      {"<VersioningConfiguration/>", kOk, std::nullopt},
      {"<VersioningConfiguration><Status>Disabled</Status></VersioningConfiguration>", kMalformed,
       std::nullopt},
      {"<VersioningConfiguration><Status>enabled</Status></VersioningConfiguration>", kMalformed,
       std::nullopt},
      {"<VersioningConfiguration><Status></Status></VersioningConfiguration>", kMalformed,
       std::nullopt},
      {"<VersioningConfiguration><Status>Enabled</Status><Status>Enabled</Status>"
       "</VersioningConfiguration>",
       kMalformed, std::nullopt},
      {"<VersioningConfiguration><Other/></VersioningConfiguration>", kMalformed, std::nullopt},
      {"<Versioning><Status>Enabled</Status></Versioning>", kMalformed, std::nullopt},
      {"<VersioningConfiguration><Status>Enabled</Status>", kMalformed, std::nullopt},
      {"", kMalformed, std::nullopt},
      {"<VersioningConfiguration><Status>Enabled</Status><MfaDelete>Maybe</MfaDelete>"
       "</VersioningConfiguration>",
       kMalformed, std::nullopt},
      {"<VersioningConfiguration><Status>Enabled</Status><MfaDelete>Enabled</MfaDelete>"
       "</VersioningConfiguration>",
       {ErrorCode::kAccessDenied, "Mfa Authentication must be used for this request"},
       std::nullopt},
  };
  for (const Case& c : cases) {
    std::optional<VersioningState> out = VersioningState::kUnversioned;  // a sentinel
    ExpectError(ParseVersioningConfiguration(c.body, &out), c.want, c.body);
    if (c.want.code == ErrorCode::kNone) {
      EXPECT_EQ(out, c.state) << c.body;
    } else {
      EXPECT_EQ(out, VersioningState::kUnversioned) << "changed on error: " << c.body;
    }
  }
}

TEST(BucketConfigXmlTest, VersioningChangeOnObjectLockBucket) {
  const ObjectLockConfig locked{true, {}};
  const ObjectLockConfig unlocked;
  const Want invalid_state{ErrorCode::kInvalidBucketState,
                           "An Object Lock configuration is present on this bucket, so the "
                           "versioning state cannot be changed."};
  ExpectError(CheckVersioningChange(locked, VersioningState::kSuspended), invalid_state, "");
  ExpectError(CheckVersioningChange(locked, VersioningState::kEnabled), kOk, "");
  ExpectError(CheckVersioningChange(unlocked, VersioningState::kSuspended), kOk, "");
}

// ---- Object lock configuration ----

TEST(BucketConfigXmlTest, ObjectLockConfigurationRenders) {
  const std::string head = std::string(kDecl) +
                           "<ObjectLockConfiguration xmlns=\"http://s3.amazonaws.com/doc/"
                           "2006-03-01/\"><ObjectLockEnabled>Enabled</ObjectLockEnabled>";
  EXPECT_EQ(ObjectLockConfigurationXml({true, {}}), head + "</ObjectLockConfiguration>");
  EXPECT_EQ(ObjectLockConfigurationXml(
                {true, storage::DefaultRetention{RetentionMode::kGovernance, 1, 0}}),
            head +
                "<Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>1</Days>"
                "</DefaultRetention></Rule></ObjectLockConfiguration>");
  EXPECT_EQ(ObjectLockConfigurationXml(
                {true, storage::DefaultRetention{RetentionMode::kCompliance, 0, 3}}),
            head +
                "<Rule><DefaultRetention><Mode>COMPLIANCE</Mode><Years>3</Years>"
                "</DefaultRetention></Rule></ObjectLockConfiguration>");
}

TEST(BucketConfigXmlTest, ObjectLockConfigurationParses) {
  auto body = [](std::string retention) {
    return "<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule>"
           "<DefaultRetention>" +
           retention + "</DefaultRetention></Rule></ObjectLockConfiguration>";
  };
  const Want positive{ErrorCode::kInvalidArgument,
                      "Default retention period must be a positive integer value."};
  const Want too_large{ErrorCode::kInvalidArgument, "Default retention period too large."};
  struct Case {
    std::string body;
    Want want;
    std::optional<storage::DefaultRetention> retention;
  };
  const Case cases[] = {
      {body("<Mode>GOVERNANCE</Mode><Days>1</Days>"), kOk,
       storage::DefaultRetention{RetentionMode::kGovernance, 1, 0}},
      {body("<Years>100</Years><Mode>COMPLIANCE</Mode>"), kOk,
       storage::DefaultRetention{RetentionMode::kCompliance, 0, 100}},
      {body("<Mode>GOVERNANCE</Mode><Days>36500</Days>"), kOk,
       storage::DefaultRetention{RetentionMode::kGovernance, 36500, 0}},
      {"<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled>"
       "</ObjectLockConfiguration>",
       kOk, std::nullopt},
      {body("<Mode>GOVERNANCE</Mode><Days>1</Days><Years>1</Years>"), kMalformed, std::nullopt},
      {body("<Mode>GOVERNANCE</Mode>"), kMalformed, std::nullopt},
      {body("<Days>1</Days>"), kMalformed, std::nullopt},
      {body("<Mode>abc</Mode><Years>1</Years>"), kMalformed, std::nullopt},
      {body("<Mode>governance</Mode><Years>1</Years>"), kMalformed, std::nullopt},
      {body("<Mode>GOVERNANCE</Mode><Days>x</Days>"), kMalformed, std::nullopt},
      {body("<Mode>GOVERNANCE</Mode><Days>1.5</Days>"), kMalformed, std::nullopt},
      {body("<Mode>GOVERNANCE</Mode><Days>99999999999</Days>"), kMalformed, std::nullopt},
      {body("<Mode>GOVERNANCE</Mode><Days>0</Days>"), positive, std::nullopt},
      {body("<Mode>GOVERNANCE</Mode><Years>-1</Years>"), positive, std::nullopt},
      {body("<Mode>GOVERNANCE</Mode><Days>36501</Days>"), too_large, std::nullopt},
      {body("<Mode>GOVERNANCE</Mode><Years>101</Years>"), too_large, std::nullopt},
      {"<ObjectLockConfiguration><ObjectLockEnabled>Disabled</ObjectLockEnabled>"
       "</ObjectLockConfiguration>",
       kMalformed, std::nullopt},
      {"<ObjectLockConfiguration><Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>1</Days>"
       "</DefaultRetention></Rule></ObjectLockConfiguration>",
       kMalformed, std::nullopt},
      {"<ObjectLockConfiguration/>", kMalformed, std::nullopt},
      {"<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule/>"
       "</ObjectLockConfiguration>",
       kMalformed, std::nullopt},
      {body(""), kMalformed, std::nullopt},
      {"<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Extra/>"
       "</ObjectLockConfiguration>",
       kMalformed, std::nullopt},
  };
  for (const Case& c : cases) {
    ObjectLockConfig out{false, storage::DefaultRetention{RetentionMode::kNone, 9, 9}};
    const ObjectLockConfig before = out;
    ExpectError(ParseObjectLockConfiguration(c.body, &out), c.want, c.body);
    if (c.want.code == ErrorCode::kNone) {
      EXPECT_TRUE(out.enabled);
      EXPECT_EQ(out.default_retention, c.retention) << c.body;
    } else {
      EXPECT_EQ(out, before) << "changed on error: " << c.body;
    }
  }
}

TEST(BucketConfigXmlTest, ObjectLockConfigurationRoundTrips) {
  for (const ObjectLockConfig& c :
       {ObjectLockConfig{true, {}},
        ObjectLockConfig{true, storage::DefaultRetention{RetentionMode::kGovernance, 30, 0}},
        ObjectLockConfig{true, storage::DefaultRetention{RetentionMode::kCompliance, 0, 7}}}) {
    ObjectLockConfig back;
    ASSERT_TRUE(ParseObjectLockConfiguration(ObjectLockConfigurationXml(c), &back).ok());
    EXPECT_EQ(back, c);
  }
}

TEST(BucketConfigXmlTest, ObjectLockAllowedOnlyWithVersioningEnabled) {
  const Want invalid_state{
      ErrorCode::kInvalidBucketState,
      "Versioning must be 'Enabled' on the bucket to apply a Object Lock configuration"};
  ExpectError(CheckObjectLockConfigurationAllowed(VersioningState::kUnversioned), invalid_state,
              "");
  ExpectError(CheckObjectLockConfigurationAllowed(VersioningState::kSuspended), invalid_state, "");
  ExpectError(CheckObjectLockConfigurationAllowed(VersioningState::kEnabled), kOk, "");
}

TEST(BucketConfigXmlTest, DefaultRetentionFor) {
  const int64_t day = 86400000;
  EXPECT_EQ(DefaultRetentionFor({}, kNow), ObjectRetention{});
  EXPECT_EQ(DefaultRetentionFor({true, {}}, kNow), ObjectRetention{});
  EXPECT_EQ(DefaultRetentionFor({true, storage::DefaultRetention{RetentionMode::kGovernance, 1, 0}},
                                kNow),
            (ObjectRetention{RetentionMode::kGovernance, kNow + day}));
  EXPECT_EQ(DefaultRetentionFor({true, storage::DefaultRetention{RetentionMode::kCompliance, 0, 2}},
                                kNow),
            (ObjectRetention{RetentionMode::kCompliance, kNow + 730 * day}));
}

// ---- Retention and legal hold ----

TEST(BucketConfigXmlTest, RetentionRendersAndParses) {
  EXPECT_EQ(RetentionXml({RetentionMode::kGovernance, k2030}),
            std::string(kDecl) +
                "<Retention xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Mode>GOVERNANCE"
                "</Mode><RetainUntilDate>2030-01-01T00:00:00.000Z</RetainUntilDate></Retention>");
  auto body = [](std::string inner) { return "<Retention>" + inner + "</Retention>"; };
  const Want past{ErrorCode::kInvalidArgument, "The retain until date must be in the future!"};
  struct Case {
    std::string body;
    Want want;
    ObjectRetention retention;
  };
  const Case cases[] = {
      {body("<Mode>GOVERNANCE</Mode><RetainUntilDate>2030-01-01T00:00:00Z</RetainUntilDate>"),
       kOk,
       {RetentionMode::kGovernance, k2030}},
      {body("<RetainUntilDate>2030-01-01T00:00:00.000Z</RetainUntilDate><Mode>COMPLIANCE</Mode>"),
       kOk,
       {RetentionMode::kCompliance, k2030}},
      {"<Retention/>", kOk, {}},
      {body("<Mode>GOVERNANCE</Mode>"), kMalformed, {}},
      {body("<RetainUntilDate>2030-01-01T00:00:00Z</RetainUntilDate>"), kMalformed, {}},
      {body("<Mode>governance</Mode><RetainUntilDate>2030-01-01T00:00:00Z</RetainUntilDate>"),
       kMalformed,
       {}},
      {body("<Mode>abc</Mode><RetainUntilDate>2030-01-01T00:00:00Z</RetainUntilDate>"),
       kMalformed,
       {}},
      {body("<Mode>GOVERNANCE</Mode><RetainUntilDate>tomorrow</RetainUntilDate>"), kMalformed, {}},
      {body("<Mode>GOVERNANCE</Mode><RetainUntilDate>2020-01-01T00:00:00Z</RetainUntilDate>"),
       past,
       {}},
      {body("<Mode>GOVERNANCE</Mode><RetainUntilDate>2026-01-01T00:00:00Z</RetainUntilDate>"),
       past,
       {}},  // now is not the future
      {body("<Mode>GOVERNANCE</Mode><Mode>GOVERNANCE</Mode>"), kMalformed, {}},
      {"<LegalHold><Status>ON</Status></LegalHold>", kMalformed, {}},
  };
  for (const Case& c : cases) {
    ObjectRetention out{RetentionMode::kCompliance, 1};
    const ObjectRetention before = out;
    ExpectError(ParseRetention(c.body, kNow, &out), c.want, c.body);
    EXPECT_EQ(out, c.want.code == ErrorCode::kNone ? c.retention : before) << c.body;
  }
}

TEST(BucketConfigXmlTest, LegalHoldRendersAndParses) {
  EXPECT_EQ(LegalHoldXml(LegalHold::kOn),
            std::string(kDecl) +
                "<LegalHold xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Status>ON</Status>"
                "</LegalHold>");
  struct Case {
    std::string body;
    Want want;
    LegalHold hold;
  };
  const Case cases[] = {
      {"<LegalHold><Status>ON</Status></LegalHold>", kOk, LegalHold::kOn},
      {"<LegalHold><Status>OFF</Status></LegalHold>", kOk, LegalHold::kOff},
      {"<LegalHold><Status>on</Status></LegalHold>", kMalformed, LegalHold::kNever},
      {"<LegalHold><Status>abc</Status></LegalHold>", kMalformed, LegalHold::kNever},
      {"<LegalHold/>", kMalformed, LegalHold::kNever},
      {"<LegalHold><Status>ON</Status><Status>ON</Status></LegalHold>", kMalformed,
       LegalHold::kNever},
      {"<Hold><Status>ON</Status></Hold>", kMalformed, LegalHold::kNever},
  };
  for (const Case& c : cases) {
    LegalHold out = LegalHold::kNever;
    ExpectError(ParseLegalHold(c.body, &out), c.want, c.body);
    EXPECT_EQ(out, c.hold) << c.body;
  }
  for (LegalHold h : {LegalHold::kOn, LegalHold::kOff}) {
    LegalHold back = LegalHold::kNever;
    ASSERT_TRUE(ParseLegalHold(LegalHoldXml(h), &back).ok());
    EXPECT_EQ(back, h);
  }
}

// ---- Object-lock headers ----

TEST(BucketConfigXmlTest, ObjectLockHeadersParse) {
  const Want both{ErrorCode::kInvalidArgument,
                  "x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be "
                  "supplied"};
  const Want worm{ErrorCode::kInvalidArgument, "Unknown wormMode directive."};
  const Want format{ErrorCode::kInvalidArgument,
                    "The retain until date must be provided in ISO 8601 format"};
  const Want past{ErrorCode::kInvalidArgument, "The retain until date must be in the future!"};
  const Want hold{ErrorCode::kInvalidArgument, "Legal Hold must be either of 'ON' or 'OFF'"};
  struct Case {
    std::vector<Header> headers;
    Want want;
    ObjectLockState state;
  };
  const std::string mode(kAmzObjectLockMode), date(kAmzObjectLockRetainUntilDate),
      legal(kAmzObjectLockLegalHold);
  const Case cases[] = {
      {{}, kOk, {}},
      {{{mode, "GOVERNANCE"}, {date, "2030-01-01T00:00:00Z"}},
       kOk,
       {{RetentionMode::kGovernance, k2030}, LegalHold::kNever}},
      {{{mode, "COMPLIANCE"}, {date, "2030-01-01T00:00:00.000Z"}, {legal, "ON"}},
       kOk,
       {{RetentionMode::kCompliance, k2030}, LegalHold::kOn}},
      {{{legal, "OFF"}}, kOk, {{}, LegalHold::kOff}},
      {{{mode, "GOVERNANCE"}}, both, {}},
      {{{date, "2030-01-01T00:00:00Z"}}, both, {}},
      {{{mode, "governance"}, {date, "2030-01-01T00:00:00Z"}}, worm, {}},
      {{{mode, "GOVERNANCE"}, {date, "abc"}}, format, {}},
      {{{mode, "GOVERNANCE"}, {date, "Wed, 01 Jan 2030 00:00:00 GMT"}}, format, {}},
      {{{mode, "GOVERNANCE"}, {date, "2020-01-01T00:00:00Z"}}, past, {}},
      {{{legal, "wrong"}}, hold, {}},
      {{{legal, "on"}}, hold, {}},
      // The retention's errors come before the legal hold's.
      {{{mode, "GOVERNANCE"}, {legal, "wrong"}}, both, {}},
  };
  for (const Case& c : cases) {
    HttpRequest request;
    request.headers = c.headers;
    ObjectLockState out{{RetentionMode::kCompliance, 5}, LegalHold::kOn};
    const ObjectLockState before = out;
    ExpectError(ParseObjectLockHeaders(request, kNow, &out), c.want,
                c.headers.empty() ? "no headers" : c.headers[0].value);
    EXPECT_EQ(out, c.want.code == ErrorCode::kNone ? c.state : before);
  }
}

TEST(BucketConfigXmlTest, ObjectLockResponseHeaders) {
  using Headers = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(ObjectLockResponseHeaders({}), Headers{});
  EXPECT_EQ(ObjectLockResponseHeaders({{RetentionMode::kGovernance, k2030}, LegalHold::kOff}),
            (Headers{{"x-amz-object-lock-mode", "GOVERNANCE"},
                     {"x-amz-object-lock-retain-until-date", "2030-01-01T00:00:00.000Z"},
                     {"x-amz-object-lock-legal-hold", "OFF"}}));
  EXPECT_EQ(ObjectLockResponseHeaders({{}, LegalHold::kOn}),
            (Headers{{"x-amz-object-lock-legal-hold", "ON"}}));
}

// ---- Lifecycle ----

// Rule ids "gen-1", "gen-2", ... for rules given without one.
RuleIdGenerator Counter() {
  auto n = std::make_shared<int>(0);
  return [n] { return "gen-" + std::to_string(++*n); };
}

std::string Lifecycle(std::string rules) {
  return "<LifecycleConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">" + rules +
         "</LifecycleConfiguration>";
}

TEST(BucketConfigXmlTest, LifecycleParsesValidConfigurations) {
  LifecycleRule expire;
  expire.id = "expire";
  expire.filter.prefix = "logs/";
  expire.expiration_days = 30;
  LifecycleRule legacy;
  legacy.id = "gen-1";
  legacy.legacy_prefix = true;
  legacy.filter.prefix = "tmp/";
  legacy.enabled = false;
  legacy.expiration_date_ms = 1767225600000;
  LifecycleRule and_filter;
  and_filter.id = "and";
  and_filter.filter = {"p/", {{"a", "1"}, {"b", ""}}, 10, 1000};
  and_filter.noncurrent_days = 2;
  and_filter.newer_noncurrent_versions = 100;
  LifecycleRule marker;
  marker.id = "marker";
  marker.expired_object_delete_marker = true;
  marker.abort_incomplete_days = 7;
  LifecycleRule tag;
  tag.id = "tag";
  tag.filter.tags = {{"k", "v"}};
  tag.expiration_days = 1;
  LifecycleRule abort;
  abort.id = "abort";
  abort.filter.prefix = "uploads/";
  abort.abort_incomplete_days = 1;
  LifecycleRule size;
  size.id = "size";
  size.filter.size_greater_than = 0;
  size.expiration_days = 1;
  struct Case {
    std::string body;
    LifecycleConfig want;
  };
  const Case cases[] = {
      {Lifecycle("<Rule><ID>expire</ID><Filter><Prefix>logs/</Prefix></Filter>"
                 "<Status>Enabled</Status><Expiration><Days>30</Days></Expiration></Rule>"),
       {{expire}}},
      {Lifecycle("<Rule><Prefix>tmp/</Prefix><Status>Disabled</Status>"
                 "<Expiration><Date>2026-01-01T00:00:00.000Z</Date></Expiration></Rule>"),
       {{legacy}}},
      {Lifecycle("<Rule><ID>and</ID><Filter><And><Prefix>p/</Prefix><Tag><Key>a</Key><Value>1"
                 "</Value></Tag><Tag><Key>b</Key><Value></Value></Tag><ObjectSizeGreaterThan>10"
                 "</ObjectSizeGreaterThan><ObjectSizeLessThan>1000</ObjectSizeLessThan></And>"
                 "</Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>2"
                 "</NoncurrentDays><NewerNoncurrentVersions>100</NewerNoncurrentVersions>"
                 "</NoncurrentVersionExpiration></Rule>"),
       {{and_filter}}},
      {Lifecycle("<Rule><ID>marker</ID><Filter/><Status>Enabled</Status><Expiration>"
                 "<ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>"
                 "<AbortIncompleteMultipartUpload><DaysAfterInitiation>7</DaysAfterInitiation>"
                 "</AbortIncompleteMultipartUpload></Rule>"
                 "<Rule><ID>tag</ID><Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter>"
                 "<Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>"
                 "<Rule><ID>size</ID><Filter><ObjectSizeGreaterThan>0</ObjectSizeGreaterThan>"
                 "</Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>"),
       {{marker, tag, size}}},
      {Lifecycle("<Rule><ID>abort</ID><Filter><Prefix>uploads/</Prefix></Filter><Status>Enabled"
                 "</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>1"
                 "</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>"),
       {{abort}}},
  };
  for (const Case& c : cases) {
    LifecycleConfig out;
    XmlBodyError e = ParseLifecycleConfiguration(c.body, Counter(), &out);
    ASSERT_TRUE(e.ok()) << c.body << "\n" << Info(e.code).code << ": " << e.message;
    EXPECT_EQ(out, c.want) << c.body;
    // What Get answers parses back to the same configuration.
    LifecycleConfig back;
    const std::string rendered = LifecycleConfigurationXml(out);
    ASSERT_TRUE(ParseLifecycleConfiguration(rendered, Counter(), &back).ok()) << rendered;
    EXPECT_EQ(back, out) << rendered;
  }
}

TEST(BucketConfigXmlTest, LifecycleRendersAwsShape) {
  LifecycleRule r;
  r.id = "rule-1";
  r.filter.prefix = "logs/";
  r.expiration_days = 30;
  r.noncurrent_days = 1;
  r.newer_noncurrent_versions = 2;
  LifecycleRule legacy;
  legacy.id = "old";
  legacy.legacy_prefix = true;
  legacy.enabled = false;
  legacy.expiration_date_ms = 1767225600000;
  LifecycleRule all;
  all.id = "all";
  all.abort_incomplete_days = 3;
  EXPECT_EQ(LifecycleConfigurationXml({{r, legacy, all}}),
            std::string(kDecl) +
                "<LifecycleConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                "<Rule><ID>rule-1</ID><Filter><Prefix>logs/</Prefix></Filter>"
                "<Status>Enabled</Status><Expiration><Days>30</Days></Expiration>"
                "<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays>"
                "<NewerNoncurrentVersions>2</NewerNoncurrentVersions>"
                "</NoncurrentVersionExpiration></Rule>"
                "<Rule><ID>old</ID><Prefix></Prefix><Status>Disabled</Status>"
                "<Expiration><Date>2026-01-01T00:00:00.000Z</Date></Expiration></Rule>"
                "<Rule><ID>all</ID><Filter></Filter><Status>Enabled</Status>"
                "<AbortIncompleteMultipartUpload><DaysAfterInitiation>3</DaysAfterInitiation>"
                "</AbortIncompleteMultipartUpload></Rule></LifecycleConfiguration>");
}

TEST(BucketConfigXmlTest, LifecycleErrors) {
  auto rule = [](std::string inner) { return Lifecycle("<Rule>" + inner + "</Rule>"); };
  const std::string enabled = "<Filter/><Status>Enabled</Status>";
  const std::string days1 = "<Expiration><Days>1</Days></Expiration>";
  auto arg = [](std::string m) { return Want{ErrorCode::kInvalidArgument, std::move(m)}; };
  auto req = [](std::string m) { return Want{ErrorCode::kInvalidRequest, std::move(m)}; };
  const Want not_implemented{ErrorCode::kNotImplemented,
                             "Lifecycle transitions are not supported: cubby has a single "
                             "storage class."};
  std::string many;
  for (int i = 0; i < 1001; ++i) many += "<Rule>" + enabled + days1 + "</Rule>";
  struct Case {
    std::string body;
    Want want;
  };
  const Case cases[] = {
      // Structure.
      {"", kMalformed},
      {"<LifecycleConfiguration>", kMalformed},
      {"<Lifecycle><Rule/></Lifecycle>", kMalformed},
      {Lifecycle(""), kMalformed},
      {Lifecycle(many), kMalformed},
      {Lifecycle("<Other/>"), kMalformed},
      {rule("<Filter/>" + days1), kMalformed},  // no Status
      {rule("<Filter/><Status>enabled</Status>" + days1), kMalformed},
      {rule("<Status>Enabled</Status>" + days1), kMalformed},  // no Prefix or Filter
      {rule("<Prefix/><Filter/><Status>Enabled</Status>" + days1), kMalformed},
      {rule(enabled + days1 + "<Unknown/>"), kMalformed},
      {rule(enabled + days1 + days1), kMalformed},
      {rule("<ID>a</ID><ID>b</ID>" + enabled + days1), kMalformed},
      {rule("<Filter><Prefix>a</Prefix><Tag><Key>k</Key><Value>v</Value></Tag></Filter>"
            "<Status>Enabled</Status>" +
            days1),
       kMalformed},
      {rule("<Filter><And/></Filter><Status>Enabled</Status>" + days1), kMalformed},
      {rule("<Filter><And><Prefix>a</Prefix><Prefix>b</Prefix></And></Filter>"
            "<Status>Enabled</Status>" +
            days1),
       kMalformed},
      {rule("<Filter><Tag><Key>k</Key></Tag></Filter><Status>Enabled</Status>" + days1),
       kMalformed},
      {rule("<Filter><ObjectSizeGreaterThan>x</ObjectSizeGreaterThan></Filter>"
            "<Status>Enabled</Status>" +
            days1),
       kMalformed},
      {rule(enabled + "<Expiration/>"), kMalformed},
      {rule(enabled + "<Expiration><Days>1</Days><ExpiredObjectDeleteMarker>true"
                      "</ExpiredObjectDeleteMarker></Expiration>"),
       kMalformed},
      {rule(enabled + "<Expiration><Date>2026-01-01T00:00:00Z</Date><ExpiredObjectDeleteMarker>"
                      "true</ExpiredObjectDeleteMarker></Expiration>"),
       kMalformed},
      {rule(enabled + "<Expiration><Days>1</Days><Date>2026-01-01T00:00:00Z</Date>"
                      "</Expiration>"),
       kMalformed},
      {rule(enabled + "<Expiration><Days>one</Days></Expiration>"), kMalformed},
      {rule(enabled + "<Expiration><Date>2026-01-01</Date></Expiration>"), kMalformed},
      {rule(enabled + "<Expiration><ExpiredObjectDeleteMarker>yes</ExpiredObjectDeleteMarker>"
                      "</Expiration>"),
       kMalformed},
      {rule(enabled + "<NoncurrentVersionExpiration/>"), kMalformed},
      {rule(enabled + "<AbortIncompleteMultipartUpload/>"), kMalformed},
      // Ids.
      {rule("<ID>" + std::string(256, 'i') + "</ID>" + enabled + days1),
       arg("ID length should not exceed allowed limit of 255")},
      {Lifecycle("<Rule><ID>same</ID>" + enabled + days1 + "</Rule><Rule><ID>same</ID>" + enabled +
                 days1 + "</Rule>"),
       arg("Rule ID must be unique. Found same ID for more than one rule")},
      // Filters.
      {rule("<Filter><ObjectSizeGreaterThan>-1</ObjectSizeGreaterThan></Filter>"
            "<Status>Enabled</Status>" +
            days1),
       arg("'ObjectSizeGreaterThan' must be a non-negative integer")},
      {rule("<Filter><ObjectSizeLessThan>0</ObjectSizeLessThan></Filter>"
            "<Status>Enabled</Status>" +
            days1),
       arg("'ObjectSizeLessThan' must be a positive integer")},
      {rule("<Filter><And><ObjectSizeGreaterThan>10</ObjectSizeGreaterThan><ObjectSizeLessThan>"
            "10</ObjectSizeLessThan></And></Filter><Status>Enabled</Status>" +
            days1),
       arg("'ObjectSizeGreaterThan' must be less than 'ObjectSizeLessThan'")},
      {rule("<Filter><And><Tag><Key>k</Key><Value>1</Value></Tag><Tag><Key>k</Key><Value>2"
            "</Value></Tag></And></Filter><Status>Enabled</Status>" +
            days1),
       req("Duplicate Tag Keys are not allowed.")},
      // Transitions.
      {rule(enabled + "<Transition><Days>30</Days><StorageClass>GLACIER</StorageClass>"
                      "</Transition>"),
       not_implemented},
      {rule(enabled + days1 +
            "<NoncurrentVersionTransition><NoncurrentDays>30</NoncurrentDays>"
            "<StorageClass>GLACIER</StorageClass></NoncurrentVersionTransition>"),
       not_implemented},
      {rule(enabled + "<Expiration><Days>0</Days></Expiration><Transition/>"), not_implemented},
      // Values.
      {rule(enabled + "<Expiration><Days>0</Days></Expiration>"),
       arg("'Days' for Expiration action must be a positive integer")},
      {rule(enabled + "<Expiration><Days>-3</Days></Expiration>"),
       arg("'Days' for Expiration action must be a positive integer")},
      {rule(enabled + "<Expiration><Date>2026-01-01T00:00:01Z</Date></Expiration>"),
       arg("'Date' must be at midnight GMT")},
      {rule(enabled + "<Expiration><Date>2026-01-01T00:00:00+01:00</Date></Expiration>"),
       arg("'Date' must be at midnight GMT")},
      {rule(enabled + "<NoncurrentVersionExpiration><NoncurrentDays>0</NoncurrentDays>"
                      "</NoncurrentVersionExpiration>"),
       arg("'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive "
           "integer")},
      {rule(enabled + "<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays>"
                      "<NewerNoncurrentVersions>0</NewerNoncurrentVersions>"
                      "</NoncurrentVersionExpiration>"),
       arg("'NewerNoncurrentVersions' for NoncurrentVersionExpiration action must be between 1 "
           "and 100")},
      {rule(enabled + "<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays>"
                      "<NewerNoncurrentVersions>101</NewerNoncurrentVersions>"
                      "</NoncurrentVersionExpiration>"),
       arg("'NewerNoncurrentVersions' for NoncurrentVersionExpiration action must be between 1 "
           "and 100")},
      {rule(enabled + "<AbortIncompleteMultipartUpload><DaysAfterInitiation>0"
                      "</DaysAfterInitiation></AbortIncompleteMultipartUpload>"),
       arg("'DaysAfterInitiation' for AbortIncompleteMultipartUpload action must be a positive "
           "integer")},
      {rule("<Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter><Status>Enabled</Status>"
            "<AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation>"
            "</AbortIncompleteMultipartUpload>"),
       req("AbortIncompleteMultipartUpload cannot be specified with Tags.")},
      {rule("<Filter><And><Prefix>p</Prefix><Tag><Key>k</Key><Value>v</Value></Tag></And>"
            "</Filter><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true"
            "</ExpiredObjectDeleteMarker></Expiration>"),
       req("ExpiredObjectDeleteMarker cannot be specified with tags")},
      {rule(enabled), req("At least one action needs to be specified in a rule")},
      {rule(enabled + "<Expiration><ExpiredObjectDeleteMarker>false</ExpiredObjectDeleteMarker>"
                      "</Expiration>"),
       req("At least one action needs to be specified in a rule")},
      {rule("<ID>x</ID><Prefix>p</Prefix><Status>Disabled</Status>"),
       req("At least one action needs to be specified in a rule")},
  };
  for (const Case& c : cases) {
    LifecycleConfig out{{LifecycleRule{}}};
    const LifecycleConfig before = out;
    ExpectError(ParseLifecycleConfiguration(c.body, Counter(), &out), c.want,
                c.body.substr(0, 300));
    EXPECT_EQ(out, before) << "changed on error: " << c.body.substr(0, 300);
  }
}

TEST(BucketConfigXmlTest, LifecycleAcceptsTheMaximumRules) {
  std::string rules;
  for (int i = 0; i < 1000; ++i) {
    rules +=
        "<Rule><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration>"
        "</Rule>";
  }
  LifecycleConfig out;
  ASSERT_TRUE(ParseLifecycleConfiguration(Lifecycle(rules), Counter(), &out).ok());
  ASSERT_EQ(out.rules.size(), 1000u);
  EXPECT_EQ(out.rules.front().id, "gen-1");
  EXPECT_EQ(out.rules.back().id, "gen-1000");
}

TEST(BucketConfigXmlTest, LifecycleGeneratedIdsDoNotRepeatGivenOnes) {
  const std::string days1 =
      "<Filter/><Status>Enabled</Status><Expiration><Days>1</Days>"
      "</Expiration>";
  LifecycleConfig out;
  ASSERT_TRUE(
      ParseLifecycleConfiguration(Lifecycle("<Rule>" + days1 +
                                            "</Rule><Rule><ID>gen-1"
                                            "</ID>" +
                                            days1 + "</Rule><Rule><ID></ID>" + days1 + "</Rule>"),
                                  Counter(), &out)
          .ok());
  ASSERT_EQ(out.rules.size(), 3u);
  EXPECT_EQ(out.rules[0].id, "gen-2");
  EXPECT_EQ(out.rules[1].id, "gen-1");
  EXPECT_EQ(out.rules[2].id, "gen-3");
}

// ---- CORS ----

using storage::CorsConfig;
using storage::CorsRule;

std::string Cors(const std::string& rules) {
  return "<CORSConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">" + rules +
         "</CORSConfiguration>";
}
std::string CorsRuleXml(const std::string& content) { return "<CORSRule>" + content + "</CORSRule>"; }
const std::string kOrigin = "<AllowedOrigin>https://example.com</AllowedOrigin>";
const std::string kMethod = "<AllowedMethod>GET</AllowedMethod>";
const std::string kMinimal = kOrigin + kMethod;

CorsRule MinimalRule() {
  CorsRule r;
  r.allowed_origins = {"https://example.com"};
  r.allowed_methods = {"GET"};
  return r;
}

TEST(BucketConfigXmlTest, CorsParsesValidConfigurations) {
  CorsRule full;
  full.id = "rule-1";
  full.allowed_origins = {"https://example.com", "https://*.example.org"};
  full.allowed_methods = {"GET", "PUT", "POST", "DELETE", "HEAD"};
  full.allowed_headers = {"Authorization", "x-amz-*"};
  full.expose_headers = {"ETag", "x-amz-request-id"};
  full.max_age_seconds = 3000;
  CorsRule star;
  star.allowed_origins = {"*"};
  star.allowed_methods = {"GET"};
  auto with = [](auto change) {
    CorsRule r = MinimalRule();
    change(r);
    return r;
  };
  struct Case {
    std::string name, body;
    std::vector<CorsRule> rules;
  };
  const std::vector<Case> cases = {
      {"every element, two rules",
       std::string(kDecl) +
           Cors(CorsRuleXml("<ID>rule-1</ID>"
                            "<AllowedOrigin>https://example.com</AllowedOrigin>"
                            "<AllowedOrigin>https://*.example.org</AllowedOrigin>"
                            "<AllowedMethod>GET</AllowedMethod><AllowedMethod>PUT</AllowedMethod>"
                            "<AllowedMethod>POST</AllowedMethod><AllowedMethod>DELETE</AllowedMethod>"
                            "<AllowedMethod>HEAD</AllowedMethod>"
                            "<AllowedHeader>Authorization</AllowedHeader>"
                            "<AllowedHeader>x-amz-*</AllowedHeader>"
                            "<ExposeHeader>ETag</ExposeHeader>"
                            "<ExposeHeader>x-amz-request-id</ExposeHeader>"
                            "<MaxAgeSeconds>3000</MaxAgeSeconds>") +
                CorsRuleXml("\n  <AllowedOrigin>*</AllowedOrigin>\n  "
                            "<AllowedMethod>GET</AllowedMethod>\n")),
       {full, star}},
      {"no namespace, elements in any order",
       "<CORSConfiguration><CORSRule><MaxAgeSeconds>0042</MaxAgeSeconds>" + kMethod + kOrigin +
           "</CORSRule></CORSConfiguration>",
       {with([](CorsRule& r) { r.max_age_seconds = 42; })}},
      {"MaxAgeSeconds 0 and the largest int", Cors(CorsRuleXml(kMinimal + "<MaxAgeSeconds>0</MaxAgeSeconds>") +
                                           CorsRuleXml(kMinimal + "<MaxAgeSeconds>2147483647</MaxAgeSeconds>")),
       {with([](CorsRule& r) { r.max_age_seconds = 0; }),
        with([](CorsRule& r) { r.max_age_seconds = 2147483647; })}},
      {"an empty ID is kept", Cors(CorsRuleXml(kMinimal + "<ID/>")),
       {with([](CorsRule& r) { r.id = ""; })}},
      {"an ID of 255 characters (not bytes)",
       Cors(CorsRuleXml(kMinimal + "<ID>" + std::string(127, 'a') + std::string(128, 'x') + "</ID>")),
       {with([](CorsRule& r) { r.id = std::string(127, 'a') + std::string(128, 'x'); })}},
      {"an ID of 255 two-byte characters",
       Cors(CorsRuleXml(kMinimal + "<ID>" + [] {
                          std::string s;
                          for (int i = 0; i < 255; ++i) s += "\xc3\xa9";
                          return s;
                        }() + "</ID>")),
       {with([](CorsRule& r) {
         r.id = "";
         for (int i = 0; i < 255; ++i) *r.id += "\xc3\xa9";
       })}},
      {"values keep case, whitespace and repeats",
       Cors(CorsRuleXml("<AllowedOrigin> HTTPS://Example.COM\n</AllowedOrigin>" + kMethod + kMethod +
                        "<AllowedHeader> Content-Type </AllowedHeader>")),
       {with([](CorsRule& r) {
         r.allowed_origins = {" HTTPS://Example.COM\n"};
         r.allowed_methods = {"GET", "GET"};
         r.allowed_headers = {" Content-Type "};
       })}},
      {"one wildcard in each origin and header",
       Cors(CorsRuleXml("<AllowedOrigin>*</AllowedOrigin><AllowedOrigin>https://example.com:*</AllowedOrigin>" +
                        kMethod + "<AllowedHeader>*</AllowedHeader><AllowedHeader>x-*-id</AllowedHeader>")),
       {with([](CorsRule& r) {
         r.allowed_origins = {"*", "https://example.com:*"};
         r.allowed_headers = {"*", "x-*-id"};
       })}},
      {"an empty origin", Cors(CorsRuleXml("<AllowedOrigin></AllowedOrigin>" + kMethod)),
       {with([](CorsRule& r) { r.allowed_origins = {""}; })}},
      {"two rules with one ID", Cors(CorsRuleXml("<ID>same</ID>" + kMinimal) + CorsRuleXml("<ID>same</ID>" + kMinimal)),
       {with([](CorsRule& r) { r.id = "same"; }), with([](CorsRule& r) { r.id = "same"; })}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    CorsConfig got;
    XmlBodyError e = ParseCorsConfiguration(c.body, &got);
    ASSERT_TRUE(e.ok()) << e.message;
    EXPECT_EQ(got.rules, c.rules);
    // What GetBucketCors renders parses back to the same rules.
    CorsConfig again;
    ASSERT_TRUE(ParseCorsConfiguration(CorsConfigurationXml(got), &again).ok());
    EXPECT_EQ(again, got);
  }
}

TEST(BucketConfigXmlTest, CorsAcceptsTheMaximumRules) {
  std::string rules;
  for (size_t i = 0; i < kMaxCorsRules; ++i) rules += CorsRuleXml(kMinimal);
  CorsConfig got;
  ASSERT_TRUE(ParseCorsConfiguration(Cors(rules), &got).ok());
  EXPECT_EQ(got.rules.size(), kMaxCorsRules);
  rules += CorsRuleXml(kMinimal);
  ExpectError(ParseCorsConfiguration(Cors(rules), &got), kMalformed, "101 rules");
}

TEST(BucketConfigXmlTest, CorsRendersAwsShape) {
  CorsRule site;
  site.id = "rule-1";
  site.allowed_origins = {"https://example.com", "https://*.example.org"};
  site.allowed_methods = {"GET", "PUT"};
  site.allowed_headers = {"Authorization"};
  site.expose_headers = {"ETag", "x-amz-request-id"};
  site.max_age_seconds = 3000;
  CorsRule empty_id;
  empty_id.id = "";
  empty_id.allowed_origins = {"https://a/?x=1&y=2"};
  empty_id.allowed_methods = {"HEAD"};
  EXPECT_EQ(CorsConfigurationXml(CorsConfig{{site, empty_id}}),
            std::string(kDecl) +
                "<CORSConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                "<CORSRule><ID>rule-1</ID>"
                "<AllowedMethod>GET</AllowedMethod><AllowedMethod>PUT</AllowedMethod>"
                "<AllowedOrigin>https://example.com</AllowedOrigin>"
                "<AllowedOrigin>https://*.example.org</AllowedOrigin>"
                "<AllowedHeader>Authorization</AllowedHeader>"
                "<MaxAgeSeconds>3000</MaxAgeSeconds>"
                "<ExposeHeader>ETag</ExposeHeader><ExposeHeader>x-amz-request-id</ExposeHeader>"
                "</CORSRule>"
                "<CORSRule><ID></ID><AllowedMethod>HEAD</AllowedMethod>"
                "<AllowedOrigin>https://a/?x=1&amp;y=2</AllowedOrigin></CORSRule>"
                "</CORSConfiguration>");
}

TEST(BucketConfigXmlTest, CorsErrors) {
  auto invalid = [](std::string message) { return Want{ErrorCode::kInvalidRequest, message}; };
  auto method = [&](std::string m) {
    return invalid("Found unsupported HTTP method in CORS config. Unsupported method is " + m);
  };
  const std::string bad_method = "<AllowedMethod>PATCH</AllowedMethod>";
  const std::string bad_origin = "<AllowedOrigin>*.*</AllowedOrigin>";
  const std::string bad_header = "<AllowedHeader>*-*</AllowedHeader>";
  const std::string bad_expose = "<ExposeHeader>x-*</ExposeHeader>";
  struct Case {
    std::string name, body;
    Want want;
  };
  const std::vector<Case> cases = {
      // MalformedXML: the document's structure.
      {"empty body", "", kMalformed},
      {"not XML", "AllowedOrigin: *", kMalformed},
      {"unclosed element", "<CORSConfiguration><CORSRule>" + kMinimal + "</CORSConfiguration>",
       kMalformed},
      {"another root", "<CORSRules><CORSRule>" + kMinimal + "</CORSRule></CORSRules>", kMalformed},
      {"root in lowercase", "<corsconfiguration>" + CorsRuleXml(kMinimal) + "</corsconfiguration>",
       kMalformed},
      {"a rule as root", CorsRuleXml(kMinimal), kMalformed},
      {"no rule", Cors(""), kMalformed},
      {"empty root", "<CORSConfiguration/>", kMalformed},
      {"rule elements in the root", Cors(kMinimal), kMalformed},
      {"another element beside a rule", Cors(CorsRuleXml(kMinimal) + "<Owner>me</Owner>"),
       kMalformed},
      {"text beside a rule", Cors("text" + CorsRuleXml(kMinimal)), kMalformed},
      {"a rule in a rule", Cors(CorsRuleXml(CorsRuleXml(kMinimal))), kMalformed},
      {"empty rule", Cors(CorsRuleXml("")), kMalformed},
      {"rule without AllowedOrigin", Cors(CorsRuleXml(kMethod)), kMalformed},
      {"rule without AllowedMethod", Cors(CorsRuleXml(kOrigin)), kMalformed},
      {"second rule without AllowedMethod", Cors(CorsRuleXml(kMinimal) + CorsRuleXml(kOrigin)),
       kMalformed},
      {"text in a rule", Cors(CorsRuleXml(kMinimal + "text")), kMalformed},
      {"unknown element in a rule", Cors(CorsRuleXml(kMinimal + "<AllowedHeaders>*</AllowedHeaders>")),
       kMalformed},
      {"element name in another case", Cors(CorsRuleXml(kMinimal + "<allowedheader>*</allowedheader>")),
       kMalformed},
      {"an element in a value", Cors(CorsRuleXml("<AllowedOrigin><O>*</O></AllowedOrigin>" + kMethod)),
       kMalformed},
      {"MaxAgeSeconds empty", Cors(CorsRuleXml(kMinimal + "<MaxAgeSeconds></MaxAgeSeconds>")),
       kMalformed},
      {"MaxAgeSeconds a word", Cors(CorsRuleXml(kMinimal + "<MaxAgeSeconds>hour</MaxAgeSeconds>")),
       kMalformed},
      {"MaxAgeSeconds negative", Cors(CorsRuleXml(kMinimal + "<MaxAgeSeconds>-1</MaxAgeSeconds>")),
       kMalformed},
      {"MaxAgeSeconds with a sign", Cors(CorsRuleXml(kMinimal + "<MaxAgeSeconds>+1</MaxAgeSeconds>")),
       kMalformed},
      {"MaxAgeSeconds a fraction", Cors(CorsRuleXml(kMinimal + "<MaxAgeSeconds>1.5</MaxAgeSeconds>")),
       kMalformed},
      {"MaxAgeSeconds above 32 bits",
       Cors(CorsRuleXml(kMinimal + "<MaxAgeSeconds>2147483648</MaxAgeSeconds>")), kMalformed},
      {"MaxAgeSeconds twice",
       Cors(CorsRuleXml(kMinimal + "<MaxAgeSeconds>1</MaxAgeSeconds><MaxAgeSeconds>1</MaxAgeSeconds>")),
       kMalformed},
      {"ID twice", Cors(CorsRuleXml(kMinimal + "<ID>a</ID><ID>b</ID>")), kMalformed},
      {"ID of 256 characters", Cors(CorsRuleXml(kMinimal + "<ID>" + std::string(256, 'a') + "</ID>")),
       kMalformed},
      // MalformedXML wins over a bad value anywhere.
      {"a bad method and a rule without AllowedOrigin",
       Cors(CorsRuleXml(kOrigin + bad_method) + CorsRuleXml(kMethod)), kMalformed},
      {"a bad header and a repeated ID", Cors(CorsRuleXml(kMinimal + bad_header + "<ID>a</ID><ID>b</ID>")),
       kMalformed},
      // InvalidRequest: values, in the order method, origin, header, exposed header.
      {"PATCH", Cors(CorsRuleXml(kOrigin + kMethod + bad_method)), method("PATCH")},
      {"OPTIONS", Cors(CorsRuleXml(kOrigin + "<AllowedMethod>OPTIONS</AllowedMethod>")),
       method("OPTIONS")},
      {"lowercase get", Cors(CorsRuleXml(kOrigin + "<AllowedMethod>get</AllowedMethod>")),
       method("get")},
      {"method with a space", Cors(CorsRuleXml(kOrigin + "<AllowedMethod> GET</AllowedMethod>")),
       method(" GET")},
      {"empty method", Cors(CorsRuleXml(kOrigin + "<AllowedMethod></AllowedMethod>")), method("")},
      {"origin with two wildcards", Cors(CorsRuleXml(kMethod + "<AllowedOrigin>https://*.example.*</AllowedOrigin>")),
       invalid("AllowedOrigin \"https://*.example.*\" can not have more than one wildcard.")},
      {"header with two wildcards", Cors(CorsRuleXml(kMinimal + "<AllowedHeader>x-*-meta-*</AllowedHeader>")),
       invalid("AllowedHeader \"x-*-meta-*\" can not have more than one wildcard.")},
      {"expose header *", Cors(CorsRuleXml(kMinimal + "<ExposeHeader>*</ExposeHeader>")),
       invalid("ExposeHeader \"*\" contains wildcard. We currently do not support wildcard for "
               "ExposeHeader.")},
      {"escaped characters in the message",
       Cors(CorsRuleXml(kMethod + "<AllowedOrigin>*&lt;&amp;&gt;*</AllowedOrigin>")),
       invalid("AllowedOrigin \"*<&>*\" can not have more than one wildcard.")},
      {"method before origin", Cors(CorsRuleXml(bad_expose + bad_header + bad_origin + bad_method)),
       method("PATCH")},
      {"origin before header", Cors(CorsRuleXml(bad_expose + bad_header + bad_origin + kMethod)),
       invalid("AllowedOrigin \"*.*\" can not have more than one wildcard.")},
      {"header before exposed header", Cors(CorsRuleXml(bad_expose + bad_header + kMinimal)),
       invalid("AllowedHeader \"*-*\" can not have more than one wildcard.")},
      {"the first bad rule", Cors(CorsRuleXml(kMinimal) + CorsRuleXml(kMinimal + bad_expose) +
                                  CorsRuleXml(kOrigin + bad_method)),
       invalid("ExposeHeader \"x-*\" contains wildcard. We currently do not support wildcard for "
               "ExposeHeader.")},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    CorsConfig out;
    out.rules = {MinimalRule()};
    const CorsConfig before = out;
    ExpectError(ParseCorsConfiguration(c.body, &out), c.want, c.body);
    EXPECT_EQ(out, before) << "*out changed on an error";
  }
}

}  // namespace
}  // namespace cubby::s3api
