// A subset of AWS IAM's query API, as plain functions from a parsed request to a
// response, so it is tested without a socket. The S3 port routes `POST /` form requests (and
// `GET /?Action=...`) signed for service "iam" here (s3api/iam_front.cc).
//   https://docs.aws.amazon.com/IAM/latest/APIReference/iam-api.pdf (Query requests)
//   https://docs.aws.amazon.com/IAM/latest/APIReference/CommonErrors.html
//
// Actions: CreateUser, GetUser (no UserName: the caller), ListUsers (Marker, MaxItems,
// IsTruncated), DeleteUser, CreateAccessKey, ListAccessKeys, UpdateAccessKey, DeleteAccessKey,
// PutUserPolicy, GetUserPolicy (the document URL-encoded, as IAM returns it), ListUserPolicies,
// DeleteUserPolicy, TagUser, UntagUser, ListUserTags. Responses and errors are IAM's XML
// (namespace kIamNamespace; <ErrorResponse><Error><Type>Sender</Type><Code>...). A secret
// appears only in CreateAccessKey's response.
//
// cubby's own parameters: CreateAccessKey takes AccessKeyId and SecretAccessKey (both or
// neither) to create a key with a given id and secret, for test fixtures.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "iam/authorize.h"
#include "storage/records.h"
#include "storage/store.h"
#include "text/uri.h"

namespace cubby::iam {

inline constexpr std::string_view kIamNamespace = "https://iam.amazonaws.com/doc/2010-05-08/";
inline constexpr std::string_view kIamVersion = "2010-05-08";
// A form body larger than this is refused before it is read (the front's body limit).
inline constexpr size_t kMaxIamFormBytes = 256 << 10;

// IAM's error codes, with their HTTP status and fault type (IamErrorInfo).
enum class IamError {
  kNone,
  kAccessDenied,                // 403: the caller may not call IAM (only root may, for now)
  kDeleteConflict,              // 409
  kEntityAlreadyExists,         // 409
  kIncompleteSignature,         // 400
  kInvalidAction,               // 400: unknown or missing Action
  kInvalidClientTokenId,        // 403: unknown or Inactive access key
  kInvalidInput,                // 400: e.g. duplicate tag keys
  kLimitExceeded,               // 409
  kMalformedPolicyDocument,     // 400
  kMissingAuthenticationToken,  // 403: an unsigned request
  kNoSuchEntity,                // 404
  kRequestEntityTooLarge,       // 413: the form is over kMaxIamFormBytes
  kServiceFailure,              // 500 (Receiver)
  kSignatureDoesNotMatch,       // 403
  kValidationError,             // 400: a parameter breaks its constraint, or is missing
};

struct IamErrorInfo {
  std::string_view code;  // "NoSuchEntity"
  int http_status;
  bool sender;  // <Type>Sender</Type>; false: Receiver
};
IamErrorInfo Info(IamError error);

struct IamResponse {
  int status = 200;
  std::string body;  // text/xml
  IamError error = IamError::kNone;
  std::string action;  // the Action answered (for the log line); may be empty
};

// <ErrorResponse> for `error` with `message` (never secret material) and the request id.
IamResponse ErrorResponse(IamError error, std::string_view message, std::string_view request_id);

// A parsed query request: its Action and every parameter, decoded, in order.
struct IamRequest {
  std::string action;
  std::vector<text::NameValue> params;
  // The first parameter named `name`, or nullptr.
  const std::string* Find(std::string_view name) const { return text::FindValue(params, name); }
};

// Parses an application/x-www-form-urlencoded body (or a query string) into *out. kNone, or
// kRequestEntityTooLarge past kMaxIamFormBytes, kValidationError for a malformed escape,
// kInvalidAction when Action is missing. *message says why.
IamError ParseIamForm(std::string_view form, IamRequest* out, std::string* message);

// Empty when `document` is acceptable as an inline user policy (iam::Parse as kIdentity, with
// KeyCheck::kFilled: only condition keys cubby fills), else
// the parser's message (answered as MalformedPolicyDocument).
std::string PolicyDocumentProblem(std::string_view document);

// Who calls, and who decides what it may: the Authorizer's AuthorizeCall with "iam:<Action>" on
// the ARN of the user the request names (UserName; none: the caller's own user), or of the user
// to be created. Root's keys may call every action; COSI keys and keys without a user never may.
struct IamCaller {
  const storage::AccessKeyRecord& key;  // authenticated: an Active key
  const Authorizer& authorizer;
  const RequestFacts& facts;  // what the policies' condition keys read
};

// Runs `request` for `caller` against `store`. `now_ms` stamps new users and keys; `request_id`
// goes into the response. Thread-safe as Store is.
IamResponse HandleIam(storage::Store& store, const IamCaller& caller, const IamRequest& request,
                      std::string_view request_id, int64_t now_ms);

}  // namespace cubby::iam
