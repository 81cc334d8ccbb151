// cubby: configuration, the store, the root key, the S3 listener (with its /_cubby/ endpoints),
// the COSI listener, and an orderly shutdown on SIGINT/SIGTERM: stop accepting, let requests in
// flight finish within the grace period, close the COSI socket, flush RocksDB, exit 0. A second
// signal during that shutdown exits at once with 128+signal.
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "s3api/service.h"
#include "server/admin.h"
#include "server/config.h"
#include "server/cosi_listener.h"
#include "server/healthcheck.h"
#include "server/http_server.h"
#include "server/log.h"
#include "server/metrics.h"
#include "server/ready_line.h"
#include "server/root_credentials.h"
#include "server/tls.h"
#include "storage/keygen.h"
#include "storage/store.h"

namespace cubby::server {
namespace {

constexpr std::chrono::seconds kHealthcheckTimeout{5};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void Fatal(const std::string& message) { std::fprintf(stderr, "cubby: %s\n", message.c_str()); }

int RunHealthcheck(const std::string& url) {
  auto target = ParseProbeUrl(url);
  if (!target) {
    Fatal("--healthcheck: cannot parse " + url);
    return 2;
  }
  std::string error;
  auto status = Probe(*target, kHealthcheckTimeout, &error);
  if (!status) {
    Fatal("healthcheck " + url + ": " + error);
    return 1;
  }
  if (*status != 200) {
    Fatal("healthcheck " + url + ": HTTP " + std::to_string(*status));
    return 1;
  }
  return 0;
}

// The throwaway data folder: made under $TMPDIR (or /tmp), removed with everything in it.
class TempDir {
 public:
  static storage::Result<TempDir> Make() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") +
                          "/cubby-ephemeral-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      return storage::Status(storage::Code::kIOError,
                             "cannot make a temp folder " + pattern + ": " + std::strerror(errno));
    }
    return TempDir(pattern);
  }
  TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  ~TempDir() { Remove(); }
  void Remove() {
    if (path_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    path_.clear();
  }
  const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// The configuration as logged at start-up: every setting, secrets only as "configured".
void LogConfiguration(Logger& logger, const Config& config, const std::string& data_dir) {
  logger.Info("starting",
              {{"version", kVersion},
               {"data_dir", data_dir},
               {"ephemeral", config.ephemeral},
               {"s3_address", FormatAddress(config.s3_host, config.s3_port)},
               {"region", config.region},
               {"log_level", LogLevelName(config.log_level)},
               {"log_format", LogFormatName(config.log_format)},
               {"domain", config.domain.value_or("")},
               {"root_key", config.ephemeral ? "generated (in memory)"
                            : config.root_key ? "configured"
                                              : "generated"},
               {"tls_cert", config.tls_cert.value_or("")},
               {"tls_key", config.tls_key ? "configured" : ""},
               {"shutdown_grace_ms", static_cast<int64_t>(config.shutdown_grace.count())},
               {"max_connections", static_cast<uint64_t>(config.max_connections)},
               {"idle_timeout_ms", static_cast<int64_t>(config.idle_timeout.count())},
               {"header_timeout_ms", static_cast<int64_t>(config.header_timeout.count())},
               {"max_header_bytes", static_cast<uint64_t>(config.max_header_bytes)},
               {"metrics_address",
                config.metrics_address ? FormatAddress(config.metrics_address->host,
                                                       config.metrics_address->port)
                                       : std::string()}});
}

// Figures for a scrape: open connections, per-bucket objects and bytes.
ScrapeFigures Scrape(storage::Store& store, const HttpServer& http) {
  ScrapeFigures figures;
  figures.open_connections = http.active_connections();
  if (auto buckets = store.ListBuckets(); buckets.ok()) {
    for (const auto& bucket : *buckets) {
      auto stats = store.GetBucketStats(bucket.name);
      if (!stats.ok()) continue;  // deleted since the listing
      figures.buckets.push_back({bucket.name, stats->objects, stats->bytes});
    }
  }
  if (auto engine = store.GetEngineStats(); engine.ok()) {
    figures.engine = ScrapeFigures::Engine{engine->pending_compaction_bytes,
                                           engine->delayed_write_rate, engine->write_stopped};
  }
  return figures;
}

// One malloc arena per core the process may run on. glibc's default of 8 per core spreads a
// thread-per-connection server's heap over 16 arenas on 2 cores, and malloc_trim returns the
// free space at the top of the main arena only (in the others, only free chunks below the
// top): after the benchmark's cells the tops of the other 15 held 35 to 65 MiB, idle RSS 90
// MiB instead of 33. Threads beyond the cores cannot run at once anyway: over 11 alternating
// rounds on 2 cores, 4 KiB PUT and GET at c=32 took 2-5% more server CPU per request with 2
// arenas than with 16 (inside the machine's run-to-run spread), 256 KiB GET at c=8 the same.
// An explicit MALLOC_ARENA_MAX in the environment is left alone.
void LimitMallocArenas() {
  if (std::getenv("MALLOC_ARENA_MAX") != nullptr) return;
  cpu_set_t cpus;
  int cores = sched_getaffinity(0, sizeof(cpus), &cpus) == 0 ? CPU_COUNT(&cpus) : 0;
  if (cores <= 0) cores = static_cast<int>(std::thread::hardware_concurrency());
  mallopt(M_ARENA_MAX, std::max(cores, 1));
}

// Gives back what an idle server holds but does not need (issue 5: idle RSS < 64 MiB): RocksDB
// flushes its fuller memtables and drops unused cache blocks, then glibc returns freed heap (with
// a thread per connection it keeps memory in per-thread arenas after a burst).
void ReleaseIdleMemory(storage::Store& store, Logger& logger) {
  std::optional<storage::Store::MemoryUsage> before;
  if (logger.Enabled(LogLevel::kDebug)) {
    if (auto usage = store.GetMemoryUsage(); usage.ok()) before = *usage;
  }
  const auto start = std::chrono::steady_clock::now();
  if (storage::Status s = store.ReleaseIdleMemory(); !s.ok()) {
    logger.Warn("cannot release idle memory", {{"error", s.message()}});
  }
  malloc_trim(0);
  if (!before) return;
  const int64_t took_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - start)
                              .count();
  auto after = store.GetMemoryUsage();
  if (!after.ok()) return;
  logger.Debug("idle memory released",
               {{"took_ms", took_ms},
                {"memtables_before", before->memtables},
                {"memtables", after->memtables},
                {"block_cache_before", before->block_cache},
                {"block_cache", after->block_cache},
                {"block_cache_pinned", after->block_cache_pinned},
                {"table_readers", after->table_readers}});
}

// Waits for SIGINT/SIGTERM and returns it. Meanwhile, once no request has finished for a
// whole tick after some did, releases idle memory (above).
int WaitForShutdownSignal(const sigset_t& signals, const Metrics& metrics, storage::Store& store,
                          Logger& logger) {
  constexpr timespec kTick{2, 0};
  uint64_t seen = metrics.FinishedRequests();
  bool released = true;
  for (;;) {
    int signal_number = sigtimedwait(&signals, nullptr, &kTick);
    if (signal_number > 0) return signal_number;
    if (errno != EAGAIN) continue;  // EINTR
    uint64_t now = metrics.FinishedRequests();
    if (now != seen) {
      seen = now;
      released = false;
    } else if (!released) {
      ReleaseIdleMemory(store, logger);
      released = true;
    }
  }
}

int Run(int argc, char** argv) {
  LimitMallocArenas();  // before any thread allocates
  auto parsed = ParseConfig(argc, argv, ProcessEnv());
  if (!parsed.ok()) {
    Fatal(parsed.status().message());
    return 2;
  }
  Config config = std::move(*parsed);
  if (config.help) {
    std::fputs(Usage().c_str(), stdout);
    return 0;
  }
  if (config.version) {
    std::printf("cubby %.*s\n", static_cast<int>(kVersion.size()), kVersion.data());
    return 0;
  }
  if (config.healthcheck_url) return RunHealthcheck(*config.healthcheck_url);

  // Block the shutdown signals before any thread starts, so every thread inherits the mask and
  // only sigwait below receives them. A vanished peer is an EPIPE, never a SIGPIPE.
  sigset_t shutdown_signals;
  sigemptyset(&shutdown_signals);
  sigaddset(&shutdown_signals, SIGINT);
  sigaddset(&shutdown_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &shutdown_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  // Ephemeral: stdout carries the ready line only, so every log line goes to stderr.
  Logger logger(config.log_level, config.ephemeral ? 2 : 1, config.log_format);

  std::optional<TempDir> temp_dir;
  std::string data_dir = config.data_dir;
  if (config.ephemeral) {
    auto made = TempDir::Make();
    if (!made.ok()) {
      Fatal(made.status().message());
      return 1;
    }
    temp_dir.emplace(std::move(*made));
    data_dir = temp_dir->path();
    // An in-memory root key: handed out on the ready line, never written to a file.
    auto key = storage::GenerateAccessKey();
    if (!key.ok()) {
      Fatal("cannot generate the root key: " + key.status().message());
      return 1;
    }
    config.root_key = RootKeyConfig{key->access_key_id, key->secret};
  }
  LogConfiguration(logger, config, data_dir);

  SslCtxPtr tls;
  if (config.tls_cert) {
    auto made = MakeServerTlsContext(*config.tls_cert, *config.tls_key);
    if (!made.ok()) {
      Fatal(made.status().message());
      return 1;
    }
    tls = std::move(*made);
  }

  std::error_code fs_error;
  bool created = std::filesystem::create_directories(data_dir, fs_error);
  if (fs_error) {
    Fatal("cannot create data dir " + data_dir + ": " + fs_error.message());
    return 1;
  }
  // A data folder we create holds the root secret and every object: owner-only. An existing
  // folder keeps the mode its owner gave it.
  if (created && ::chmod(data_dir.c_str(), 0700) != 0) {
    logger.Warn("cannot restrict the data dir to its owner",
                {{"data_dir", data_dir}, {"error", std::strerror(errno)}});
  }

  storage::StoreOptions store_options;
  store_options.path = data_dir + "/db";
  // A throwaway instance's data dies with it: syncing the WAL would only slow it down.
  store_options.sync = !config.ephemeral;
  auto opened = storage::Store::Open(store_options);
  if (!opened.ok()) {
    Fatal("cannot open the store in " + store_options.path + ": " + opened.status().message());
    return 1;
  }
  std::unique_ptr<storage::Store> store = std::move(*opened);

  auto root = EnsureRootCredentials(*store, data_dir, config.root_key, NowMs());
  if (!root.ok()) {
    Fatal("root credentials: " + root.status().message());
    return 1;
  }
  if (config.ephemeral) {
    logger.Always("root key", {{"access_key_id", root->access_key_id}, {"source", "ephemeral"}});
  } else if (root->file.empty()) {
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

  Metrics metrics;
  HttpServer* http_ptr = nullptr;  // set below; the scrape runs only while the server does
  AdminEndpoints admin(&metrics, [&store, &http_ptr] { return Scrape(*store, *http_ptr); });

  HttpServerOptions http_options;
  http_options.host = config.s3_host;
  http_options.port = config.s3_port;
  http_options.max_connections = config.max_connections;
  http_options.idle_timeout = config.idle_timeout;
  http_options.header_timeout = config.header_timeout;
  http_options.header_limit = config.max_header_bytes;
  http_options.metrics = &metrics;
  http_options.tls = tls.get();
  HttpServer http(
      http_options,
      [&service, &admin](const s3api::HttpRequest& request, s3api::BodyReader& body,
                         s3api::RequestSummary* summary) {
        s3api::HttpResponse response;
        if (admin.Handle(request, &response, summary)) return response;
        return service.Handle(request, body, summary);
      },
      &logger);
  http_ptr = &http;
  if (storage::Status status = http.Start(); !status.ok()) {
    Fatal(status.message());
    return 1;
  }
  // Tests and scripts parse the s3_endpoint=... token of this line.
  logger.Always("listening", {{"s3_endpoint", http.EndpointUrl()}});

  // The optional metrics-only listener: /_cubby/ endpoints, everything else 404.
  std::unique_ptr<HttpServer> metrics_http;
  if (config.metrics_address) {
    HttpServerOptions options = http_options;
    options.host = config.metrics_address->host;
    options.port = config.metrics_address->port;
    options.tls = nullptr;
    options.max_connections = 64;
    metrics_http = std::make_unique<HttpServer>(
        options,
        [&admin](const s3api::HttpRequest& request, s3api::BodyReader&,
                 s3api::RequestSummary* summary) {
          s3api::HttpResponse response;
          if (admin.Handle(request, &response, summary)) return response;
          response.status = 404;
          response.body = "not found\n";
          response.content_length = response.body.size();
          response.Set("Content-Type", "text/plain; charset=utf-8");
          return response;
        },
        &logger);
    if (storage::Status status = metrics_http->Start(); !status.ok()) {
      Fatal("metrics listener: " + status.message());
      return 1;
    }
    logger.Always("metrics listening", {{"metrics_endpoint", metrics_http->EndpointUrl()}});
  }

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
    cosi_config.log = [&logger, &metrics](std::string_view method, std::string_view bucket,
                                          std::string_view code) {
      metrics.RecordCosiCall(method, code);
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

  admin.SetReady(true);
  logger.Always("ready");
  if (config.ephemeral) {
    std::optional<std::string> cosi_endpoint;
    if (cosi) cosi_endpoint = "unix://" + cosi->socket_path();
    // The one place a secret is printed: a throwaway instance's key, on its own stdout.
    std::string line = ReadyLine(http.EndpointUrl(), root->access_key_id,
                                 config.root_key->secret, cosi_endpoint);
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
  }

  int signal_number = WaitForShutdownSignal(shutdown_signals, metrics, *store, logger);
  admin.SetReady(false);
  logger.Info("shutting down", {{"signal", signal_number == SIGINT ? "SIGINT" : "SIGTERM"},
                                {"grace_ms", static_cast<int64_t>(config.shutdown_grace.count())}});

  // A second signal ends the process at once (128 + signal), without waiting for requests in
  // flight; an ephemeral instance still removes its temp folder.
  std::string doomed_dir = temp_dir ? temp_dir->path() : std::string();
  std::thread([shutdown_signals, doomed_dir, &logger]() mutable {
    int second = 0;
    while (sigwait(&shutdown_signals, &second) != 0) {
    }
    logger.Warn("second signal: exiting now", {{"signal", second == SIGINT ? "SIGINT" : "SIGTERM"}});
    if (!doomed_dir.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(doomed_dir, ec);
    }
    std::_Exit(128 + second);
  }).detach();

  if (cosi) cosi->Shutdown();

  if (metrics_http) metrics_http->Stop(std::chrono::milliseconds(0));
  size_t aborted = http.Stop(config.shutdown_grace);
  if (aborted > 0) logger.Warn("aborted connections at shutdown", {{"count", aborted}});
  store.reset();  // flushes and closes RocksDB
  if (temp_dir) temp_dir->Remove();
  logger.Info("stopped");
  return 0;
}

}  // namespace
}  // namespace cubby::server

int main(int argc, char** argv) { return cubby::server::Run(argc, argv); }
