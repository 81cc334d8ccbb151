// SigV4 in the Authorization header: "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=...,
// Signature=...". https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "s3api/auth/sigv4.h"
#include "s3api/auth/types.h"

namespace cubby::s3api::auth::sigv4 {

// How a service takes a header-signed request: the scope its credential must name, where the
// payload hash comes from, and so the order of the checks (each caller's order is what its
// clients see, so it is part of the rules).
struct HeaderRules {
  std::string_view service;  // the credential scope's service: "s3", "iam", "kms"
  // A global service (IAM): a scope naming kIamSigningRegion, or no region, is taken whatever
  // the server's region (the aws cli and SDKs sign IAM requests for us-east-1 whatever the
  // endpoint, botocore with no region when it has none). Otherwise the region must be in.region.
  bool global_region = false;
  // S3: the request time is checked before the scope (a request from another day is
  // RequestTimeTooSkewed, as S3 answers it, not a scope whose date differs); otherwise only
  // once the scope and the signed headers have passed.
  bool time_before_scope = false;
  // The IAM and KMS APIs read the whole body before they authenticate: the payload hash is its
  // SHA-256, and x-amz-content-sha256 is optional (it must then be that hash). Otherwise (S3)
  // x-amz-content-sha256 is required and says how the body streaming in is protected.
  bool payload_from_body = false;
};
inline constexpr HeaderRules kS3HeaderRules{.service = kService, .time_before_scope = true};
inline constexpr HeaderRules kIamHeaderRules{
    .service = kIamService, .global_region = true, .payload_from_body = true};
inline constexpr HeaderRules kKmsHeaderRules{.service = kKmsService, .payload_from_body = true};

// Verifies a request whose Authorization header starts "AWS4-", for the service `rules` name
// (`body`: the request's whole body, read when rules.payload_from_body). Checks, in this order,
// with their errors:
//  - malformed header or credential (ParseAuthorization) → AuthorizationHeaderMalformed
//  - no valid x-amz-date (ISO 8601 basic), or without it no valid Date (IMF-fixdate)
//    → AccessDenied
//  - rules.time_before_scope: request time more than 15 minutes from in.now
//    → RequestTimeTooSkewed
//  - credential scope: date other than the request's, region other than the rules allow,
//    service other than rules.service, terminator other than "aws4_request"
//    → AuthorizationHeaderMalformed (error_region names in.region when the region is wrong)
//  - !rules.payload_from_body: no x-amz-content-sha256 → InvalidRequest; a value that is
//    neither 64 hex digits, UNSIGNED-PAYLOAD nor a STREAMING-* mode → InvalidArgument; a
//    STREAMING-* mode without x-amz-decoded-content-length → MissingContentLength, with one
//    that is not a decimal number → InvalidArgument
//  - host, or an x-amz-* header present in the request, not signed → AccessDenied
//  - !rules.time_before_scope: the request time as above → RequestTimeTooSkewed
//  - rules.payload_from_body: an x-amz-content-sha256 other than the body's SHA-256
//    → XAmzContentSHA256Mismatch
//  - unknown access key → InvalidAccessKeyId; wrong signature → SignatureDoesNotMatch
// The IAM and KMS fronts map these to their own codes.
AuthResult VerifyHeader(const VerifyInput& in, std::string_view authorization,
                        const HeaderRules& rules = kS3HeaderRules, std::string_view body = {});

struct ParsedAuthorization {
  Credential credential;
  std::vector<std::string> signed_headers;
  std::string signature;
};

// Parses "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=a;b, Signature=hex" (spaces after
// the commas optional). On failure returns nullopt and a reason in *error.
std::optional<ParsedAuthorization> ParseAuthorization(std::string_view value, std::string* error);

}  // namespace cubby::s3api::auth::sigv4
