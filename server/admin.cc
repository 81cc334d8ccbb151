#include "server/admin.h"

#include "s3api/auth/auth.h"
#include "s3api/call_authorize.h"
#include "s3api/errors.h"
#include "text/json.h"

namespace cubby::server {
namespace {

// The body of a request the caller hands over without one.
class NoBody : public s3api::BodyReader {
 public:
  s3api::ReadResult Read(char*, size_t) override { return {}; }
};

s3api::HttpResponse TextResponse(int status, std::string body,
                                 std::string content_type = "text/plain; charset=utf-8") {
  s3api::HttpResponse response;
  response.status = status;
  response.Set("Content-Type", std::move(content_type));
  response.Set("Cache-Control", "no-store");
  response.content_length = body.size();
  response.body = std::move(body);
  return response;
}

}  // namespace

bool AdminEndpoints::Handle(const s3api::HttpRequest& request, s3api::HttpResponse* response,
                            s3api::RequestSummary* summary) const {
  NoBody body;
  return Handle(request, body, response, summary);
}

bool AdminEndpoints::Handle(const s3api::HttpRequest& request, s3api::BodyReader& body,
                            s3api::HttpResponse* response, s3api::RequestSummary* summary) const {
  std::string_view path = request.target;
  if (size_t q = path.find('?'); q != std::string_view::npos) path = path.substr(0, q);
  if (!path.starts_with(s3api::kAdminPathPrefix)) return false;
  std::string_view name = path.substr(s3api::kAdminPathPrefix.size());

  std::string_view operation = "Unknown";
  if (name == "live") operation = "CubbyLive";
  if (name == "ready") operation = "CubbyReady";
  if (name == "metrics") operation = "CubbyMetrics";
  if (name == "backup" && backup_) operation = "CubbyBackup";
  if (name == "quota" && quota_) operation = "CubbyQuota";
  if (name == "acl-audit" && acl_audit_) operation = "CubbyAclAudit";
  if (summary != nullptr) summary->operation = std::string(operation);

  if (operation == "Unknown") {
    *response = TextResponse(404, "not found\n");
    return true;
  }
  if (operation == "CubbyBackup") {
    *response = backup_(request);
    return true;
  }
  if (operation == "CubbyQuota") {
    *response = quota_(request, body);
    return true;
  }
  if (operation == "CubbyAclAudit") {
    *response = acl_audit_(request);
    return true;
  }
  if (request.method != "GET" && request.method != "HEAD") {
    *response = TextResponse(405, "method not allowed\n");
    response->Set("Allow", "GET, HEAD");
    return true;
  }
  if (operation == "CubbyLive") {
    *response = needs_restart_.load()
                    ? TextResponse(503,
                                   "restart needed: the store takes writes again only after "
                                   "a restart\n")
                    : TextResponse(200, "live\n");
  } else if (operation == "CubbyReady") {
    // Full is still ready: taking the pod out of its Service would stop the reads and deletes
    // that keep working (and that free space); the body and cubby_storage_full say it.
    if (!ready()) {
      *response = TextResponse(503, "not ready\n");
    } else {
      *response = TextResponse(
          200, storage_full_.load() ? "ready (store full: writes refused)\n" : "ready\n");
    }
  } else {
    ScrapeFigures figures = scrape_ ? scrape_() : ScrapeFigures{};
    figures.ready = ready();
    *response =
        TextResponse(200, metrics_->Render(figures), "text/plain; version=0.0.4; charset=utf-8");
  }
  return true;
}

s3api::ErrorCode Admit(const s3api::HttpRequest& request, const AdminDoor& door,
                       std::string_view action, std::string_view resource, std::string* message,
                       s3api::auth::AuthResult* auth) {
  storage::Store& store = door.store;
  const s3api::auth::KeyLookup lookup =
      [&store](std::string_view id) -> std::optional<storage::AccessKeyRecord> {
    storage::Result<storage::AccessKeyRecord> key = store.GetAccessKey(id);
    if (!key.ok()) return std::nullopt;
    return std::move(key).value();
  };
  s3api::auth::AuthResult result = s3api::auth::Authenticate(request, door.region, lookup, door.now);
  if (result.error != s3api::ErrorCode::kNone) {
    *message = result.error_message;
    return result.error;
  }
  if (result.anonymous || !result.key) return s3api::ErrorCode::kAccessDenied;
  const iam::Decision decision =
      s3api::AuthorizeCall(door.authorizer, request, result, door.now, action, resource);
  if (decision.verdict == iam::Verdict::kStorageFailure) return s3api::ErrorCode::kInternalError;
  if (!decision.allowed()) return s3api::ErrorCode::kAccessDenied;
  if (auth != nullptr) *auth = std::move(result);
  return s3api::ErrorCode::kNone;
}

std::string AdminResource(const std::string* bucket) {
  return bucket == nullptr ? std::string("*") : "arn:aws:s3:::" + *bucket;
}

std::vector<text::NameValue> AdminQuery(const s3api::HttpRequest& request) {
  const size_t q = request.target.find('?');
  return text::SplitUrlEncodedLenient(
      q == std::string::npos ? std::string_view() : std::string_view(request.target).substr(q + 1),
      text::Plus::kSpace);
}

s3api::HttpResponse AdminError(s3api::ErrorCode code, std::string_view message) {
  const s3api::ErrorInfo& info = s3api::Info(code);
  std::string body = "{\"code\":";
  text::AppendJsonString(info.code, &body);
  body += ",\"message\":";
  text::AppendJsonString(message.empty() ? info.message : message, &body);
  body += "}";
  return AdminJson(info.http_status, std::move(body));
}

s3api::HttpResponse AdminStorageError(const storage::Status& status) {
  if (status.code() == storage::Code::kNoSuchBucket) {
    return AdminError(s3api::ErrorCode::kNoSuchBucket);
  }
  if (status.code() == storage::Code::kInvalidArgument) {
    return AdminError(s3api::ErrorCode::kInvalidArgument, status.message());
  }
  if (status.code() == storage::Code::kNoSpace) {
    return AdminError(s3api::ErrorCode::kInsufficientStorage);
  }
  return AdminError(s3api::ErrorCode::kInternalError);
}

}  // namespace cubby::server
