// Pure parts of the appliance features: metrics rendering, the admin endpoints, the ephemeral
// ready line, JSON log lines, probe URLs, and TLS context errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "server/admin.h"
#include "server/healthcheck.h"
#include "server/log.h"
#include "server/metrics.h"
#include "server/ready_line.h"
#include "server/tls.h"

namespace cubby::server {
namespace {

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(MetricsTest, EscapeLabelValueTable) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"plain", "plain"},
      {"a\"b", "a\\\"b"},
      {"back\\slash", "back\\\\slash"},
      {"new\nline", "new\\nline"},
      {"", ""},
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(EscapeLabelValue(in), want) << in;
}

TEST(MetricsTest, OperationIndexFallsBackToOther) {
  EXPECT_EQ(kMetricOperations[MetricOperationIndex("PutObject")], "PutObject");
  EXPECT_EQ(kMetricOperations[MetricOperationIndex("CubbyMetrics")], "CubbyMetrics");
  EXPECT_EQ(kMetricOperations[MetricOperationIndex("")], "Other");
  EXPECT_EQ(kMetricOperations[MetricOperationIndex("/bucket/key")], "Other");
}

TEST(MetricsTest, EmptyRenderAnnouncesEveryFamily) {
  Metrics metrics;
  std::string text = metrics.Render({});
  for (const char* family :
       {"cubby_http_requests_total counter", "cubby_http_request_duration_seconds histogram",
        "cubby_http_bytes_received_total counter", "cubby_http_bytes_sent_total counter",
        "cubby_http_open_connections gauge", "cubby_bucket_objects gauge",
        "cubby_bucket_bytes gauge", "cosi_rpc_total counter", "cubby_ready gauge",
        "cubby_bucket_quota_bytes gauge", "cubby_bucket_quota_objects gauge"}) {
    EXPECT_TRUE(Contains(text, std::string("# TYPE ") + family)) << family;
  }
  EXPECT_FALSE(Contains(text, "cubby_rocksdb")) << "no engine figures given";
  EXPECT_FALSE(Contains(text, "cubby_storage_")) << "no storage figures given";
  EXPECT_TRUE(Contains(text, "cubby_http_bytes_received_total 0\n"));
  EXPECT_FALSE(Contains(text, "cubby_http_requests_total{"));
}

TEST(MetricsTest, RequestsHistogramAndBytes) {
  Metrics metrics;
  metrics.RecordRequest("PutObject", 200, 0.003, 100, 0);
  metrics.RecordRequest("PutObject", 200, 0.7, 50, 0);
  metrics.RecordRequest("PutObject", 503, 100.0, 0, 20);
  metrics.RecordRequest("Weird/Name", 42, 0.0, 0, 0);  // Other, status clamped to 599
  std::string text = metrics.Render({});
  EXPECT_TRUE(Contains(text, "cubby_http_requests_total{operation=\"PutObject\",status=\"200\"} 2\n"));
  EXPECT_TRUE(Contains(text, "cubby_http_requests_total{operation=\"PutObject\",status=\"503\"} 1\n"));
  EXPECT_TRUE(Contains(text, "cubby_http_requests_total{operation=\"Other\",status=\"599\"} 1\n"));
  // Cumulative buckets: 0.003 falls in le=0.005, 0.7 in le=1, 100 only in +Inf.
  EXPECT_TRUE(Contains(text, "_bucket{operation=\"PutObject\",le=\"0.0025\"} 0\n"));
  EXPECT_TRUE(Contains(text, "_bucket{operation=\"PutObject\",le=\"0.005\"} 1\n"));
  EXPECT_TRUE(Contains(text, "_bucket{operation=\"PutObject\",le=\"0.5\"} 1\n"));
  EXPECT_TRUE(Contains(text, "_bucket{operation=\"PutObject\",le=\"1\"} 2\n"));
  EXPECT_TRUE(Contains(text, "_bucket{operation=\"PutObject\",le=\"30\"} 2\n"));
  EXPECT_TRUE(Contains(text, "_bucket{operation=\"PutObject\",le=\"+Inf\"} 3\n"));
  EXPECT_TRUE(Contains(text, "cubby_http_request_duration_seconds_count{operation=\"PutObject\"} 3\n"));
  EXPECT_TRUE(Contains(text, "cubby_http_request_duration_seconds_sum{operation=\"PutObject\"} 100.703\n"));
  EXPECT_TRUE(Contains(text, "cubby_http_bytes_received_total 150\n"));
  EXPECT_TRUE(Contains(text, "cubby_http_bytes_sent_total 20\n"));
  EXPECT_FALSE(Contains(text, "GetObject")) << "no series for operations never seen";
}

TEST(MetricsTest, ScrapeFiguresAndCosi) {
  Metrics metrics;
  metrics.RecordCosiCall("DriverCreateBucket", "OK");
  metrics.RecordCosiCall("DriverCreateBucket", "OK");
  metrics.RecordCosiCall("DriverGrantBucketAccess", "NOT_FOUND");
  ScrapeFigures figures;
  figures.open_connections = 3;
  figures.ready = true;
  figures.buckets = {
      {"b1", 2, 10}, {"we\"ird", 0, 0}, {"q", 1, 5, 7, 1 << 20}, {"qb", 0, 0, {}, 0}};
  figures.engine = ScrapeFigures::Engine{1234, 0, true};
  figures.storage = ScrapeFigures::Storage{5000, 4096, false};
  std::string text = metrics.Render(figures);
  EXPECT_TRUE(Contains(text, "cubby_http_open_connections 3\n"));
  EXPECT_TRUE(Contains(text, "cubby_ready 1\n"));
  EXPECT_TRUE(Contains(text, "cubby_bucket_objects{bucket=\"b1\"} 2\n"));
  EXPECT_TRUE(Contains(text, "cubby_bucket_bytes{bucket=\"b1\"} 10\n"));
  EXPECT_TRUE(Contains(text, "cubby_bucket_objects{bucket=\"we\\\"ird\"} 0\n"));
  // Quota gauges (issue 17) only for the limits set.
  EXPECT_TRUE(Contains(text, "cubby_bucket_quota_objects{bucket=\"q\"} 7\n"));
  EXPECT_TRUE(Contains(text, "cubby_bucket_quota_bytes{bucket=\"q\"} 1048576\n"));
  EXPECT_TRUE(Contains(text, "cubby_bucket_quota_bytes{bucket=\"qb\"} 0\n"));
  EXPECT_FALSE(Contains(text, "cubby_bucket_quota_objects{bucket=\"qb\"}"));
  EXPECT_FALSE(Contains(text, "cubby_bucket_quota_bytes{bucket=\"b1\"}"));
  EXPECT_TRUE(Contains(text, "cubby_rocksdb_pending_compaction_bytes 1234\n"));
  EXPECT_TRUE(Contains(text, "cubby_rocksdb_write_stopped 1\n"));
  EXPECT_TRUE(Contains(text, "cubby_storage_free_bytes 5000\n"));
  EXPECT_TRUE(Contains(text, "cubby_storage_reserve_bytes 4096\n"));
  EXPECT_TRUE(Contains(text, "cubby_storage_full 0\n"));
  figures.storage->full = true;
  EXPECT_TRUE(Contains(metrics.Render(figures), "cubby_storage_full 1\n"));
  EXPECT_TRUE(Contains(text, "cosi_rpc_total{method=\"DriverCreateBucket\",code=\"OK\"} 2\n"));
  EXPECT_TRUE(Contains(text, "cosi_rpc_total{method=\"DriverGrantBucketAccess\",code=\"NOT_FOUND\"} 1\n"));
}

TEST(MetricsTest, ConcurrentRecordsAreAllCounted) {
  Metrics metrics;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&metrics] {
      for (int i = 0; i < 10000; ++i) metrics.RecordRequest("GetObject", 200, 0.001, 1, 2);
    });
  }
  for (auto& t : threads) t.join();
  std::string text = metrics.Render({});
  EXPECT_TRUE(Contains(text, "{operation=\"GetObject\",status=\"200\"} 40000\n"));
  EXPECT_TRUE(Contains(text, "cubby_http_bytes_received_total 40000\n"));
  EXPECT_TRUE(Contains(text, "cubby_http_bytes_sent_total 80000\n"));
}

s3api::HttpRequest Request(std::string method, std::string target) {
  s3api::HttpRequest r;
  r.method = std::move(method);
  r.target = std::move(target);
  r.request_id = "1";
  return r;
}

TEST(AdminEndpointsTest, Table) {
  Metrics metrics;
  metrics.RecordRequest("PutObject", 200, 0.01, 1, 1);
  int scrapes = 0;
  AdminEndpoints admin(&metrics, [&scrapes] {
    ++scrapes;
    ScrapeFigures f;
    f.open_connections = 5;
    return f;
  });
  struct Case {
    std::string method, target;
    bool ready;
    bool handled;
    int status;
    std::string operation;
    std::string body_contains;
  };
  const std::vector<Case> cases = {
      {"GET", "/_cubby/live", false, true, 200, "CubbyLive", "live"},
      {"GET", "/_cubby/ready", false, true, 503, "CubbyReady", "not ready"},
      {"GET", "/_cubby/ready", true, true, 200, "CubbyReady", "ready"},
      {"HEAD", "/_cubby/ready?x=1", true, true, 200, "CubbyReady", "ready"},
      {"GET", "/_cubby/metrics", true, true, 200, "CubbyMetrics", "cubby_http_open_connections 5"},
      {"PUT", "/_cubby/live", true, true, 405, "CubbyLive", "method not allowed"},
      {"GET", "/_cubby/", true, true, 404, "Unknown", "not found"},
      {"GET", "/_cubby/livex", true, true, 404, "Unknown", "not found"},
      {"GET", "/_cubby", true, false, 0, "", ""},
      {"GET", "/bucket/_cubby/live", true, false, 0, "", ""},
      {"GET", "/", true, false, 0, "", ""},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.method + " " + tc.target);
    admin.SetReady(tc.ready);
    s3api::HttpResponse response;
    s3api::RequestSummary summary;
    bool handled = admin.Handle(Request(tc.method, tc.target), &response, &summary);
    ASSERT_EQ(handled, tc.handled);
    if (!handled) {
      EXPECT_EQ(summary.operation, "");
      continue;
    }
    EXPECT_EQ(response.status, tc.status);
    EXPECT_EQ(summary.operation, tc.operation);
    EXPECT_TRUE(Contains(response.body, tc.body_contains)) << response.body;
    EXPECT_EQ(response.content_length, response.body.size());
  }
  EXPECT_EQ(scrapes, 1);
}

// /_cubby/quota is answered only once its handler is set, which gets the request's body.
TEST(AdminEndpointsTest, QuotaHandlerGetsTheBody) {
  Metrics metrics;
  AdminEndpoints admin(&metrics, nullptr);
  s3api::HttpResponse response;
  s3api::RequestSummary summary;
  ASSERT_TRUE(admin.Handle(Request("GET", "/_cubby/quota"), &response, &summary));
  EXPECT_EQ(response.status, 404);
  EXPECT_EQ(summary.operation, "Unknown");
  std::string seen;
  admin.SetQuotaHandler([&seen](const s3api::HttpRequest&, s3api::BodyReader& body) {
    char buf[64];
    for (s3api::ReadResult r; (r = body.Read(buf, sizeof(buf))).n > 0;) seen.append(buf, r.n);
    s3api::HttpResponse answer;
    answer.status = 204;
    return answer;
  });
  s3api::StringBodyReader body(R"({"bytes":1})");
  ASSERT_TRUE(admin.Handle(Request("PUT", "/_cubby/quota?bucket=b"), body, &response, &summary));
  EXPECT_EQ(response.status, 204);
  EXPECT_EQ(summary.operation, "CubbyQuota");
  EXPECT_EQ(seen, R"({"bytes":1})");
  EXPECT_EQ(kMetricOperations[MetricOperationIndex("CubbyQuota")], "CubbyQuota");
}

// A full store stays ready (reads and deletes still work) and says why writes fail.
TEST(AdminEndpointsTest, FullStoreIsReadyAndSaysSo) {
  Metrics metrics;
  AdminEndpoints admin(&metrics, nullptr);
  admin.SetReady(true);
  admin.SetStorageFull(true);
  s3api::HttpResponse response;
  ASSERT_TRUE(admin.Handle(Request("GET", "/_cubby/ready"), &response, nullptr));
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "ready (store full: writes refused)\n");
  admin.SetStorageFull(false);
  ASSERT_TRUE(admin.Handle(Request("GET", "/_cubby/ready"), &response, nullptr));
  EXPECT_EQ(response.body, "ready\n");
  admin.SetReady(false);  // shutting down wins
  admin.SetStorageFull(true);
  ASSERT_TRUE(admin.Handle(Request("GET", "/_cubby/ready"), &response, nullptr));
  EXPECT_EQ(response.status, 503);
}

// A store that only a restart brings back to writing fails liveness, so an orchestrator
// restarts it; readiness is unchanged (reads still work).
TEST(AdminEndpointsTest, StoreNeedingARestartFailsLiveness) {
  Metrics metrics;
  AdminEndpoints admin(&metrics, nullptr);
  admin.SetReady(true);
  s3api::HttpResponse response;
  ASSERT_TRUE(admin.Handle(Request("GET", "/_cubby/live"), &response, nullptr));
  EXPECT_EQ(response.status, 200);
  admin.SetNeedsRestart(true);
  ASSERT_TRUE(admin.Handle(Request("GET", "/_cubby/live"), &response, nullptr));
  EXPECT_EQ(response.status, 503);
  EXPECT_TRUE(Contains(response.body, "restart needed")) << response.body;
  ASSERT_TRUE(admin.Handle(Request("GET", "/_cubby/ready"), &response, nullptr));
  EXPECT_EQ(response.status, 200);
}

TEST(AdminEndpointsTest, MetricsContentTypeAndReadyGauge) {
  Metrics metrics;
  AdminEndpoints admin(&metrics, nullptr);
  admin.SetReady(true);
  s3api::HttpResponse response;
  ASSERT_TRUE(admin.Handle(Request("GET", "/_cubby/metrics"), &response, nullptr));
  bool found = false;
  for (const auto& h : response.headers) {
    if (h.name == "Content-Type") {
      EXPECT_EQ(h.value, "text/plain; version=0.0.4; charset=utf-8");
      found = true;
    }
  }
  EXPECT_TRUE(found);
  EXPECT_TRUE(Contains(response.body, "cubby_ready 1\n"));
}

TEST(ReadyLineTest, ExactShape) {
  EXPECT_EQ(ReadyLine("http://127.0.0.1:41234", "AKID", storage::SecretKey("s3cr\"t/+"),
                      std::nullopt),
            "{\"ready\":true,\"s3_endpoint\":\"http://127.0.0.1:41234\",\"access_key_id\":"
            "\"AKID\",\"secret_access_key\":\"s3cr\\\"t/+\",\"cosi_endpoint\":null}\n");
  EXPECT_EQ(ReadyLine("https://[::1]:1", "A", storage::SecretKey("s"),
                      std::string("unix:///run/cosi.sock")),
            "{\"ready\":true,\"s3_endpoint\":\"https://[::1]:1\",\"access_key_id\":\"A\","
            "\"secret_access_key\":\"s\",\"cosi_endpoint\":\"unix:///run/cosi.sock\"}\n");
}

TEST(JsonLogTest, JsonStringEscapes) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"plain", "\"plain\""},
      {"a\"b\\c", "\"a\\\"b\\\\c\""},
      {"l1\nl2\r\t", "\"l1\\nl2\\r\\t\""},
      {std::string("\x01\x7f", 2), "\"\\u0001\\u007f\""},
      {"\xc3\xa9", "\"\xc3\xa9\""},
      // JSON carries only Unicode: a byte that is not UTF-8 becomes U+FFFD, never raw.
      {"k\xff\xc3\xa9", "\"k\\ufffd\xc3\xa9\""},
      {"\xc0\xaf", "\"\\ufffd\\ufffd\""},
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(JsonString(in), want);
}

TEST(JsonLogTest, LineShape) {
  auto t = std::chrono::system_clock::time_point(std::chrono::milliseconds(1714564800123));
  EXPECT_EQ(FormatLogLine(t, LogLevel::kWarn, "request", {{"status", 200}, {"key", "a b\"c"}},
                          LogFormat::kJson),
            "{\"time\":\"2024-05-01T12:00:00.123Z\",\"level\":\"warn\",\"msg\":\"request\","
            "\"status\":\"200\",\"key\":\"a b\\\"c\"}\n");
  EXPECT_EQ(FormatLogLine(t, LogLevel::kInfo, "x", {}, LogFormat::kLogfmt),
            "time=2024-05-01T12:00:00.123Z level=info msg=x\n");
}

TEST(ProbeUrlTest, Table) {
  struct Case {
    std::string url;
    bool ok;
    bool tls;
    std::string host;
    uint16_t port;
    std::string path;
  };
  const std::vector<Case> cases = {
      {"http://127.0.0.1:9000/_cubby/ready", true, false, "127.0.0.1", 9000, "/_cubby/ready"},
      {"https://127.0.0.1/x", true, true, "127.0.0.1", 443, "/x"},
      {"http://localhost:1", true, false, "127.0.0.1", 1, "/"},
      {"http://[::1]:9000/r", true, false, "::1", 9000, "/r"},
      {"http://127.0.0.1", true, false, "127.0.0.1", 80, "/"},
      {"ftp://127.0.0.1/", false, false, "", 0, ""},
      {"http://", false, false, "", 0, ""},
      {"http://example.com/", false, false, "", 0, ""},
      {"http://127.0.0.1:/", false, false, "", 0, ""},
      {"http://127.0.0.1:0/", false, false, "", 0, ""},
      {"http://127.0.0.1:65536/", false, false, "", 0, ""},
      {"http://127.0.0.1:9x/", false, false, "", 0, ""},
      {"http://[::1/", false, false, "", 0, ""},
      {"http://[::1]x/", false, false, "", 0, ""},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.url);
    auto t = ParseProbeUrl(tc.url);
    ASSERT_EQ(t.has_value(), tc.ok);
    if (!t) continue;
    EXPECT_EQ(t->tls, tc.tls);
    EXPECT_EQ(t->host, tc.host);
    EXPECT_EQ(t->port, tc.port);
    EXPECT_EQ(t->path, tc.path);
  }
}

TEST(TlsContextTest, MissingAndBadFiles) {
  auto dir = std::filesystem::temp_directory_path() / ("cubby-tls-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "junk.pem") << "not a certificate\n";
  struct Case {
    std::string cert, key, contains;
  };
  const std::vector<Case> cases = {
      {(dir / "none.pem").string(), (dir / "none.pem").string(), "TLS certificate"},
      {(dir / "junk.pem").string(), (dir / "junk.pem").string(), "TLS certificate"},
  };
  for (const auto& tc : cases) {
    auto ctx = MakeServerTlsContext(tc.cert, tc.key);
    ASSERT_FALSE(ctx.ok());
    EXPECT_EQ(ctx.status().code(), storage::Code::kInvalidArgument);
    EXPECT_TRUE(Contains(ctx.status().message(), tc.contains)) << ctx.status().message();
    EXPECT_TRUE(Contains(ctx.status().message(), tc.cert));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cubby::server
