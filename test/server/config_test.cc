#include "server/config.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace cubby::server {
namespace {

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

TEST(ConfigTest, Defaults) {
  auto config = Parse({});
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->data_dir, "./data");
  EXPECT_EQ(config->s3_host, "0.0.0.0");
  EXPECT_EQ(config->s3_port, 9000);
  EXPECT_EQ(config->region, "us-east-1");
  EXPECT_EQ(config->log_level, LogLevel::kInfo);
  EXPECT_FALSE(config->domain.has_value());
  EXPECT_FALSE(config->root_key.has_value());
  EXPECT_FALSE(config->disk_reserve_bytes.has_value());  // auto
  EXPECT_FALSE(config->help);
  EXPECT_FALSE(config->version);
}

struct GoodCase {
  std::string name;
  std::vector<std::string> args;
  Env env;
  std::function<void(const Config&)> check;
};

TEST(ConfigTest, GoodConfigurations) {
  const std::vector<GoodCase> cases = {
      {"data dir flag", {"--data-dir", "/var/lib/cubby"}, {},
       [](const Config& c) { EXPECT_EQ(c.data_dir, "/var/lib/cubby"); }},
      {"lifecycle defaults", {}, {},
       [](const Config& c) {
         EXPECT_EQ(c.lifecycle_day, std::chrono::seconds(86400));
         EXPECT_FALSE(c.lifecycle_interval);
         EXPECT_EQ(LifecycleInterval(c), std::chrono::hours(1));
       }},
      {"lifecycle day flag", {"--lifecycle-day-seconds", "2"}, {},
       [](const Config& c) {
         EXPECT_EQ(c.lifecycle_day, std::chrono::seconds(2));
         EXPECT_EQ(LifecycleInterval(c), std::chrono::milliseconds(500));
       }},
      {"lifecycle day env, tiny", {}, {{"CUBBY_LIFECYCLE_DAY_SECONDS", "1"}},
       [](const Config& c) {
         EXPECT_EQ(c.lifecycle_day, std::chrono::seconds(1));
         EXPECT_EQ(LifecycleInterval(c), std::chrono::milliseconds(250));
       }},
      {"lifecycle interval", {"--lifecycle-interval", "200ms"},
       {{"CUBBY_LIFECYCLE_DAY_SECONDS", "86400"}},
       [](const Config& c) {
         EXPECT_EQ(LifecycleInterval(c), std::chrono::milliseconds(200));
       }},
      {"lifecycle interval env", {}, {{"CUBBY_LIFECYCLE_INTERVAL", "2m"}},
       [](const Config& c) { EXPECT_EQ(LifecycleInterval(c), std::chrono::minutes(2)); }},
      {"master key file unset", {}, {},
       [](const Config& c) { EXPECT_FALSE(c.master_key_file); }},
      {"master key file flag over env", {"--master-key-file", "/run/k"},
       {{"CUBBY_MASTER_KEY_FILE", "/env/k"}},
       [](const Config& c) { EXPECT_EQ(c.master_key_file, "/run/k"); }},
      {"master key file env", {}, {{"CUBBY_MASTER_KEY_FILE", "/env/k"}},
       [](const Config& c) { EXPECT_EQ(c.master_key_file, "/env/k"); }},
      {"data dir equals form", {"--data-dir=/x"}, {},
       [](const Config& c) { EXPECT_EQ(c.data_dir, "/x"); }},
      {"data dir env", {}, {{"CUBBY_DATA_DIR", "/env"}},
       [](const Config& c) { EXPECT_EQ(c.data_dir, "/env"); }},
      {"flag wins over env", {"--data-dir", "/flag"}, {{"CUBBY_DATA_DIR", "/env"}},
       [](const Config& c) { EXPECT_EQ(c.data_dir, "/flag"); }},
      {"empty env counts as unset", {}, {{"CUBBY_DATA_DIR", ""}, {"CUBBY_REGION", ""}},
       [](const Config& c) {
         EXPECT_EQ(c.data_dir, "./data");
         EXPECT_EQ(c.region, "us-east-1");
       }},
      {"address v4", {"--s3-address", "127.0.0.1:8080"}, {},
       [](const Config& c) {
         EXPECT_EQ(c.s3_host, "127.0.0.1");
         EXPECT_EQ(c.s3_port, 8080);
       }},
      {"disk reserve MiB", {"--disk-reserve", "16MiB"}, {},
       [](const Config& c) { EXPECT_EQ(c.disk_reserve_bytes, 16u << 20); }},
      {"disk reserve bytes env", {}, {{"CUBBY_DISK_RESERVE", "1000"}},
       [](const Config& c) { EXPECT_EQ(c.disk_reserve_bytes, 1000u); }},
      {"disk reserve zero", {"--disk-reserve=0"}, {},
       [](const Config& c) { EXPECT_EQ(c.disk_reserve_bytes, 0u); }},
      {"disk reserve GiB and KiB", {"--disk-reserve", "2GiB"}, {{"CUBBY_DISK_RESERVE", "4KiB"}},
       [](const Config& c) { EXPECT_EQ(c.disk_reserve_bytes, 2ull << 30); }},
      {"disk reserve auto", {"--disk-reserve", "auto"}, {{"CUBBY_DISK_RESERVE", "4KiB"}},
       [](const Config& c) { EXPECT_FALSE(c.disk_reserve_bytes.has_value()); }},
      {"address port 0", {"--s3-address=127.0.0.1:0"}, {},
       [](const Config& c) { EXPECT_EQ(c.s3_port, 0); }},
      {"address port 65535", {"--s3-address=127.0.0.1:65535"}, {},
       [](const Config& c) { EXPECT_EQ(c.s3_port, 65535); }},
      {"address v6", {"--s3-address", "[::1]:9000"}, {},
       [](const Config& c) {
         EXPECT_EQ(c.s3_host, "::1");
         EXPECT_EQ(c.s3_port, 9000);
       }},
      {"address v6 any", {"--s3-address", "[::]:0"}, {},
       [](const Config& c) { EXPECT_EQ(c.s3_host, "::"); }},
      {"address port only", {"--s3-address", ":9001"}, {},
       [](const Config& c) {
         EXPECT_EQ(c.s3_host, "0.0.0.0");
         EXPECT_EQ(c.s3_port, 9001);
       }},
      {"address localhost", {"--s3-address", "localhost:9002"}, {},
       [](const Config& c) { EXPECT_EQ(c.s3_host, "127.0.0.1"); }},
      {"address env", {}, {{"CUBBY_S3_ADDRESS", "10.0.0.1:1234"}},
       [](const Config& c) {
         EXPECT_EQ(c.s3_host, "10.0.0.1");
         EXPECT_EQ(c.s3_port, 1234);
       }},
      {"region", {"--region", "eu-west-3"}, {},
       [](const Config& c) { EXPECT_EQ(c.region, "eu-west-3"); }},
      {"region env", {}, {{"CUBBY_REGION", "garage"}},
       [](const Config& c) { EXPECT_EQ(c.region, "garage"); }},
      {"log level debug", {"--log-level", "debug"}, {},
       [](const Config& c) { EXPECT_EQ(c.log_level, LogLevel::kDebug); }},
      {"log level env warn", {}, {{"CUBBY_LOG_LEVEL", "warn"}},
       [](const Config& c) { EXPECT_EQ(c.log_level, LogLevel::kWarn); }},
      {"log level error", {"--log-level=error"}, {},
       [](const Config& c) { EXPECT_EQ(c.log_level, LogLevel::kError); }},
      {"domain", {"--domain", "s3.example.com"}, {},
       [](const Config& c) { EXPECT_EQ(c.domain, "s3.example.com"); }},
      {"domain env", {}, {{"CUBBY_DOMAIN", "localhost"}},
       [](const Config& c) { EXPECT_EQ(c.domain, "localhost"); }},
      {"root key", {}, {{"CUBBY_ROOT_ACCESS_KEY", "admin"}, {"CUBBY_ROOT_SECRET_KEY", "s3cr3t-key"}},
       [](const Config& c) {
         ASSERT_TRUE(c.root_key.has_value());
         EXPECT_EQ(c.root_key->access_key_id, "admin");
         EXPECT_EQ(c.root_key->secret.reveal(), "s3cr3t-key");
       }},
      {"root key at length limits", {},
       {{"CUBBY_ROOT_ACCESS_KEY", std::string(128, 'A')},
        {"CUBBY_ROOT_SECRET_KEY", std::string(8, 'x')}},
       [](const Config& c) { ASSERT_TRUE(c.root_key.has_value()); }},
      {"root key both empty is unset", {},
       {{"CUBBY_ROOT_ACCESS_KEY", ""}, {"CUBBY_ROOT_SECRET_KEY", ""}},
       [](const Config& c) { EXPECT_FALSE(c.root_key.has_value()); }},
      {"COSI_ variables are not ours", {}, {{"COSI_ENDPOINT", "garbage"}},
       [](const Config& c) { EXPECT_EQ(c.data_dir, "./data"); }},
      {"help", {"--help"}, {}, [](const Config& c) { EXPECT_TRUE(c.help); }},
      {"help skips validation", {"--help"}, {{"CUBBY_REGION", "BAD"}},
       [](const Config& c) { EXPECT_TRUE(c.help); }},
      {"version", {"--version"}, {}, [](const Config& c) { EXPECT_TRUE(c.version); }},
      {"encryption defaults", {}, {},
       [](const Config& c) {
         EXPECT_FALSE(c.default_sse_s3);
         EXPECT_FALSE(c.allow_sse_c_over_http);
       }},
      {"default encryption AES256", {"--default-encryption", "AES256"}, {},
       [](const Config& c) { EXPECT_TRUE(c.default_sse_s3); }},
      {"default encryption env", {}, {{"CUBBY_DEFAULT_ENCRYPTION", "AES256"}},
       [](const Config& c) { EXPECT_TRUE(c.default_sse_s3); }},
      {"default encryption flag wins", {"--default-encryption=none"},
       {{"CUBBY_DEFAULT_ENCRYPTION", "AES256"}},
       [](const Config& c) { EXPECT_FALSE(c.default_sse_s3); }},
      {"sse-c over http switch", {"--allow-sse-c-over-http"}, {},
       [](const Config& c) { EXPECT_TRUE(c.allow_sse_c_over_http); }},
      {"sse-c over http switch then flag", {"--allow-sse-c-over-http", "--region", "r1"}, {},
       [](const Config& c) {
         EXPECT_TRUE(c.allow_sse_c_over_http);
         EXPECT_EQ(c.region, "r1");
       }},
      {"sse-c over http false", {"--allow-sse-c-over-http=false"}, {},
       [](const Config& c) { EXPECT_FALSE(c.allow_sse_c_over_http); }},
      {"sse-c over http env", {}, {{"CUBBY_ALLOW_SSE_C_OVER_HTTP", "1"}},
       [](const Config& c) { EXPECT_TRUE(c.allow_sse_c_over_http); }},
      {"several flags", {"--region", "r1", "--log-level", "warn", "--data-dir", "d"}, {},
       [](const Config& c) {
         EXPECT_EQ(c.region, "r1");
         EXPECT_EQ(c.log_level, LogLevel::kWarn);
         EXPECT_EQ(c.data_dir, "d");
       }},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto config = Parse(tc.args, tc.env);
    ASSERT_TRUE(config.ok()) << config.status().message();
    tc.check(*config);
  }
}

struct BadCase {
  std::string name;
  std::vector<std::string> args;
  Env env;
  std::string message_contains;
};

TEST(ConfigTest, BadConfigurations) {
  const std::vector<BadCase> cases = {
      {"unknown flag", {"--nope"}, {}, "unknown flag --nope"},
      {"unknown flag with value", {"--nope=1"}, {}, "unknown flag --nope"},
      {"positional argument", {"serve"}, {}, "unexpected argument 'serve'"},
      {"lifecycle day zero", {"--lifecycle-day-seconds", "0"}, {},
       "--lifecycle-day-seconds: must be between 1 and 86400"},
      {"lifecycle day too long", {}, {{"CUBBY_LIFECYCLE_DAY_SECONDS", "86401"}},
       "CUBBY_LIFECYCLE_DAY_SECONDS: must be between 1 and 86400"},
      {"lifecycle day not a number", {"--lifecycle-day-seconds", "2s"}, {}, "expected a number"},
      {"lifecycle interval zero", {"--lifecycle-interval", "0"}, {},
       "--lifecycle-interval: must be greater than 0"},
      {"lifecycle interval bad", {}, {{"CUBBY_LIFECYCLE_INTERVAL", "soon"}},
       "CUBBY_LIFECYCLE_INTERVAL: invalid duration"},
      {"single dash", {"-v"}, {}, "unexpected argument '-v'"},
      {"default encryption lowercase", {"--default-encryption", "aes256"}, {},
       "--default-encryption: expected AES256 or none, got \"aes256\""},
      {"default encryption kms", {}, {{"CUBBY_DEFAULT_ENCRYPTION", "aws:kms"}},
       "CUBBY_DEFAULT_ENCRYPTION: expected AES256 or none"},
      {"sse-c over http bad", {"--allow-sse-c-over-http=maybe"}, {},
       "--allow-sse-c-over-http: expected 1/true/yes or 0/false/no, got 'maybe'"},
      {"sse-c over http env bad", {}, {{"CUBBY_ALLOW_SSE_C_OVER_HTTP", "on"}},
       "CUBBY_ALLOW_SSE_C_OVER_HTTP: expected"},
      {"missing value", {"--data-dir"}, {}, "missing value for --data-dir"},
      {"empty value", {"--region="}, {}, "empty value for --region"},
      {"empty master key file", {"--master-key-file="}, {}, "empty value for --master-key-file"},
      {"address without port", {"--s3-address", "127.0.0.1"}, {}, "expected host:port"},
      {"address bad port", {"--s3-address", "127.0.0.1:http"}, {}, "invalid port"},
      {"address port too big", {"--s3-address", "127.0.0.1:65536"}, {}, "invalid port"},
      {"address port too long", {"--s3-address", "127.0.0.1:000009000"}, {}, "invalid port"},
      {"address empty port", {"--s3-address", "127.0.0.1:"}, {}, "invalid port"},
      {"address host name", {"--s3-address", "example.com:9000"}, {}, "not an IP address"},
      {"address bare v6", {"--s3-address", "::1:9000"}, {}, "[addr]:port"},
      {"address unclosed bracket", {"--s3-address", "[::1:9000"}, {}, "expected [ipv6]:port"},
      {"address v4 in brackets", {"--s3-address", "[127.0.0.1]:9000"}, {}, "[addr]:port"},
      {"address env bad", {}, {{"CUBBY_S3_ADDRESS", "nowhere"}}, "CUBBY_S3_ADDRESS"},
      {"region uppercase", {"--region", "US-EAST-1"}, {}, "invalid region"},
      {"region underscore", {"--region", "us_east"}, {}, "invalid region"},
      {"region env bad", {}, {{"CUBBY_REGION", "a b"}}, "CUBBY_REGION: invalid region"},
      {"disk reserve unit", {"--disk-reserve", "64MB"}, {}, "--disk-reserve: expected a size"},
      {"disk reserve unit only", {"--disk-reserve", "MiB"}, {}, "expected a size"},
      {"disk reserve negative", {"--disk-reserve", "-1"}, {}, "expected a size"},
      {"disk reserve too big", {"--disk-reserve", "2000000GiB"}, {}, "expected a size"},
      {"disk reserve env", {}, {{"CUBBY_DISK_RESERVE", "lots"}}, "CUBBY_DISK_RESERVE"},
      {"log level", {"--log-level", "verbose"}, {}, "invalid log level 'verbose'"},
      {"log level env", {}, {{"CUBBY_LOG_LEVEL", "INFO"}}, "CUBBY_LOG_LEVEL"},
      {"domain uppercase", {"--domain", "S3.Example.com"}, {}, "invalid domain"},
      {"domain leading dot", {"--domain", ".example.com"}, {}, "invalid domain"},
      {"domain double dot", {"--domain", "a..b"}, {}, "invalid domain"},
      {"root id without secret", {}, {{"CUBBY_ROOT_ACCESS_KEY", "admin"}}, "both"},
      {"root secret without id", {}, {{"CUBBY_ROOT_SECRET_KEY", "secret12"}}, "both"},
      {"root id too short", {}, {{"CUBBY_ROOT_ACCESS_KEY", "ab"}, {"CUBBY_ROOT_SECRET_KEY", "secret12"}},
       "CUBBY_ROOT_ACCESS_KEY"},
      {"root id too long", {},
       {{"CUBBY_ROOT_ACCESS_KEY", std::string(129, 'A')}, {"CUBBY_ROOT_SECRET_KEY", "secret12"}},
       "CUBBY_ROOT_ACCESS_KEY"},
      {"root id bad char", {}, {{"CUBBY_ROOT_ACCESS_KEY", "ad-min"}, {"CUBBY_ROOT_SECRET_KEY", "secret12"}},
       "CUBBY_ROOT_ACCESS_KEY"},
      {"root secret too short", {}, {{"CUBBY_ROOT_ACCESS_KEY", "admin"}, {"CUBBY_ROOT_SECRET_KEY", "short"}},
       "CUBBY_ROOT_SECRET_KEY"},
      {"root secret too long", {},
       {{"CUBBY_ROOT_ACCESS_KEY", "admin"}, {"CUBBY_ROOT_SECRET_KEY", std::string(129, 'x')}},
       "CUBBY_ROOT_SECRET_KEY"},
      {"root secret with space", {},
       {{"CUBBY_ROOT_ACCESS_KEY", "admin"}, {"CUBBY_ROOT_SECRET_KEY", "has a space"}},
       "CUBBY_ROOT_SECRET_KEY"},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto config = Parse(tc.args, tc.env);
    ASSERT_FALSE(config.ok());
    EXPECT_EQ(config.status().code(), storage::Code::kInvalidArgument);
    EXPECT_NE(config.status().message().find(tc.message_contains), std::string::npos)
        << config.status().message();
    EXPECT_EQ(config.status().message().find('\n'), std::string::npos) << "one line";
  }
}

TEST(ConfigTest, ErrorsNeverEchoTheSecret) {
  const std::string secret = "super secret value";  // has spaces: invalid
  auto config = Parse({}, {{"CUBBY_ROOT_ACCESS_KEY", "admin"}, {"CUBBY_ROOT_SECRET_KEY", secret}});
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message().find("super"), std::string::npos);
}

TEST(ConfigTest, FormatAddress) {
  EXPECT_EQ(FormatAddress("127.0.0.1", 9000), "127.0.0.1:9000");
  EXPECT_EQ(FormatAddress("::1", 80), "[::1]:80");
}

}  // namespace
}  // namespace cubby::server
