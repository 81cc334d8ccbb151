#include "server/config.h"

#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <cstdlib>
#include <optional>
#include <span>
#include <vector>

#include "text/ascii.h"
#include "text/names.h"

namespace cubby::server {
namespace {

using storage::Code;
using storage::Result;
using storage::Status;

Status Invalid(std::string message) { return Status(Code::kInvalidArgument, std::move(message)); }

bool AllOf(std::string_view s, bool (*pred)(char)) {
  for (char c : s) {
    if (!pred(c)) return false;
  }
  return true;
}
bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) { return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z'); }
bool IsRegionChar(char c) { return IsLowerAlnum(c) || c == '-'; }
bool IsDomainChar(char c) { return IsLowerAlnum(c) || c == '-' || c == '.'; }

// "host:port", "[v6]:port" or ":port" (all interfaces). The host must be an IP literal or
// "localhost": we bind to it, and resolving names is not worth its failure modes here.
Status ParseListenAddress(std::string_view name, std::string_view value, ListenAddress* out) {
  std::string_view host;
  std::string_view port;
  if (!value.empty() && value.front() == '[') {
    size_t close = value.find(']');
    if (close == std::string_view::npos || close + 1 >= value.size() || value[close + 1] != ':') {
      return Invalid(std::string(name) + ": expected [ipv6]:port, got '" + std::string(value) + "'");
    }
    host = value.substr(1, close - 1);
    port = value.substr(close + 2);
  } else {
    size_t colon = value.rfind(':');
    if (colon == std::string_view::npos) {
      return Invalid(std::string(name) + ": expected host:port, got '" + std::string(value) + "'");
    }
    host = value.substr(0, colon);
    port = value.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) {
      return Invalid(std::string(name) + ": write IPv6 addresses as [addr]:port, got '" +
                     std::string(value) + "'");
    }
  }
  uint64_t port_number = 0;
  if (port.size() > 5 || !text::ParseUint64(port, &port_number) || port_number > 65535) {
    return Invalid(std::string(name) + ": invalid port '" + std::string(port) + "'");
  }
  std::string host_str(host);
  if (host_str.empty()) host_str = "0.0.0.0";
  if (host_str == "localhost") host_str = "127.0.0.1";
  boost::system::error_code ec;
  auto address = boost::asio::ip::make_address(host_str, ec);
  if (ec) {
    return Invalid(std::string(name) + ": '" + std::string(host) + "' is not an IP address");
  }
  if (address.is_v6() != (value.front() == '[')) {
    return Invalid(std::string(name) + ": write IPv6 addresses as [addr]:port");
  }
  out->host = address.to_string();
  out->port = static_cast<uint16_t>(port_number);
  return Status::Ok();
}

Status ParseAddress(std::string_view name, std::string_view value, Config* config) {
  ListenAddress address;
  if (Status s = ParseListenAddress(name, value, &address); !s.ok()) return s;
  config->s3_host = address.host;
  config->s3_port = address.port;
  return Status::Ok();
}

Status ApplyMetricsAddress(std::string_view name, std::string_view value, Config* config) {
  ListenAddress address;
  if (Status s = ParseListenAddress(name, value, &address); !s.ok()) return s;
  config->metrics_address = address;
  return Status::Ok();
}

// One configurable setting: its flag, its environment variable, and how a value is applied.
struct Setting {
  std::string_view flag;  // without "--"
  std::string_view env;
  Status (*apply)(std::string_view name, std::string_view value, Config* config);
};

Status ApplyDataDir(std::string_view name, std::string_view value, Config* config) {
  config->data_dir = std::string(value);
  return Status::Ok();
}

Status ApplyRegion(std::string_view name, std::string_view value, Config* config) {
  if (!AllOf(value, IsRegionChar) || value.size() > 64) {
    return Invalid(std::string(name) + ": invalid region '" + std::string(value) +
                   "' (allowed: a-z, 0-9, '-')");
  }
  config->region = std::string(value);
  return Status::Ok();
}

constexpr text::Named<LogLevel> kLogLevels[] = {{LogLevel::kDebug, "debug"},
                                                {LogLevel::kInfo, "info"},
                                                {LogLevel::kWarn, "warn"},
                                                {LogLevel::kError, "error"}};
constexpr text::Named<LogFormat> kLogFormats[] = {{LogFormat::kLogfmt, "logfmt"},
                                                  {LogFormat::kJson, "json"}};

Status ApplyLogLevel(std::string_view name, std::string_view value, Config* config) {
  std::optional<LogLevel> level = text::ValueNamed(kLogLevels, value);
  if (!level) {
    return Invalid(std::string(name) + ": invalid log level '" + std::string(value) +
                   "' (allowed: debug, info, warn, error)");
  }
  config->log_level = *level;
  return Status::Ok();
}

Status ApplyDomain(std::string_view name, std::string_view value, Config* config) {
  if (!AllOf(value, IsDomainChar) || value.size() > 253 || value.front() == '.' ||
      value.back() == '.' || value.find("..") != std::string_view::npos) {
    return Invalid(std::string(name) + ": invalid domain '" + std::string(value) +
                   "' (lowercase host name expected)");
  }
  config->domain = std::string(value);
  return Status::Ok();
}

Status ApplyLogFormat(std::string_view name, std::string_view value, Config* config) {
  std::optional<LogFormat> format = text::ValueNamed(kLogFormats, value);
  if (!format) {
    return Invalid(std::string(name) + ": invalid log format '" + std::string(value) +
                   "' (allowed: logfmt, json)");
  }
  config->log_format = *format;
  return Status::Ok();
}

Status ApplyEphemeral(std::string_view name, std::string_view value, Config* config) {
  if (value == "1" || value == "true" || value == "yes") {
    config->ephemeral = true;
  } else if (value == "0" || value == "false" || value == "no") {
    config->ephemeral = false;
  } else {
    return Invalid(std::string(name) + ": expected 1/true/yes or 0/false/no, got '" +
                   std::string(value) + "'");
  }
  return Status::Ok();
}

Result<std::chrono::milliseconds> DurationValue(std::string_view name, std::string_view value) {
  auto parsed = ParseDuration(value);
  if (!parsed) {
    return Invalid(std::string(name) + ": invalid duration '" + std::string(value) +
                   "' (e.g. 30s, 500ms, 2m)");
  }
  return *parsed;
}

Status ApplyShutdownGrace(std::string_view name, std::string_view value, Config* config) {
  auto d = DurationValue(name, value);
  if (!d.ok()) return d.status();
  config->shutdown_grace = *d;
  return Status::Ok();
}

// Timeouts that bound a wait must be positive: 0 would cut every connection at once.
Status PositiveDuration(std::string_view name, std::string_view value,
                        std::chrono::milliseconds* out) {
  auto d = DurationValue(name, value);
  if (!d.ok()) return d.status();
  if (d->count() <= 0) return Invalid(std::string(name) + ": must be greater than 0");
  *out = *d;
  return Status::Ok();
}

Status ApplyIdleTimeout(std::string_view name, std::string_view value, Config* config) {
  return PositiveDuration(name, value, &config->idle_timeout);
}

Status ApplyHeaderTimeout(std::string_view name, std::string_view value, Config* config) {
  return PositiveDuration(name, value, &config->header_timeout);
}

// A whole number in [min, max].
Result<uint64_t> BoundedNumber(std::string_view name, std::string_view value, uint64_t min,
                               uint64_t max) {
  uint64_t n = 0;
  if (value.size() > 12 || !text::ParseUint64(value, &n)) {
    return Invalid(std::string(name) + ": expected a number, got '" + std::string(value) + "'");
  }
  if (n < min || n > max) {
    return Invalid(std::string(name) + ": must be between " + std::to_string(min) + " and " +
                   std::to_string(max));
  }
  return n;
}

Status ApplyMaxConnections(std::string_view name, std::string_view value, Config* config) {
  auto n = BoundedNumber(name, value, 1, 1'000'000);
  if (!n.ok()) return n.status();
  config->max_connections = static_cast<size_t>(*n);
  return Status::Ok();
}

Status ApplyMaxHeaderBytes(std::string_view name, std::string_view value, Config* config) {
  // Below 8 KiB a SigV4 request with user metadata no longer fits.
  auto n = BoundedNumber(name, value, 8 << 10, 16 << 20);
  if (!n.ok()) return n.status();
  config->max_header_bytes = static_cast<uint32_t>(*n);
  return Status::Ok();
}

Status ApplyDiskReserve(std::string_view name, std::string_view value, Config* config) {
  if (value == "auto") {
    config->disk_reserve_bytes.reset();
    return Status::Ok();
  }
  std::optional<uint64_t> bytes = ParseByteSize(value);
  if (!bytes) {
    return Invalid(std::string(name) +
                   ": expected a size such as 64MiB, 1GiB or 0, or auto; got '" +
                   std::string(value) + "'");
  }
  config->disk_reserve_bytes = *bytes;
  return Status::Ok();
}

Status ApplyTlsCert(std::string_view name, std::string_view value, Config* config) {
  config->tls_cert = std::string(value);
  return Status::Ok();
}

Status ApplyUsersFile(std::string_view name, std::string_view value, Config* config) {
  config->users_file = std::string(value);
  return Status::Ok();
}

Status ApplyDefaultObjectOwnership(std::string_view name, std::string_view value, Config* config) {
  using storage::ObjectOwnership;
  if (value == "ObjectWriter") {
    config->default_object_ownership = ObjectOwnership::kObjectWriter;
  } else if (value == "BucketOwnerPreferred") {
    config->default_object_ownership = ObjectOwnership::kBucketOwnerPreferred;
  } else if (value == "BucketOwnerEnforced") {
    config->default_object_ownership = ObjectOwnership::kBucketOwnerEnforced;
  } else {
    return Invalid(std::string(name) +
                   ": expected ObjectWriter, BucketOwnerPreferred or BucketOwnerEnforced, got \"" +
                   std::string(value) + "\"");
  }
  return Status::Ok();
}

Status ApplyLifecycleDay(std::string_view name, std::string_view value, Config* config) {
  auto n = BoundedNumber(name, value, 1, 86400);
  if (!n.ok()) return n.status();
  config->lifecycle_day = std::chrono::seconds(*n);
  return Status::Ok();
}

Status ApplyLifecycleInterval(std::string_view name, std::string_view value, Config* config) {
  std::chrono::milliseconds interval{0};
  if (Status s = PositiveDuration(name, value, &interval); !s.ok()) return s;
  config->lifecycle_interval = interval;
  return Status::Ok();
}

Status ApplyTlsKey(std::string_view name, std::string_view value, Config* config) {
  config->tls_key = std::string(value);
  return Status::Ok();
}

Status ApplyHealthcheck(std::string_view name, std::string_view value, Config* config) {
  if (!value.starts_with("http://") && !value.starts_with("https://") && !value.starts_with("/")) {
    return Invalid(std::string(name) + ": expected an http:// or https:// URL, or a /path");
  }
  config->healthcheck_url = std::string(value);
  return Status::Ok();
}

Status ApplyMasterKeyFile(std::string_view name, std::string_view value, Config* config) {
  config->master_key_file = std::string(value);
  return Status::Ok();
}

Status ApplyDefaultEncryption(std::string_view name, std::string_view value, Config* config) {
  if (value == "AES256") {
    config->default_sse_s3 = true;
  } else if (value == "none") {
    config->default_sse_s3 = false;
  } else {
    return Invalid(std::string(name) + ": expected AES256 or none, got \"" + std::string(value) +
                   "\"");
  }
  return Status::Ok();
}

Status ApplyAllowSseCOverHttp(std::string_view name, std::string_view value, Config* config) {
  if (value == "1" || value == "true" || value == "yes") {
    config->allow_sse_c_over_http = true;
  } else if (value == "0" || value == "false" || value == "no") {
    config->allow_sse_c_over_http = false;
  } else {
    return Invalid(std::string(name) + ": expected 1/true/yes or 0/false/no, got '" +
                   std::string(value) + "'");
  }
  return Status::Ok();
}

constexpr Setting kSettings[] = {
    {"data-dir", "CUBBY_DATA_DIR", ApplyDataDir},
    {"s3-address", "CUBBY_S3_ADDRESS", ParseAddress},
    {"region", "CUBBY_REGION", ApplyRegion},
    {"log-level", "CUBBY_LOG_LEVEL", ApplyLogLevel},
    {"domain", "CUBBY_DOMAIN", ApplyDomain},
    {"log-format", "CUBBY_LOG_FORMAT", ApplyLogFormat},
    {"ephemeral", "CUBBY_EPHEMERAL", ApplyEphemeral},
    {"shutdown-grace", "CUBBY_SHUTDOWN_GRACE", ApplyShutdownGrace},
    {"max-connections", "CUBBY_MAX_CONNECTIONS", ApplyMaxConnections},
    {"idle-timeout", "CUBBY_IDLE_TIMEOUT", ApplyIdleTimeout},
    {"header-timeout", "CUBBY_HEADER_TIMEOUT", ApplyHeaderTimeout},
    {"max-header-bytes", "CUBBY_MAX_HEADER_BYTES", ApplyMaxHeaderBytes},
    {"tls-cert", "CUBBY_TLS_CERT", ApplyTlsCert},
    {"tls-key", "CUBBY_TLS_KEY", ApplyTlsKey},
    {"users-file", "CUBBY_USERS_FILE", ApplyUsersFile},
    {"healthcheck", "", ApplyHealthcheck},  // a one-shot probe; no environment variable
    {"metrics-address", "CUBBY_METRICS_ADDRESS", ApplyMetricsAddress},
    {"disk-reserve", "CUBBY_DISK_RESERVE", ApplyDiskReserve},
    {"default-object-ownership", "CUBBY_DEFAULT_OBJECT_OWNERSHIP", ApplyDefaultObjectOwnership},
    {"lifecycle-day-seconds", "CUBBY_LIFECYCLE_DAY_SECONDS", ApplyLifecycleDay},
    {"lifecycle-interval", "CUBBY_LIFECYCLE_INTERVAL", ApplyLifecycleInterval},
    {"master-key-file", "CUBBY_MASTER_KEY_FILE", ApplyMasterKeyFile},
    {"default-encryption", "CUBBY_DEFAULT_ENCRYPTION", ApplyDefaultEncryption},
    {"allow-sse-c-over-http", "CUBBY_ALLOW_SSE_C_OVER_HTTP", ApplyAllowSseCOverHttp},
};
constexpr size_t kAddressSetting = 1;
constexpr size_t kEphemeralSetting = 6;
// Flags that take no value: `--ephemeral` alone means `--ephemeral=true`.
bool IsSwitch(std::string_view flag) {
  return flag == "ephemeral" || flag == "allow-sse-c-over-http";
}

constexpr std::string_view kRootKeyEnv = "CUBBY_ROOT_ACCESS_KEY";
constexpr std::string_view kRootSecretEnv = "CUBBY_ROOT_SECRET_KEY";

std::optional<std::string> NonEmptyEnv(const EnvLookup& env, std::string_view name) {
  auto value = env(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

Status ApplyRootKey(const EnvLookup& env, Config* config) {
  auto id = NonEmptyEnv(env, kRootKeyEnv);
  auto secret = NonEmptyEnv(env, kRootSecretEnv);
  if (!id && !secret) return Status::Ok();
  if (!id || !secret) {
    return Invalid("set both CUBBY_ROOT_ACCESS_KEY and CUBBY_ROOT_SECRET_KEY, or neither");
  }
  if (id->size() < 3 || id->size() > 128 || !AllOf(*id, IsAlnum)) {
    return Invalid("CUBBY_ROOT_ACCESS_KEY: must be 3 to 128 characters of A-Z, a-z, 0-9");
  }
  // The secret's value is never echoed, not even in an error.
  if (secret->size() < 8 || secret->size() > 128) {
    return Invalid("CUBBY_ROOT_SECRET_KEY: must be 8 to 128 characters long");
  }
  for (char c : *secret) {
    if (c < 0x21 || c > 0x7e) {
      return Invalid("CUBBY_ROOT_SECRET_KEY: must be printable ASCII without spaces");
    }
  }
  config->root_key = RootKeyConfig{*id, storage::SecretKey(*secret)};
  return Status::Ok();
}

// `--healthcheck /path` probes this instance's own S3 listener, so a container's HEALTHCHECK
// follows CUBBY_S3_ADDRESS and CUBBY_TLS_* instead of hard-coding a port. An unspecified listen
// address (0.0.0.0, ::) is reached over loopback of its family.
Status ResolveListenerProbe(Config* config) {
  if (config->s3_port == 0) {
    return Invalid("--healthcheck " + *config->healthcheck_url +
                   ": the S3 address has port 0 (a kernel-chosen port cannot be probed); "
                   "give a full URL or a fixed port");
  }
  std::string host = config->s3_host;
  if (host == "0.0.0.0") host = "127.0.0.1";
  if (host == "::") host = "::1";
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  config->healthcheck_url = std::string(config->tls_cert ? "https" : "http") + "://" + host + ":" +
                            std::to_string(config->s3_port) + *config->healthcheck_url;
  return Status::Ok();
}

}  // namespace

std::string_view LogLevelName(LogLevel level) { return text::NameOf(kLogLevels, level, "info"); }

std::string_view LogFormatName(LogFormat format) {
  return text::NameOf(kLogFormats, format, "logfmt");
}

std::optional<uint64_t> ParseByteSize(std::string_view text) {
  constexpr std::pair<std::string_view, int> kUnits[] = {{"KiB", 10}, {"MiB", 20}, {"GiB", 30}};
  int shift = 0;
  for (const auto& [suffix, bits] : kUnits) {
    if (text.ends_with(suffix)) {
      text.remove_suffix(suffix.size());
      shift = bits;
      break;
    }
  }
  uint64_t n = 0;
  if (text.empty() || !text::ParseUint64(text, &n)) return std::nullopt;
  constexpr uint64_t kMax = 1ull << 50;
  if (n > (kMax >> shift)) return std::nullopt;
  return n << shift;
}

std::optional<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  const size_t digits = std::min(text.find_first_not_of("0123456789"), text.size());
  uint64_t number = 0;
  if (digits > 9 || !text::ParseUint64(text.substr(0, digits), &number)) return std::nullopt;
  const int64_t n = static_cast<int64_t>(number);
  std::string_view unit = text.substr(digits);
  int64_t ms = 0;
  if (unit == "ms") {
    ms = n;
  } else if (unit.empty() || unit == "s") {
    ms = n * 1000;
  } else if (unit == "m") {
    ms = n * 60'000;
  } else if (unit == "h") {
    ms = n * 3'600'000;
  } else {
    return std::nullopt;
  }
  if (ms > 86'400'000) return std::nullopt;
  return std::chrono::milliseconds(ms);
}

EnvLookup ProcessEnv() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

storage::Result<Config> ParseConfig(int argc, const char* const* argv, const EnvLookup& env) {
  Config config;
  // Flags first, remembered by setting; then each setting takes its flag or else its variable.
  std::vector<std::optional<std::string>> flag_values(std::size(kSettings));
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      config.help = true;
      continue;
    }
    if (arg == "--version") {
      config.version = true;
      continue;
    }
    if (!arg.starts_with("--")) {
      return Invalid("unexpected argument '" + std::string(arg) + "' (see --help)");
    }
    std::string_view name = arg.substr(2);
    std::optional<std::string_view> inline_value;
    if (size_t eq = name.find('='); eq != std::string_view::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    size_t index = 0;
    while (index < std::size(kSettings) && kSettings[index].flag != name) ++index;
    if (index == std::size(kSettings)) {
      return Invalid("unknown flag --" + std::string(name) + " (see --help)");
    }
    if (inline_value) {
      flag_values[index] = std::string(*inline_value);
    } else if (IsSwitch(name)) {
      flag_values[index] = "true";
    } else if (i + 1 < argc) {
      flag_values[index] = std::string(argv[++i]);
    } else {
      return Invalid("missing value for --" + std::string(name));
    }
    if (flag_values[index]->empty()) {
      return Invalid("empty value for --" + std::string(name));
    }
  }
  if (config.help || config.version) return config;

  for (size_t i = 0; i < std::size(kSettings); ++i) {
    const Setting& setting = kSettings[i];
    std::string name;
    std::optional<std::string> value;
    if (flag_values[i]) {
      name = "--" + std::string(setting.flag);
      value = flag_values[i];
    } else if (!setting.env.empty() && (value = NonEmptyEnv(env, setting.env))) {
      name = std::string(setting.env);
    }
    if (!value) continue;
    if (Status status = setting.apply(name, *value, &config); !status.ok()) return status;
  }
  if (Status status = ApplyRootKey(env, &config); !status.ok()) return status;
  if (config.tls_cert.has_value() != config.tls_key.has_value()) {
    return Invalid("set both --tls-cert and --tls-key (CUBBY_TLS_CERT, CUBBY_TLS_KEY), or neither");
  }
  static_assert(kSettings[kAddressSetting].flag == "s3-address");
  static_assert(kSettings[kEphemeralSetting].flag == "ephemeral");
  // A throwaway instance listens on loopback with a kernel-chosen port unless told otherwise.
  if (config.ephemeral && !flag_values[kAddressSetting] &&
      !NonEmptyEnv(env, kSettings[kAddressSetting].env)) {
    config.s3_host = "127.0.0.1";
    config.s3_port = 0;
  }
  if (config.healthcheck_url && config.healthcheck_url->starts_with("/")) {
    if (Status status = ResolveListenerProbe(&config); !status.ok()) return status;
  }
  return config;
}

std::string Usage() {
  return R"(Usage: cubby [flags]

A small S3-compatible object store on RocksDB.

Flags (each also settable by its environment variable; a flag wins):
  --data-dir DIR        CUBBY_DATA_DIR     data folder (default ./data)
  --s3-address ADDR     CUBBY_S3_ADDRESS   S3 listen address host:port or [v6]:port;
                                           port 0 picks a free port (default 0.0.0.0:9000)
  --region NAME         CUBBY_REGION       SigV4 region (default us-east-1)
  --log-level LEVEL     CUBBY_LOG_LEVEL    debug, info, warn or error (default info)
  --domain NAME         CUBBY_DOMAIN       base domain for virtual-hosted-style buckets (unset)
  --log-format FORMAT   CUBBY_LOG_FORMAT   logfmt or json (default logfmt)
  --ephemeral           CUBBY_EPHEMERAL    throwaway instance: temp data folder removed at exit,
                                           generated root key, default address 127.0.0.1:0,
                                           logs on stderr, one JSON line on stdout when ready
  --shutdown-grace DUR  CUBBY_SHUTDOWN_GRACE   time requests in flight get after SIGTERM (30s)
  --max-connections N   CUBBY_MAX_CONNECTIONS  open connections at most; more get 503 (1024)
  --idle-timeout DUR    CUBBY_IDLE_TIMEOUT     keep-alive wait for the next request (60s)
  --header-timeout DUR  CUBBY_HEADER_TIMEOUT   time to send a whole request header (60s)
  --max-header-bytes N  CUBBY_MAX_HEADER_BYTES request header size limit (65536)
  --tls-cert FILE       CUBBY_TLS_CERT     PEM certificate chain: serve HTTPS (with --tls-key)
  --tls-key FILE        CUBBY_TLS_KEY      PEM private key
  --users-file FILE     CUBBY_USERS_FILE   users with known keys, applied at every start:
                                           lines "NAME ACCESS_KEY_ID SECRET [EMAIL]" ('#'
                                           comments)
  --healthcheck URL|/PATH                  GET URL (a /PATH: on this configuration's S3
                                           listener); exit 0 on 200, else 1 (container probes)
  --metrics-address ADDR CUBBY_METRICS_ADDRESS  also serve /_cubby/ (plain HTTP, no S3) on ADDR
  --disk-reserve SIZE   CUBBY_DISK_RESERVE free space kept for deletes; writes that would leave
                                           less get 507 (auto: max(64MiB, 1%), at most 1/4 of
                                           the filesystem; or e.g. 256MiB, 2GiB)
  --default-object-ownership OWNERSHIP CUBBY_DEFAULT_OBJECT_OWNERSHIP  a new bucket's object
                                           ownership when CreateBucket names none:
                                           ObjectWriter (default), BucketOwnerPreferred,
                                           BucketOwnerEnforced
  --lifecycle-day-seconds N CUBBY_LIFECYCLE_DAY_SECONDS  how long a lifecycle rule's day lasts,
                                           1 to 86400 seconds (86400); shorter for tests
  --lifecycle-interval DUR CUBBY_LIFECYCLE_INTERVAL  time between lifecycle passes (default:
                                           a quarter of a lifecycle day, at most 1h)
  --master-key-file FILE CUBBY_MASTER_KEY_FILE  the master key of encryption at rest (44 chars
                                           of base64, mode 0600/0400); unset: <data dir>/
                                           master.key, generated on first start (protects
                                           only copies of the data without that file)
  --default-encryption AES256|none CUBBY_DEFAULT_ENCRYPTION  encryption of objects written
                                           without encryption headers to a bucket without a
                                           default-encryption rule (default none)
  --allow-sse-c-over-http CUBBY_ALLOW_SSE_C_OVER_HTTP  accept SSE-C (customer keys) over plain
                                           HTTP (S3 requires HTTPS; for tests)
  --help                                   print this text
  --version                                print the version

Durations: 500ms, 30s, 2m, 1h, or a bare number of seconds.

Endpoints without authentication on the S3 port: /_cubby/live, /_cubby/ready, /_cubby/metrics.
For the root key only: /_cubby/backup (online backups; `cubby backup --help`).

Commands:
  cubby backup --endpoint URL --to DIR   back up a running cubby into DIR (on its machine)
  cubby user create --endpoint URL --name NAME [--access-key ID --secret-key S] [--email A]
                                         create a user (and a key) on a running cubby
  cubby master-key rotate --data-dir DIR [--master-key-file OLD] --new-master-key-file NEW
                                         re-wrap DIR's keyring under a new master key (offline)

Environment only:
  CUBBY_ROOT_ACCESS_KEY, CUBBY_ROOT_SECRET_KEY   the root key (both or neither). When unset, a key
      is generated on first start and written to <data dir>/root-credentials (mode 0600).
)";
}

std::chrono::milliseconds LifecycleInterval(const Config& config) {
  if (config.lifecycle_interval) return *config.lifecycle_interval;
  using std::chrono::milliseconds;
  const milliseconds quarter = std::chrono::duration_cast<milliseconds>(config.lifecycle_day) / 4;
  return std::clamp(quarter, milliseconds(100), milliseconds(std::chrono::hours(1)));
}

std::string FormatAddress(const std::string& host, uint16_t port) {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

}  // namespace cubby::server
