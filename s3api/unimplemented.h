// Requests that ask, by a header, for a feature cubby does not implement yet: server-side
// encryption (SSE-S3, SSE-KMS, DSSE-KMS, SSE-C). Ignoring such a header would
// store the object unprotected and answer as if it were protected, so the request is refused
// instead, before its body is read. When a feature lands, its rows leave the table in
// unimplemented.cc.
#pragma once

#include <string>

#include "s3api/errors.h"
#include "s3api/http.h"
#include "s3api/router.h"

namespace cubby::s3api {

struct Refusal {
  ErrorCode code = ErrorCode::kNone;  // kNone: the request asks for nothing unimplemented
  std::string message;                // the error document's <Message>
};

// The refusal of a request for operation `op` with the headers of `request`; code kNone when
// none of its headers asks for an unimplemented feature. A pure function of its arguments.
//  - NotImplemented (501), with a message naming the feature and the header, for:
//    - x-amz-server-side-encryption with a method AWS knows (AES256, aws:kms, aws:kms:dsse,
//      aws:fsx), x-amz-server-side-encryption-aws-kms-key-id, -context, and
//      -bucket-key-enabled other than "false", on PutObject, CopyObject and
//      CreateMultipartUpload;
//    - x-amz-server-side-encryption-customer-algorithm, -key or -key-md5 (SSE-C) on those and
//      on UploadPart, UploadPartCopy, CompleteMultipartUpload, ListParts, GetObject and
//      HeadObject;
//    - x-amz-copy-source-server-side-encryption-customer-* on CopyObject and UploadPartCopy.
//  - InvalidArgument (400) "The encryption method specified is not supported" for an
//    x-amz-server-side-encryption value that is no method AWS knows (as AWS answers it).
// Headers on other operations are ignored, as today. The first header of the list above that
// the request carries decides.
Refusal RefuseUnimplemented(Operation op, const HttpRequest& request);

}  // namespace cubby::s3api
