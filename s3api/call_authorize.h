// The question every front door besides S3's (the IAM API, KMS, the /_cubby/ admin endpoints)
// asks once it has authenticated a request: iam::Authorizer::AuthorizeCall, with what the
// request says about itself for the policies' global condition keys.
#pragma once

#include <chrono>
#include <string_view>

#include "iam/authorize.h"
#include "s3api/auth/types.h"
#include "s3api/http.h"

namespace cubby::s3api {

// The address part of "ip:port" or "[v6]:port" (aws:SourceIp).
std::string_view PeerAddress(std::string_view remote);

// The facts every front door shares: aws:SourceIp, aws:SecureTransport, aws:CurrentTime,
// aws:Referer, aws:UserAgent, s3:TlsVersion and the signature's (s3:signatureversion,
// s3:authType, s3:signatureAge) for a caller `who` authenticated. Views into `request` and `who`.
iam::RequestFacts CallFacts(const HttpRequest& request, const auth::AuthResult& who,
                            std::chrono::system_clock::time_point now);

// Whether `who` (authenticated, not anonymous) may call `action` ("kms:DescribeKey") on
// `resource` (an ARN or "*"), with CallFacts of `request`.
iam::Decision AuthorizeCall(const iam::Authorizer& authorizer, const HttpRequest& request,
                            const auth::AuthResult& who, std::chrono::system_clock::time_point now,
                            std::string_view action, std::string_view resource);

}  // namespace cubby::s3api
