// The server's own endpoints on the S3 port, answered before S3Service and without
// authentication (a bucket name never starts with '_', so path-style S3 requests cannot collide):
//   GET /_cubby/live     200 while the process serves HTTP at all
//   GET /_cubby/ready    200 once the store is open and (with COSI on) the COSI socket listens;
//                        503 before that and from the start of a shutdown. While the store is
//                        full it stays 200 (reads and deletes still work, and a not-ready pod
//                        would lose them too) with the body "ready (store full: writes
//                        refused)"; cubby_storage_full says the same.
//   GET /_cubby/metrics  Prometheus text format 0.0.4 (see metrics.h)
//   /_cubby/backup       online backups (see backup.h), when a handler is set
//   /_cubby/quota        bucket quotas (see quota_admin.h), when a handler is set
//   /_cubby/acl-audit    object ACLs a public bucket's grants reached (see acl_audit_admin.h),
//                        when a handler is set
// The last three admit root's keys and users whose policies allow their cubby:* action (Admit).
// HEAD works like GET; other methods get 405. Other /_cubby/ paths get 404.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "iam/authorize.h"
#include "s3api/auth/types.h"
#include "s3api/http.h"
#include "s3api/service.h"
#include "server/metrics.h"
#include "storage/store.h"
#include "text/uri.h"

namespace cubby::server {

class AdminEndpoints {
 public:
  // Called at scrape time for the figures that are not counters. Must be thread-safe.
  using ScrapeFn = std::function<ScrapeFigures()>;

  // `metrics` must outlive this object.
  AdminEndpoints(const Metrics* metrics, ScrapeFn scrape)
      : metrics_(metrics), scrape_(std::move(scrape)) {}

  // Answers /_cubby/backup. Set before the listener starts; `handler` must be thread-safe.
  using Handler = std::function<s3api::HttpResponse(const s3api::HttpRequest&)>;
  void SetBackupHandler(Handler handler) { backup_ = std::move(handler); }
  // Answers /_cubby/quota, whose PUT has a body. Set before the listener starts; thread-safe.
  using BodyHandler =
      std::function<s3api::HttpResponse(const s3api::HttpRequest&, s3api::BodyReader&)>;
  void SetQuotaHandler(BodyHandler handler) { quota_ = std::move(handler); }
  // Answers /_cubby/acl-audit. Set before the listener starts; thread-safe.
  void SetAclAuditHandler(Handler handler) { acl_audit_ = std::move(handler); }

  void SetReady(bool ready) { ready_.store(ready); }
  bool ready() const { return ready_.load(); }
  // Whether the store refuses writes for lack of space (said in /_cubby/ready's body).
  void SetStorageFull(bool full) { storage_full_.store(full); }
  // Whether only a restart brings writes back (storage::Capacity::engine_needs_restart): then
  // /_cubby/live answers 503, so an orchestrator restarts cubby; the space is back by then.
  void SetNeedsRestart(bool needs) { needs_restart_.store(needs); }

  // True when `request` targets /_cubby/...: then *response is the answer and
  // summary->operation names it (CubbyLive, CubbyReady, CubbyMetrics, CubbyBackup, CubbyQuota,
  // CubbyAclAudit, or Unknown for a 404). `body` is the request's body (read by /_cubby/quota
  // only). False otherwise, leaving both untouched.
  bool Handle(const s3api::HttpRequest& request, s3api::BodyReader& body,
              s3api::HttpResponse* response, s3api::RequestSummary* summary) const;
  // As above, for a request without a body.
  bool Handle(const s3api::HttpRequest& request, s3api::HttpResponse* response,
              s3api::RequestSummary* summary) const;

 private:
  const Metrics* metrics_;
  ScrapeFn scrape_;
  Handler backup_;
  BodyHandler quota_;
  Handler acl_audit_;
  std::atomic<bool> ready_{false};
  std::atomic<bool> storage_full_{false};
  std::atomic<bool> needs_restart_{false};
};

// What an admin endpoint (/_cubby/backup, /_cubby/quota, /_cubby/acl-audit) admits a request
// with: the store whose keys sign it, the Authorizer that decides, the server's SigV4 region and
// the clock's reading.
struct AdminDoor {
  storage::Store& store;
  const iam::Authorizer& authorizer;
  std::string_view region;
  std::chrono::system_clock::time_point now;
};

// Authenticates `request` (SigV4 or SigV2, header or presigned) and asks door.authorizer whether
// its caller may call `action` (cubby:*, e.g. "cubby:GetBucketQuota") on `resource` (a bucket's
// ARN, or "*"): root's keys may call all, a user when its policies allow it. kNone with *auth
// (may be null) set, whose payload mode the body is then read under (s3api::auth::WrapBody);
// else the S3 error that refuses the request: AccessDenied for anonymous callers and callers
// not allowed, InternalError when the user could not be read, the authentication error
// otherwise, its detail in *message (never secret material).
s3api::ErrorCode Admit(const s3api::HttpRequest& request, const AdminDoor& door,
                       std::string_view action, std::string_view resource, std::string* message,
                       s3api::auth::AuthResult* auth = nullptr);

// The ARN of bucket `name` ("arn:aws:s3:::name"), or "*" for none: an admin action's resource.
std::string AdminResource(const std::string* bucket);

// An admin endpoint's answer: `body` of `content_type`, never cached.
inline s3api::HttpResponse AdminResponse(int status, std::string_view content_type,
                                         std::string body) {
  s3api::HttpResponse response;
  response.status = status;
  response.Set("Content-Type", std::string(content_type));
  response.Set("Cache-Control", "no-store");
  response.content_length = body.size();
  response.body = std::move(body);
  return response;
}

// The query parameters of an admin request's target, decoded leniently ('+' is a space).
std::vector<text::NameValue> AdminQuery(const s3api::HttpRequest& request);

// A JSON answer of an admin endpoint (AdminResponse with application/json).
inline s3api::HttpResponse AdminJson(int status, std::string body) {
  return AdminResponse(status, "application/json", std::move(body));
}

// A JSON admin endpoint's error: {"code":"...","message":"..."} with the S3 code's string and
// status, `message` or the code's default message.
s3api::HttpResponse AdminError(s3api::ErrorCode code, std::string_view message = {});

// The store's failures an admin endpoint can meet as AdminError: NoSuchBucket, InvalidArgument
// (with storage's message), InsufficientStorage; anything else is a 500 whose detail (it may
// name paths) is not told.
s3api::HttpResponse AdminStorageError(const storage::Status& status);

}  // namespace cubby::server
