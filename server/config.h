// cubby's configuration: command-line flags, each with an environment variable; a flag wins
// over its variable. Parsing is a pure function (the environment is passed in) so the table
// of good and bad configurations is unit-tested without touching the process environment.
//
// The COSI_ prefix is reserved for the COSI listener and is never read here.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "storage/access_records.h"
#include "storage/secret.h"
#include "storage/status.h"

namespace cubby::server {

inline constexpr std::string_view kVersion = "0.1.0";

enum class LogLevel { kDebug, kInfo, kWarn, kError };

// "debug", "info", "warn", "error".
std::string_view LogLevelName(LogLevel level);

// Log line format: logfmt (key=value) or one JSON object per line.
enum class LogFormat { kLogfmt, kJson };
std::string_view LogFormatName(LogFormat format);  // "logfmt", "json"

// A root access key given through CUBBY_ROOT_ACCESS_KEY / CUBBY_ROOT_SECRET_KEY.
struct RootKeyConfig {
  std::string access_key_id;
  storage::SecretKey secret;
};

// A listen address: `host` is an IP literal (IPv6 without brackets); port 0 lets the kernel pick.
struct ListenAddress {
  std::string host;
  uint16_t port = 0;
};

struct Config {
  std::string data_dir = "./data";
  // Listen address of the S3 endpoint. `s3_host` is an IP literal (IPv6 without brackets).
  std::string s3_host = "0.0.0.0";
  uint16_t s3_port = 9000;  // 0: the kernel picks a free port
  std::string region = "us-east-1";
  LogLevel log_level = LogLevel::kInfo;
  std::optional<std::string> domain;      // virtual-hosted-style base domain; unset by default
  std::optional<RootKeyConfig> root_key;  // unset: generated on first start and persisted
  LogFormat log_format = LogFormat::kLogfmt;

  // Throwaway instance (--ephemeral / CUBBY_EPHEMERAL): data in a fresh temp folder removed at
  // exit (data_dir is ignored), root key generated and never written to a file, the S3 address
  // defaults to 127.0.0.1:0, all logs go to stderr and stdout carries exactly one JSON line.
  bool ephemeral = false;
  // Requests in flight get this long to finish after SIGTERM/SIGINT.
  std::chrono::milliseconds shutdown_grace{30'000};

  // Connection limits and timeouts of the S3 listener (see HttpServerOptions).
  size_t max_connections = 1024;
  std::chrono::milliseconds idle_timeout{60'000};
  std::chrono::milliseconds header_timeout{60'000};
  uint32_t max_header_bytes = 64 << 10;
  // Free space kept for deletes: writes that would leave less free on the data folder's
  // filesystem are refused with 507. Unset ("auto"): max(64 MiB, 1% of the filesystem), at most
  // a quarter of it (storage::DefaultReserve).
  std::optional<uint64_t> disk_reserve_bytes;

  // A second, plain-HTTP listener that serves only /_cubby/ (e.g. for a scraper on another
  // interface than the S3 port's). Unset: the endpoints are on the S3 port only.
  std::optional<ListenAddress> metrics_address;

  // TLS on the S3 listener: PEM certificate chain and private key, both or neither.
  std::optional<std::string> tls_cert;
  // Users with known keys, applied at every start (server/users_file.h). Unset: none.
  std::optional<std::string> users_file;
  // A new bucket's object ownership when CreateBucket names none: ObjectWriter (ACLs enabled),
  // BucketOwnerPreferred or BucketOwnerEnforced (ACLs disabled).
  storage::ObjectOwnership default_object_ownership = storage::ObjectOwnership::kObjectWriter;
  std::optional<std::string> tls_key;

  // Lifecycle rules: how many seconds a lifecycle "day" lasts (1..86400; shorter days make
  // rules act in seconds, for tests and demonstrations), and the time between the worker's
  // passes (unset: LifecycleInterval's default).
  std::chrono::seconds lifecycle_day{86400};
  std::optional<std::chrono::milliseconds> lifecycle_interval;

  // The master key file (--master-key-file / CUBBY_MASTER_KEY_FILE; server/master_key.h).
  // Unset: <data dir>/master.key, generated on the first start.
  std::optional<std::string> master_key_file;

  // Encryption at rest. --default-encryption AES256: objects written without
  // encryption headers to a bucket without a default-encryption rule are SSE-S3 (none: they are
  // stored in clear). --allow-sse-c-over-http: SSE-C requests are accepted over plain HTTP (S3
  // requires HTTPS; for tests).
  bool default_sse_s3 = false;
  bool allow_sse_c_over_http = false;

  // --healthcheck URL: GET the URL, exit 0 on a 200 answer and 1 otherwise (for container
  // health probes in an image without curl). A value that is only a /path is resolved by
  // ParseConfig to this configuration's S3 listener (http, or https with TLS; 0.0.0.0 and ::
  // become loopback), so it always names a full URL here.
  std::optional<std::string> healthcheck_url;

  bool help = false;     // --help: print Usage() and exit 0
  bool version = false;  // --version: print the version and exit 0
};

// The time between lifecycle passes: config.lifecycle_interval when set, else a quarter of a
// lifecycle day, at most an hour and at least 100 ms (1 h with real days, 500 ms with 2 s days).
std::chrono::milliseconds LifecycleInterval(const Config& config);

// Looks up an environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// An EnvLookup over the process environment (getenv).
EnvLookup ProcessEnv();

// Parses flags (argv[1..argc-1]) over environment variables over defaults. Flags are
// `--name value` or `--name=value`. An environment variable set to the empty string counts as
// unset. Returns kInvalidArgument with a one-line message (no "cubby: " prefix, no secret
// values) for an unknown flag, a missing or invalid value, an unexpected positional argument,
// or only one of the two root key variables.
storage::Result<Config> ParseConfig(int argc, const char* const* argv, const EnvLookup& env);

// "30s", "500ms", "2m", or a bare number of seconds. nullopt if malformed, negative, or over a day.
std::optional<std::chrono::milliseconds> ParseDuration(std::string_view text);

// A byte count: a bare number, or one followed by KiB, MiB or GiB ("64MiB"). nullopt if
// malformed or over 2^50 bytes.
std::optional<uint64_t> ParseByteSize(std::string_view text);

// The --help text.
std::string Usage();

// "127.0.0.1:9000" / "[::1]:9000" for logs.
std::string FormatAddress(const std::string& host, uint16_t port);

}  // namespace cubby::server
