// Fuzzes the bucket-configuration parsers of request bytes (s3api/bucket_config_xml.h):
// ParseLifecycleConfiguration, ParseObjectLockConfiguration, ParseVersioningConfiguration,
// ParseRetention, ParseLegalHold and ParseCorsConfiguration. The first byte picks the parser, the
// rest is its input.
// Besides not crashing, what a parser accepts must survive a round trip: rendered as the Get
// operation answers, it parses back to the same value. An accepted lifecycle configuration is
// also evaluated (lifecycle/lifecycle.h) for a few objects, versions and uploads, which must not
// crash or overflow; an accepted CORS configuration answers a few preflights and actual requests
// (s3api/cors.h).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lifecycle/lifecycle.h"
#include "s3api/bucket_config_xml.h"
#include "s3api/cors.h"

namespace {

namespace s3api = cubby::s3api;
namespace storage = cubby::storage;
namespace lifecycle = cubby::lifecycle;

constexpr int64_t kNow = 1767225600000;  // 2026-01-01T00:00:00Z

s3api::RuleIdGenerator Counter() {
  auto n = std::make_shared<int>(0);
  return [n] { return "generated-" + std::to_string(++*n); };
}

void Evaluate(const storage::LifecycleConfig& config) {
  const std::vector<lifecycle::Tag> tags = {{"k", "v"}, {"", ""}};
  const std::vector<lifecycle::VersionFacts> versions = {
      {false, 10, tags, kNow}, {true, 0, {}, kNow - 1}, {false, UINT64_MAX, {}, INT64_MIN}};
  for (std::chrono::seconds day : {lifecycle::kDay, std::chrono::seconds(1)}) {
    for (std::string_view key : {"", "logs/a", "tmp/x"}) {
      lifecycle::CurrentVersionExpiry(config, {key, 5, tags, kNow}, day);
      lifecycle::CurrentVersionExpiry(config, {key, UINT64_MAX, {}, INT64_MAX}, day);
      lifecycle::DueNoncurrentVersions(config, key, versions, day, kNow);
      lifecycle::DueExpiredDeleteMarker(config, key, std::span(versions).subspan(1, 1), day,
                                        INT64_MAX);
      lifecycle::UploadAbortExpiry(config, {key, kNow}, day);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0] % 6;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (mode) {
    case 0: {
      storage::LifecycleConfig config;
      if (!s3api::ParseLifecycleConfiguration(input, Counter(), &config).ok()) break;
      storage::LifecycleConfig again;
      if (!s3api::ParseLifecycleConfiguration(s3api::LifecycleConfigurationXml(config), Counter(),
                                              &again)
               .ok() ||
          !(again == config)) {
        std::abort();
      }
      Evaluate(config);
      break;
    }
    case 1: {
      storage::ObjectLockConfig config;
      if (!s3api::ParseObjectLockConfiguration(input, &config).ok()) break;
      storage::ObjectLockConfig again;
      if (!s3api::ParseObjectLockConfiguration(s3api::ObjectLockConfigurationXml(config), &again)
               .ok() ||
          !(again == config)) {
        std::abort();
      }
      s3api::DefaultRetentionFor(config, kNow);
      break;
    }
    case 2: {
      std::optional<storage::VersioningState> state;
      if (!s3api::ParseVersioningConfiguration(input, &state).ok() || !state) break;
      std::optional<storage::VersioningState> again;
      if (!s3api::ParseVersioningConfiguration(s3api::VersioningConfigurationXml(*state), &again)
               .ok() ||
          again != state) {
        std::abort();
      }
      break;
    }
    case 3: {
      storage::ObjectRetention retention;
      if (!s3api::ParseRetention(input, kNow, &retention).ok() ||
          retention.mode == storage::RetentionMode::kNone) {
        break;
      }
      storage::ObjectRetention again;
      if (!s3api::ParseRetention(s3api::RetentionXml(retention), kNow, &again).ok() ||
          !(again == retention)) {
        std::abort();
      }
      break;
    }
    case 4: {
      storage::LegalHold hold;
      if (!s3api::ParseLegalHold(input, &hold).ok()) break;
      storage::LegalHold again;
      if (!s3api::ParseLegalHold(s3api::LegalHoldXml(hold), &again).ok() || again != hold) {
        std::abort();
      }
      break;
    }
    case 5: {
      storage::CorsConfig config;
      if (!s3api::ParseCorsConfiguration(input, &config).ok()) break;
      storage::CorsConfig again;
      if (!s3api::ParseCorsConfiguration(s3api::CorsConfigurationXml(config), &again).ok() ||
          !(again == config)) {
        std::abort();
      }
      for (const char* origin : {"https://a.example.com", "*", ""}) {
        s3api::HttpRequest request;
        request.method = "PUT";
        request.headers = {{"origin", origin},
                           {"access-control-request-method", "GET"},
                           {"access-control-request-headers", "content-type, x-amz-date"}};
        s3api::AnswerPreflight(s3api::CorsBucket::kConfigured, config, request);
        s3api::ActualRequestCorsHeaders(config, request);
      }
      break;
    }
  }
  return 0;
}
