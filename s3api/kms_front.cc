#include "s3api/kms_front.h"

#include <string>

#include "kms/kms.h"
#include "s3api/auth/auth.h"
#include "s3api/call_authorize.h"
#include "text/json.h"
#include "text/time.h"

namespace cubby::s3api {
namespace {

constexpr std::string_view kTargetPrefix = "TrentService.";

// KMS's answers to authentication failures: the JSON protocol's common errors
// (https://docs.aws.amazon.com/kms/latest/APIReference/CommonErrors.html).
struct AuthFailure {
  const char* type;
  const char* message;
};

AuthFailure FromAuth(const auth::AuthResult& auth) {
  if (auth.error == ErrorCode::kAccessDenied && auth.error_message == "missing") {
    return {"MissingAuthenticationTokenException", "Missing Authentication Token"};
  }
  if (auth.error == ErrorCode::kInvalidAccessKeyId) {
    return {"UnrecognizedClientException",
            "The security token included in the request is invalid."};
  }
  if (auth.error == ErrorCode::kSignatureDoesNotMatch) {
    return {"InvalidSignatureException",
            "The request signature we calculated does not match the signature you provided. "
            "Check your AWS Secret Access Key and signing method. Consult the service "
            "documentation for details."};
  }
  if (auth.error == ErrorCode::kRequestTimeTooSkewed) {
    return {"InvalidSignatureException", "Signature expired: the request time is too skewed."};
  }
  // A malformed or mis-scoped Authorization, unsigned x-amz-* headers, a payload hash that does
  // not match the body.
  return {"IncompleteSignatureException", nullptr};
}

HttpResponse Json(int status, std::string body, const HttpRequest& request) {
  HttpResponse out;
  out.status = status;
  out.Set("Content-Type", "application/x-amz-json-1.1");
  out.Set("x-amzn-RequestId", request.request_id);
  out.body = std::move(body);
  return out;
}

HttpResponse Error(std::string_view type, std::string_view message, const HttpRequest& request,
                   RequestSummary* summary, int status = 400) {
  summary->error = std::string(type);
  return Json(status, kms::ErrorJson(type, message), request);
}

// The ARN a KMS request names a key or alias by: `id` as given when it is an ARN, an alias
// name's alias ARN, else a key id's key ARN.
std::string KmsArn(std::string_view id, std::string_view region, std::string_view account) {
  if (id.starts_with("arn:")) return std::string(id);
  std::string arn = "arn:aws:kms:" + std::string(region) + ":" + std::string(account) + ":";
  if (!id.starts_with("alias/")) arn += "key/";
  return arn + std::string(id);
}

std::string_view OperationOf(const HttpRequest& request) {
  const std::string* target = request.Find("x-amz-target");
  return target == nullptr ? std::string_view()
                           : std::string_view(*target).substr(kTargetPrefix.size());
}

}  // namespace

std::vector<std::string> KmsResources(std::string_view operation, std::string_view json,
                                      std::string_view region, std::string_view account) {
  if (operation == "CreateKey" || operation == "ListKeys" || operation == "ListAliases") {
    return {"*"};
  }
  text::JsonValue doc;
  const bool parsed = text::ParseJson(json, json.size(), &doc, nullptr) &&
                      doc.type == text::JsonType::kObject;
  const auto named = [&](std::string_view member) -> std::string {
    const text::JsonValue* value = parsed ? doc.Find(member) : nullptr;
    if (value == nullptr || value->type != text::JsonType::kString) return "*";
    return KmsArn(value->text, region, account);
  };
  if (operation == "CreateAlias") return {named("AliasName"), named("TargetKeyId")};
  if (operation == "DeleteAlias") return {named("AliasName")};
  return {named("KeyId")};
}

bool IsKmsRequest(const HttpRequest& request) {
  if (request.method != "POST" || request.target != "/") return false;
  const std::string* target = request.Find("x-amz-target");
  return target != nullptr && target->starts_with(kTargetPrefix);
}

HttpResponse ServeKms(const iam::Authorizer& authorizer, const ServiceOptions& options,
                      const HttpRequest& request, BodyReader& body,
                      std::chrono::system_clock::time_point now, const auth::KeyLookup& lookup,
                      RequestSummary* summary) {
  const std::string_view operation = OperationOf(request);
  summary->operation =
      "kms:" + (kms::IsApiOperation(operation) ? std::string(operation) : std::string("Unknown"));
  std::string json;
  const BoundedBody read = ReadBoundedBody(body, request.content_length, kMaxKmsBodyBytes, &json);
  if (read.outcome == BoundedBody::kTooLarge) {
    return Error("ValidationException",
                 "The request body is larger than " + std::to_string(kMaxKmsBodyBytes) + " bytes.",
                 request, summary);
  }
  if (read.outcome == BoundedBody::kFailed) {
    return Error("SerializationException", "The request body could not be read.", request, summary);
  }
  const auth::AuthResult who = auth::AuthenticateKms(request, options.region, lookup, now, json);
  if (who.key) summary->access_key_id = who.key->access_key_id;
  if (who.error != ErrorCode::kNone) {
    const AuthFailure failure = FromAuth(who);
    return Error(failure.type, failure.message ? failure.message : who.error_message, request,
                 summary);
  }
  const std::string action = "kms:" + std::string(operation);
  for (const std::string& resource :
       KmsResources(operation, json, options.region, authorizer.AccountId())) {
    const iam::Decision decision = AuthorizeCall(authorizer, request, who, now, action, resource);
    if (decision.verdict == iam::Verdict::kStorageFailure) {
      return Error("KMSInternalException", "internal error", request, summary, 500);
    }
    if (!decision.allowed()) {
      return Error("AccessDeniedException",
                   "The access key " + who.key->access_key_id +
                       " is not authorized to perform: " + action + " on resource: " + resource,
                   request, summary);
    }
  }
  if (options.kms == nullptr) {
    return Error("UnsupportedOperationException",
                 "This server runs without a keyring, so it has no key store.", request, summary);
  }
  int status = 500;
  std::string answer;
  options.kms->HandleApi(operation, json, text::ToUnixMillis(now), &status, &answer);
  if (status != 200) {
    text::JsonValue doc;  // the error's __type, for the log line
    if (text::ParseJson(answer, answer.size(), &doc, nullptr) &&
        doc.type == text::JsonType::kObject) {
      if (const text::JsonValue* type = doc.Find("__type"); type != nullptr) {
        summary->error = type->text;
      }
    }
  }
  return Json(status, std::move(answer), request);
}

}  // namespace cubby::s3api
