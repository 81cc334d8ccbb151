// The router: a pure function from the request line and Host header to the AWS action it asks
// for, the bucket, the (percent-decoded) key and the action's parameters, parsed and checked.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_Operations_Amazon_Simple_Storage_Service.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/VirtualHosting.html
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "s3api/errors.h"

namespace cubby::s3api {

enum class Operation {
  kListBuckets,
  kCreateBucket,
  kHeadBucket,
  kDeleteBucket,
  kGetBucketLocation,
  kGetBucketVersioning,
  kPutBucketVersioning,
  kListObjectVersions,
  kGetBucketAcl,
  kPutBucketAcl,
  kGetObjectAcl,
  kGetBucketPolicy,
  kPutBucketPolicy,
  kDeleteBucketPolicy,
  kGetBucketPolicyStatus,
  kPutObjectAcl,
  kGetBucketOwnershipControls,
  kPutBucketOwnershipControls,
  kDeleteBucketOwnershipControls,
  kGetPublicAccessBlock,
  kPutPublicAccessBlock,
  kDeletePublicAccessBlock,
  kGetBucketLifecycleConfiguration,
  kPutBucketLifecycleConfiguration,
  kDeleteBucketLifecycle,
  kListObjects,
  kListObjectsV2,
  kPutObject,
  kGetObject,
  kHeadObject,
  kDeleteObject,
  kCreateMultipartUpload,
  kUploadPart,
  kUploadPartCopy,
  kCompleteMultipartUpload,
  kAbortMultipartUpload,
  kListParts,
  kListMultipartUploads,
  kCopyObject,
  kDeleteObjects,
  kGetObjectLockConfiguration,
  kPutObjectLockConfiguration,
  kGetObjectRetention,
  kPutObjectRetention,
  kGetObjectLegalHold,
  kPutObjectLegalHold,
  kGetObjectTagging,
  kGetObjectAttributes,  // GET ?attributes (versionId)
  kPutObjectTagging,
  kDeleteObjectTagging,
  kGetBucketTagging,
  kPutBucketTagging,
  kDeleteBucketTagging,
  kGetBucketCors,
  kPutBucketCors,
  kDeleteBucketCors,
  // POST on a bucket (a browser form upload, multipart/form-data): authenticated from the form
  // by its handler, not by the service (post_object.cc).
  kPostObject,
  // Bucket sub-resources cubby keeps no configuration for (bucket_subresources.cc).
  kGetBucketWebsite,
  kPutBucketWebsite,
  kDeleteBucketWebsite,
  kGetBucketLogging,
  kPutBucketLogging,
  kGetBucketNotificationConfiguration,
  kPutBucketNotificationConfiguration,
  kGetBucketRequestPayment,
  kPutBucketRequestPayment,
  kGetBucketAccelerateConfiguration,
  kPutBucketAccelerateConfiguration,
  kGetBucketReplication,
  kPutBucketReplication,
  kDeleteBucketReplication,
  kGetBucketEncryption,
  kPutBucketEncryption,
  kDeleteBucketEncryption,
  kListBucketAnalyticsConfigurations,
  kGetBucketAnalyticsConfiguration,
  kPutBucketAnalyticsConfiguration,
  kDeleteBucketAnalyticsConfiguration,
  kListBucketMetricsConfigurations,
  kGetBucketMetricsConfiguration,
  kPutBucketMetricsConfiguration,
  kDeleteBucketMetricsConfiguration,
  kListBucketInventoryConfigurations,
  kGetBucketInventoryConfiguration,
  kPutBucketInventoryConfiguration,
  kDeleteBucketInventoryConfiguration,
  kListBucketIntelligentTieringConfigurations,
  kGetBucketIntelligentTieringConfiguration,
  kPutBucketIntelligentTieringConfiguration,
  kDeleteBucketIntelligentTieringConfiguration,
  kOptionsObject,   // a CORS preflight (OPTIONS on a bucket or object): never authenticated
  kNotImplemented,  // a sub-resource or action cubby does not implement (?torrent, ...)
  // Not an operation: how many there are. Keep it last; operations.cc's table must have a row
  // for every operation above, in this order (a static_assert checks it).
  kCount,
};

// The AWS action name ("ListObjectsV2"); "NotImplemented" for kNotImplemented.
std::string_view OperationName(Operation op);

// Keys longer than this (in bytes, after decoding) are KeyTooLongError.
inline constexpr size_t kMaxKeyBytes = 1024;
// Parts are numbered 1..kMaxPartNumber.
inline constexpr uint32_t kMaxPartNumber = 10000;
// The default and the cap of max-keys, max-uploads and max-parts.
inline constexpr size_t kMaxListEntries = 1000;

// A query parameter that was present but malformed: the AWS error that refuses it.
struct ParamError {
  ErrorCode code = ErrorCode::kNone;
  std::string message;
};

// The parameters of ListObjects, ListObjectsV2, ListMultipartUploads and ListParts.
struct ListParams {
  std::string prefix;
  std::string delimiter;
  bool url_encode = false;                        // encoding-type=url
  size_t max_entries = kMaxListEntries;           // max-keys, max-uploads or max-parts, capped
  std::string marker;                             // ListObjects
  std::optional<std::string> continuation_token;  // ListObjectsV2, as sent (echoed back, "" too)
  std::optional<std::string> start_after;         // ListObjectsV2
  std::string start_key;     // ListObjectsV2: the token's key when one is sent, else start-after
  bool fetch_owner = false;  // ListObjectsV2: fetch-owner=true
  std::string key_marker;    // ListMultipartUploads, ListObjectVersions
  std::string upload_id_marker;     // ListMultipartUploads; "" without a key-marker
  std::string version_id_marker;    // ListObjectVersions
  uint32_t part_number_marker = 0;  // ListParts
};

// GetObject's response-* parameters, each replacing a stored header when present.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html
struct ResponseOverrides {
  std::optional<std::string> content_type;
  std::optional<std::string> content_language;
  std::optional<std::string> expires;
  std::optional<std::string> cache_control;
  std::optional<std::string> content_disposition;
  std::optional<std::string> content_encoding;

  bool any() const;
};

// A request routed: the operation and its parameters, parsed. Each operation reads only the
// members its comment names; the router parses only the parameters of the operation it chose
// (a max-keys on ListMultipartUploads is ignored, as AWS ignores it). New parameters (versionId,
// tagging, attributes, ...) become typed members here, parsed in router.cc.
struct Route {
  ErrorCode error = ErrorCode::kNone;  // kInvalidURI, kKeyTooLongError, kMethodNotAllowed
  Operation op = Operation::kNotImplemented;
  std::string bucket;  // empty for service-level requests (ListBuckets)
  std::string key;     // empty for bucket-level requests
  std::string path;    // the raw path (no query), for <Resource> in error documents
  bool virtual_host = false;  // the bucket came from the Host header

  // The first malformed parameter of the operation, refused once, here. The service answers it
  // after authorization, where the handlers answered it before routes were typed, except for
  // GetObject / HeadObject's partNumber, which GetObject answers after opening the object and
  // checking its preconditions (so NoSuchKey, 304 and 412 still win over it).
  ParamError param_error;
  std::string upload_id;  // uploadId: UploadPart(Copy), Complete/AbortMultipartUpload, ListParts
  // partNumber in 1..kMaxPartNumber: UploadPart(Copy); GetObject / HeadObject when sent.
  std::optional<uint32_t> part_number;
  bool part_number_sent = false;  // partNumber was in the query, well-formed or not
  ListParams list;
  ResponseOverrides overrides;  // GetObject / HeadObject
  // versionId (GetObject, HeadObject, DeleteObject, Get/PutObjectAcl, Get/PutObjectRetention,
  // Get/PutObjectLegalHold, Get/Put/DeleteObjectTagging): the version addressed,
  // as sent ("null" names the null version); nullopt: the current one. An empty value is
  // refused (param_error).
  std::optional<std::string> version_id;
};

// `target` is the raw request-target ("/b/k%20x?acl"); `host` the Host header ("" if absent);
// `domain` the configured virtual-host domain ("" disables virtual-hosted-style).
// `copy_source` tells whether x-amz-copy-source is present (CopyObject / UploadPartCopy).
// The path and query are percent-decoded strictly (a bad escape is InvalidURI); '+' is a space
// in the query only. A key that is not UTF-8 (text/utf8.h) is InvalidURI too, except for
// DeleteObject, so that such a key stored before this rule can be removed. A repeated parameter
// counts once, by its first value. Malformed values and their errors (all InvalidArgument, with
// AWS's messages):
//  - partNumber not a decimal integer in 1..10000;
//  - max-keys, max-uploads, max-parts not a decimal integer (a value above 1000, or too large
//    for 64 bits, means 1000);
//  - part-number-marker not a decimal integer in 0..10000;
//  - encoding-type other than "url";
//  - continuation-token empty or not base64;
//  - versionId empty;
//  - ListObjectVersions' version-id-marker without key-marker.
Route RouteRequest(std::string_view method, std::string_view target, std::string_view host,
                   std::string_view domain, bool copy_source);

}  // namespace cubby::s3api
