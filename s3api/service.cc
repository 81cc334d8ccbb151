// S3Service::Handle: route → authenticate → authorize (iam) → dispatch, each step reading the
// operation's row of operations.cc; the IAM query API's requests go to iam_front.cc first, the
// KMS JSON API's to kms_front.cc.
#include "s3api/service.h"

#include <exception>
#include <optional>
#include <string>

#include "s3api/auth/auth.h"
#include "s3api/call_authorize.h"
#include "s3api/handlers.h"
#include "s3api/iam_front.h"
#include "s3api/kms_front.h"
#include "s3api/operations.h"
#include "s3api/router.h"
#include "s3api/xml.h"
#include "storage/users.h"
#include "text/ascii.h"

namespace cubby::s3api {

ReadResult CountingBodyReader::Read(char* buf, size_t n) {
  ReadResult r = inner_.Read(buf, n);
  count_ += r.n;
  return r;
}

int64_t Context::now_ms() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
}

namespace {

// A non-owning BodyReader, so WrapBody can take ownership of a reader over the counted body.
class BodyRef : public BodyReader {
 public:
  explicit BodyRef(BodyReader& inner) : inner_(inner) {}
  ReadResult Read(char* buf, size_t n) override { return inner_.Read(buf, n); }

 private:
  BodyReader& inner_;
};

// The action of a routed request: a versionId asks for the *Version action of the operation.
iam::Action ActionOf(const Route& route) {
  const iam::Action action = Info(route.op).action;
  if (!route.version_id) return action;
  if (action == iam::Action::kGetObject) return iam::Action::kGetObjectVersion;
  if (action == iam::Action::kDeleteObject) return iam::Action::kDeleteObjectVersion;
  if (action == iam::Action::kGetObjectAcl) return iam::Action::kGetObjectVersionAcl;
  if (action == iam::Action::kPutObjectAcl) return iam::Action::kPutObjectVersionAcl;
  if (action == iam::Action::kGetObjectTagging) return iam::Action::kGetObjectVersionTagging;
  if (action == iam::Action::kPutObjectTagging) return iam::Action::kPutObjectVersionTagging;
  if (action == iam::Action::kDeleteObjectTagging) return iam::Action::kDeleteObjectVersionTagging;
  return action;
}

bool IsListObjects(Operation op) {
  return op == Operation::kListObjects || op == Operation::kListObjectsV2;
}

// The request's headers for the condition keys that read one (iam::RequestHeaders).
class HeadersOf final : public iam::RequestHeaders {
 public:
  explicit HeadersOf(const HttpRequest& request) : request_(request) {}
  std::optional<std::string_view> Find(std::string_view name) const override {
    const std::string* value = request_.Find(name);
    if (value == nullptr) return std::nullopt;
    return std::string_view(*value);
  }

 private:
  const HttpRequest& request_;
};

// What the request says about itself, for policies' condition keys. `max_keys` holds the
// s3:max-keys text the facts point into; `headers` is what they read headers through.
iam::RequestFacts FactsOf(const Context& ctx, const BodyFacts& body, const HeadersOf* headers,
                          std::string* max_keys) {
  const Operation op = ctx.route.op;
  iam::RequestFacts facts = CallFacts(ctx.request, ctx.auth, ctx.now);
  facts.copy_source = ctx.request.Find("x-amz-copy-source") != nullptr;
  facts.multipart = op == Operation::kCreateMultipartUpload || op == Operation::kUploadPart ||
                    op == Operation::kUploadPartCopy || op == Operation::kCompleteMultipartUpload;
  facts.canned_acl = headers->Find("x-amz-acl");
  facts.headers = headers;
  facts.location_constraint = body.location_constraint;
  facts.request_tags = body.tags;
  // POST Object's form fields are the headers of the PUT it stands for (post_object.cc).
  if (!ctx.auth.anonymous && op == Operation::kPostObject) facts.auth_type = "POST";
  if (IsListObjects(op) || op == Operation::kListObjectVersions) {
    facts.prefix = ctx.route.list.prefix;
    if (!ctx.route.list.delimiter.empty()) facts.delimiter = ctx.route.list.delimiter;
    *max_keys = std::to_string(ctx.route.list.max_entries);
    facts.max_keys = *max_keys;
  }
  return facts;
}

// Operations whose condition keys come from their body (s3:LocationConstraint,
// s3:RequestObjectTag): their handler asks AuthorizeRequest once it has read the body.
bool AuthorizesAfterBody(Operation op) {
  return op == Operation::kCreateBucket || op == Operation::kPutObjectTagging;
}

}  // namespace

// The request's own question: its action on its bucket and key.
ErrorCode AuthorizeRequest(const Context& ctx, const BodyFacts& body) {
  return Authorize(ctx, ActionOf(ctx.route),
                   {.bucket = ctx.route.bucket,
                    .key = ctx.route.key,
                    .upload_id = ctx.route.upload_id,
                    .version_id = ctx.route.version_id ? std::string_view(*ctx.route.version_id)
                                                      : std::string_view()},
                   body);
}

namespace {

// A malformed parameter is answered here, after authorization, where the handlers answered it
// before routes were typed; GetObject answers its partNumber itself (see Route::param_error).
bool ParamErrorAnsweredBeforeHandler(const Route& route) {
  return route.param_error.code != ErrorCode::kNone && route.op != Operation::kGetObject &&
         route.op != Operation::kHeadObject;
}

}  // namespace

// The bytes a write will store, as far as its head tells: the decoded length of an aws-chunked
// body, else Content-Length; 0 when unknown (chunked: the writer checks as the data arrives).
// A copy's size is checked by its handler once the source is open. A malformed length counts
// as 0 here: authentication or the handler answers it.
uint64_t KnownBodySize(const Context& ctx) {
  if (ctx.route.op != Operation::kPutObject && ctx.route.op != Operation::kUploadPart) return 0;
  if (const std::string* decoded = ctx.request.Find("x-amz-decoded-content-length")) {
    uint64_t n = 0;
    return text::ParseUint64(*decoded, &n) ? n : 0;
  }
  return ctx.request.content_length.value_or(0);
}

namespace {

// A write that cannot fit is refused before its body is read, so the client learns at once
// and nothing is half-written.
storage::Status CheckSpace(const Context& ctx) {
  if (!Info(ctx.route.op).needs_space) return storage::Status::Ok();
  return ctx.store->CheckSpaceFor(KnownBodySize(ctx));
}

}  // namespace

namespace {

ErrorCode AuthorizeWith(const Context& ctx, iam::Action action, const iam::Resource& resource,
                        const iam::RequestFacts& facts) {
  const iam::Identity who =
      ctx.auth.anonymous ? iam::Identity::Anonymous() : iam::Identity::Key(*ctx.auth.key);
  std::optional<iam::Authorizer> local;
  const iam::Authorizer* authorizer = ctx.authorizer;
  if (authorizer == nullptr) authorizer = &local.emplace(ctx.store);
  const iam::Decision decision = authorizer->Authorize(who, action, resource, facts);
  switch (decision.verdict) {
    case iam::Verdict::kAllow: return ErrorCode::kNone;
    case iam::Verdict::kDeny: return ErrorCode::kAccessDenied;
    case iam::Verdict::kNoSuchBucket: return ErrorCode::kNoSuchBucket;
    case iam::Verdict::kStorageFailure: return FromStorage(decision.failure.code());
  }
  return ErrorCode::kAccessDenied;
}

// Reads whose 404 says that a key (or version) does not exist.
bool AnswersMissingKey(Operation op) {
  return op == Operation::kGetObject || op == Operation::kHeadObject ||
         op == Operation::kGetObjectAttributes;
}

// S3 tells a caller that a key does not exist (404 NoSuchKey, NoSuchVersion) only when it may
// list the bucket at that key (s3:ListBucket with s3:prefix = the key); anyone else hears 403
// AccessDenied, so a caller allowed s3:GetObject alone cannot probe which keys exist
// (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html, "Permissions"). Asked
// on the 404 only: a read that finds its object costs nothing more.
HttpResponse HideMissingKey(const Context& ctx, HttpResponse response) {
  if (response.status != 404 || !AnswersMissingKey(ctx.route.op)) return response;
  const std::string& error = ctx.summary->error;
  if (error != Info(ErrorCode::kNoSuchKey).code && error != Info(ErrorCode::kNoSuchVersion).code) {
    return response;
  }
  std::string max_keys;
  const HeadersOf headers(ctx.request);
  iam::RequestFacts facts = FactsOf(ctx, BodyFacts{}, &headers, &max_keys);
  facts.prefix = ctx.route.key;
  facts.delimiter.reset();
  facts.max_keys.reset();
  if (AuthorizeWith(ctx, iam::Action::kListBucket, {.bucket = ctx.route.bucket}, facts) ==
      ErrorCode::kNone) {
    return response;
  }
  return ErrorResponse(ctx, ErrorCode::kAccessDenied);
}

}  // namespace

ErrorCode Authorize(const Context& ctx, iam::Action action, const iam::Resource& resource,
                    const BodyFacts& body) {
  std::string max_keys;
  const HeadersOf headers(ctx.request);
  return AuthorizeWith(ctx, action, resource, FactsOf(ctx, body, &headers, &max_keys));
}

OwnerName BucketOwnerName(const Context& ctx) {
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (bucket.ok() && !bucket->owner_id.empty()) {
    storage::Result<storage::UserRecord> user = ctx.store->GetUserById(bucket->owner_id);
    if (user.ok()) return {user->user_id, user->display_name};
  }
  return {std::string(kOwnerId), std::string(kOwnerDisplayName)};
}

OwnerName UserOwnerName(const Context& ctx, std::string_view user_id) {
  if (!user_id.empty()) {
    storage::Result<storage::UserRecord> user = ctx.store->GetUserById(user_id);
    if (user.ok()) return {user->user_id, user->display_name};
  }
  return BucketOwnerName(ctx);
}

void WriteOwner(XmlWriter& w, std::string_view element, const OwnerName& owner) {
  w.Open(element);
  w.Element("ID", owner.id);
  w.Element("DisplayName", owner.display_name);
  w.Close();
}

ErrorCode CheckExpectedBucketOwner(const Context& ctx, std::string_view header,
                                   std::string_view bucket) {
  const std::string* expected = ctx.request.Find(header);
  if (expected == nullptr || bucket.empty()) return ErrorCode::kNone;
  storage::Result<storage::BucketRecord> record = ctx.store->GetBucket(bucket);
  if (!record.ok()) {
    return record.status().code() == storage::Code::kNoSuchBucket
               ? ErrorCode::kNone
               : FromStorage(record.status().code());
  }
  if (!record->owner_id.empty() && *expected == record->owner_id) return ErrorCode::kNone;
  // Root's buckets (and those from before users) are the account's.
  storage::Result<storage::UserRecord> root = ctx.store->GetUser(storage::kRootUserName);
  const bool roots = record->owner_id.empty() || (root.ok() && root->user_id == record->owner_id);
  if (roots) {
    storage::Result<std::string> account = ctx.store->GetAccountId();
    if (account.ok() && *expected == *account) return ErrorCode::kNone;
  }
  return ErrorCode::kAccessDenied;
}

namespace {

HttpResponse Dispatch(const Context& ctx) { return Info(ctx.route.op).handler(ctx); }

}  // namespace

std::unique_ptr<auth::PayloadReader> Context::Body() const {
  return auth::WrapBody(auth, std::make_unique<BodyRef>(raw_body));
}

S3Service::S3Service(storage::Store* store, ServiceOptions options)
    : store_(store),
      options_(std::move(options)),
      authorizer_(std::make_unique<iam::Authorizer>(store)) {}
S3Service::~S3Service() = default;

namespace {

// The pipeline of one request once routed: authenticate, authorize, answer the parameter errors
// that come before the handler, refuse a write the store has no room for, dispatch, and keep a
// missing key's 404 from a caller who may not list (HideMissingKey). A CORS preflight is
// answered without authentication (browsers send it without credentials), from the bucket's
// rules alone.
// Each step answers an error or hands on; *auth is what ctx.auth refers to, filled in by the
// authentication step.
HttpResponse Pipeline(const Context& ctx, const auth::KeyLookup& lookup, auth::AuthResult* auth) {
  const Route& route = ctx.route;
  if (route.error != ErrorCode::kNone) return ErrorResponse(ctx, route.error);
  ctx.summary->operation = std::string(OperationName(route.op));
  ctx.summary->bucket = route.bucket;
  ctx.summary->key = route.key;
  if (route.op == Operation::kOptionsObject) return Dispatch(ctx);
  // POST Object carries its credentials in the form, which only its handler reads: it goes on
  // as anonymous so far, and PostObject authenticates, authorizes and checks space itself.
  if (route.op == Operation::kPostObject) return Dispatch(ctx);

  *auth = auth::Authenticate(ctx.request, ctx.options.region, lookup, ctx.now,
                             route.virtual_host ? route.bucket : std::string_view{});
  if (auth->key) ctx.summary->access_key_id = auth->key->access_key_id;
  if (auth->error != ErrorCode::kNone) {
    HttpResponse refused = ErrorResponse(ctx, auth->error, auth->error_message);
    if (!auth->error_region.empty() && !ctx.head()) {
      refused.body = ErrorXml(auth->error, route.path, ctx.request.request_id, auth->error_message,
                              auth->error_region);
    }
    return refused;
  }

  if (!AuthorizesAfterBody(route.op)) {
    if (ErrorCode denied = AuthorizeRequest(ctx); denied != ErrorCode::kNone) {
      return ErrorResponse(ctx, denied);
    }
  }
  if (ErrorCode denied = CheckExpectedBucketOwner(ctx, kExpectedBucketOwner, route.bucket);
      denied != ErrorCode::kNone) {
    return ErrorResponse(ctx, denied);
  }
  if (ParamErrorAnsweredBeforeHandler(route)) {
    return ErrorResponse(ctx, route.param_error.code, route.param_error.message);
  }
  if (storage::Status space = CheckSpace(ctx); !space.ok()) return StorageError(ctx, space);
  return HideMissingKey(ctx, Dispatch(ctx));
}

// A handler threw, which it must not: the client still gets an answer, and the connection
// closes.
HttpResponse InternalError(const HttpRequest& request, const std::exception& e,
                           RequestSummary* summary) {
  summary->error = "InternalError";
  summary->error_detail = e.what();
  HttpResponse response;
  response.status = 500;
  response.Set("Content-Type", "application/xml");
  if (request.method != "HEAD") {
    response.body = ErrorXml(ErrorCode::kInternalError, "", request.request_id);
  }
  response.close_connection = true;
  return response;
}

}  // namespace

FrontDoor PickFrontDoor(const HttpRequest& request) {
  if (std::string_view(request.target).starts_with(kAdminPathPrefix)) return FrontDoor::kAdmin;
  if (IsKmsRequest(request)) return FrontDoor::kKms;
  if (IsIamRequest(request)) return FrontDoor::kIam;
  return FrontDoor::kS3;
}

HttpResponse S3Service::Handle(const HttpRequest& request, BodyReader& body,
                               RequestSummary* summary) {
  RequestSummary local_summary;
  RequestSummary& sum = summary != nullptr ? *summary : local_summary;
  sum = RequestSummary{};
  sum.operation = "Unknown";
  CountingBodyReader counted(body);
  const auth::KeyLookup lookup =
      [this](std::string_view id) -> std::optional<storage::AccessKeyRecord> {
    storage::Result<storage::AccessKeyRecord> key = store_->GetAccessKey(id);
    // An Inactive key is refused as an unknown one (InvalidAccessKeyId), as AWS does; the
    // status is read on every request, so UpdateAccessKey takes effect on the next one.
    if (!key.ok() || key->status != storage::KeyStatus::kActive) return std::nullopt;
    return std::move(key).value();
  };
  FrontDoor door = PickFrontDoor(request);
  if (door == FrontDoor::kAdmin && !options_.admin) door = FrontDoor::kS3;
  HttpResponse response;
  try {
    switch (door) {
      case FrontDoor::kAdmin:
        response = options_.admin(request, counted, &sum);
        break;
      case FrontDoor::kKms:
        response =
            ServeKms(*authorizer_, options_, request, counted, options_.clock(), lookup, &sum);
        break;
      case FrontDoor::kIam:
        response = ServeIam(*store_, *authorizer_, options_, request, counted, options_.clock(),
                            lookup, &sum);
        break;
      case FrontDoor::kS3: {
        const std::string* host = request.Find("host");
        const Route route =
            RouteRequest(request.method, request.target, host ? *host : std::string_view{},
                         options_.domain, request.Find("x-amz-copy-source") != nullptr);
        auth::AuthResult auth_result;
        const Context ctx{request,  counted,          route, auth_result,       store_,
                          options_, options_.clock(), &sum,  authorizer_.get(), &lookup};
        response = Pipeline(ctx, lookup, &auth_result);
        SetCorsHeaders(ctx, &response);
        break;
      }
    }
  } catch (const std::exception& e) {
    response = InternalError(request, e, &sum);
  }
  sum.bytes_in = counted.count();
  // A body left unread (an error before or while reading it) is the server's to drain or to
  // close the connection over; it knows how much is left.
  return response;
}

// ---- Helpers shared by the handlers.

ErrorCode FromStorage(storage::Code code) {
  switch (code) {
    case storage::Code::kOk: return ErrorCode::kInternalError;  // not an error: caller bug
    case storage::Code::kNoSuchBucket: return ErrorCode::kNoSuchBucket;
    case storage::Code::kNoSuchKey: return ErrorCode::kNoSuchKey;
    case storage::Code::kNoSuchUpload: return ErrorCode::kNoSuchUpload;
    case storage::Code::kNoSuchAccessKey: return ErrorCode::kInvalidAccessKeyId;
    case storage::Code::kBucketAlreadyExists: return ErrorCode::kBucketAlreadyOwnedByYou;
    case storage::Code::kBucketNotEmpty: return ErrorCode::kBucketNotEmpty;
    case storage::Code::kPreconditionFailed: return ErrorCode::kPreconditionFailed;
    case storage::Code::kInvalidArgument: return ErrorCode::kInvalidArgument;
    case storage::Code::kInvalidPart: return ErrorCode::kInvalidPart;
    case storage::Code::kAborted: return ErrorCode::kServiceUnavailable;
    case storage::Code::kIOError: return ErrorCode::kInternalError;
    case storage::Code::kCorruption: return ErrorCode::kInternalError;
    case storage::Code::kFormatTooNew: return ErrorCode::kInternalError;  // only Store::Open
    case storage::Code::kNoSpace: return ErrorCode::kInsufficientStorage;
    // User codes reach S3 handlers only through a bug: the IAM API maps them itself.
    case storage::Code::kNoSuchEntity: return ErrorCode::kInternalError;
    case storage::Code::kEntityAlreadyExists: return ErrorCode::kInternalError;
    case storage::Code::kDeleteConflict: return ErrorCode::kInternalError;
    case storage::Code::kLimitExceeded: return ErrorCode::kInternalError;
    case storage::Code::kNoSuchVersion: return ErrorCode::kNoSuchVersion;
    // S3 answers a delete or retention change that object lock forbids with AccessDenied.
    case storage::Code::kObjectLocked: return ErrorCode::kAccessDenied;
  }
  return ErrorCode::kInternalError;
}

HttpResponse ErrorResponse(const Context& ctx, ErrorCode code, std::string_view message) {
  HttpResponse r;
  r.status = Info(code).http_status;
  ctx.summary->error = std::string(Info(code).code);
  r.Set("Content-Type", "application/xml");
  if (!ctx.head()) r.body = ErrorXml(code, ctx.route.path, ctx.request.request_id, message);
  return r;
}

HttpResponse StorageError(const Context& ctx, const storage::Status& status) {
  // Internal failures keep storage's message out of the response (it may name files).
  ErrorCode code = FromStorage(status.code());
  if (Info(code).http_status >= 500) ctx.summary->error_detail = status.ToString();
  return ErrorResponse(ctx, code);
}

HttpResponse XmlResponse(std::string body, int status) {
  HttpResponse r;
  r.status = status;
  r.Set("Content-Type", "application/xml");
  r.body = std::move(body);
  return r;
}

Failure ChangeBucket(const Context& ctx,
                     const std::function<Failure(storage::BucketRecord*)>& change) {
  Failure refused;
  storage::Status s =
      ctx.store->UpdateBucket(ctx.route.bucket, [&](storage::BucketRecord* bucket) {
        refused = change(bucket);
        return refused ? storage::Status(storage::Code::kAborted, "refused")
                       : storage::Status::Ok();
      });
  if (refused) return refused;
  if (!s.ok()) return StorageError(ctx, s);
  return Failure::None();
}

HttpResponse AnswerBucketChange(const Context& ctx,
                                const std::function<Failure(storage::BucketRecord*)>& change,
                                int status) {
  if (Failure failure = ChangeBucket(ctx, change)) return failure.TakeResponse();
  HttpResponse answer;
  answer.status = status;
  return answer;
}

HttpResponse NoContent() {
  HttpResponse answer;
  answer.status = 204;
  return answer;
}

ErrorCode ReadSmallBody(const Context& ctx, std::string* out) {
  const std::optional<uint64_t>& length = ctx.request.content_length;
  std::unique_ptr<BodyReader> body = ctx.Body();
  const BoundedBody read = ReadBoundedBody(*body, length, kMaxRequestXmlBytes, out);
  if (read.outcome == BoundedBody::kTooLarge) return ErrorCode::kMalformedXML;
  if (read.outcome == BoundedBody::kFailed) return read.error;
  if (length && out->size() != *length) return ErrorCode::kIncompleteBody;
  return ErrorCode::kNone;
}

}  // namespace cubby::s3api
