// The appliance settings: durations, limits, log format, ephemeral mode, TLS files, healthcheck.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "server/config.h"

namespace cubby::server {
namespace {

using std::chrono::milliseconds;
using Env = std::map<std::string, std::string>;

storage::Result<Config> Parse(std::vector<std::string> args, const Env& env = {}) {
  std::vector<const char*> argv = {"cubby"};
  for (const auto& a : args) argv.push_back(a.c_str());
  return ParseConfig(static_cast<int>(argv.size()), argv.data(),
                     [&env](std::string_view name) -> std::optional<std::string> {
                       auto it = env.find(std::string(name));
                       if (it == env.end()) return std::nullopt;
                       return it->second;
                     });
}

TEST(ParseDurationTest, Table) {
  const std::vector<std::pair<std::string, std::optional<milliseconds>>> cases = {
      {"30s", milliseconds(30'000)}, {"30", milliseconds(30'000)},
      {"500ms", milliseconds(500)},  {"2m", milliseconds(120'000)},
      {"1h", milliseconds(3'600'000)}, {"0", milliseconds(0)},
      {"24h", milliseconds(86'400'000)}, {"25h", std::nullopt},
      {"", std::nullopt},            {"s", std::nullopt},
      {"-1", std::nullopt},          {"1.5s", std::nullopt},
      {"10x", std::nullopt},         {"1000000000", std::nullopt},
      {" 1s", std::nullopt},         {"1 s", std::nullopt},
  };
  for (const auto& [text, want] : cases) {
    SCOPED_TRACE(text);
    EXPECT_EQ(ParseDuration(text), want);
  }
}

TEST(ApplianceConfigTest, Defaults) {
  auto c = Parse({});
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->ephemeral);
  EXPECT_EQ(c->shutdown_grace, milliseconds(30'000));
  EXPECT_EQ(c->log_format, LogFormat::kLogfmt);
  EXPECT_EQ(c->max_connections, 1024u);
  EXPECT_EQ(c->idle_timeout, milliseconds(60'000));
  EXPECT_EQ(c->header_timeout, milliseconds(60'000));
  EXPECT_EQ(c->max_header_bytes, 64u << 10);
  EXPECT_FALSE(c->tls_cert || c->tls_key || c->healthcheck_url || c->metrics_address);
}

struct Good {
  std::string name;
  std::vector<std::string> args;
  Env env;
  std::function<void(const Config&)> check;
};

TEST(ApplianceConfigTest, GoodConfigurations) {
  const std::vector<Good> cases = {
      {"ephemeral switch", {"--ephemeral"}, {},
       [](const Config& c) {
         EXPECT_TRUE(c.ephemeral);
         EXPECT_EQ(c.s3_host, "127.0.0.1");
         EXPECT_EQ(c.s3_port, 0);
       }},
      {"ephemeral env", {}, {{"CUBBY_EPHEMERAL", "true"}},
       [](const Config& c) { EXPECT_TRUE(c.ephemeral); }},
      {"ephemeral env off", {}, {{"CUBBY_EPHEMERAL", "0"}},
       [](const Config& c) {
         EXPECT_FALSE(c.ephemeral);
         EXPECT_EQ(c.s3_port, 9000);
       }},
      {"ephemeral flag value", {"--ephemeral=no"}, {{"CUBBY_EPHEMERAL", "yes"}},
       [](const Config& c) { EXPECT_FALSE(c.ephemeral); }},
      {"ephemeral keeps an explicit address", {"--ephemeral", "--s3-address", "0.0.0.0:9100"}, {},
       [](const Config& c) {
         EXPECT_EQ(c.s3_host, "0.0.0.0");
         EXPECT_EQ(c.s3_port, 9100);
       }},
      {"ephemeral keeps an address from env", {"--ephemeral"},
       {{"CUBBY_S3_ADDRESS", "127.0.0.1:9200"}},
       [](const Config& c) { EXPECT_EQ(c.s3_port, 9200); }},
      {"shutdown grace", {"--shutdown-grace", "5s"}, {},
       [](const Config& c) { EXPECT_EQ(c.shutdown_grace, milliseconds(5000)); }},
      {"shutdown grace zero", {}, {{"CUBBY_SHUTDOWN_GRACE", "0"}},
       [](const Config& c) { EXPECT_EQ(c.shutdown_grace, milliseconds(0)); }},
      {"limits", {"--max-connections=7", "--idle-timeout=2s", "--header-timeout=250ms",
                  "--max-header-bytes=8192"}, {},
       [](const Config& c) {
         EXPECT_EQ(c.max_connections, 7u);
         EXPECT_EQ(c.idle_timeout, milliseconds(2000));
         EXPECT_EQ(c.header_timeout, milliseconds(250));
         EXPECT_EQ(c.max_header_bytes, 8192u);
       }},
      {"limits env", {},
       {{"CUBBY_MAX_CONNECTIONS", "3"}, {"CUBBY_IDLE_TIMEOUT", "1m"},
        {"CUBBY_HEADER_TIMEOUT", "9"}, {"CUBBY_MAX_HEADER_BYTES", "16384"}},
       [](const Config& c) {
         EXPECT_EQ(c.max_connections, 3u);
         EXPECT_EQ(c.idle_timeout, milliseconds(60'000));
         EXPECT_EQ(c.header_timeout, milliseconds(9000));
         EXPECT_EQ(c.max_header_bytes, 16384u);
       }},
      {"log format json", {"--log-format", "json"}, {},
       [](const Config& c) { EXPECT_EQ(c.log_format, LogFormat::kJson); }},
      {"log format env", {}, {{"CUBBY_LOG_FORMAT", "logfmt"}},
       [](const Config& c) { EXPECT_EQ(c.log_format, LogFormat::kLogfmt); }},
      {"tls", {"--tls-cert", "/c.pem", "--tls-key", "/k.pem"}, {},
       [](const Config& c) {
         EXPECT_EQ(c.tls_cert, "/c.pem");
         EXPECT_EQ(c.tls_key, "/k.pem");
       }},
      {"tls env", {}, {{"CUBBY_TLS_CERT", "/c"}, {"CUBBY_TLS_KEY", "/k"}},
       [](const Config& c) { EXPECT_EQ(c.tls_cert, "/c"); }},
      {"metrics address", {"--metrics-address", "127.0.0.1:9090"}, {},
       [](const Config& c) {
         ASSERT_TRUE(c.metrics_address.has_value());
         EXPECT_EQ(c.metrics_address->host, "127.0.0.1");
         EXPECT_EQ(c.metrics_address->port, 9090);
         EXPECT_EQ(c.s3_port, 9000) << "the S3 address is untouched";
       }},
      {"metrics address env v6", {}, {{"CUBBY_METRICS_ADDRESS", "[::1]:0"}},
       [](const Config& c) { EXPECT_EQ(c.metrics_address->host, "::1"); }},
      {"healthcheck", {"--healthcheck", "http://127.0.0.1:9000/_cubby/ready"}, {},
       [](const Config& c) { EXPECT_EQ(c.healthcheck_url, "http://127.0.0.1:9000/_cubby/ready"); }},
      // A bare path probes the configured S3 listener, wherever the flags and variables put it.
      {"healthcheck path default", {"--healthcheck", "/_cubby/ready"}, {},
       [](const Config& c) { EXPECT_EQ(c.healthcheck_url, "http://127.0.0.1:9000/_cubby/ready"); }},
      {"healthcheck path env port", {"--healthcheck", "/r"}, {{"CUBBY_S3_ADDRESS", "0.0.0.0:9100"}},
       [](const Config& c) { EXPECT_EQ(c.healthcheck_url, "http://127.0.0.1:9100/r"); }},
      {"healthcheck path before address", {"--healthcheck", "/r", "--s3-address", "10.1.2.3:80"},
       {}, [](const Config& c) { EXPECT_EQ(c.healthcheck_url, "http://10.1.2.3:80/r"); }},
      {"healthcheck path v6 any", {"--healthcheck", "/r"}, {{"CUBBY_S3_ADDRESS", "[::]:9000"}},
       [](const Config& c) { EXPECT_EQ(c.healthcheck_url, "http://[::1]:9000/r"); }},
      {"healthcheck path v6", {"--healthcheck", "/r", "--s3-address", "[fd00::5]:9001"}, {},
       [](const Config& c) { EXPECT_EQ(c.healthcheck_url, "http://[fd00::5]:9001/r"); }},
      {"healthcheck path tls",
       {"--healthcheck", "/_cubby/ready"},
       {{"CUBBY_TLS_CERT", "/c"}, {"CUBBY_TLS_KEY", "/k"}, {"CUBBY_S3_ADDRESS", "0.0.0.0:9443"}},
       [](const Config& c) {
         EXPECT_EQ(c.healthcheck_url, "https://127.0.0.1:9443/_cubby/ready");
       }},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto c = Parse(tc.args, tc.env);
    ASSERT_TRUE(c.ok()) << c.status().message();
    tc.check(*c);
  }
}

struct Bad {
  std::string name;
  std::vector<std::string> args;
  Env env;
  std::string message;
};

TEST(ApplianceConfigTest, BadConfigurations) {
  const std::vector<Bad> cases = {
      {"ephemeral env junk", {}, {{"CUBBY_EPHEMERAL", "maybe"}}, "CUBBY_EPHEMERAL: expected"},
      {"ephemeral flag junk", {"--ephemeral=2"}, {}, "--ephemeral: expected"},
      {"grace junk", {"--shutdown-grace", "soon"}, {}, "--shutdown-grace: invalid duration"},
      {"grace too long", {"--shutdown-grace", "2d"}, {}, "invalid duration"},
      {"idle zero", {"--idle-timeout", "0"}, {}, "--idle-timeout: must be greater than 0"},
      {"header zero", {}, {{"CUBBY_HEADER_TIMEOUT", "0ms"}}, "CUBBY_HEADER_TIMEOUT: must be"},
      {"max connections zero", {"--max-connections", "0"}, {}, "between 1 and 1000000"},
      {"max connections junk", {"--max-connections", "lots"}, {}, "expected a number"},
      {"max connections negative", {"--max-connections", "-1"}, {}, "expected a number"},
      {"max header small", {"--max-header-bytes", "1024"}, {}, "between 8192 and 16777216"},
      {"max header huge", {"--max-header-bytes", "999999999"}, {}, "between 8192"},
      {"log format", {"--log-format", "XML"}, {}, "invalid log format 'XML'"},
      {"tls cert only", {"--tls-cert", "/c"}, {}, "set both --tls-cert and --tls-key"},
      {"tls key only env", {}, {{"CUBBY_TLS_KEY", "/k"}}, "set both"},
      {"metrics address junk", {"--metrics-address", "9090"}, {}, "--metrics-address: expected"},
      {"metrics address port", {}, {{"CUBBY_METRICS_ADDRESS", "127.0.0.1:99999"}}, "invalid port"},
      {"healthcheck scheme", {"--healthcheck", "ftp://x"}, {}, "--healthcheck: expected an http"},
      {"healthcheck missing", {"--healthcheck"}, {}, "missing value for --healthcheck"},
      {"healthcheck relative", {"--healthcheck", "_cubby/ready"}, {}, "or a /path"},
      {"healthcheck path port 0", {"--healthcheck", "/r", "--s3-address", "127.0.0.1:0"}, {},
       "the S3 address has port 0"},
      {"healthcheck path ephemeral", {"--healthcheck", "/r", "--ephemeral"}, {}, "port 0"},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto c = Parse(tc.args, tc.env);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), storage::Code::kInvalidArgument);
    EXPECT_NE(c.status().message().find(tc.message), std::string::npos) << c.status().message();
  }
}

TEST(ApplianceConfigTest, UsageNamesEveryFlag) {
  std::string usage = Usage();
  for (const char* flag :
       {"--log-format", "--ephemeral", "--shutdown-grace", "--max-connections", "--idle-timeout",
        "--header-timeout", "--max-header-bytes", "--tls-cert", "--tls-key", "--healthcheck",
        "--metrics-address", "CUBBY_METRICS_ADDRESS",
        "CUBBY_EPHEMERAL", "CUBBY_TLS_CERT", "/_cubby/metrics"}) {
    EXPECT_NE(usage.find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace cubby::server
