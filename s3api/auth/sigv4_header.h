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

// Verifies a request whose Authorization header starts "AWS4-". Checks, in this order, with
// their errors:
//  - malformed header or credential (ParseAuthorization) → AuthorizationHeaderMalformed
//  - no valid x-amz-date (ISO 8601 basic), or without it no valid Date (IMF-fixdate)
//    → AccessDenied
//  - credential scope: date other than the request's, region other than in.region, service
//    other than "s3", terminator other than "aws4_request" → AuthorizationHeaderMalformed
//  - no x-amz-content-sha256 → InvalidRequest; a value that is neither 64 hex digits,
//    UNSIGNED-PAYLOAD nor a STREAMING-* mode → InvalidArgument
//  - a STREAMING-* mode without x-amz-decoded-content-length → MissingContentLength; a value
//    that is not a decimal number → InvalidArgument
//  - host, or an x-amz-* header present in the request, not signed → AccessDenied
//  - request time more than 15 minutes from in.now → RequestTimeTooSkewed
//  - unknown access key → InvalidAccessKeyId; wrong signature → SignatureDoesNotMatch
AuthResult VerifyHeader(const VerifyInput& in, std::string_view authorization);

// The IAM query API's form of a header-signed request (service "iam"), whose whole body is
// already read: the payload hash is the SHA-256 of `body` (x-amz-content-sha256 is optional,
// and must then be that hash); the credential's region may be in.region, "us-east-1" or empty
// (IAM is global: the aws cli and SDKs sign it for us-east-1 whatever the endpoint, botocore with
// no region when it has none). Otherwise as VerifyHeader: a
// malformed header or a wrong scope → AuthorizationHeaderMalformed; unsigned host or x-amz-*
// headers → AccessDenied; skew → RequestTimeTooSkewed; unknown key → InvalidAccessKeyId; wrong
// signature → SignatureDoesNotMatch (the IAM front maps these to IAM's codes).
// With `service` kKmsService (the KMS JSON API) the same, but the region must be in.region.
AuthResult VerifyIamHeader(const VerifyInput& in, std::string_view authorization,
                           std::string_view body, std::string_view service = kIamService);

struct ParsedAuthorization {
  Credential credential;
  std::vector<std::string> signed_headers;
  std::string signature;
};

// Parses "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=a;b, Signature=hex" (spaces after
// the commas optional). On failure returns nullopt and a reason in *error.
std::optional<ParsedAuthorization> ParseAuthorization(std::string_view value, std::string* error);

}  // namespace cubby::s3api::auth::sigv4
