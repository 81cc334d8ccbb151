// AWS Signature Version 2 (legacy; botocore still presigns S3 URLs with it by default): the
// header form "Authorization: AWS AKID:base64(hmac-sha1)", the query form AWSAccessKeyId /
// Signature / Expires, and their steps (exposed for the tests).
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/RESTAuthentication.html
// The canonicalized resource is "/" + in.vhost_bucket + the raw path when the request was routed
// virtual-hosted-style, else the raw path; plus the S3 sub-resources (acl, uploadId, partNumber,
// versionId, response-*, ...). The payload is unsigned (payload = kUnsigned,
// signature_version = 2). error_message never contains secret-derived data.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "s3api/auth/types.h"
#include "s3api/http.h"

namespace cubby::s3api::auth::sigv2 {

// Verifies a request whose Authorization header starts "AWS ". Errors, in this order:
//  - no ':' or an empty part → InvalidArgument ("AWS authorization header is invalid.
//    Expected AwsAccessKeyId:signature")
//  - no valid Date / x-amz-date → AccessDenied; more than 15 min off → RequestTimeTooSkewed
//  - unknown key → InvalidAccessKeyId; wrong signature → SignatureDoesNotMatch (constant time)
AuthResult VerifyHeader(const VerifyInput& in, std::string_view authorization);

// Verifies a request with AWSAccessKeyId in its query. Errors, in this order:
//  - Signature, AWSAccessKeyId or Expires missing or empty, or Expires not a number
//    → AccessDenied ("Query-string authentication requires the Signature, Expires and
//    AWSAccessKeyId parameters")
//  - in.now past Expires → AccessDenied ("Request has expired")
//  - unknown key → InvalidAccessKeyId; wrong signature → SignatureDoesNotMatch (constant time)
AuthResult VerifyQuery(const VerifyInput& in);

// True for the query parameters that are part of the canonicalized resource (acl, uploadId,
// partNumber, versionId, response-content-type, ...; botocore's list).
bool IsSubResource(std::string_view name);

// "/" + vhost_bucket + raw_path (just raw_path when vhost_bucket is empty), then the
// sub-resources of raw_query sorted by name: "?acl&uploadId=x". Names are compared as sent;
// values are percent-decoded ('+' stays '+'). A sub-resource with an empty value ("?uploads=",
// as minio-go sends it) is written without '=' ("?uploads"), as AWS defines the resource.
std::string CanonicalResource(std::string_view vhost_bucket, std::string_view raw_path,
                              std::string_view raw_query);

// The resources a client may have signed for this request: CanonicalResource first, then, for
// a bucket-level request ("/bucket" or "/bucket/"), the other slash form (botocore signs
// "/bucket/" for a path-style "/bucket") and botocore's doubled sub-resource form
// ("/bucket?acl?acl", from its auth_path already holding the operation's "?acl"). All name
// the same resource, so accepting each weakens nothing. When a sub-resource has an empty value,
// the form that keeps its '=' ("/b?uploads=", what a signer copying the query signs) comes
// second.
std::vector<std::string> CandidateResources(std::string_view vhost_bucket,
                                            std::string_view raw_path,
                                            std::string_view raw_query);

// "name:value\n" for every x-amz-* header, names lowercase and sorted, values trimmed, the
// values of a repeated header joined by ','.
std::string CanonicalAmzHeaders(const std::vector<Header>& headers);

// "METHOD\nContent-MD5\nContent-Type\n<date>\n<amz headers><resource>"
std::string StringToSign(std::string_view method, std::string_view content_md5,
                         std::string_view content_type, std::string_view date,
                         std::string_view amz_headers, std::string_view resource);

// base64(HMAC-SHA1(secret, string_to_sign)).
std::string Signature(std::string_view secret, std::string_view string_to_sign);

}  // namespace cubby::s3api::auth::sigv2
