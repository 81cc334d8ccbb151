#include "s3api/auth/auth.h"

#include <utility>
#include <vector>

#include "s3api/auth/sigv2.h"
#include "s3api/auth/sigv4.h"
#include "s3api/auth/sigv4_header.h"
#include "s3api/auth/sigv4_presigned.h"
#include "s3api/auth/sigv4_verify.h"
#include "text/ascii.h"
#include "text/uri.h"

namespace cubby::s3api::auth {
namespace {

enum class Scheme { kAnonymous, kHeaderV4, kHeaderV2, kHeaderUnknown, kQueryV4, kQueryV2 };

bool HasQueryV4(const std::vector<text::NameValue>& params) {
  return text::FindValue(params, sigv4::kQueryAlgorithm) != nullptr ||
         text::FindValue(params, sigv4::kQueryCredential) != nullptr;
}

// Any SigV2 parameter makes it a SigV2 presigned request, so a missing one is an error rather
// than an anonymous request.
bool HasQueryV2(const std::vector<text::NameValue>& params) {
  return text::FindValue(params, "AWSAccessKeyId") != nullptr;
}

// Presigned query first, then the header, then anonymous. (Authenticate has already refused a
// request that carries both.)
Scheme DetectScheme(const std::string* authorization,
                    const std::vector<text::NameValue>& params) {
  if (HasQueryV4(params)) return Scheme::kQueryV4;
  if (HasQueryV2(params)) return Scheme::kQueryV2;
  if (authorization == nullptr) return Scheme::kAnonymous;
  const std::string_view v = *authorization;
  if (v.starts_with("AWS4-")) return Scheme::kHeaderV4;
  if (v.starts_with("AWS ")) return Scheme::kHeaderV2;
  return Scheme::kHeaderUnknown;
}

// An anonymous request may still send an aws-chunked body with an unsigned trailer (SDKs do
// for checksums); anything else in x-amz-content-sha256 is not checked, as before.
AuthResult AuthenticateAnonymous(const HttpRequest& request) {
  AuthResult result;
  const std::string* content_sha256 = FindHeader(request.headers, sigv4::kAmzContentSha256);
  if (content_sha256 == nullptr || *content_sha256 != sigv4::kStreamingUnsignedTrailer) {
    return result;
  }
  result.payload = PayloadMode::kStreamingUnsignedTrailer;
  return sigv4::ReadStreamingHeaders(request.headers, std::move(result));
}

}  // namespace

AuthResult Authenticate(const HttpRequest& request, std::string_view region,
                        const KeyLookup& lookup, std::chrono::system_clock::time_point now,
                        std::string_view vhost_bucket) {
  const std::string_view target = request.target;
  const size_t q = target.find('?');
  const std::string_view raw_query =
      q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);
  const std::vector<text::NameValue> params = sigv4::SplitQuery(raw_query);
  const VerifyInput in{request, target.substr(0, q), raw_query, params, region, vhost_bucket,
                       lookup,  now};
  const std::string* authorization = FindHeader(request.headers, sigv4::kAuthorization);
  // An empty Authorization header carries no credential: the request is anonymous, as S3 and
  // RGW take it (s3-tests test_object_create_bad_authorization_empty: 403 AccessDenied where
  // anonymous callers may not write), whatever x-amz-date or x-amz-content-sha256 it has.
  if (authorization != nullptr && text::TrimOws(*authorization).empty()) authorization = nullptr;
  if (authorization != nullptr && (HasQueryV4(params) || HasQueryV2(params))) {
    return Refuse(ErrorCode::kInvalidArgument,
                  "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, "
                  "Signature query string parameter or the Authorization header should be "
                  "specified");
  }
  switch (DetectScheme(authorization, params)) {
    case Scheme::kQueryV4:
      return sigv4::VerifyPresigned(in);
    case Scheme::kQueryV2:
      return sigv2::VerifyQuery(in);
    case Scheme::kHeaderV4:
      return sigv4::VerifyHeader(in, *authorization);
    case Scheme::kHeaderV2:
      return sigv2::VerifyHeader(in, *authorization);
    case Scheme::kHeaderUnknown:
      return Refuse(ErrorCode::kAuthorizationHeaderMalformed,
                    "The authorization header is malformed; Unsupported authorization type; "
                    "expecting \"AWS4-HMAC-SHA256\".");
    case Scheme::kAnonymous:
      return AuthenticateAnonymous(request);
  }
  return Refuse(ErrorCode::kInternalError);
}

namespace {

// A SigV4-header request of a query or JSON API on the S3 port, signed for `rules`' service.
AuthResult AuthenticateService(const HttpRequest& request, std::string_view region,
                               const KeyLookup& lookup, std::chrono::system_clock::time_point now,
                               std::string_view body, const sigv4::HeaderRules& rules) {
  const std::string_view target = request.target;
  const size_t q = target.find('?');
  const std::string_view raw_query =
      q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);
  const std::vector<text::NameValue> params = sigv4::SplitQuery(raw_query);
  const VerifyInput in{request, target.substr(0, q), raw_query, params, region, {}, lookup, now};
  const std::string* authorization = FindHeader(request.headers, sigv4::kAuthorization);
  if (authorization == nullptr || !authorization->starts_with(sigv4::kAlgorithm)) {
    return Refuse(ErrorCode::kAccessDenied, "missing");
  }
  return sigv4::VerifyHeader(in, *authorization, rules, body);
}

}  // namespace

AuthResult AuthenticateIam(const HttpRequest& request, std::string_view region,
                           const KeyLookup& lookup, std::chrono::system_clock::time_point now,
                           std::string_view body) {
  return AuthenticateService(request, region, lookup, now, body, sigv4::kIamHeaderRules);
}

AuthResult AuthenticateKms(const HttpRequest& request, std::string_view region,
                           const KeyLookup& lookup, std::chrono::system_clock::time_point now,
                           std::string_view body) {
  return AuthenticateService(request, region, lookup, now, body, sigv4::kKmsHeaderRules);
}

}  // namespace cubby::s3api::auth
