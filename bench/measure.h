// Measurement helpers shared by the load generator and the baselines that will join it
// (HTTP ceiling, raw RocksDB puts, loopback copy, hash throughput): sizes, exact latency
// percentiles, and CPU / peak-RSS sampling of this process and of the server under test.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cubby::bench {

// "4096", "4KiB", "4K", "64MiB", "1GiB" (K/M/G are binary, as with KiB/MiB/GiB; a trailing
// "B" is allowed: "4KB" is 4096 too). Returns false on anything else or on overflow.
bool ParseSize(std::string_view text, uint64_t* bytes);
// The shortest exact form: 4096 → "4KiB", 67108864 → "64MiB", 1000 → "1000".
std::string FormatSize(uint64_t bytes);

struct LatencySummary {
  size_t count = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
  double mean_ms = 0;
};
// Exact nearest-rank percentiles over all samples (nanoseconds). Reorders `samples_ns`.
// All zero when there are no samples.
LatencySummary Summarize(std::vector<int64_t>* samples_ns);
// Nearest-rank percentile of a sorted, non-empty sample: the smallest value with at least
// p% of the samples at or below it. p in (0, 100].
int64_t PercentileSorted(const std::vector<int64_t>& sorted, double p);

// user + system CPU seconds this process has used (getrusage), all threads.
double SelfCpuSeconds();

// A Linux process as seen in /proc: CPU seconds (utime + stime) and peak RSS (VmHWM).
struct ProcSample {
  double cpu_seconds = 0;
  uint64_t peak_rss_bytes = 0;
};
// nullopt if the process does not exist or /proc cannot be read.
std::optional<ProcSample> SampleProcess(pid_t pid);
// Resets the process's VmHWM to its current RSS (writes 5 to /proc/PID/clear_refs), so the
// next sample's peak belongs to the measured interval. False if not permitted.
bool ResetPeakRss(pid_t pid);

}  // namespace cubby::bench
