// cubby's configuration: command-line flags, each with an environment variable; a flag wins
// over its variable. Parsing is a pure function (the environment is passed in) so the table
// of good and bad configurations is unit-tested without touching the process environment.
//
// The COSI_ prefix is reserved for the COSI listener and is never read here.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "storage/secret.h"
#include "storage/status.h"

namespace cubby::server {

inline constexpr std::string_view kVersion = "0.1.0";

enum class LogLevel { kDebug, kInfo, kWarn, kError };

// "debug", "info", "warn", "error".
std::string_view LogLevelName(LogLevel level);

// A root access key given through CUBBY_ROOT_ACCESS_KEY / CUBBY_ROOT_SECRET_KEY.
struct RootKeyConfig {
  std::string access_key_id;
  storage::SecretKey secret;
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
  bool help = false;     // --help: print Usage() and exit 0
  bool version = false;  // --version: print the version and exit 0
};

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

// The --help text.
std::string Usage();

// "127.0.0.1:9000" / "[::1]:9000" for logs.
std::string FormatAddress(const std::string& host, uint16_t port);

}  // namespace cubby::server
