// SigV4 presigned URLs: "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=...&X-Amz-Date=...
// &X-Amz-Expires=...&X-Amz-SignedHeaders=...&X-Amz-Signature=...".
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html
#pragma once

#include "s3api/auth/types.h"

namespace cubby::s3api::auth::sigv4 {

// Verifies a request with X-Amz-Algorithm or X-Amz-Credential in its query. The payload is
// unsigned unless X-Amz-Content-Sha256 (or the x-amz-content-sha256 header) names a hash.
// Checks, in this order, with their errors:
//  - a missing or repeated X-Amz-* parameter, an algorithm other than AWS4-HMAC-SHA256, a
//    malformed credential or X-Amz-Date, X-Amz-Expires not a number, a credential scope that
//    does not fit (date, region, service, terminator), empty signed headers →
//    AuthorizationQueryParametersError (400)
//  - X-Amz-Expires negative or over 604800 (7 days) → kExpiresOutOfRange
//    (AuthorizationQueryParametersError, 403)
//  - a content hash that is neither 64 hex digits nor UNSIGNED-PAYLOAD → InvalidArgument
//  - host, or an x-amz-* header present in the request, not signed → AccessDenied
//  - X-Amz-Date more than 15 minutes ahead of in.now → AccessDenied ("Request is not valid yet")
//  - in.now past X-Amz-Date + X-Amz-Expires, or X-Amz-Expires 0 → AccessDenied ("Request has
//    expired")
//  - unknown access key → InvalidAccessKeyId; wrong signature → SignatureDoesNotMatch
AuthResult VerifyPresigned(const VerifyInput& in);

}  // namespace cubby::s3api::auth::sigv4
