// cubby: configuration, the store, the root key, the S3 listener (with its /_cubby/ endpoints),
// the COSI listener, and an orderly shutdown on SIGINT/SIGTERM: stop accepting, let requests in
// flight finish within the grace period, close the COSI socket, close RocksDB, exit 0. A second
// signal during that shutdown exits at once with 128+signal. With TLS, the certificate and key
// are loaded again when their files change and on SIGHUP.
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "crypt/service_keys.h"
#include "kms/kms.h"
#include "lifecycle/worker.h"
#include "s3api/service.h"
#include "server/acl_audit_admin.h"
#include "server/admin.h"
#include "server/backup.h"
#include "server/backup_command.h"
#include "server/config.h"
#include "server/cosi_listener.h"
#include "server/healthcheck.h"
#include "server/http_server.h"
#include "server/log.h"
#include "server/master_key.h"
#include "server/master_key_command.h"
#include "server/metrics.h"
#include "server/quota_admin.h"
#include "server/ready_line.h"
#include "server/root_credentials.h"
#include "server/tls.h"
#include "server/user_command.h"
#include "server/users_file.h"
#include "storage/keygen.h"
#include "storage/store.h"
#include "text/time.h"

namespace cubby::server {
namespace {

constexpr std::chrono::seconds kHealthcheckTimeout{5};
// The data folder was written by a newer release (README "Upgrades"): distinct from 1, so a
// supervisor or an operator's script can tell "downgraded" from an ordinary failure.
constexpr int kExitFormatTooNew = 3;

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
               {"disk_reserve", config.disk_reserve_bytes
                                    ? std::to_string(*config.disk_reserve_bytes)
                                    : std::string("auto")},
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
      figures.buckets.push_back(
          {bucket.name, stats->objects, stats->bytes, bucket.quota.objects, bucket.quota.bytes});
    }
  }
  // Capacity first: it resumes an engine that stopped for lack of space once there is room.
  if (auto capacity = store.GetCapacity(); capacity.ok()) {
    figures.storage = ScrapeFigures::Storage{capacity->available_bytes, capacity->reserve_bytes,
                                             capacity->full()};
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

// Gives back what an idle server holds but does not need (the target: idle RSS < 64 MiB): RocksDB
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

// `status` with `context` before its message (the code is kept).
storage::Status WithContext(const std::string& context, const storage::Status& status) {
  return storage::Status(status.code(), context + status.message());
}

// --help, --version and --healthcheck: the commands that do their one thing and exit. Their
// exit code, or nullopt when the configuration asks for a server.
std::optional<int> RunCommand(const Config& config) {
  if (config.help) {
    std::fputs(Usage().c_str(), stdout);
    return 0;
  }
  if (config.version) {
    std::printf("cubby %.*s\n", static_cast<int>(kVersion.size()), kVersion.data());
    return 0;
  }
  if (config.healthcheck_url) return RunHealthcheck(*config.healthcheck_url);
  return std::nullopt;
}

// Blocks the shutdown signals before any thread starts, so every thread inherits the mask and
// only sigwait/sigtimedwait receive them; returns them. A vanished peer is an EPIPE, never a
// SIGPIPE.
sigset_t BlockShutdownSignals() {
  sigset_t shutdown_signals;
  sigemptyset(&shutdown_signals);
  sigaddset(&shutdown_signals, SIGINT);
  sigaddset(&shutdown_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &shutdown_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return shutdown_signals;
}

// With TLS on, also SIGHUP (reload the certificate; see Instance::WaitForShutdownSignal):
// blocked like the shutdown signals and added to the set waited for. Without TLS, SIGHUP keeps
// its default action (the process ends, as a hang-up of its terminal should end it).
sigset_t WithReloadSignal(sigset_t signals, bool tls) {
  if (!tls) return signals;
  sigset_t hup;
  sigemptyset(&hup);
  sigaddset(&hup, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &hup, nullptr);
  sigaddset(&signals, SIGHUP);
  return signals;
}

const char* SignalName(int signal_number) {
  return signal_number == SIGINT ? "SIGINT" : "SIGTERM";
}

// A second shutdown signal ends the process at once (128 + signal), without waiting for requests
// in flight; an ephemeral instance still removes its temp folder (`doomed_dir`, if not empty).
void ExitOnSecondSignal(sigset_t shutdown_signals, std::string doomed_dir, Logger& logger) {
  std::thread([shutdown_signals, doomed_dir = std::move(doomed_dir), &logger] {
    int second = 0;
    while (sigwait(&shutdown_signals, &second) != 0) {
    }
    logger.Warn("second signal: exiting now", {{"signal", SignalName(second)}});
    if (!doomed_dir.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(doomed_dir, ec);
    }
    std::_Exit(128 + second);
  }).detach();
}

// The answer of the metrics-only listener to everything but /_cubby/.
s3api::HttpResponse NotFound() {
  s3api::HttpResponse response;
  response.status = 404;
  response.body = "not found\n";
  response.content_length = response.body.size();
  response.Set("Content-Type", "text/plain; charset=utf-8");
  return response;
}

// A running cubby: the parts Run starts, in the order it starts them. Members are declared in
// that order, so whatever was started is destroyed in reverse on every path (the listeners
// before the store, the store before its temp folder).
class Instance {
 public:
  Instance(Config config, Logger* logger) : config_(std::move(config)), logger_(*logger) {}

  // Every start-up step, in order, up to the ready line. A failed step's message is the fatal
  // one to print; what started before it is stopped by the destructor.
  storage::Status Start() {
    if (storage::Status s = MakeEphemeralDataDir(); !s.ok()) return s;
    LogConfiguration(logger_, config_, data_dir_);
    if (storage::Status s = LoadTls(); !s.ok()) return s;
    if (storage::Status s = CreateDataDir(); !s.ok()) return s;
    if (storage::Status s = OpenKeys(); !s.ok()) return s;
    if (storage::Status s = OpenStore(); !s.ok()) return s;
    if (storage::Status s = CreateKeyringIfMissing(); !s.ok()) return s;
    if (storage::Status s = LoadRootCredentials(); !s.ok()) return s;
    if (storage::Status s = ApplyUsers(); !s.ok()) return s;
    if (storage::Status s = StartS3Listener(); !s.ok()) return s;
    if (storage::Status s = StartMetricsListener(); !s.ok()) return s;
    if (storage::Status s = StartCosiListener(); !s.ok()) return s;
    StartLifecycle();
    AnnounceReady();
    return storage::Status::Ok();
  }

  // Whether Start failed for the configuration's fault (exit 2), not the machine's.
  bool config_error() const { return config_error_; }

  // Waits for SIGINT/SIGTERM (of `signals`) and returns it. Meanwhile, each tick, watches the
  // store's free space (which also resumes a store stopped for lack of space); once no request
  // has finished for a whole tick after some did, releases idle memory (not while full); with TLS, loads the
  // certificate and key again on SIGHUP and, each tick, when their files changed.
  int WaitForShutdownSignal(const sigset_t& signals) {
    // The tick bounds how long a renewed certificate waits to be served: cert-manager renews
    // weeks ahead, so 2 s is plenty, and a tick costs two stat(2) calls.
    constexpr timespec kTick{2, 0};
    uint64_t seen = metrics_.FinishedRequests();
    bool released = true;
    WatchCapacity();
    for (;;) {
      int signal_number = sigtimedwait(&signals, nullptr, &kTick);
      if (signal_number == SIGHUP) {
        if (tls_) ReportReload(tls_->Reload(), "SIGHUP");
        continue;
      }
      if (signal_number > 0) return signal_number;
      if (errno != EAGAIN) continue;  // EINTR
      if (tls_) ReportReload(tls_->ReloadIfChanged(), "file_changed");
      const bool full = WatchCapacity();
      uint64_t now = metrics_.FinishedRequests();
      if (now != seen) {
        seen = now;
        released = false;
      } else if (!released && !full) {
        // Not while full: the flush it asks for has no room, and would only fail again.
        ReleaseIdleMemory(*store_, logger_);
        released = true;
      }
    }
  }

  // The graceful shutdown after `signal_number`: not ready, the COSI socket closed, requests in
  // flight finished within the grace period, RocksDB closed, the temp folder removed.
  void Shutdown(int signal_number, const sigset_t& shutdown_signals) {
    admin_->SetReady(false);
    logger_.Info("shutting down",
                 {{"signal", SignalName(signal_number)},
                  {"grace_ms", static_cast<int64_t>(config_.shutdown_grace.count())}});
    ExitOnSecondSignal(shutdown_signals, temp_dir_ ? temp_dir_->path() : std::string(), logger_);
    if (cosi_) cosi_->Shutdown();
    if (metrics_http_) metrics_http_->Stop(std::chrono::milliseconds(0));
    size_t aborted = http_->Stop(config_.shutdown_grace);
    if (aborted > 0) logger_.Warn("aborted connections at shutdown", {{"count", aborted}});
    backup_.reset();  // cancels a running backup (its partial folder is removed)
    if (lifecycle_) lifecycle_->Stop();  // ends a pass at its next step
    store_.reset();   // closes RocksDB; what no table file holds yet is in its synced WAL
    if (temp_dir_) temp_dir_->Remove();
    logger_.Info("stopped");
  }

 private:
  // Reads the store's capacity (resuming a store that stopped for lack of space once there is
  // room again), tells readiness, and logs once when the store becomes full and once when it
  // takes writes again. Returns whether it is full now; an unreadable capacity counts as
  // unchanged.
  bool WatchCapacity() {
    storage::Result<storage::Capacity> capacity = store_->GetCapacity();
    if (!capacity.ok()) return storage_full_;
    const bool full = capacity->full();
    admin_->SetStorageFull(full);
    if (capacity->engine_needs_restart && !needs_restart_) {
      needs_restart_ = true;
      admin_->SetNeedsRestart(true);
      logger_.Error("store needs a restart: the space is back, but the engine stopped in a way "
                    "it resumes from only when restarted; reads keep working, writes answer 507, "
                    "/_cubby/live answers 503",
                    {{"free_bytes", capacity->available_bytes}});
    }
    if (full == storage_full_) return full;
    storage_full_ = full;
    if (full) {
      logger_.Warn("store full: writes refused (507) until space is freed",
                   {{"free_bytes", capacity->available_bytes},
                    {"reserve_bytes", capacity->reserve_bytes},
                    {"engine_stopped", capacity->engine_stopped}});
    } else {
      logger_.Info("store has space again: writes accepted",
                   {{"free_bytes", capacity->available_bytes},
                    {"reserve_bytes", capacity->reserve_bytes}});
    }
    return full;
  }

  // Ephemeral: a throwaway data folder and an in-memory root key, handed out on the ready line
  // and never written to a file.
  storage::Status MakeEphemeralDataDir() {
    data_dir_ = config_.data_dir;
    if (!config_.ephemeral) return storage::Status::Ok();
    auto made = TempDir::Make();
    if (!made.ok()) return made.status();
    temp_dir_.emplace(std::move(*made));
    data_dir_ = temp_dir_->path();
    auto key = storage::GenerateAccessKey();
    if (!key.ok()) return WithContext("cannot generate the root key: ", key.status());
    config_.root_key = RootKeyConfig{key->access_key_id, key->secret};
    return storage::Status::Ok();
  }

  storage::Status LoadTls() {
    if (!config_.tls_cert) return storage::Status::Ok();
    auto loaded = ServerTls::Load(*config_.tls_cert, *config_.tls_key);
    if (!loaded.ok()) return loaded.status();
    tls_ = std::move(*loaded);
    CertificateInfo cert = tls_->current();
    logger_.Info("tls certificate loaded", {{"subject", cert.subject},
                                            {"serial", cert.serial},
                                            {"not_after", cert.not_after}});
    return storage::Status::Ok();
  }

  // Logs a reload's outcome: the new certificate, or why the files did not load and that the
  // certificate in use stays.
  void ReportReload(const ServerTls::ReloadResult& result, std::string_view trigger) {
    switch (result.outcome) {
      case ServerTls::Outcome::kUnchanged:
        return;
      case ServerTls::Outcome::kReloaded:
        logger_.Info("tls certificate reloaded", {{"trigger", trigger},
                                                  {"subject", result.certificate.subject},
                                                  {"serial", result.certificate.serial},
                                                  {"not_after", result.certificate.not_after}});
        return;
      case ServerTls::Outcome::kFailed:
        logger_.Warn("tls certificate reload failed",
                     {{"trigger", trigger},
                      {"error", result.error},
                      {"serving_serial", tls_->current().serial}});
        return;
    }
  }

  // Creates the data folder if needed (owner-only when we create it).
  storage::Status CreateDataDir() {
    std::error_code fs_error;
    bool created = std::filesystem::create_directories(data_dir_, fs_error);
    if (fs_error) {
      return storage::Status(storage::Code::kIOError,
                             "cannot create data dir " + data_dir_ + ": " + fs_error.message());
    }
    // A data folder we create holds the root secret and every object: owner-only. An existing
    // folder keeps the mode its owner gave it.
    if (created && ::chmod(data_dir_.c_str(), 0700) != 0) {
      logger_.Warn("cannot restrict the data dir to its owner",
                   {{"data_dir", data_dir_}, {"error", std::strerror(errno)}});
    }
    return storage::Status::Ok();
  }

  // The master key and the keyring's root keys (server/master_key.h), before the store is
  // opened: a wrong key is refused with nothing in the data folder changed. A throwaway
  // instance keeps random root keys in memory. Key material is never logged.
  // Without a keyring yet, only a configured key file is checked here; the keyring is created
  // once the store has opened (CreateKeyringIfMissing), so a folder the store refuses stays
  // as it was.
  storage::Status OpenKeys() {
    if (config_.ephemeral) {
      auto keys = EphemeralServiceKeys();
      if (!keys.ok()) return keys.status();
      keys_ = std::move(*keys);
      logger_.Info("master key", {{"source", "ephemeral (in memory)"}});
      return storage::Status::Ok();
    }
    auto opened = OpenExistingKeyring(data_dir_, config_.master_key_file.value_or(""),
                                      [this](const std::string& w) { WarnMasterKey(w); });
    if (!opened.ok()) {
      config_error_ = opened.status().code() == storage::Code::kInvalidArgument;
      return opened.status();
    }
    if (opened->has_value()) {
      opened_keyring_.emplace(std::move(**opened));
      UseKeyring(&*opened_keyring_);
    }
    return storage::Status::Ok();
  }

  // First start, or a data folder from before encryption at rest: a new keyring (and, without
  // --master-key-file, DATA/master.key).
  storage::Status CreateKeyringIfMissing() {
    if (opened_keyring_) {
      // Now that the store's lock is held, no rotation can be running: tidy the folder.
      const storage::Status s = FinishKeyringOpen(
          data_dir_, *opened_keyring_, [this](const std::string& w) { WarnMasterKey(w); });
      opened_keyring_.reset();
      return s;
    }
    if (keys_) return storage::Status::Ok();  // ephemeral
    auto opened = OpenKeyring(data_dir_, config_.master_key_file.value_or(""),
                              [this](const std::string& w) { WarnMasterKey(w); });
    if (!opened.ok()) {
      config_error_ = opened.status().code() == storage::Code::kInvalidArgument;
      return opened.status();
    }
    UseKeyring(&*opened);
    return storage::Status::Ok();
  }

  void WarnMasterKey(const std::string& warning) {
    logger_.Warn("master key", {{"warning", warning}});
  }

  // Takes the root keys out of `opened` and logs where the master key came from.
  void UseKeyring(OpenedKeyring* opened) {
    keys_ = std::move(opened->keys);
    logger_.Always("master key",
                   {{"file", opened->master_key_file},
                    {"source", opened->generated_key_file ? "generated" : "configured"},
                    {"generated_now", opened->key_generated},
                    {"keyring_created", opened->keyring_created}});
  }

  // Opens the store in the data folder.
  storage::Status OpenStore() {
    storage::StoreOptions store_options;
    store_options.path = data_dir_ + "/db";
    // A throwaway instance's data dies with it: syncing the WAL would only slow it down.
    store_options.sync = !config_.ephemeral;
    store_options.on_migration = [this](const storage::MigrationEvent& step) {
      LogMigration(step);
    };
    store_options.reserve_bytes = config_.disk_reserve_bytes;
    auto opened = storage::Store::Open(store_options);
    if (!opened.ok()) {
      return WithContext("cannot open the store in " + store_options.path + ": ",
                         opened.status());
    }
    store_ = std::move(*opened);
    return storage::Status::Ok();
  }

  // Logs each migration step of the data folder's format. CUBBY_TEST_STOP_AT_MIGRATION
  // ("before" or "after" the step's batch) stops the process there with SIGSTOP, so the
  // upgrade test can SIGKILL it at exactly that point (test/e2e/test_upgrade.py).
  void LogMigration(const storage::MigrationEvent& step) {
    logger_.Always(step.done ? "data folder migrated" : "migrating data folder",
                   {{"from_format", step.from}, {"to_format", step.to}, {"step", step.what}});
    const char* stop_at = std::getenv("CUBBY_TEST_STOP_AT_MIGRATION");
    if (stop_at != nullptr && std::string_view(stop_at) == (step.done ? "after" : "before")) {
      ::raise(SIGSTOP);
    }
  }

  // CUBBY_USERS_FILE: users with known keys, applied at every start (server/users_file.h).
  storage::Status ApplyUsers() {
    if (!config_.users_file) return storage::Status::Ok();
    std::ifstream in(*config_.users_file, std::ios::binary);
    if (!in) {
      config_error_ = true;
      return storage::Status(storage::Code::kInvalidArgument,
                             "cannot read the users file " + *config_.users_file);
    }
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto lines = ParseUsersFile(text);
    if (!lines.ok()) {
      config_error_ = true;
      return WithContext(*config_.users_file + ": ", lines.status());
    }
    auto applied = ApplyUsersFile(*store_, *lines, text::NowUnixMillis());
    if (!applied.ok()) {
      config_error_ = applied.status().code() == storage::Code::kInvalidArgument;
      return WithContext(*config_.users_file + ": ", applied.status());
    }
    logger_.Always("users file applied", {{"file", *config_.users_file},
                                          {"users_created", applied->users_created},
                                          {"keys_created", applied->keys_created}});
    return storage::Status::Ok();
  }

  storage::Status LoadRootCredentials() {
    auto root = EnsureRootCredentials(*store_, data_dir_, config_.root_key, text::NowUnixMillis());
    if (!root.ok()) return WithContext("root credentials: ", root.status());
    root_ = std::move(*root);
    if (config_.ephemeral) {
      logger_.Always("root key", {{"access_key_id", root_.access_key_id}, {"source", "ephemeral"}});
    } else if (root_.file.empty()) {
      logger_.Always("root key",
                     {{"access_key_id", root_.access_key_id}, {"source", "environment"}});
    } else {
      logger_.Always("root key", {{"access_key_id", root_.access_key_id},
                                  {"credentials_file", root_.file},
                                  {"generated", root_.generated}});
    }
    return storage::Status::Ok();
  }

  // The lifecycle worker (lifecycle/worker.h): a pass every LifecycleInterval, each logged
  // when it changed something or failed somewhere (counts only: keys are not logged).
  void StartLifecycle() {
    lifecycle::LifecycleOptions options;
    options.day = config_.lifecycle_day;
    options.interval = LifecycleInterval(config_);
    lifecycle_ = std::make_unique<lifecycle::Worker>(
        store_.get(), options, [this](const lifecycle::PassStats& s) {
          if (s.actions() == 0 && s.errors == 0) return;
          const LogLevel level = s.errors == 0 ? LogLevel::kInfo : LogLevel::kWarn;
          logger_.Log(level, "lifecycle pass",
                      {{"buckets", s.buckets},
                       {"expired_current", s.expired_current},
                       {"expired_noncurrent", s.expired_noncurrent},
                       {"removed_delete_markers", s.removed_markers},
                       {"aborted_uploads", s.aborted_uploads},
                       {"kept_by_object_lock", s.locked},
                       {"bounded", s.bounded},
                       {"errors", s.errors},
                       {"first_error", s.first_error}});
        });
    lifecycle_->Start();
  }

  // The admin endpoints ask the S3 service's Authorizer, as IAM and KMS do.
  AdminDoor AdminDoorNow() const {
    return {*store_, service_->authorizer(), config_.region, std::chrono::system_clock::now()};
  }

  // The S3 endpoint: the service picks among its front doors (S3, IAM, KMS and the /_cubby/
  // endpoints, which it hands to admin_).
  storage::Status StartS3Listener() {
    s3api::ServiceOptions service_options;
    service_options.region = config_.region;
    service_options.domain = config_.domain.value_or("");
    service_options.default_object_ownership = config_.default_object_ownership;
    service_options.lifecycle_day = config_.lifecycle_day;
    service_options.keys = keys_ ? &*keys_ : nullptr;
    service_options.default_sse_s3 = config_.default_sse_s3;
    service_options.allow_sse_c_over_http = config_.allow_sse_c_over_http;
    // The built-in KMS runs on the keyring's KMS KEK; without a keyring there is none
    // and SSE-KMS and the KMS JSON API are refused.
    if (service_options.keys != nullptr) {
      kms_ = std::make_unique<kms::KeyService>(store_.get(), &service_options.keys->kms,
                                               config_.region);
      service_options.kms = kms_.get();
    }
    service_options.admin = [this](const s3api::HttpRequest& request, s3api::BodyReader& body,
                                   s3api::RequestSummary* summary) {
      s3api::HttpResponse response;
      admin_->Handle(request, body, &response, summary);
      return response;
    };
    service_ = std::make_unique<s3api::S3Service>(store_.get(), service_options);
    // The scrape runs only while the S3 listener does.
    admin_ = std::make_unique<AdminEndpoints>(&metrics_,
                                              [this] { return Scrape(*store_, *http_); });
    backup_ = std::make_unique<BackupRunner>(store_.get(), data_dir_, &logger_);
    admin_->SetBackupHandler([this](const s3api::HttpRequest& request) {
      return HandleBackupRequest(request, AdminDoorNow(), *backup_);
    });
    admin_->SetQuotaHandler([this](const s3api::HttpRequest& request, s3api::BodyReader& body) {
      return HandleQuotaRequest(request, body, AdminDoorNow());
    });
    admin_->SetAclAuditHandler([this](const s3api::HttpRequest& request) {
      return HandleAclAuditRequest(request, AdminDoorNow());
    });
    http_options_.host = config_.s3_host;
    http_options_.port = config_.s3_port;
    http_options_.max_connections = config_.max_connections;
    http_options_.idle_timeout = config_.idle_timeout;
    http_options_.header_timeout = config_.header_timeout;
    http_options_.header_limit = config_.max_header_bytes;
    http_options_.metrics = &metrics_;
    http_options_.tls = tls_.get();
    http_ = std::make_unique<HttpServer>(
        http_options_,
        [this](const s3api::HttpRequest& request, s3api::BodyReader& body,
               s3api::RequestSummary* summary) { return service_->Handle(request, body, summary); },
        &logger_);
    if (storage::Status status = http_->Start(); !status.ok()) return status;
    // Tests and scripts parse the s3_endpoint=... token of this line.
    logger_.Always("listening", {{"s3_endpoint", http_->EndpointUrl()}});
    return storage::Status::Ok();
  }

  // The optional metrics-only listener: /_cubby/ endpoints, everything else 404.
  storage::Status StartMetricsListener() {
    if (!config_.metrics_address) return storage::Status::Ok();
    HttpServerOptions options = http_options_;
    options.host = config_.metrics_address->host;
    options.port = config_.metrics_address->port;
    options.tls = nullptr;
    options.max_connections = 64;
    metrics_http_ = std::make_unique<HttpServer>(
        options,
        [this](const s3api::HttpRequest& request, s3api::BodyReader& body,
               s3api::RequestSummary* summary) {
          s3api::HttpResponse response;
          if (admin_->Handle(request, body, &response, summary)) return response;
          return NotFound();
        },
        &logger_);
    if (storage::Status status = metrics_http_->Start(); !status.ok()) {
      return WithContext("metrics listener: ", status);
    }
    logger_.Always("metrics listening", {{"metrics_endpoint", metrics_http_->EndpointUrl()}});
    return storage::Status::Ok();
  }

  // The COSI driver on its UNIX socket, when COSI_ENDPOINT is set: after the store is open and
  // before "ready", stopped before the store closes.
  storage::Status StartCosiListener() {
    auto cosi_options = CosiOptionsFromEnv(ProcessEnv(), http_->EndpointUrl(), config_.region);
    if (!cosi_options.ok()) return cosi_options.status();
    if (!cosi_options->has_value()) return storage::Status::Ok();
    CosiOptions& cosi_config = **cosi_options;
    cosi_config.domain = config_.domain.value_or("");
    cosi_config.log = [this](std::string_view method, std::string_view bucket,
                             std::string_view code) {
      metrics_.RecordCosiCall(method, code);
      logger_.Info("cosi", {{"method", method}, {"bucket", bucket}, {"code", code}});
    };
    auto started = CosiListener::Start(cosi_config, store_.get());
    if (!started.ok()) return started.status();
    cosi_ = std::move(*started);
    logger_.Always("cosi listening", {{"cosi_endpoint", "unix://" + cosi_->socket_path()},
                                      {"driver_name", cosi_config.driver_name},
                                      {"public_endpoint", cosi_config.public_endpoint}});
    return storage::Status::Ok();
  }

  // Ready for requests: the readiness endpoint says so, the log says "ready" and an ephemeral
  // instance prints its ready line on stdout.
  void AnnounceReady() {
    admin_->SetReady(true);
    logger_.Always("ready");
    if (!config_.ephemeral) return;
    std::optional<std::string> cosi_endpoint;
    if (cosi_) cosi_endpoint = "unix://" + cosi_->socket_path();
    // The one place a secret is printed: a throwaway instance's key, on its own stdout.
    std::string line = ReadyLine(http_->EndpointUrl(), root_.access_key_id,
                                 config_.root_key->secret, cosi_endpoint);
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
  }

  Config config_;
  Logger& logger_;
  std::string data_dir_;
  std::optional<TempDir> temp_dir_;
  std::unique_ptr<ServerTls> tls_;
  std::optional<crypt::ServiceKeys> keys_;       // outlives service_ (declared before it)
  std::optional<OpenedKeyring> opened_keyring_;  // until FinishKeyringOpen, after the store opens
  std::unique_ptr<storage::Store> store_;
  RootCredentials root_;
  std::unique_ptr<kms::KeyService> kms_;  // before service_, which uses it
  std::unique_ptr<s3api::S3Service> service_;
  Metrics metrics_;
  std::unique_ptr<AdminEndpoints> admin_;
  bool storage_full_ = false;  // as WatchCapacity last logged it
  bool needs_restart_ = false;  // logged once by WatchCapacity
  std::unique_ptr<BackupRunner> backup_;
  std::unique_ptr<lifecycle::Worker> lifecycle_;
  bool config_error_ = false;
  HttpServerOptions http_options_;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<HttpServer> metrics_http_;
  std::unique_ptr<CosiListener> cosi_;
};

int Run(int argc, char** argv) {
  // `cubby backup ...`: a client of a running cubby, with its own flags.
  if (argc > 1 && std::string_view(argv[1]) == "backup") {
    return RunBackupCommand(argc - 1, argv + 1, ProcessEnv());
  }
  // `cubby user create ...`: a client of a running cubby's IAM API.
  if (argc > 1 && std::string_view(argv[1]) == "user") {
    return RunUserCommand(argc - 1, argv + 1, ProcessEnv());
  }
  // `cubby master-key rotate ...`: offline, on a data folder no cubby is running on.
  if (argc > 1 && std::string_view(argv[1]) == "master-key") {
    return RunMasterKeyCommand(argc - 1, argv + 1, ProcessEnv());
  }
  LimitMallocArenas();  // before any thread allocates
  auto parsed = ParseConfig(argc, argv, ProcessEnv());
  if (!parsed.ok()) {
    Fatal(parsed.status().message());
    return 2;
  }
  if (std::optional<int> exit_code = RunCommand(*parsed)) return *exit_code;
  const sigset_t shutdown_signals = BlockShutdownSignals();
  const sigset_t waited_signals = WithReloadSignal(shutdown_signals, parsed->tls_cert.has_value());
  // Ephemeral: stdout carries the ready line only, so every log line goes to stderr.
  Logger logger(parsed->log_level, parsed->ephemeral ? 2 : 1, parsed->log_format);
  Instance cubby(std::move(*parsed), &logger);
  if (storage::Status status = cubby.Start(); !status.ok()) {
    Fatal(status.message());
    if (cubby.config_error()) return 2;
    return status.code() == storage::Code::kFormatTooNew ? kExitFormatTooNew : 1;
  }
  int signal_number = cubby.WaitForShutdownSignal(waited_signals);
  cubby.Shutdown(signal_number, shutdown_signals);
  return 0;
}

}  // namespace
}  // namespace cubby::server

int main(int argc, char** argv) { return cubby::server::Run(argc, argv); }
