// The router: a pure function from the request line and Host header to the AWS action it asks
// for, the bucket, the (percent-decoded) key and the decoded query parameters.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_Operations_Amazon_Simple_Storage_Service.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/VirtualHosting.html
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "s3api/errors.h"

namespace cubby::s3api {

enum class Operation {
  kListBuckets,
  kCreateBucket,
  kHeadBucket,
  kDeleteBucket,
  kGetBucketLocation,
  kGetBucketVersioning,
  kGetBucketAcl,
  kPutBucketAcl,
  kGetObjectAcl,
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
  kNotImplemented,  // a sub-resource or action cubby does not implement (?policy, ?tagging, ...)
};

// The AWS action name ("ListObjectsV2"); "NotImplemented" for kNotImplemented.
std::string_view OperationName(Operation op);

// Keys longer than this (in bytes, after decoding) are KeyTooLongError.
inline constexpr size_t kMaxKeyBytes = 1024;

struct Route {
  ErrorCode error = ErrorCode::kNone;  // kInvalidURI, kKeyTooLongError, kMethodNotAllowed
  Operation op = Operation::kNotImplemented;
  std::string bucket;  // empty for service-level requests (ListBuckets)
  std::string key;     // empty for bucket-level requests
  std::vector<std::pair<std::string, std::string>> params;  // decoded, in request order
  std::string path;    // the raw path (no query), for <Resource> in error documents
  bool virtual_host = false;  // the bucket came from the Host header

  bool Has(std::string_view name) const;
  // First value of `name`, or nullptr.
  const std::string* Param(std::string_view name) const;
};

// `target` is the raw request-target ("/b/k%20x?acl"); `host` the Host header ("" if absent);
// `domain` the configured virtual-host domain ("" disables virtual-hosted-style).
// `copy_source` tells whether x-amz-copy-source is present (CopyObject / UploadPartCopy).
Route RouteRequest(std::string_view method, std::string_view target, std::string_view host,
                   std::string_view domain, bool copy_source);

// Percent-decodes `in`; `plus_is_space` for query components. False on a bad escape.
bool PercentDecode(std::string_view in, bool plus_is_space, std::string* out);

}  // namespace cubby::s3api
