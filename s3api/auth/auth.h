// Request authentication, the one entry point: which scheme a request uses, decided in a fixed
// order (presigned query, then the Authorization header, then anonymous, as Garage orders it),
// and that scheme's verifier. Pure functions of the request, the key table and the clock, so
// they are tested with AWS's published vectors.
//   SigV4 header     sigv4_header.h      SigV4 presigned query  sigv4_presigned.h
//   SigV2 both forms sigv2.h             streaming bodies       payload.h (WrapBody)
#pragma once

#include <chrono>
#include <string_view>

#include "s3api/auth/payload.h"  // the body of an authenticated request goes through WrapBody
#include "s3api/auth/types.h"
#include "s3api/http.h"

namespace cubby::s3api::auth {

// Authenticates `request` and returns the caller's identity (anonymous when it carries no
// credentials) and how its body is protected, or the S3 error that refuses it. `region` is the
// server's SigV4 region; `vhost_bucket` the routed bucket of a virtual-hosted-style request
// (SigV2 signs it into the resource). The scheme:
//  - both an Authorization header and presign parameters (X-Amz-Algorithm, X-Amz-Credential or
//    AWSAccessKeyId) → InvalidArgument
//  - Authorization "AWS4-..." → sigv4::VerifyHeader; "AWS ..." → sigv2::VerifyHeader; anything
//    else → AuthorizationHeaderMalformed ("Unsupported authorization type")
//  - X-Amz-Algorithm or X-Amz-Credential in the query → sigv4::VerifyPresigned; else
//    AWSAccessKeyId → sigv2::VerifyQuery
//  - no credentials: anonymous, payload unsigned; but x-amz-content-sha256
//    STREAMING-UNSIGNED-PAYLOAD-TRAILER is decoded as such (SDKs send checksums that way), and
//    then needs x-amz-decoded-content-length (MissingContentLength, or InvalidArgument if it is
//    not a decimal number)
// Each verifier's header lists its checks and errors. The canonical URI and query are built
// from the target as sent, with percent-encoding normalised ("!" and "%21" verify alike; "%2F"
// stays distinct from "/"); '+' in the query is a space. error_message never contains
// secret-derived data.
AuthResult Authenticate(const HttpRequest& request, std::string_view region,
                        const KeyLookup& lookup, std::chrono::system_clock::time_point now,
                        std::string_view vhost_bucket = {});

// Authenticates a request of the IAM query API (service "iam"; s3api/iam_front.cc) whose whole
// body `body` is read: only an Authorization header signed with SigV4 is accepted
// (sigv4::VerifyHeader with kIamHeaderRules). No Authorization header (or one of another
// scheme) → AccessDenied with error_message "missing"; else as VerifyHeader.
AuthResult AuthenticateIam(const HttpRequest& request, std::string_view region,
                           const KeyLookup& lookup, std::chrono::system_clock::time_point now,
                           std::string_view body);

// Authenticates a request of the KMS JSON API (service "kms"; s3api/kms_front.cc) whose whole
// body `body` is read: as AuthenticateIam, but the credential's region must be `region`.
AuthResult AuthenticateKms(const HttpRequest& request, std::string_view region,
                           const KeyLookup& lookup, std::chrono::system_clock::time_point now,
                           std::string_view body);

}  // namespace cubby::s3api::auth
