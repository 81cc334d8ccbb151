// aws-chunked decoding, private to s3api/auth: WrapBody (auth.h) uses it for the STREAMING-*
// payload modes and documents the behaviour.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming-trailers.html
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "s3api/auth/auth.h"

namespace cubby::s3api::auth {

// REQUIRES: auth.payload is one of the STREAMING-* modes.
std::unique_ptr<PayloadReader> MakeChunkedReader(const AuthResult& auth,
                                                 std::unique_ptr<BodyReader> raw);

// The trailer signature's string to sign:
// "AWS4-HMAC-SHA256-TRAILER\n<amz_date>\n<scope>\n<previous>\n<hex sha256(canonical)>", where
// canonical is "name:value\n" for each trailer (other than x-amz-trailer-signature), sorted by
// name.
std::string TrailerStringToSign(std::string_view amz_date, std::string_view scope,
                                std::string_view previous_signature,
                                const std::vector<Header>& trailers);

}  // namespace cubby::s3api::auth
