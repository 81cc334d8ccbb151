// The server's own endpoints on the S3 port, answered before S3Service and without
// authentication (a bucket name never starts with '_', so path-style S3 requests cannot collide):
//   GET /_cubby/live     200 while the process serves HTTP at all
//   GET /_cubby/ready    200 once the store is open and (with COSI on) the COSI socket listens;
//                        503 before that and from the start of a shutdown. While the store is
//                        full it stays 200 (reads and deletes still work, and a not-ready pod
//                        would lose them too) with the body "ready (store full: writes
//                        refused)"; cubby_storage_full says the same.
//   GET /_cubby/metrics  Prometheus text format 0.0.4 (see metrics.h)
//   /_cubby/backup       online backups, for the root key only (see backup.h), when a handler
//                        is set
// HEAD works like GET; other methods get 405. Other /_cubby/ paths get 404.
#pragma once

#include <atomic>
#include <functional>
#include <string_view>

#include "s3api/http.h"
#include "s3api/service.h"
#include "server/metrics.h"

namespace cubby::server {

inline constexpr std::string_view kAdminPrefix = "/_cubby/";

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

  void SetReady(bool ready) { ready_.store(ready); }
  bool ready() const { return ready_.load(); }
  // Whether the store refuses writes for lack of space (said in /_cubby/ready's body).
  void SetStorageFull(bool full) { storage_full_.store(full); }
  // Whether only a restart brings writes back (storage::Capacity::engine_needs_restart): then
  // /_cubby/live answers 503, so an orchestrator restarts cubby; the space is back by then.
  void SetNeedsRestart(bool needs) { needs_restart_.store(needs); }

  // True when `request` targets /_cubby/...: then *response is the answer and
  // summary->operation names it (CubbyLive, CubbyReady, CubbyMetrics, CubbyBackup, or Unknown
  // for a 404).
  // False otherwise, leaving both untouched.
  bool Handle(const s3api::HttpRequest& request, s3api::HttpResponse* response,
              s3api::RequestSummary* summary) const;

 private:
  const Metrics* metrics_;
  ScrapeFn scrape_;
  Handler backup_;
  std::atomic<bool> ready_{false};
  std::atomic<bool> storage_full_{false};
  std::atomic<bool> needs_restart_{false};
};

}  // namespace cubby::server
