// Metrics: counters the request path bumps lock-free, rendered at scrape time in the Prometheus
// text exposition format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/).
//
// Labels are bounded: `operation` is one of kMetricOperations (anything else counts as "Other"),
// `status` an HTTP status 100..599, `bucket` a bucket name (one series per bucket, never per
// key), COSI `method`/`code` from the driver's fixed sets. No label ever carries a secret.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cubby::server {

// The operations with their own series: the router's AWS action names, the server's own
// endpoints, and "Other" for everything else (including an empty operation).
inline constexpr std::array<std::string_view, 37> kMetricOperations = {
    "AbortMultipartUpload", "CompleteMultipartUpload", "CopyObject", "CreateBucket",
    "CreateMultipartUpload", "DeleteBucket", "DeleteObject", "DeleteObjects",
    "GetBucketAcl", "GetBucketLocation", "GetBucketVersioning", "GetObject",
    "GetObjectAcl", "HeadBucket", "HeadObject", "ListBuckets",
    "ListMultipartUploads", "ListObjects", "ListObjectsV2", "ListParts",
    "PutBucketAcl", "PutObject", "PutObjectAcl", "UploadPart",
    "UploadPartCopy", "NotImplemented", "Unknown", "GetBucketTagging",
    "PutBucketTagging", "DeleteBucketTagging", "CubbyLive", "CubbyReady",
    "CubbyMetrics", "CubbyBackup", "BadRequest", "CubbyQuota", "Other"};

// Index into kMetricOperations; "Other" for a name not listed.
size_t MetricOperationIndex(std::string_view operation);

// Upper bounds (seconds) of the request duration histogram; +Inf is implied.
inline constexpr std::array<double, 14> kDurationBuckets = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};

// A label value escaped per the text format: \ → \\, " → \", newline → \n.
std::string EscapeLabelValue(std::string_view value);

// Figures read at scrape time (not counted on the request path).
struct ScrapeFigures {
  uint64_t open_connections = 0;
  struct Bucket {
    std::string name;
    uint64_t objects = 0;
    uint64_t bytes = 0;
    std::optional<uint64_t> quota_objects;  // the bucket's quota; nullopt: no limit
    std::optional<uint64_t> quota_bytes;
  };
  std::vector<Bucket> buckets;  // empty: the family is still announced, with no samples
  struct Engine {
    uint64_t pending_compaction_bytes = 0;
    uint64_t delayed_write_rate = 0;  // bytes/s; 0 when writes are not delayed
    bool write_stopped = false;
  };
  std::optional<Engine> engine;  // nullopt: not available, the family is left out
  struct Storage {
    uint64_t free_bytes = 0;     // available to the store on its filesystem
    uint64_t reserve_bytes = 0;  // kept for deletes
    bool full = false;           // writes are refused for lack of space
  };
  std::optional<Storage> storage;  // nullopt: not available, the families are left out
  bool ready = false;
};

// Thread-safe; the Record* calls never take a lock except RecordCosiCall (COSI is rare).
class Metrics {
 public:
  Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // One finished HTTP request. A status outside 100..599 is counted as 599.
  void RecordRequest(std::string_view operation, int status, double seconds, uint64_t bytes_in,
                     uint64_t bytes_out);
  // One COSI RPC with its gRPC status code name ("OK", "NOT_FOUND", ...).
  void RecordCosiCall(std::string_view method, std::string_view code);

  // Requests recorded so far (all operations and statuses); cheap, for idleness checks.
  uint64_t FinishedRequests() const { return finished_.load(std::memory_order_relaxed); }

  // The whole exposition, every family with # HELP and # TYPE lines.
  std::string Render(const ScrapeFigures& figures) const;

 private:
  static constexpr size_t kOps = kMetricOperations.size();
  static constexpr int kMinStatus = 100;
  static constexpr size_t kStatuses = 500;  // 100..599
  static constexpr size_t kBuckets = kDurationBuckets.size() + 1;  // + the +Inf bucket

  void RenderRequestCounts(std::string* out) const;
  void RenderDurations(std::string* out) const;
  void RenderCosiCalls(std::string* out) const;

  // requests_[op * kStatuses + (status - 100)]
  std::unique_ptr<std::atomic<uint64_t>[]> requests_;
  // Non-cumulative per-bucket counts; Render accumulates.
  std::array<std::array<std::atomic<uint64_t>, kBuckets>, kOps> duration_counts_{};
  std::array<std::atomic<uint64_t>, kOps> duration_sum_us_{};
  std::atomic<uint64_t> bytes_received_{0};
  std::atomic<uint64_t> bytes_sent_{0};
  std::atomic<uint64_t> finished_{0};

  mutable std::mutex cosi_mutex_;
  std::map<std::pair<std::string, std::string>, uint64_t> cosi_calls_;  // guarded
};

}  // namespace cubby::server
