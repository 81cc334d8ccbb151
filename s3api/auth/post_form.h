// POST Object's form authentication: who signed a browser form, from its fields, the key table
// and the server's region. A pure function; the policy the form carries is the caller's to
// check (s3api/post_policy.h) once the signature over it has passed.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-authentication-HTTPPOST.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/HTTPPOSTForms.html (SigV2)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "s3api/auth/types.h"
#include "s3api/http.h"

namespace cubby::s3api::auth {

// The caller of a form, by its fields (names lowercase):
//  - x-amz-algorithm, x-amz-credential or x-amz-signature present: SigV4. x-amz-algorithm must
//    be AWS4-HMAC-SHA256 (InvalidArgument); each of x-amz-algorithm, x-amz-credential,
//    x-amz-date, x-amz-signature and policy is required; the credential's scope must be
//    <date>/`region`/s3/aws4_request (AuthorizationQueryParametersError); the key must exist
//    (InvalidAccessKeyId); x-amz-signature must be the hex HMAC-SHA256 of the policy field (as
//    sent, base64) under the derived signing key (SignatureDoesNotMatch).
//  - else AWSAccessKeyId or signature present: SigV2. Both and policy are required; signature
//    must be base64 HMAC-SHA1(secret, policy field).
//  - else a policy alone: InvalidArgument, the form must name AWSAccessKeyId.
//  - else anonymous.
// A missing field is InvalidArgument MissingPostField(name). Signatures compare in constant
// time. The result's payload mode is kUnsigned (the form's bytes are not signed).
AuthResult AuthenticatePostForm(const std::vector<FormField>& fields, std::string_view region,
                                const KeyLookup& lookup);

// The InvalidArgument message for a missing form field: "Bucket POST must contain a field named
// '<name>'.  If it is specified, please check the order of the fields."
std::string MissingPostField(std::string_view name);

}  // namespace cubby::s3api::auth
