#include "server/admin.h"

namespace cubby::server {
namespace {

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
  std::string_view path = request.target;
  if (size_t q = path.find('?'); q != std::string_view::npos) path = path.substr(0, q);
  if (!path.starts_with(kAdminPrefix)) return false;
  std::string_view name = path.substr(kAdminPrefix.size());

  std::string_view operation = "Unknown";
  if (name == "live") operation = "CubbyLive";
  if (name == "ready") operation = "CubbyReady";
  if (name == "metrics") operation = "CubbyMetrics";
  if (name == "backup" && backup_) operation = "CubbyBackup";
  if (summary != nullptr) summary->operation = std::string(operation);

  if (operation == "Unknown") {
    *response = TextResponse(404, "not found\n");
    return true;
  }
  if (operation == "CubbyBackup") {
    *response = backup_(request);
    return true;
  }
  if (request.method != "GET" && request.method != "HEAD") {
    *response = TextResponse(405, "method not allowed\n");
    response->Set("Allow", "GET, HEAD");
    return true;
  }
  if (operation == "CubbyLive") {
    *response = needs_restart_.load()
                    ? TextResponse(503, "restart needed: the store takes writes again only after "
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
    *response = TextResponse(200, metrics_->Render(figures), "text/plain; version=0.0.4; charset=utf-8");
  }
  return true;
}

}  // namespace cubby::server
