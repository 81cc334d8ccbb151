// The S3 XML of versioning, object lock, lifecycle, CORS and default encryption, and the
// object-lock request headers, as
// pure functions: each document rendered (what the Get call answers) and parsed (what the Put
// call takes) with S3's error codes and messages, plus the few decisions that need only the
// bucket's stored values. Storage keeps the values (storage/bucket_config.h); what a lifecycle
// rule does is lifecycle/lifecycle.h's.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketVersioning.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketVersioning.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectLockConfiguration.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectRetention.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectLegalHold.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketLifecycleConfiguration.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketLifecycleConfiguration.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketCors.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketCors.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketEncryption.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketEncryption.html
//
// Every Parse* leaves *out unchanged on an error. An error's message is empty when the table's
// default message (s3api/errors.cc) is what S3 answers.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "s3api/acl_xml.h"  // XmlBodyError
#include "s3api/errors.h"
#include "s3api/http.h"
#include "storage/bucket_config.h"

namespace cubby::s3api {

// ---- VersioningConfiguration ----

// GetBucketVersioning's body: <VersioningConfiguration xmlns="..."><Status>Enabled</Status>
// </VersioningConfiguration>, Suspended likewise; a bucket never versioned answers the element
// empty, <VersioningConfiguration xmlns="..."/>, as S3 does.
std::string VersioningConfigurationXml(storage::VersioningState state);

// PutBucketVersioning's body. *out: the state asked for, or nullopt when the body names no Status
// (the state stays as it is). Errors:
//  - kMalformedXML: not well-formed, a root other than VersioningConfiguration, an element other
//    than Status and MfaDelete or one of them twice, a Status other than Enabled or Suspended
//    (so a bucket can never be made unversioned again), a MfaDelete other than Enabled or
//    Disabled;
//  - kAccessDenied "Mfa Authentication must be used for this request": MfaDelete Enabled. cubby
//    has no MFA devices, so this is what S3 answers a request without a valid x-amz-mfa.
//    MfaDelete Disabled is accepted (it is the state every cubby bucket is in).
XmlBodyError ParseVersioningConfiguration(std::string_view body,
                                          std::optional<storage::VersioningState>* out);

// Whether versioning may change to `requested` on a bucket with `lock`: kInvalidBucketState
// "An Object Lock configuration is present on this bucket, so the versioning state cannot be
// changed." when object lock is enabled and `requested` is not kEnabled; ok otherwise.
XmlBodyError CheckVersioningChange(const storage::ObjectLockConfig& lock,
                                   storage::VersioningState requested);

// ---- ObjectLockConfiguration ----

// GetObjectLockConfiguration's body:
//   <ObjectLockConfiguration xmlns="..."><ObjectLockEnabled>Enabled</ObjectLockEnabled>
//     <Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>1</Days></DefaultRetention></Rule>
//   </ObjectLockConfiguration>
// (Rule only with a default retention; Years instead of Days when set.) REQUIRES:
// config.enabled (a bucket without object lock answers ObjectLockConfigurationNotFoundError).
std::string ObjectLockConfigurationXml(const storage::ObjectLockConfig& config);

// PutObjectLockConfiguration's body into the configuration to store (enabled, with the default
// retention given or none: a body without Rule removes the default). Errors:
//  - kMalformedXML: not well-formed, a root other than ObjectLockConfiguration, an unknown or
//    repeated element, ObjectLockEnabled missing or not "Enabled", a Rule without
//    DefaultRetention, a DefaultRetention without Mode or without Days or Years or with both, a
//    Mode other than GOVERNANCE or COMPLIANCE (case-sensitive), Days or Years not an integer;
//  - kInvalidArgument "Default retention period must be a positive integer value.": Days or
//    Years 0 or negative;
//  - kInvalidArgument "Default retention period too large.": more than 36500 days or 100 years.
XmlBodyError ParseObjectLockConfiguration(std::string_view body, storage::ObjectLockConfig* out);

// Whether an object-lock configuration may be put on a bucket whose versioning is
// `versioning`: kInvalidBucketState "Versioning must be 'Enabled' on the bucket to apply a
// Object Lock configuration" unless it is kEnabled.
XmlBodyError CheckObjectLockConfigurationAllowed(storage::VersioningState versioning);

// The retention a new version gets from the bucket's default: none without one; else the mode
// and created + days (or years of 365 days, as S3 counts them).
storage::ObjectRetention DefaultRetentionFor(const storage::ObjectLockConfig& config,
                                             int64_t created_ms);

// ---- Retention and LegalHold ----

// GetObjectRetention's body: <Retention xmlns="..."><Mode>GOVERNANCE</Mode>
// <RetainUntilDate>2030-01-01T00:00:00.000Z</RetainUntilDate></Retention>.
// REQUIRES: retention.mode != kNone (a version without one answers
// NoSuchObjectLockConfiguration).
std::string RetentionXml(const storage::ObjectRetention& retention);

// PutObjectRetention's body. Both Mode and RetainUntilDate, or neither (an empty Retention: the
// retention is removed, which the handler allows only with a governance bypass). Errors:
//  - kMalformedXML: not well-formed, a root other than Retention, an unknown or repeated
//    element, only one of Mode and RetainUntilDate, a Mode other than GOVERNANCE or COMPLIANCE,
//    a RetainUntilDate that is no ISO 8601 date-time (text/iso8601.h);
//  - kInvalidArgument "The retain until date must be in the future!": RetainUntilDate <= now.
XmlBodyError ParseRetention(std::string_view body, int64_t now_ms, storage::ObjectRetention* out);

// GetObjectLegalHold's body: <LegalHold xmlns="..."><Status>ON</Status></LegalHold> (OFF for
// kOff). REQUIRES: hold != kNever (that answers NoSuchObjectLockConfiguration).
std::string LegalHoldXml(storage::LegalHold hold);

// PutObjectLegalHold's body: exactly one Status, ON or OFF. Anything else is kMalformedXML.
XmlBodyError ParseLegalHold(std::string_view body, storage::LegalHold* out);

// ---- The object-lock headers of PutObject, CopyObject and CreateMultipartUpload ----

inline constexpr std::string_view kAmzObjectLockMode = "x-amz-object-lock-mode";
inline constexpr std::string_view kAmzObjectLockRetainUntilDate =
    "x-amz-object-lock-retain-until-date";
inline constexpr std::string_view kAmzObjectLockLegalHold = "x-amz-object-lock-legal-hold";

// The lock a write asks for with x-amz-object-lock-mode, -retain-until-date and -legal-hold:
// retention mode kNone and legal hold kNever for headers absent. Checked in this order, each an
// kInvalidArgument as S3 answers it:
//  - "x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied":
//    one of the two without the other;
//  - "Unknown wormMode directive.": a mode other than GOVERNANCE or COMPLIANCE;
//  - "The retain until date must be provided in ISO 8601 format": a date that does not parse;
//  - "The retain until date must be in the future!": a date <= now;
//  - "Legal Hold must be either of 'ON' or 'OFF'": another legal-hold value.
// Whether the bucket allows object lock at all is the handler's question, asked after these (S3
// answers these first).
XmlBodyError ParseObjectLockHeaders(const HttpRequest& request, int64_t now_ms,
                                    storage::ObjectLockState* out);

// The headers GetObject and HeadObject answer for a version's lock: x-amz-object-lock-mode and
// -retain-until-date (ISO 8601 with milliseconds) when it has a retention, and
// x-amz-object-lock-legal-hold (ON or OFF) when a legal hold was ever set.
std::vector<std::pair<std::string, std::string>> ObjectLockResponseHeaders(
    const storage::ObjectLockState& state);

// ---- LifecycleConfiguration ----

// At most this many rules in one configuration, and this long a rule id.
inline constexpr size_t kMaxLifecycleRules = 1000;
inline constexpr size_t kMaxLifecycleRuleIdLength = 255;

// GetBucketLifecycleConfiguration's body, in the rules' order:
//   <LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
//     <Rule><ID>r</ID><Filter>…</Filter><Status>Enabled</Status>
//       <Expiration><Days>30</Days></Expiration>
//       <NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays>
//         <NewerNoncurrentVersions>2</NewerNoncurrentVersions></NoncurrentVersionExpiration>
//       <AbortIncompleteMultipartUpload><DaysAfterInitiation>7</DaysAfterInitiation>
//         </AbortIncompleteMultipartUpload></Rule>
//   </LifecycleConfiguration>
// The filter: <Filter/> for none; the one condition set as <Prefix>, <Tag><Key/><Value/></Tag>,
// <ObjectSizeGreaterThan> or <ObjectSizeLessThan>; two or more inside <And>. A rule given with
// the legacy top-level Prefix is rendered with <Prefix> in place of <Filter>. Expiration Date as
// ISO 8601 with milliseconds ("2026-01-01T00:00:00.000Z").
std::string LifecycleConfigurationXml(const storage::LifecycleConfig& config);

// Makes the id of a rule given without one (S3 generates a unique id).
using RuleIdGenerator = std::function<std::string()>;

// PutBucketLifecycleConfiguration's body into the configuration to store. Errors, per rule in
// document order:
//  - kMalformedXML: not well-formed; a root other than LifecycleConfiguration; no Rule or more
//    than kMaxLifecycleRules; an unknown or repeated element; Status missing or not Enabled or
//    Disabled; both or neither of the legacy Prefix and Filter; a Filter with more than one of
//    Prefix, Tag, ObjectSizeGreaterThan, ObjectSizeLessThan and And; an empty And; a Tag
//    without exactly one Key and one Value; a number that is not an integer; an Expiration
//    without exactly one of Days, Date and ExpiredObjectDeleteMarker (so ExpiredObjectDeleteMarker
//    cannot come with Days or Date); a Date that is no ISO 8601 date-time; a
//    NoncurrentVersionExpiration without NoncurrentDays; an AbortIncompleteMultipartUpload
//    without DaysAfterInitiation; ExpiredObjectDeleteMarker not true or false;
//  - kInvalidArgument "ID length should not exceed allowed limit of 255": a longer ID;
//  - kInvalidArgument "Rule ID must be unique. Found same ID for more than one rule": a repeated
//    ID;
//  - kInvalidArgument "'ObjectSizeGreaterThan' must be less than 'ObjectSizeLessThan'" and
//    "… must be a non-negative integer" for sizes out of range;
//  - kInvalidRequest "Duplicate Tag Keys are not allowed.": two tags of a filter with one key;
//  - kNotImplemented "Lifecycle transitions are not supported: cubby has a single storage
//    class.": a Transition or NoncurrentVersionTransition (checked before any value below);
//  - kInvalidArgument "'Days' for Expiration action must be a positive integer",
//    "'Date' must be at midnight GMT",
//    "'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer",
//    "'NewerNoncurrentVersions' for NoncurrentVersionExpiration action must be between 1 and
//    100", "'DaysAfterInitiation' for AbortIncompleteMultipartUpload action must be a positive
//    integer";
//  - kInvalidRequest "ExpiredObjectDeleteMarker cannot be specified with tags" and
//    "AbortIncompleteMultipartUpload cannot be specified with Tags.": those actions with a tag
//    filter;
//  - kInvalidRequest "At least one action needs to be specified in a rule": a rule without any.
// A rule without an ID (or with an empty one) gets new_rule_id()'s; one that repeats an id of the
// configuration is asked for again (up to 100 times). An Expiration whose only content is
// ExpiredObjectDeleteMarker false is no action.
XmlBodyError ParseLifecycleConfiguration(std::string_view body, const RuleIdGenerator& new_rule_id,
                                         storage::LifecycleConfig* out);

// ---- CORSConfiguration ----

// At most this many rules in one configuration, and this many characters in a rule's ID.
inline constexpr size_t kMaxCorsRules = 100;
inline constexpr size_t kMaxCorsRuleIdLength = 255;

// GetBucketCors's body, in the rules' order, each rule's elements in S3's order:
//   <CORSConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
//     <CORSRule><ID>site</ID><AllowedMethod>GET</AllowedMethod>...
//       <AllowedOrigin>https://*.example.com</AllowedOrigin>...<AllowedHeader>*</AllowedHeader>...
//       <MaxAgeSeconds>600</MaxAgeSeconds><ExposeHeader>ETag</ExposeHeader>...</CORSRule>
//   </CORSConfiguration>
// ID and MaxAgeSeconds only when given (an empty ID is written empty).
std::string CorsConfigurationXml(const storage::CorsConfig& config);

// PutBucketCors's body into the configuration to store. Values are kept exactly as sent (case,
// surrounding whitespace, repeats). The document's structure is checked first, then each rule
// in document order, each rule's values in the order below:
//  - kMalformedXML: not well-formed; a root other than CORSConfiguration; no CORSRule or more
//    than kMaxCorsRules; an element other than CORSRule in the root, or other than ID,
//    AllowedMethod, AllowedOrigin, AllowedHeader, ExposeHeader, MaxAgeSeconds in a rule; text
//    beside the rules or the values; an element inside a value; a rule without AllowedMethod or
//    without AllowedOrigin; ID or MaxAgeSeconds twice; an ID of more than kMaxCorsRuleIdLength
//    characters; a MaxAgeSeconds that is not a decimal integer in 0..2147483647;
//  - kInvalidRequest "Found unsupported HTTP method in CORS config. Unsupported method is M":
//    an AllowedMethod other than GET, PUT, POST, DELETE, HEAD (case-sensitive);
//  - kInvalidRequest 'AllowedOrigin "O" can not have more than one wildcard.';
//  - kInvalidRequest 'AllowedHeader "H" can not have more than one wildcard.';
//  - kInvalidRequest 'ExposeHeader "H" contains wildcard. We currently do not support wildcard
//    for ExposeHeader.'
XmlBodyError ParseCorsConfiguration(std::string_view body, storage::CorsConfig* out);

// ---- ServerSideEncryptionConfiguration ----

// GetBucketEncryption's body, one <Rule> per rule (S3 keeps exactly one):
//   <ServerSideEncryptionConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
//     <Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>aws:kms</SSEAlgorithm>
//       <KMSMasterKeyID>alias/app</KMSMasterKeyID></ApplyServerSideEncryptionByDefault>
//       <BucketKeyEnabled>false</BucketKeyEnabled></Rule>
//   </ServerSideEncryptionConfiguration>
// KMSMasterKeyID only when set; BucketKeyEnabled always (S3 answers it false when not set).
std::string ServerSideEncryptionConfigurationXml(const storage::BucketEncryption& config);

// PutBucketEncryption's body into the configuration to store: one rule, its KMSMasterKeyID
// (surrounding XML whitespace removed; empty: none) as given. Errors, in this order:
//  - kMalformedXML: not well-formed; a root other than ServerSideEncryptionConfiguration; an
//    element other than Rule in it, or text beside the rules; no Rule, or more than one; in a
//    Rule an element other than ApplyServerSideEncryptionByDefault and BucketKeyEnabled, or one
//    of them twice; no ApplyServerSideEncryptionByDefault; in it an element other than
//    SSEAlgorithm and KMSMasterKeyID, or one twice; no SSEAlgorithm, or one other than AES256,
//    aws:kms and aws:kms:dsse (case-sensitive); a BucketKeyEnabled other than true or false;
//  - kInvalidArgument "a KMSMasterKeyID is not applicable if the default sse algorithm is not
//    aws:kms or aws:kms:dsse": a KMSMasterKeyID element (even empty) with AES256;
//  - kNotImplemented: aws:kms:dsse (cubby has one encryption layer, no dual-layer DSSE-KMS).
XmlBodyError ParseServerSideEncryptionConfiguration(std::string_view body,
                                                    storage::BucketEncryption* out);

}  // namespace cubby::s3api
