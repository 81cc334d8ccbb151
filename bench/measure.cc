#include "bench/measure.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

namespace cubby::bench {
namespace {

struct Unit {
  std::string_view suffix;
  uint64_t factor;
};
// Longest suffixes first so "KiB" is not read as "B" after a number "4Ki".
constexpr Unit kUnits[] = {
    {"KiB", 1ull << 10}, {"MiB", 1ull << 20}, {"GiB", 1ull << 30},
    {"KB", 1ull << 10},  {"MB", 1ull << 20},  {"GB", 1ull << 30},
    {"K", 1ull << 10},   {"M", 1ull << 20},   {"G", 1ull << 30},
    {"B", 1},
};

// Leading decimal digits of `s` after spaces; 0 if there are none.
uint64_t LeadingNumber(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  uint64_t n = 0;
  std::from_chars(s.data(), s.data() + s.size(), n);
  return n;
}

}  // namespace

bool ParseSize(std::string_view text, uint64_t* bytes) {
  uint64_t factor = 1;
  for (const Unit& unit : kUnits) {
    if (text.size() > unit.suffix.size() &&
        text.substr(text.size() - unit.suffix.size()) == unit.suffix) {
      factor = unit.factor;
      text.remove_suffix(unit.suffix.size());
      break;
    }
  }
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return false;
  if (n != 0 && factor > UINT64_MAX / n) return false;
  *bytes = n * factor;
  return true;
}

std::string FormatSize(uint64_t bytes) {
  constexpr std::pair<uint64_t, std::string_view> kForms[] = {
      {1ull << 30, "GiB"}, {1ull << 20, "MiB"}, {1ull << 10, "KiB"}};
  for (const auto& [factor, suffix] : kForms) {
    if (bytes != 0 && bytes % factor == 0) {
      return std::to_string(bytes / factor) + std::string(suffix);
    }
  }
  return std::to_string(bytes);
}

int64_t PercentileSorted(const std::vector<int64_t>& sorted, double p) {
  // Nearest rank: ceil(p/100 * n), 1-based.
  size_t n = sorted.size();
  auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(n)));
  rank = std::clamp<size_t>(rank, 1, n);
  return sorted[rank - 1];
}

LatencySummary Summarize(std::vector<int64_t>* samples_ns) {
  LatencySummary s;
  if (samples_ns->empty()) return s;
  std::sort(samples_ns->begin(), samples_ns->end());
  constexpr double kNsPerMs = 1e6;
  s.count = samples_ns->size();
  s.p50_ms = static_cast<double>(PercentileSorted(*samples_ns, 50)) / kNsPerMs;
  s.p99_ms = static_cast<double>(PercentileSorted(*samples_ns, 99)) / kNsPerMs;
  s.max_ms = static_cast<double>(samples_ns->back()) / kNsPerMs;
  long double sum = std::accumulate(samples_ns->begin(), samples_ns->end(), 0.0L);
  s.mean_ms = static_cast<double>(sum / static_cast<long double>(s.count)) / kNsPerMs;
  return s;
}

double SelfCpuSeconds() {
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  auto seconds = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::optional<ProcSample> SampleProcess(pid_t pid) {
  std::string base = "/proc/" + std::to_string(pid);
  std::ifstream stat_file(base + "/stat");
  std::string stat;
  if (!stat_file || !std::getline(stat_file, stat)) return std::nullopt;
  // The command name (field 2) may hold spaces and parentheses: fields resume after the
  // last ')'. From there, field 3 (state) is token 0, utime (14) token 11, stime (15) token 12.
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  std::string token;
  uint64_t utime = 0;
  uint64_t stime = 0;
  for (int i = 0; i <= 12 && (fields >> token); ++i) {
    if (i == 11) utime = LeadingNumber(token);
    if (i == 12) stime = LeadingNumber(token);
  }
  if (!fields) return std::nullopt;
  ProcSample sample;
  sample.cpu_seconds =
      static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));

  std::ifstream status_file(base + "/status");
  std::string line;
  while (std::getline(status_file, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      uint64_t kib = LeadingNumber(std::string_view(line).substr(6));  // "VmHWM:   12345 kB"
      sample.peak_rss_bytes = kib * 1024;
      break;
    }
  }
  return sample;
}

bool ResetPeakRss(pid_t pid) {
  std::ofstream clear_refs("/proc/" + std::to_string(pid) + "/clear_refs");
  if (!clear_refs) return false;
  clear_refs << "5";
  clear_refs.flush();
  return static_cast<bool>(clear_refs);
}

}  // namespace cubby::bench
