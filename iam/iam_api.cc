#include "iam/iam_api.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "iam/policy.h"
#include "storage/keygen.h"
#include "storage/users.h"
#include "text/ascii.h"
#include "text/names.h"
#include "text/time.h"
#include "text/xml_writer.h"

namespace cubby::iam {
namespace {

using storage::AccessKeyRecord;
using storage::Code;
using storage::Result;
using storage::Status;
using storage::UserRecord;
using text::XmlWriter;

// IAM's answer to a storage failure. The message of a server fault stays out of the response.
IamError FromStorage(Code code) {
  switch (code) {
    case Code::kNoSuchEntity:
      return IamError::kNoSuchEntity;
    case Code::kEntityAlreadyExists:
      return IamError::kEntityAlreadyExists;
    case Code::kDeleteConflict:
      return IamError::kDeleteConflict;
    case Code::kLimitExceeded:
      return IamError::kLimitExceeded;
    case Code::kInvalidArgument:
      return IamError::kValidationError;
    case Code::kOk:
    case Code::kNoSuchBucket:
    case Code::kNoSuchKey:
    case Code::kNoSuchUpload:
    case Code::kNoSuchAccessKey:
    case Code::kBucketAlreadyExists:
    case Code::kBucketNotEmpty:
    case Code::kPreconditionFailed:
    case Code::kInvalidPart:
    case Code::kAborted:
    case Code::kIOError:
    case Code::kCorruption:
    case Code::kFormatTooNew:
    case Code::kNoSpace:
    case Code::kNoSuchVersion:
    case Code::kObjectLocked:
      return IamError::kServiceFailure;
  }
  return IamError::kServiceFailure;
}

// One call being answered: the request, the caller and where the response goes.
class Call {
 public:
  Call(storage::Store& store, const IamCaller& caller, const IamRequest& request,
       std::string_view request_id, int64_t now_ms)
      : store_(store),
        caller_(caller.key),
        authorizer_(caller.authorizer),
        facts_(caller.facts),
        request_(request),
        request_id_(request_id),
        now_ms_(now_ms) {}

  IamResponse Run();

 private:
  IamResponse CreateUser();
  IamResponse GetUser();
  IamResponse ListUsers();
  IamResponse DeleteUser();
  IamResponse CreateAccessKey();
  IamResponse ListAccessKeys();
  IamResponse UpdateAccessKey();
  IamResponse DeleteAccessKey();
  IamResponse PutUserPolicy();
  IamResponse GetUserPolicy();
  IamResponse ListUserPolicies();
  IamResponse DeleteUserPolicy();
  IamResponse TagUser();
  IamResponse UntagUser();
  IamResponse ListUserTags();

  IamResponse Error(IamError error, std::string_view message) const {
    IamResponse r = ErrorResponse(error, message, request_id_);
    r.action = request_.action;
    return r;
  }
  IamResponse StorageError(const Status& status) const {
    const IamError error = FromStorage(status.code());
    return Error(error, Info(error).sender ? status.message() : "internal error");
  }
  // A required parameter, or the ValidationError IAM answers for a missing one.
  const std::string* Required(std::string_view name, std::string_view member,
                              IamResponse* missing) const {
    const std::string* value = request_.Find(name);
    if (value == nullptr) {
      *missing = Error(IamError::kValidationError,
                       "1 validation error detected: Value null at '" + std::string(member) +
                           "' failed to satisfy constraint: Member must not be null");
    }
    return value;
  }
  // UserName, or the caller's own user when it is absent (the actions where IAM allows that).
  Result<std::string> UserNameOrCaller() const;

  // <Action>Response><Action>Result>...; Finish() adds ResponseMetadata.
  XmlWriter Begin(bool result = true) const {
    XmlWriter w;
    w.Open(request_.action + "Response", kIamNamespace);
    if (result) w.Open(request_.action + "Result");
    return w;
  }
  IamResponse Finish(XmlWriter w, bool result = true) const {
    if (result) w.Close();
    w.Open("ResponseMetadata");
    w.Element("RequestId", request_id_);
    w.Close();
    IamResponse r;
    r.body = std::move(w).Finish();
    r.action = request_.action;
    return r;
  }
  IamResponse Empty() const { return Finish(Begin(false), false); }

  void WriteUser(XmlWriter& w, const UserRecord& user, bool tags) const;

  bool MayCall(std::string_view target_user) const;

  storage::Store& store_;
  const AccessKeyRecord& caller_;
  const Authorizer& authorizer_;
  const RequestFacts& facts_;
  const IamRequest& request_;
  std::string_view request_id_;
  int64_t now_ms_;
  std::string account_id_;
};

using Handler = IamResponse (Call::*)();

IamResponse Call::Run() {
  static const std::map<std::string_view, Handler> kHandlers = {
      {"CreateUser", &Call::CreateUser},
      {"GetUser", &Call::GetUser},
      {"ListUsers", &Call::ListUsers},
      {"DeleteUser", &Call::DeleteUser},
      {"CreateAccessKey", &Call::CreateAccessKey},
      {"ListAccessKeys", &Call::ListAccessKeys},
      {"UpdateAccessKey", &Call::UpdateAccessKey},
      {"DeleteAccessKey", &Call::DeleteAccessKey},
      {"PutUserPolicy", &Call::PutUserPolicy},
      {"GetUserPolicy", &Call::GetUserPolicy},
      {"ListUserPolicies", &Call::ListUserPolicies},
      {"DeleteUserPolicy", &Call::DeleteUserPolicy},
      {"TagUser", &Call::TagUser},
      {"UntagUser", &Call::UntagUser},
      {"ListUserTags", &Call::ListUserTags},
  };
  auto handler = kHandlers.find(request_.action);
  if (handler == kHandlers.end()) {
    return Error(IamError::kInvalidAction, "Could not find operation " + request_.action +
                                               " for version " + std::string(kIamVersion));
  }
  const std::string* target = request_.Find("UserName");
  if (!MayCall(target ? *target : std::string_view())) {
    return Error(IamError::kAccessDenied,
                 "User is not authorized to perform: iam:" + request_.action);
  }
  Result<std::string> account = store_.GetAccountId();
  if (!account.ok()) return StorageError(account.status());
  account_id_ = std::move(account).value();
  return (this->*(handler->second))();
}

Result<std::string> Call::UserNameOrCaller() const {
  if (const std::string* name = request_.Find("UserName")) return *name;
  if (caller_.user_id.empty()) return Status(Code::kNoSuchEntity, "The caller has no user.");
  Result<UserRecord> me = store_.GetUserById(caller_.user_id);
  if (!me.ok()) return me.status();
  return me->name;
}

void Call::WriteUser(XmlWriter& w, const UserRecord& user, bool tags) const {
  w.Element("Path", user.path);
  w.Element("UserName", user.name);
  w.Element("UserId", user.user_id);
  w.Element("Arn", storage::UserArn(account_id_, user));
  w.Element("CreateDate", text::FormatIso8601Millis(user.created_ms));
  if (tags && !user.tags.empty()) {
    w.Open("Tags");
    for (const auto& [key, value] : user.tags) {
      w.Open("member");
      w.Element("Key", key);
      w.Element("Value", value);
      w.Close();
    }
    w.Close();
  }
}

// Tags.member.N.Key / Tags.member.N.Value (N from 1), in N order.
bool ReadTags(const IamRequest& request, std::vector<storage::UserTag>* tags,
              std::string* problem) {
  std::map<int, storage::UserTag> by_index;
  constexpr std::string_view kPrefix = "Tags.member.";
  for (const text::NameValue& p : request.params) {
    if (!p.name.starts_with(kPrefix)) continue;
    std::string_view rest = std::string_view(p.name).substr(kPrefix.size());
    const size_t dot = rest.find('.');
    int index = 0;
    auto [end, err] = std::from_chars(rest.data(), rest.data() + dot, index);
    if (dot == std::string_view::npos || err != std::errc() || end != rest.data() + dot ||
        index < 1) {
      *problem = "malformed tag parameter " + p.name;
      return false;
    }
    const std::string_view field = rest.substr(dot + 1);
    if (field == "Key") {
      by_index[index].first = p.value;
    } else if (field == "Value") {
      by_index[index].second = p.value;
    } else {
      *problem = "malformed tag parameter " + p.name;
      return false;
    }
  }
  std::set<std::string> keys;
  for (auto& [index, tag] : by_index) {
    if (!keys.insert(tag.first).second) {
      *problem = "Duplicate tag keys found. Please note that Tag keys are case insensitive.";
      return false;
    }
    tags->push_back(std::move(tag));
  }
  return true;
}

IamResponse Call::CreateUser() {
  IamResponse missing;
  const std::string* name = Required("UserName", "userName", &missing);
  if (name == nullptr) return missing;
  UserRecord user;
  user.name = *name;
  if (const std::string* path = request_.Find("Path")) user.path = *path;
  // cubby's own parameter: the address ACL grants by e-mail (emailAddress=, AmazonCustomerByEmail)
  // resolve to this user. IAM has no such field; S3 takes it from the AWS account.
  if (const std::string* email = request_.Find("EmailAddress")) user.email = *email;
  user.created_ms = now_ms_;
  std::string problem;
  if (!ReadTags(request_, &user.tags, &problem)) return Error(IamError::kInvalidInput, problem);
  Result<UserRecord> created = store_.CreateUser(user);
  if (!created.ok()) return StorageError(created.status());
  XmlWriter w = Begin();
  w.Open("User");
  WriteUser(w, *created, /*tags=*/true);
  w.Close();
  return Finish(std::move(w));
}

IamResponse Call::GetUser() {
  Result<std::string> name = UserNameOrCaller();
  if (!name.ok()) return StorageError(name.status());
  Result<UserRecord> user = store_.GetUser(*name);
  if (!user.ok()) return StorageError(user.status());
  XmlWriter w = Begin();
  w.Open("User");
  WriteUser(w, *user, /*tags=*/true);
  w.Close();
  return Finish(std::move(w));
}

IamResponse Call::ListUsers() {
  size_t max_items = 100;
  if (const std::string* max = request_.Find("MaxItems")) {
    uint64_t n = 0;
    if (!text::ParseUint64(*max, &n) || n < 1 || n > 1000) {
      return Error(IamError::kValidationError,
                   "1 validation error detected: Value '" + *max +
                       "' at 'maxItems' failed to satisfy constraint: Member must have value "
                       "between 1 and 1000");
    }
    max_items = n;
  }
  const std::string* marker = request_.Find("Marker");
  const std::string* path_prefix = request_.Find("PathPrefix");
  Result<storage::UsersPage> page = store_.ListUsers(marker ? *marker : "", max_items);
  if (!page.ok()) return StorageError(page.status());
  XmlWriter w = Begin();
  w.Open("Users");
  for (const UserRecord& user : page->users) {
    if (path_prefix != nullptr && !user.path.starts_with(*path_prefix)) continue;
    w.Open("member");
    WriteUser(w, user, /*tags=*/false);
    w.Close();
  }
  w.Close();
  w.Element("IsTruncated", page->truncated ? "true" : "false");
  if (page->truncated) w.Element("Marker", page->next_marker);
  return Finish(std::move(w));
}

IamResponse Call::DeleteUser() {
  IamResponse missing;
  const std::string* name = Required("UserName", "userName", &missing);
  if (name == nullptr) return missing;
  if (Status s = store_.DeleteUser(*name); !s.ok()) return StorageError(s);
  return Empty();
}

constexpr text::Named<storage::KeyStatus> kKeyStatuses[] = {
    {storage::KeyStatus::kActive, "Active"}, {storage::KeyStatus::kInactive, "Inactive"}};

IamResponse Call::CreateAccessKey() {
  Result<std::string> name = UserNameOrCaller();
  if (!name.ok()) return StorageError(name.status());
  const std::string* given_id = request_.Find("AccessKeyId");
  const std::string* given_secret = request_.Find("SecretAccessKey");
  AccessKeyRecord candidate;
  if (given_id != nullptr || given_secret != nullptr) {
    // cubby's own parameters, for fixtures (only callers MayCall lets through get here).
    if (given_id == nullptr || given_secret == nullptr) {
      return Error(IamError::kValidationError,
                   "AccessKeyId and SecretAccessKey are given together or not at all");
    }
    if (!storage::IsValidAccessKeyId(*given_id)) {
      return Error(IamError::kValidationError,
                   "AccessKeyId must be 16 to 128 letters, digits or underscores");
    }
    if (!storage::IsValidSecretKey(*given_secret)) {
      return Error(IamError::kValidationError,
                   "SecretAccessKey must be 1 to 128 printable characters without spaces");
    }
    candidate.access_key_id = *given_id;
    candidate.secret = storage::SecretKey(*given_secret);
  } else {
    Result<AccessKeyRecord> generated = storage::GenerateAccessKey();
    if (!generated.ok()) return StorageError(generated.status());
    candidate = std::move(generated).value();
  }
  candidate.created_ms = now_ms_;
  Result<AccessKeyRecord> key = store_.CreateAccessKey(*name, candidate);
  if (!key.ok()) return StorageError(key.status());
  XmlWriter w = Begin();
  w.Open("AccessKey");
  w.Element("UserName", *name);
  w.Element("AccessKeyId", key->access_key_id);
  w.Element("Status", text::NameOf(kKeyStatuses, key->status, "Inactive"));
  w.Element("SecretAccessKey", key->secret.reveal());  // the one place a secret is answered
  w.Element("CreateDate", text::FormatIso8601Millis(key->created_ms));
  w.Close();
  return Finish(std::move(w));
}

IamResponse Call::ListAccessKeys() {
  Result<std::string> name = UserNameOrCaller();
  if (!name.ok()) return StorageError(name.status());
  Result<std::vector<AccessKeyRecord>> keys = store_.ListAccessKeys(*name);
  if (!keys.ok()) return StorageError(keys.status());
  Result<UserRecord> user = store_.GetUser(*name);
  if (!user.ok()) return StorageError(user.status());
  XmlWriter w = Begin();
  w.Element("UserName", user->name);
  w.Open("AccessKeyMetadata");
  for (const AccessKeyRecord& key : *keys) {
    w.Open("member");
    w.Element("UserName", user->name);
    w.Element("AccessKeyId", key.access_key_id);
    w.Element("Status", text::NameOf(kKeyStatuses, key.status, "Inactive"));
    w.Element("CreateDate", text::FormatIso8601Millis(key.created_ms));
    w.Close();
  }
  w.Close();
  w.Element("IsTruncated", "false");
  return Finish(std::move(w));
}

IamResponse Call::UpdateAccessKey() {
  IamResponse missing;
  const std::string* id = Required("AccessKeyId", "accessKeyId", &missing);
  if (id == nullptr) return missing;
  const std::string* status = Required("Status", "status", &missing);
  if (status == nullptr) return missing;
  std::optional<storage::KeyStatus> wanted = text::ValueNamed(kKeyStatuses, *status);
  if (!wanted) {
    return Error(IamError::kValidationError,
                 "1 validation error detected: Value '" + *status +
                     "' at 'status' failed to satisfy constraint: Member must satisfy enum "
                     "value set: [Active, Inactive]");
  }
  Result<std::string> name = UserNameOrCaller();
  if (!name.ok()) return StorageError(name.status());
  if (Status s = store_.UpdateAccessKeyStatus(*name, *id, *wanted); !s.ok()) {
    return StorageError(s);
  }
  return Empty();
}

IamResponse Call::DeleteAccessKey() {
  IamResponse missing;
  const std::string* id = Required("AccessKeyId", "accessKeyId", &missing);
  if (id == nullptr) return missing;
  Result<std::string> name = UserNameOrCaller();
  if (!name.ok()) return StorageError(name.status());
  if (Status s = store_.DeleteUserAccessKey(*name, *id); !s.ok()) return StorageError(s);
  return Empty();
}

IamResponse Call::PutUserPolicy() {
  IamResponse missing;
  const std::string* name = Required("UserName", "userName", &missing);
  if (name == nullptr) return missing;
  const std::string* policy = Required("PolicyName", "policyName", &missing);
  if (policy == nullptr) return missing;
  const std::string* document = Required("PolicyDocument", "policyDocument", &missing);
  if (document == nullptr) return missing;
  if (std::string problem = PolicyDocumentProblem(*document); !problem.empty()) {
    return Error(IamError::kMalformedPolicyDocument, problem);
  }
  if (Status s = store_.PutUserPolicy(*name, *policy, *document); !s.ok()) {
    return StorageError(s);
  }
  return Empty();
}

IamResponse Call::GetUserPolicy() {
  IamResponse missing;
  const std::string* name = Required("UserName", "userName", &missing);
  if (name == nullptr) return missing;
  const std::string* policy = Required("PolicyName", "policyName", &missing);
  if (policy == nullptr) return missing;
  Result<std::string> document = store_.GetUserPolicy(*name, *policy);
  if (!document.ok()) return StorageError(document.status());
  Result<UserRecord> user = store_.GetUser(*name);
  if (!user.ok()) return StorageError(user.status());
  XmlWriter w = Begin();
  w.Element("UserName", user->name);
  w.Element("PolicyName", *policy);
  // IAM returns policy documents URL-encoded (RFC 3986); SDKs decode them.
  w.Element("PolicyDocument", text::UriEncode(*document, text::Slash::kEncode));
  return Finish(std::move(w));
}

IamResponse Call::ListUserPolicies() {
  IamResponse missing;
  const std::string* name = Required("UserName", "userName", &missing);
  if (name == nullptr) return missing;
  Result<std::vector<std::string>> names = store_.ListUserPolicies(*name);
  if (!names.ok()) return StorageError(names.status());
  XmlWriter w = Begin();
  w.Open("PolicyNames");
  for (const std::string& n : *names) w.Element("member", n);
  w.Close();
  w.Element("IsTruncated", "false");
  return Finish(std::move(w));
}

IamResponse Call::DeleteUserPolicy() {
  IamResponse missing;
  const std::string* name = Required("UserName", "userName", &missing);
  if (name == nullptr) return missing;
  const std::string* policy = Required("PolicyName", "policyName", &missing);
  if (policy == nullptr) return missing;
  if (Status s = store_.DeleteUserPolicy(*name, *policy); !s.ok()) return StorageError(s);
  return Empty();
}

IamResponse Call::TagUser() {
  IamResponse missing;
  const std::string* name = Required("UserName", "userName", &missing);
  if (name == nullptr) return missing;
  std::vector<storage::UserTag> tags;
  std::string problem;
  if (!ReadTags(request_, &tags, &problem)) return Error(IamError::kInvalidInput, problem);
  if (tags.empty()) {
    return Error(IamError::kValidationError,
                 "1 validation error detected: Value null at 'tags' failed to satisfy "
                 "constraint: Member must not be null");
  }
  if (Status s = store_.TagUser(*name, tags); !s.ok()) return StorageError(s);
  return Empty();
}

IamResponse Call::UntagUser() {
  IamResponse missing;
  const std::string* name = Required("UserName", "userName", &missing);
  if (name == nullptr) return missing;
  std::vector<std::string> keys;
  for (const text::NameValue& p : request_.params) {
    if (p.name.starts_with("TagKeys.member.")) keys.push_back(p.value);
  }
  if (Status s = store_.UntagUser(*name, keys); !s.ok()) return StorageError(s);
  return Empty();
}

IamResponse Call::ListUserTags() {
  IamResponse missing;
  const std::string* name = Required("UserName", "userName", &missing);
  if (name == nullptr) return missing;
  Result<std::vector<storage::UserTag>> tags = store_.ListUserTags(*name);
  if (!tags.ok()) return StorageError(tags.status());
  XmlWriter w = Begin();
  w.Open("Tags");
  for (const auto& [key, value] : *tags) {
    w.Open("member");
    w.Element("Key", key);
    w.Element("Value", value);
    w.Close();
  }
  w.Close();
  w.Element("IsTruncated", "false");
  return Finish(std::move(w));
}

}  // namespace

namespace {

// One row per IamError, in the enum's order: code, HTTP status, sender (else Receiver).
constexpr std::pair<IamError, IamErrorInfo> kIamErrors[] = {
    {IamError::kNone, {"", 200, true}},
    {IamError::kAccessDenied, {"AccessDenied", 403, true}},
    {IamError::kDeleteConflict, {"DeleteConflict", 409, true}},
    {IamError::kEntityAlreadyExists, {"EntityAlreadyExists", 409, true}},
    {IamError::kIncompleteSignature, {"IncompleteSignature", 400, true}},
    {IamError::kInvalidAction, {"InvalidAction", 400, true}},
    {IamError::kInvalidClientTokenId, {"InvalidClientTokenId", 403, true}},
    {IamError::kInvalidInput, {"InvalidInput", 400, true}},
    {IamError::kLimitExceeded, {"LimitExceeded", 409, true}},
    {IamError::kMalformedPolicyDocument, {"MalformedPolicyDocument", 400, true}},
    {IamError::kMissingAuthenticationToken, {"MissingAuthenticationToken", 403, true}},
    {IamError::kNoSuchEntity, {"NoSuchEntity", 404, true}},
    {IamError::kRequestEntityTooLarge, {"RequestEntityTooLarge", 413, true}},
    {IamError::kServiceFailure, {"ServiceFailure", 500, false}},
    {IamError::kSignatureDoesNotMatch, {"SignatureDoesNotMatch", 403, true}},
    {IamError::kValidationError, {"ValidationError", 400, true}},
};
constexpr bool RowsFollowTheEnum() {
  for (size_t i = 0; i < std::size(kIamErrors); ++i) {
    if (static_cast<size_t>(kIamErrors[i].first) != i) return false;
  }
  return std::size(kIamErrors) == static_cast<size_t>(IamError::kValidationError) + 1;
}
static_assert(RowsFollowTheEnum(), "one kIamErrors row per IamError, in the enum's order");

}  // namespace

IamErrorInfo Info(IamError error) { return kIamErrors[static_cast<size_t>(error)].second; }

IamResponse ErrorResponse(IamError error, std::string_view message, std::string_view request_id) {
  const IamErrorInfo info = Info(error);
  XmlWriter w;
  w.Open("ErrorResponse", kIamNamespace);
  w.Open("Error");
  w.Element("Type", info.sender ? "Sender" : "Receiver");
  w.Element("Code", info.code);
  w.Element("Message", message);
  w.Close();
  w.Element("RequestId", request_id);
  IamResponse r;
  r.status = info.http_status;
  r.body = std::move(w).Finish();
  r.error = error;
  return r;
}

IamError ParseIamForm(std::string_view form, IamRequest* out, std::string* message) {
  if (form.size() > kMaxIamFormBytes) {
    *message = "the request is larger than " + std::to_string(kMaxIamFormBytes) + " bytes";
    return IamError::kRequestEntityTooLarge;
  }
  out->params.clear();
  if (!text::SplitUrlEncodedStrict(form, text::Plus::kSpace, &out->params)) {
    *message = "the request holds a malformed percent-escape";
    return IamError::kValidationError;
  }
  const std::string* action = out->Find("Action");
  if (action == nullptr || action->empty()) {
    *message = "the request names no Action";
    return IamError::kInvalidAction;
  }
  out->action = *action;
  return IamError::kNone;
}

// The caller's own user when `target_user` is empty; a user to be created has its ARN all the
// same.
bool Call::MayCall(std::string_view target_user) const {
  if (caller_.all_buckets) return true;
  if (caller_.user_id.empty() || !caller_.grant_name.empty()) return false;
  UserRecord target;
  if (target_user.empty()) {
    Result<UserRecord> me = store_.GetUserById(caller_.user_id);
    if (!me.ok()) return false;
    target = std::move(me).value();
  } else if (Result<UserRecord> named = store_.GetUser(target_user); named.ok()) {
    target = std::move(named).value();
  } else {
    target.name = std::string(target_user);
  }
  const std::string resource = storage::UserArn(authorizer_.AccountId(), target);
  return authorizer_
      .AuthorizeCall(Identity::Key(caller_), "iam:" + request_.action, resource, facts_)
      .allowed();
}

std::string PolicyDocumentProblem(std::string_view document) {
  Result<Policy> policy = Parse(document, {.kind = PolicyKind::kIdentity,
                                           .bucket = {},
                                           .max_bytes = storage::kMaxPolicyDocumentBytes,
                                           .keys = KeyCheck::kFilled});
  return policy.ok() ? std::string() : policy.status().message();
}

IamResponse HandleIam(storage::Store& store, const IamCaller& caller, const IamRequest& request,
                      std::string_view request_id, int64_t now_ms) {
  return Call(store, caller, request, request_id, now_ms).Run();
}

}  // namespace cubby::iam
