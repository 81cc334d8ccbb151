#include "server/metrics.h"

#include <charconv>
#include <cmath>

namespace cubby::server {
namespace {

// The shortest text that reads back as `v` ("0.0025", not "0.0025000000000000001").
std::string FormatNumber(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

void Family(std::string* out, std::string_view name, std::string_view type,
            std::string_view help) {
  *out += "# HELP ";
  *out += name;
  *out += ' ';
  *out += help;
  *out += "\n# TYPE ";
  *out += name;
  *out += ' ';
  *out += type;
  *out += '\n';
}

void Sample(std::string* out, std::string_view name, std::string_view labels,
            std::string_view value) {
  *out += name;
  if (!labels.empty()) {
    *out += '{';
    *out += labels;
    *out += '}';
  }
  *out += ' ';
  *out += value;
  *out += '\n';
}

// A family of one unlabelled sample (a gauge or a counter without labels).
void Single(std::string* out, std::string_view name, std::string_view type, std::string_view help,
            std::string_view value) {
  Family(out, name, type, help);
  Sample(out, name, "", value);
}

// 1 or 0, as Prometheus writes a flag.
std::string_view Flag(bool on) { return on ? "1" : "0"; }

std::string Label(std::string_view name, std::string_view value) {
  return std::string(name) + "=\"" + EscapeLabelValue(value) + "\"";
}

// One gauge family with a sample per bucket that has the figure (`value` nullopt: no sample).
void BucketFamily(std::string* out, std::string_view name, std::string_view help,
                  const std::vector<ScrapeFigures::Bucket>& buckets,
                  std::optional<uint64_t> (*value)(const ScrapeFigures::Bucket&)) {
  Family(out, name, "gauge", help);
  for (const ScrapeFigures::Bucket& b : buckets) {
    if (std::optional<uint64_t> v = value(b)) {
      Sample(out, name, Label("bucket", b.name), std::to_string(*v));
    }
  }
}

void RenderBuckets(const std::vector<ScrapeFigures::Bucket>& buckets, std::string* out) {
  using Bucket = ScrapeFigures::Bucket;
  BucketFamily(out, "cubby_bucket_objects", "Objects in the bucket.", buckets,
               [](const Bucket& b) -> std::optional<uint64_t> { return b.objects; });
  BucketFamily(out, "cubby_bucket_bytes", "Bytes of object data in the bucket.", buckets,
               [](const Bucket& b) -> std::optional<uint64_t> { return b.bytes; });
  // A quota sample only for a bucket with that limit set (no sample: no limit).
  BucketFamily(out, "cubby_bucket_quota_objects",
               "The bucket's quota on cubby_bucket_objects (buckets with one).", buckets,
               [](const Bucket& b) { return b.quota_objects; });
  BucketFamily(out, "cubby_bucket_quota_bytes",
               "The bucket's quota on cubby_bucket_bytes (buckets with one).", buckets,
               [](const Bucket& b) { return b.quota_bytes; });
}

void RenderEngine(const ScrapeFigures::Engine& engine, std::string* out) {
  Single(out, "cubby_rocksdb_pending_compaction_bytes", "gauge",
         "RocksDB's estimate of bytes compaction still has to rewrite.",
         std::to_string(engine.pending_compaction_bytes));
  Single(out, "cubby_rocksdb_delayed_write_rate", "gauge",
         "RocksDB's delayed write rate in bytes/s (0 when writes are not slowed down).",
         std::to_string(engine.delayed_write_rate));
  Single(out, "cubby_rocksdb_write_stopped", "gauge", "1 while RocksDB stops writes.",
         Flag(engine.write_stopped));
}

void RenderStorage(const ScrapeFigures::Storage& storage, std::string* out) {
  Single(out, "cubby_storage_free_bytes", "gauge",
         "Bytes free for the store on its data folder's filesystem.",
         std::to_string(storage.free_bytes));
  Single(out, "cubby_storage_reserve_bytes", "gauge",
         "Free bytes kept for deletes: writes that would leave less are refused.",
         std::to_string(storage.reserve_bytes));
  Single(out, "cubby_storage_full", "gauge",
         "1 while the store refuses writes for lack of space (507 InsufficientStorage).",
         Flag(storage.full));
}

}  // namespace

size_t MetricOperationIndex(std::string_view operation) {
  for (size_t i = 0; i < kMetricOperations.size(); ++i) {
    if (kMetricOperations[i] == operation) return i;
  }
  return kMetricOperations.size() - 1;  // "Other"
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
  return out;
}

Metrics::Metrics() : requests_(new std::atomic<uint64_t>[kOps * kStatuses]) {
  for (size_t i = 0; i < kOps * kStatuses; ++i) requests_[i].store(0, std::memory_order_relaxed);
}

void Metrics::RecordRequest(std::string_view operation, int status, double seconds,
                            uint64_t bytes_in, uint64_t bytes_out) {
  size_t op = MetricOperationIndex(operation);
  if (status < kMinStatus || status >= kMinStatus + static_cast<int>(kStatuses)) status = 599;
  requests_[op * kStatuses + static_cast<size_t>(status - kMinStatus)].fetch_add(
      1, std::memory_order_relaxed);
  size_t bucket = 0;
  while (bucket < kDurationBuckets.size() && seconds > kDurationBuckets[bucket]) ++bucket;
  duration_counts_[op][bucket].fetch_add(1, std::memory_order_relaxed);
  if (seconds < 0) seconds = 0;
  duration_sum_us_[op].fetch_add(static_cast<uint64_t>(std::llround(seconds * 1e6)),
                                 std::memory_order_relaxed);
  bytes_received_.fetch_add(bytes_in, std::memory_order_relaxed);
  bytes_sent_.fetch_add(bytes_out, std::memory_order_relaxed);
  finished_.fetch_add(1, std::memory_order_relaxed);
}

void Metrics::RecordCosiCall(std::string_view method, std::string_view code) {
  std::lock_guard<std::mutex> lock(cosi_mutex_);
  ++cosi_calls_[{std::string(method), std::string(code)}];
}

std::string Metrics::Render(const ScrapeFigures& figures) const {
  std::string out;
  out.reserve(16 << 10);
  RenderRequestCounts(&out);
  RenderDurations(&out);
  Single(&out, "cubby_http_bytes_received_total", "counter", "Request body bytes read.",
         std::to_string(bytes_received_.load(std::memory_order_relaxed)));
  Single(&out, "cubby_http_bytes_sent_total", "counter", "Response body bytes written.",
         std::to_string(bytes_sent_.load(std::memory_order_relaxed)));
  Single(&out, "cubby_http_open_connections", "gauge", "Open S3 connections.",
         std::to_string(figures.open_connections));
  Single(&out, "cubby_ready", "gauge", "1 when the server answers /_cubby/ready with 200.",
         Flag(figures.ready));
  RenderBuckets(figures.buckets, &out);
  if (figures.engine) RenderEngine(*figures.engine, &out);
  if (figures.storage) RenderStorage(*figures.storage, &out);
  RenderCosiCalls(&out);
  return out;
}

void Metrics::RenderRequestCounts(std::string* out) const {
  Family(out, "cubby_http_requests_total", "counter",
         "HTTP requests answered, by S3 operation and status code.");
  for (size_t op = 0; op < kOps; ++op) {
    for (size_t s = 0; s < kStatuses; ++s) {
      uint64_t n = requests_[op * kStatuses + s].load(std::memory_order_relaxed);
      if (n == 0) continue;
      Sample(out, "cubby_http_requests_total",
             Label("operation", kMetricOperations[op]) + "," +
                 Label("status", std::to_string(kMinStatus + static_cast<int>(s))),
             std::to_string(n));
    }
  }
}

void Metrics::RenderDurations(std::string* out) const {
  Family(out, "cubby_http_request_duration_seconds", "histogram",
         "Time from the request header to the last response byte, by S3 operation.");
  for (size_t op = 0; op < kOps; ++op) {
    uint64_t counts[kBuckets];
    uint64_t total = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
      counts[b] = duration_counts_[op][b].load(std::memory_order_relaxed);
      total += counts[b];
    }
    if (total == 0) continue;
    std::string op_label = Label("operation", kMetricOperations[op]);
    uint64_t cumulative = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
      cumulative += counts[b];
      std::string le = b < kDurationBuckets.size() ? FormatNumber(kDurationBuckets[b]) : "+Inf";
      Sample(out, "cubby_http_request_duration_seconds_bucket", op_label + "," + Label("le", le),
             std::to_string(cumulative));
    }
    Sample(out, "cubby_http_request_duration_seconds_sum", op_label,
           FormatNumber(static_cast<double>(duration_sum_us_[op].load(std::memory_order_relaxed)) /
                        1e6));
    Sample(out, "cubby_http_request_duration_seconds_count", op_label, std::to_string(cumulative));
  }
}

void Metrics::RenderCosiCalls(std::string* out) const {
  Family(out, "cosi_rpc_total", "counter", "COSI gRPC calls, by method and status code.");
  std::lock_guard<std::mutex> lock(cosi_mutex_);
  for (const auto& [key, n] : cosi_calls_) {
    Sample(out, "cosi_rpc_total", Label("method", key.first) + "," + Label("code", key.second),
           std::to_string(n));
  }
}

}  // namespace cubby::server
