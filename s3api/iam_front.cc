#include "s3api/iam_front.h"

#include <string>

#include "iam/iam_api.h"
#include "s3api/auth/auth.h"
#include "s3api/call_authorize.h"
#include "text/ascii.h"
#include "text/time.h"
#include "text/uri.h"

namespace cubby::s3api {
namespace {

// The IAM code for an authentication failure (https://docs.aws.amazon.com/IAM/latest/
// APIReference/CommonErrors.html).
iam::IamError FromAuth(const auth::AuthResult& auth) {
  if (auth.error == ErrorCode::kInvalidAccessKeyId) return iam::IamError::kInvalidClientTokenId;
  if (auth.error == ErrorCode::kSignatureDoesNotMatch ||
      auth.error == ErrorCode::kRequestTimeTooSkewed) {
    return iam::IamError::kSignatureDoesNotMatch;
  }
  if (auth.error == ErrorCode::kAccessDenied && auth.error_message == "missing") {
    return iam::IamError::kMissingAuthenticationToken;
  }
  // A malformed or mis-scoped Authorization, unsigned x-amz-* headers, a payload hash that does
  // not match the body.
  return iam::IamError::kIncompleteSignature;
}

std::string_view Query(const HttpRequest& request) {
  const size_t q = request.target.find('?');
  return q == std::string::npos ? std::string_view()
                                : std::string_view(request.target).substr(q + 1);
}

std::string_view Path(const HttpRequest& request) {
  return std::string_view(request.target).substr(0, request.target.find('?'));
}

HttpResponse ToHttp(const iam::IamResponse& r, const HttpRequest& request,
                    RequestSummary* summary) {
  HttpResponse out;
  out.status = r.status;
  out.Set("Content-Type", "text/xml");
  out.Set("x-amzn-RequestId", request.request_id);
  out.body = r.body;
  summary->operation = "iam:" + (r.action.empty() ? std::string("Unknown") : r.action);
  if (r.error != iam::IamError::kNone) summary->error = std::string(iam::Info(r.error).code);
  return out;
}

}  // namespace

bool IsIamRequest(const HttpRequest& request) {
  if (Path(request) != "/") return false;
  if (request.method == "POST") {
    const std::string* type = request.Find("content-type");
    return type != nullptr &&
           text::StartsWithIgnoreCase(*type, "application/x-www-form-urlencoded");
  }
  if (request.method == "GET") {
    for (const text::NameValue& p :
         text::SplitUrlEncodedLenient(Query(request), text::Plus::kSpace)) {
      if (p.name == "Action") return true;
    }
  }
  return false;
}

HttpResponse ServeIam(storage::Store& store, const iam::Authorizer& authorizer,
                      const ServiceOptions& options, const HttpRequest& request, BodyReader& body,
                      std::chrono::system_clock::time_point now, const auth::KeyLookup& lookup,
                      RequestSummary* summary) {
  summary->operation = "iam:Unknown";
  std::string form;
  if (request.method == "POST") {
    const BoundedBody read =
        ReadBoundedBody(body, request.content_length, iam::kMaxIamFormBytes, &form);
    if (read.outcome == BoundedBody::kTooLarge) {
      return ToHttp(iam::ErrorResponse(iam::IamError::kRequestEntityTooLarge,
                                       "the request body is too large", request.request_id),
                    request, summary);
    }
    if (read.outcome == BoundedBody::kFailed) {
      return ToHttp(iam::ErrorResponse(iam::IamError::kValidationError,
                                       "the request body could not be read", request.request_id),
                    request, summary);
    }
  }
  const auth::AuthResult who = auth::AuthenticateIam(request, options.region, lookup, now, form);
  if (who.key) summary->access_key_id = who.key->access_key_id;
  if (who.error != ErrorCode::kNone) {
    const iam::IamError error = FromAuth(who);
    const std::string message =
        error == iam::IamError::kMissingAuthenticationToken
            ? "Request is missing Authentication Token"
        : error == iam::IamError::kInvalidClientTokenId
            ? "The security token included in the request is invalid."
        : error == iam::IamError::kSignatureDoesNotMatch
            ? "The request signature we calculated does not match the signature you provided."
            : who.error_message;
    return ToHttp(iam::ErrorResponse(error, message, request.request_id), request, summary);
  }
  iam::IamRequest parsed;
  std::string why;
  const std::string_view source =
      request.method == "POST" ? std::string_view(form) : Query(request);
  if (iam::IamError e = iam::ParseIamForm(source, &parsed, &why); e != iam::IamError::kNone) {
    return ToHttp(iam::ErrorResponse(e, why, request.request_id), request, summary);
  }
  const iam::RequestFacts facts = CallFacts(request, who, now);
  const iam::IamCaller caller{.key = *who.key, .authorizer = authorizer, .facts = facts};
  return ToHttp(
      iam::HandleIam(store, caller, parsed, request.request_id, text::ToUnixMillis(now)),
      request, summary);
}

}  // namespace cubby::s3api
