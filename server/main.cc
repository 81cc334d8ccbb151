// cubby: configuration, the store, the root key, the S3 listener, and an orderly shutdown on
// SIGINT/SIGTERM.
#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "s3api/service.h"
#include "server/config.h"
#include "server/cosi_listener.h"
#include "server/http_server.h"
#include "server/log.h"
#include "server/root_credentials.h"
#include "storage/store.h"

namespace cubby::server {
namespace {

// Requests in flight get this long to finish after SIGINT/SIGTERM.
constexpr std::chrono::seconds kShutdownGrace{10};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void Fatal(const std::string& message) { std::fprintf(stderr, "cubby: %s\n", message.c_str()); }

int Run(int argc, char** argv) {
  auto parsed = ParseConfig(argc, argv, ProcessEnv());
  if (!parsed.ok()) {
    Fatal(parsed.status().message());
    return 2;
  }
  const Config& config = *parsed;
  if (config.help) {
    std::fputs(Usage().c_str(), stdout);
    return 0;
  }
  if (config.version) {
    std::printf("cubby %.*s\n", static_cast<int>(kVersion.size()), kVersion.data());
    return 0;
  }

  // Block the shutdown signals before any thread starts, so every thread inherits the mask and
  // only sigwait below receives them. A vanished peer is an EPIPE, never a SIGPIPE.
  sigset_t shutdown_signals;
  sigemptyset(&shutdown_signals);
  sigaddset(&shutdown_signals, SIGINT);
  sigaddset(&shutdown_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &shutdown_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  Logger logger(config.log_level);
  logger.Info("starting", {{"version", kVersion},
                           {"data_dir", config.data_dir},
                           {"s3_address", FormatAddress(config.s3_host, config.s3_port)},
                           {"region", config.region},
                           {"log_level", LogLevelName(config.log_level)},
                           {"domain", config.domain.value_or("")},
                           {"root_key", config.root_key ? "configured" : "generated"}});

  std::error_code fs_error;
  bool created = std::filesystem::create_directories(config.data_dir, fs_error);
  if (fs_error) {
    Fatal("cannot create data dir " + config.data_dir + ": " + fs_error.message());
    return 1;
  }
  // A data folder we create holds the root secret and every object: owner-only. An existing
  // folder keeps the mode its owner gave it.
  if (created && ::chmod(config.data_dir.c_str(), 0700) != 0) {
    logger.Warn("cannot restrict the data dir to its owner",
                {{"data_dir", config.data_dir}, {"error", std::strerror(errno)}});
  }

  storage::StoreOptions store_options;
  store_options.path = config.data_dir + "/db";
  auto opened = storage::Store::Open(store_options);
  if (!opened.ok()) {
    Fatal("cannot open the store in " + store_options.path + ": " + opened.status().message());
    return 1;
  }
  std::unique_ptr<storage::Store> store = std::move(*opened);

  auto root = EnsureRootCredentials(*store, config.data_dir, config.root_key, NowMs());
  if (!root.ok()) {
    Fatal("root credentials: " + root.status().message());
    return 1;
  }
  if (root->file.empty()) {
    logger.Always("root key", {{"access_key_id", root->access_key_id}, {"source", "environment"}});
  } else {
    logger.Always("root key", {{"access_key_id", root->access_key_id},
                               {"credentials_file", root->file},
                               {"generated", root->generated}});
  }

  s3api::ServiceOptions service_options;
  service_options.region = config.region;
  service_options.domain = config.domain.value_or("");
  s3api::S3Service service(store.get(), service_options);

  HttpServerOptions http_options;
  http_options.host = config.s3_host;
  http_options.port = config.s3_port;
  HttpServer http(
      http_options,
      [&service](const s3api::HttpRequest& request, s3api::BodyReader& body,
                 s3api::RequestSummary* summary) { return service.Handle(request, body, summary); },
      &logger);
  if (storage::Status status = http.Start(); !status.ok()) {
    Fatal(status.message());
    return 1;
  }
  // Tests and scripts parse the s3_endpoint=... token of this line.
  logger.Always("listening", {{"s3_endpoint", http.EndpointUrl()}});

  // COSI driver on its UNIX socket, when COSI_ENDPOINT is set: after the store is open and
  // before "ready", stopped below before the store closes.
  auto cosi_options = CosiOptionsFromEnv(ProcessEnv(), http.EndpointUrl(), config.region);
  if (!cosi_options.ok()) {
    Fatal(cosi_options.status().message());
    return 1;
  }
  std::unique_ptr<CosiListener> cosi;
  if (cosi_options->has_value()) {
    CosiOptions& cosi_config = **cosi_options;
    cosi_config.log = [&logger](std::string_view method, std::string_view bucket,
                                std::string_view code) {
      logger.Info("cosi", {{"method", method}, {"bucket", bucket}, {"code", code}});
    };
    auto started = CosiListener::Start(cosi_config, store.get());
    if (!started.ok()) {
      Fatal(started.status().message());
      return 1;
    }
    cosi = std::move(*started);
    logger.Always("cosi listening", {{"cosi_endpoint", "unix://" + cosi->socket_path()},
                                     {"driver_name", cosi_config.driver_name},
                                     {"public_endpoint", cosi_config.public_endpoint}});
  }

  logger.Always("ready");

  int signal_number = 0;
  while (sigwait(&shutdown_signals, &signal_number) != 0) {
  }
  logger.Info("shutting down", {{"signal", signal_number == SIGINT ? "SIGINT" : "SIGTERM"}});

  if (cosi) cosi->Shutdown();

  size_t aborted = http.Stop(kShutdownGrace);
  if (aborted > 0) logger.Warn("aborted connections at shutdown", {{"count", aborted}});
  store.reset();  // flushes and closes RocksDB
  logger.Info("stopped");
  return 0;
}

}  // namespace
}  // namespace cubby::server

int main(int argc, char** argv) { return cubby::server::Run(argc, argv); }
