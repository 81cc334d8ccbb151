// cubby-loadgen: a closed-loop S3 load generator. N threads, one keep-alive connection each,
// send SigV4-signed PUT or GET requests of one object size, or ListObjectsV2 pages, for a
// bounded time (or count) and the run is reported as one table line per operation: ops/s,
// MiB/s, exact p50/p99 latency, time to first byte, errors, and the CPU the client itself used
// (so a client-bound run is visible). With --server-pid it also reports the server's CPU and
// peak RSS over the measured interval.
//
// Bodies are random bytes generated once and sent straight from memory for every request; GET
// bodies are read into a per-connection buffer (and compared with the original under
// --verify), never accumulated. A listing page is kept whole (a few hundred KiB) to read its
// continuation token and key count.
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <latch>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/http_client.h"
#include "bench/measure.h"
#include "s3api/auth/crypto.h"
#include "s3api/auth/sigv4.h"
#include "text/encoding.h"
#include "text/time.h"
#include "text/uri.h"

namespace cubby::bench {
namespace {

using Clock = std::chrono::steady_clock;
namespace auth = s3api::auth;

// sha256("") in hex: the payload hash of every request without a body.
constexpr std::string_view kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";
// --sse-s3: asks PUTs for SSE-S3; every PUT and GET answer must name it (issue 16).
constexpr std::string_view kSseHeader = "x-amz-server-side-encryption";
// A thread gives up after this many failures in a row (server gone): the run still ends and
// reports the errors instead of spinning until the deadline.
constexpr int kMaxConsecutiveErrors = 100;

enum class Mode { kPut, kGet, kMixed, kList };
enum Op { kPut = 0, kGet = 1, kList = 2, kOpCount = 3 };
constexpr const char* kOpNames[kOpCount] = {"put", "get", "list"};

struct Options {
  Endpoint endpoint;
  std::string access_key;
  std::string secret_key;  // never printed
  std::string region = "us-east-1";
  std::string bucket = "cubby-bench";
  std::string prefix = "loadgen";
  Mode mode = Mode::kPut;
  uint64_t size = 4096;
  int concurrency = 1;
  double duration_seconds = 10;
  uint64_t requests = 0;  // > 0: stop after this many requests instead of a duration
  uint64_t keys = 0;      // 0: default (see DefaultKeys)
  int get_percent = 50;   // mixed: share of GETs
  uint64_t max_keys = 1000;  // list: keys per page
  bool versions = false;     // list: ListObjectVersions instead of ListObjectsV2 (--op versions)
  std::string label;      // replaces the op column when set (single-op modes)
  bool signed_payload = false;
  bool post_form = false;  // PUTs go as POST Object browser-form uploads instead
  bool sse_s3 = false;     // PUTs ask for SSE-S3; PUT and GET answers must confirm it
  bool verify = false;
  bool skip_prepare = false;
  bool header = true;
  pid_t server_pid = 0;
  std::chrono::milliseconds io_timeout{60000};
  // Testing: sign as if the clock read sign_time, plus sign_step per signed request.
  std::optional<text::TimePoint> sign_time;
  std::chrono::nanoseconds sign_step{0};
};

constexpr const char* kUsage = R"(usage: cubby-loadgen [options]
  --endpoint URL        S3 endpoint, http only (default http://127.0.0.1:9000)
  --access-key ID       access key id (default: env AWS_ACCESS_KEY_ID)
  --secret-key KEY      secret key (default: env AWS_SECRET_ACCESS_KEY)
  --region NAME         signing region (default us-east-1)
  --bucket NAME         bucket, created if missing (default cubby-bench)
  --prefix P            key prefix (default loadgen)
  --op put|get|mixed|list|versions
                        operation (default put); mixed: --get-percent GETs, rest PUTs;
                        list: ListObjectsV2 pages of --max-keys through the whole bucket,
                        following continuation tokens, from the start again after the last;
                        versions: the same with ListObjectVersions (key and version-id markers)
  --get-percent N       share of GETs in mixed mode, 0..100 (default 50)
  --max-keys N          list: keys per page, 1..1000 (default 1000)
  --size S              object size: 4KiB, 64MiB, 1GiB, or bytes (default 4KiB)
  --concurrency N       connections, one thread each (default 1)
  --duration SECONDS    measured time (default 10); in-flight requests finish after it
  --requests N          stop after N requests in total instead of a duration
  --keys N              key space; GET/mixed write these keys first (prepare phase);
                        PUT overwrites them cyclically (default for PUT: a new key per request;
                        for GET/mixed: 256, or the concurrency for sizes >= 8MiB). With
                        --requests N and --keys N a PUT run writes PREFIX/SIZE/obj-0..N-1.
                        list: every complete pass must list exactly N keys (versions: N
                        versions and delete markers) (default: unchecked)
  --skip-prepare        GET/mixed: assume the bucket and the keys already exist
  --signed-payload      sign the PUT body's SHA-256 instead of UNSIGNED-PAYLOAD
  --post-form           send each PUT as a POST Object form upload (multipart/form-data,
                        a SigV4-signed policy made once), recorded as a put
  --sse-s3              every PUT (the prepare phase's too) sends a signed
                        x-amz-server-side-encryption: AES256; PUT and GET answers without
                        that header count as errors (the server did not encrypt)
  --verify              compare every GET body with the bytes that were written
  --server-pid PID      also report that process's CPU (cores) and peak RSS in the interval
  --timeout SECONDS     per send/recv timeout (default 60)
  --label TEXT          print TEXT instead of the op name in the first column
  --no-header           print only the result lines
  --print-header        print the table header and exit
  --sign-time T         testing: sign as if the clock read T (20261231T235959Z), advanced
                        by --sign-time-step SECONDS for each signed request (default 0)
Exit status: 0 all requests succeeded, 3 some failed, 1 setup failed, 2 usage error.
)";

// One format for the header and the result lines keeps the columns aligned.
constexpr const char* kLineFormat =
    "%-7s %6s %6s %10s %10s %8s %8s %9s %8s %8s %8s %12s\n";

void PrintHeader() {
  std::printf(kLineFormat, "op", "size", "conc", "ops/s", "MiB/s", "p50_ms", "p99_ms",
              "ttfb_p50", "errors", "cli_cpu", "srv_cpu", "srv_rss_MiB");
}

bool ParseInt(std::string_view text, uint64_t min, uint64_t max, uint64_t* out) {
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return false;
  if (n < min || n > max) return false;
  *out = n;
  return true;
}

bool ParseSeconds(std::string_view text, double* out) {
  char* end = nullptr;
  std::string s(text);
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !(v > 0) || v > 86400) return false;
  *out = v;
  return true;
}

// Sets the valued option `name` (one ParseOptions knows) to `v`; an error message, empty on
// success.
std::string SetValuedOption(std::string_view name, std::string_view v, Options* o,
                            std::string* endpoint) {
  uint64_t n = 0;
  if (name == "--endpoint") {
    *endpoint = v;
  } else if (name == "--access-key") {
    o->access_key = v;
  } else if (name == "--secret-key") {
    o->secret_key = v;
  } else if (name == "--region") {
    o->region = v;
  } else if (name == "--bucket") {
    o->bucket = v;
  } else if (name == "--prefix") {
    o->prefix = v;
  } else if (name == "--op") {
    if (v == "put") o->mode = Mode::kPut;
    else if (v == "get") o->mode = Mode::kGet;
    else if (v == "mixed") o->mode = Mode::kMixed;
    else if (v == "list") o->mode = Mode::kList;
    else if (v == "versions") { o->mode = Mode::kList; o->versions = true; }
    else return "--op must be put, get, mixed, list or versions";
  } else if (name == "--size") {
    if (!ParseSize(v, &o->size)) return "--size: expected e.g. 4KiB, 64MiB or a byte count";
  } else if (name == "--concurrency") {
    if (!ParseInt(v, 1, 4096, &n)) return "--concurrency must be 1..4096";
    o->concurrency = static_cast<int>(n);
  } else if (name == "--duration") {
    if (!ParseSeconds(v, &o->duration_seconds)) return "--duration must be 0 < s <= 86400";
  } else if (name == "--requests") {
    if (!ParseInt(v, 1, UINT64_MAX, &o->requests)) return "--requests must be >= 1";
  } else if (name == "--keys") {
    if (!ParseInt(v, 1, UINT64_MAX, &o->keys)) return "--keys must be >= 1";
  } else if (name == "--get-percent") {
    if (!ParseInt(v, 0, 100, &n)) return "--get-percent must be 0..100";
    o->get_percent = static_cast<int>(n);
  } else if (name == "--max-keys") {
    if (!ParseInt(v, 1, 1000, &o->max_keys)) return "--max-keys must be 1..1000";
  } else if (name == "--label") {
    if (v.empty() || v.find_first_of(" \t") != std::string_view::npos) {
      return "--label must be one word";
    }
    o->label = v;
  } else if (name == "--server-pid") {
    if (!ParseInt(v, 1, INT32_MAX, &n)) return "--server-pid must be a process id";
    o->server_pid = static_cast<pid_t>(n);
  } else if (name == "--sign-time") {
    o->sign_time = text::ParseIso8601Basic(v);
    if (!o->sign_time) return "--sign-time: expected e.g. 20261231T235959Z";
  } else if (name == "--sign-time-step") {
    double seconds = 0;
    if (!ParseSeconds(v, &seconds)) return "--sign-time-step must be 0 < s <= 86400";
    o->sign_step = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double>(seconds));
  } else if (name == "--timeout") {
    double seconds = 0;
    if (!ParseSeconds(v, &seconds)) return "--timeout must be 0 < s <= 86400";
    o->io_timeout = std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  }
  return "";
}

// Parses argv into `options`; returns an error message, empty on success. `print_header` is
// set for --print-header, `help` for --help.
std::string ParseOptions(int argc, char** argv, Options* o, bool* print_header, bool* help) {
  std::string endpoint = "http://127.0.0.1:9000";
  if (const char* v = std::getenv("AWS_ACCESS_KEY_ID")) o->access_key = v;
  if (const char* v = std::getenv("AWS_SECRET_ACCESS_KEY")) o->secret_key = v;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string_view name = arg;
    std::optional<std::string_view> value;
    if (size_t eq = arg.find('='); arg.substr(0, 2) == "--" && eq != std::string_view::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    auto flag = [&](std::string_view n) {
      if (name != n) return false;
      if (value) return false;  // a flag takes no value; reported below as unknown
      return true;
    };
    if (flag("--help") || flag("-h")) {
      *help = true;
      return "";
    }
    if (flag("--signed-payload")) { o->signed_payload = true; continue; }
    if (flag("--post-form")) { o->post_form = true; continue; }
    if (flag("--sse-s3")) { o->sse_s3 = true; continue; }
    if (flag("--verify")) { o->verify = true; continue; }
    if (flag("--skip-prepare")) { o->skip_prepare = true; continue; }
    if (flag("--no-header")) { o->header = false; continue; }
    if (flag("--print-header")) { *print_header = true; continue; }
    static constexpr std::string_view kValued[] = {
        "--endpoint", "--access-key", "--secret-key", "--region",   "--bucket",
        "--prefix",   "--op",         "--size",       "--concurrency", "--duration",
        "--requests", "--keys",       "--get-percent", "--server-pid", "--timeout",
        "--max-keys", "--label", "--sign-time", "--sign-time-step"};
    if (std::find(std::begin(kValued), std::end(kValued), name) == std::end(kValued)) {
      return "unknown option " + std::string(name);
    }
    if (!value) {
      if (i + 1 >= argc) return std::string(name) + " needs a value";
      value = argv[++i];
    }
    if (std::string error = SetValuedOption(name, *value, o, &endpoint); !error.empty()) {
      return error;
    }
  }
  if (*print_header) return "";
  std::string error;
  if (!ParseEndpoint(endpoint, &o->endpoint, &error)) return error;
  if (o->access_key.empty() || o->secret_key.empty()) {
    return "credentials: --access-key/--secret-key or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY";
  }
  if (o->bucket.empty()) return "--bucket must not be empty";
  if (o->sse_s3 && o->post_form) return "--sse-s3 and --post-form cannot be combined";
  return "";
}

uint64_t DefaultKeys(const Options& o) {
  if (o.keys > 0) return o.keys;
  if (o.size >= (8u << 20)) return static_cast<uint64_t>(o.concurrency);
  return 256;
}

// Keys and prefixes are plain [A-Za-z0-9/_.-] (checked in main), so the path needs no encoding.
bool IsPlainKeyText(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '/' || c == '_' || c == '.' || c == '-';
  });
}

// The S3 error code in an error document ("<Code>NoSuchKey</Code>"), or "".
std::string S3ErrorCode(std::string_view body) {
  size_t start = body.find("<Code>");
  if (start == std::string_view::npos) return "";
  start += 6;
  size_t end = body.find("</Code>", start);
  if (end == std::string_view::npos) return "";
  return std::string(body.substr(start, end - start));
}

// The text of the first <name>...</name> element in `xml`, entities decoded; nullopt if absent.
// Enough for the top-level fields of a ListObjectsV2 answer (KeyCount, IsTruncated,
// NextContinuationToken), wherever they stand: keys are escaped, so only a real element matches.
std::optional<std::string> XmlElement(std::string_view xml, std::string_view name) {
  std::string open = "<" + std::string(name) + ">";
  std::string close = "</" + std::string(name) + ">";
  size_t start = xml.find(open);
  if (start == std::string_view::npos) return std::nullopt;
  start += open.size();
  size_t end = xml.find(close, start);
  if (end == std::string_view::npos) return std::nullopt;
  std::string_view raw = xml.substr(start, end - start);
  std::string out;
  out.reserve(raw.size());
  static constexpr std::pair<std::string_view, char> kEntities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  for (size_t i = 0; i < raw.size();) {
    bool decoded = false;
    if (raw[i] == '&') {
      for (auto [entity, c] : kEntities) {
        if (raw.substr(i, entity.size()) == entity) {
          out.push_back(c);
          i += entity.size();
          decoded = true;
          break;
        }
      }
    }
    if (!decoded) out.push_back(raw[i++]);
  }
  return out;
}

// What every worker shares: options, the body, and its payload hash. Read-only during a run
// but for the count of signed requests, which drives the --sign-time clock.
struct Shared {
  const Options* options;
  std::string body;          // `size` random bytes
  std::string body_sha256;   // hex, or UNSIGNED-PAYLOAD
  std::string form_fields;   // --post-form: the signed fields after the key, as form parts
  mutable std::atomic<uint64_t> signed_requests{0};

  // The time to sign the next request at: now, or under --sign-time the start plus one step
  // per request signed so far (by any thread).
  text::TimePoint SignTime() const {
    if (!options->sign_time) return std::chrono::system_clock::now();
    uint64_t n = signed_requests.fetch_add(1, std::memory_order_relaxed);
    return *options->sign_time + std::chrono::duration_cast<text::TimePoint::duration>(
                                     options->sign_step * static_cast<int64_t>(n));
  }
};

// Signs requests as auth::SignV4 does (host, x-amz-content-sha256 and x-amz-date signed), with
// the signing key from sigv4::CachedSigningKey (memoised per thread by secret, date, region and
// service), so the client spends less of the CPU it shares with the server: four HMAC-SHA256s
// per date, not per request. A request signed on a new day derives a new key. One per thread.
class Signer {
 public:
  explicit Signer(const Shared& shared) : shared_(shared) {}
  Signer(const Signer&) = delete;
  Signer& operator=(const Signer&) = delete;

  // The request head for `path` and `query` (both already encoded; `query` without '?', may
  // be empty), its SigV4 headers included; `sse` adds a signed
  // x-amz-server-side-encryption: AES256 (object PUTs under --sse-s3).
  std::string Head(std::string_view method, const std::string& path, const std::string& query,
                   std::string_view payload_sha256, std::optional<uint64_t> content_length,
                   bool sse = false) {
    namespace sigv4 = auth::sigv4;
    const Options& o = *shared_.options;
    const std::string amz_date = text::FormatIso8601Basic(shared_.SignTime());
    const std::string_view date = std::string_view(amz_date).substr(0, 8);
    std::string signing_key =
        sigv4::CachedSigningKey(o.secret_key, date, o.region, sigv4::kService);
    // Sorted by name, as the canonical request wants them; --sse-s3 PUTs sign their
    // x-amz-server-side-encryption too (SigV4 wants every x-amz-* header signed).
    std::vector<s3api::Header> headers = {
        {std::string(sigv4::kHost), o.endpoint.host_header},
        {std::string(sigv4::kAmzContentSha256), std::string(payload_sha256)},
        {std::string(sigv4::kAmzDate), amz_date}};
    if (sse) headers.push_back({std::string(kSseHeader), "AES256"});
    static const std::vector<std::string> kNames = {std::string(sigv4::kHost),
                                                    std::string(sigv4::kAmzContentSha256),
                                                    std::string(sigv4::kAmzDate)};
    static const std::vector<std::string> kSseNames = {
        std::string(sigv4::kHost), std::string(sigv4::kAmzContentSha256),
        std::string(sigv4::kAmzDate), std::string(kSseHeader)};
    static const std::string kPlainSignedHeaders = sigv4::JoinSignedHeaders(kNames);
    static const std::string kSseSignedHeaders = sigv4::JoinSignedHeaders(kSseNames);
    const std::vector<std::string>& names = sse ? kSseNames : kNames;
    const std::string& signed_headers = sse ? kSseSignedHeaders : kPlainSignedHeaders;
    const std::string scope = std::string(date) + "/" + o.region + "/" + std::string(sigv4::kService) +
                              "/" + std::string(sigv4::kTerminator);
    const std::string canonical_request = sigv4::CanonicalRequest(
        method, sigv4::CanonicalUri(path),
        sigv4::CanonicalQueryString(sigv4::SplitQuery(query)),
        sigv4::CanonicalHeaders(headers, names), signed_headers, payload_sha256);
    const std::string signature = sigv4::Signature(
        signing_key, sigv4::StringToSign(amz_date, scope, canonical_request));
    auth::Cleanse(&signing_key);

    std::string head;
    head.reserve(512);
    head.append(method).append(" ").append(path);
    if (!query.empty()) head.append("?").append(query);
    head.append(" HTTP/1.1\r\n");
    for (const s3api::Header& h : headers) {
      head.append(h.name).append(": ").append(h.value).append("\r\n");
    }
    head.append(sigv4::kAuthorization).append(": ").append(sigv4::kAlgorithm);
    head.append(" Credential=").append(o.access_key).append("/").append(scope);
    head.append(", SignedHeaders=").append(signed_headers);
    head.append(", Signature=").append(signature).append("\r\n");
    if (content_length) {
      head.append("content-length: ").append(std::to_string(*content_length)).append("\r\n");
    }
    head.append("\r\n");
    return head;
  }

 private:
  const Shared& shared_;
};

struct OpStats {
  std::vector<int64_t> latency_ns;
  std::vector<int64_t> ttfb_ns;
  uint64_t ok = 0;
  uint64_t errors = 0;
  uint64_t bytes = 0;
};

struct ThreadStats {
  OpStats ops[kOpCount];
  std::string first_error;
  bool gave_up = false;
  // --op list: this thread's walk through the bucket.
  std::string list_token;        // NextContinuationToken (versions: NextKeyMarker) of the last
                                 // page; empty: start over
  std::string list_version_marker;  // versions: NextVersionIdMarker of the last page
  uint64_t list_keys_in_pass = 0;
  std::string list_body;         // the page being read, reused
};

// Books a request's outcome in `stats`: on success its latency and bytes, otherwise an error
// (the first one of the thread is kept for the report). Returns `ok`.
bool Record(Op op, bool ok, const std::string& what, const std::string& error, uint64_t bytes,
            Clock::time_point start, Clock::time_point end, Clock::time_point first_byte,
            ThreadStats* stats) {
  OpStats& s = stats->ops[op];
  if (!ok) {
    ++s.errors;
    if (stats->first_error.empty()) {
      stats->first_error = std::string(kOpNames[op]) + " " + what + ": " + error;
    }
    return false;
  }
  ++s.ok;
  s.bytes += bytes;
  s.latency_ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
  s.ttfb_ns.push_back(
      std::chrono::duration_cast<std::chrono::nanoseconds>(first_byte - start).count());
  return true;
}

// One ListObjectsV2 page on `conn`, continuing the thread's walk: from its last
// NextContinuationToken, or from the start of the bucket after the last page. The page counts
// as an error if it is not a well-formed answer, or if it ends a pass whose key count differs
// from --keys.
// Occurrences of `needle` in `body`.
uint64_t CountOf(std::string_view body, std::string_view needle) {
  uint64_t n = 0;
  for (size_t at = body.find(needle); at != std::string_view::npos;
       at = body.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

bool ExecuteList(const Shared& shared, HttpConnection* conn, Signer* signer,
                 ThreadStats* stats) {
  const Options& o = *shared.options;
  const std::string path = "/" + o.bucket;
  // Parameters in canonical (sorted, UriEncoded) form, so the request line is what is signed.
  std::string query;
  if (o.versions) {
    if (!stats->list_token.empty()) {
      query = "key-marker=" + text::UriEncode(stats->list_token, text::Slash::kEncode) + "&";
    }
    query += "max-keys=" + std::to_string(o.max_keys);
    if (!stats->list_version_marker.empty()) {
      query += "&version-id-marker=" +
               text::UriEncode(stats->list_version_marker, text::Slash::kEncode);
    }
    query += "&versions=";
  } else {
    if (!stats->list_token.empty()) {
      query = "continuation-token=" + text::UriEncode(stats->list_token, text::Slash::kEncode) +
              "&";
    }
    query += "list-type=2&max-keys=" + std::to_string(o.max_keys);
  }
  std::string& body = stats->list_body;
  body.clear();
  BodySink sink = [&](uint64_t, const char* data, size_t n) { body.append(data, n); };

  Clock::time_point start = Clock::now();
  std::string head = signer->Head("GET", path, query, kEmptySha256, std::nullopt);
  std::string error;
  Response response;
  bool ok = conn->Send(head, "", &error) && conn->ReadResponse(false, sink, &response, &error);
  Clock::time_point end = Clock::now();
  const std::string what = path + (stats->list_token.empty() ? " (first page)" : " (next page)");
  if (ok && response.status != 200) {
    std::string code = S3ErrorCode(body);
    error = "HTTP " + std::to_string(response.status) + (code.empty() ? "" : " " + code);
    ok = false;
  }
  if (ok) {
    // ListObjectsV2 counts its keys; a versions page is counted by its entries.
    std::optional<std::string> count_text =
        o.versions ? std::optional<std::string>(std::to_string(CountOf(body, "<Version>") +
                                                               CountOf(body, "<DeleteMarker>")))
                   : XmlElement(body, "KeyCount");
    std::optional<std::string> truncated = XmlElement(body, "IsTruncated");
    std::optional<std::string> next =
        XmlElement(body, o.versions ? "NextKeyMarker" : "NextContinuationToken");
    uint64_t count = 0;
    if (!count_text || !ParseInt(*count_text, 0, o.max_keys, &count) || !truncated ||
        (*truncated != "true" && *truncated != "false")) {
      error = o.versions ? "malformed ListObjectVersions answer (entries, IsTruncated)"
                         : "malformed ListObjectsV2 answer (KeyCount, IsTruncated)";
      ok = false;
    } else if (*truncated == "true" && (!next || next->empty() || count == 0)) {
      error = o.versions ? "truncated page without entries or NextKeyMarker"
                         : "truncated page without keys or NextContinuationToken";
      ok = false;
    } else if (*truncated == "true") {
      stats->list_keys_in_pass += count;
      stats->list_token = *next;
      if (o.versions) {
        stats->list_version_marker = XmlElement(body, "NextVersionIdMarker").value_or("");
      }
    } else {
      uint64_t listed = stats->list_keys_in_pass + count;
      stats->list_token.clear();
      stats->list_version_marker.clear();
      stats->list_keys_in_pass = 0;
      if (o.keys > 0 && listed != o.keys) {
        error = "a full pass listed " + std::to_string(listed) +
                (o.versions ? " entries, expected " : " keys, expected ") + std::to_string(o.keys);
        ok = false;
      }
    }
  }
  if (!ok && !conn->connected()) {
    // A broken walk starts over; a clean error page leaves the token to be retried.
    stats->list_token.clear();
    stats->list_version_marker.clear();
    stats->list_keys_in_pass = 0;
  }
  return Record(kList, ok, what, error, response.body_bytes, start, end, response.first_byte,
                stats);
}

// --post-form: the POST Object form of a PUT of `key` (the signed fields made once, then the
// key, then the file), and its request head (no Authorization: the form carries it).
constexpr std::string_view kFormBoundary = "cubbyLoadgenFormBoundary";
std::string FormPart(std::string_view name, std::string_view value) {
  std::string out = "--";
  out.append(kFormBoundary).append("\r\nContent-Disposition: form-data; name=\"");
  out.append(name).append("\"\r\n\r\n").append(value).append("\r\n");
  return out;
}
std::string PostFormFields(const Options& o) {
  namespace sigv4 = auth::sigv4;
  const std::string amz_date = text::FormatIso8601Basic(std::chrono::system_clock::now());
  const std::string date = amz_date.substr(0, 8);
  const std::string credential = o.access_key + "/" + date + "/" + o.region + "/s3/aws4_request";
  const std::string policy = text::Base64Encode(
      "{\"expiration\": \"2100-01-01T00:00:00Z\", \"conditions\": [{\"bucket\": \"" + o.bucket +
      "\"}, [\"starts-with\", \"$key\", \"\"], {\"success_action_status\": \"200\"}, "
      "{\"x-amz-algorithm\": \"AWS4-HMAC-SHA256\"}, {\"x-amz-credential\": \"" + credential +
      "\"}, {\"x-amz-date\": \"" + amz_date + "\"}]}");
  std::string key = sigv4::SigningKey(o.secret_key, date, o.region, sigv4::kService);
  const std::string signature = sigv4::Signature(key, policy);
  auth::Cleanse(&key);
  return FormPart("success_action_status", "200") + FormPart("x-amz-algorithm", "AWS4-HMAC-SHA256") +
         FormPart("x-amz-credential", credential) + FormPart("x-amz-date", amz_date) +
         FormPart("policy", policy) + FormPart("x-amz-signature", signature);
}
std::string PostFormBody(const Shared& shared, const std::string& key) {
  std::string out = FormPart("key", key) + shared.form_fields;
  out.append("--").append(kFormBoundary);
  out.append("\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\"\r\n\r\n");
  out.append(shared.body).append("\r\n--").append(kFormBoundary).append("--\r\n");
  return out;
}
std::string PostFormHead(const Options& o, size_t length) {
  std::string head = "POST /" + o.bucket + " HTTP/1.1\r\nhost: " + o.endpoint.host_header +
                     "\r\ncontent-type: multipart/form-data; boundary=";
  head.append(kFormBoundary).append("\r\ncontent-length: ").append(std::to_string(length));
  head.append("\r\n\r\n");
  return head;
}

// One PUT or GET on `conn`. Records the outcome in `stats`; returns false on failure.
// With --sse-s3 a PUT or GET answer must carry x-amz-server-side-encryption: AES256, so a
// server that ignored the request's header cannot pass for a fast encrypting one.
bool Execute(const Shared& shared, HttpConnection* conn, Signer* signer, Op op,
             const std::string& key, ThreadStats* stats) {
  if (op == kList) return ExecuteList(shared, conn, signer, stats);
  const Options& o = *shared.options;
  std::string path = "/" + o.bucket + "/" + key;
  Clock::time_point start = Clock::now();
  std::string head =
      op == kPut
          ? (o.post_form ? std::string()
                         : signer->Head("PUT", path, "", shared.body_sha256, o.size, o.sse_s3))
          : signer->Head("GET", path, "", kEmptySha256, std::nullopt);
  std::string error;
  Response response;
  bool mismatch = false;
  BodySink sink;
  if (op == kGet && o.verify) {
    sink = [&](uint64_t offset, const char* data, size_t n) {
      if (offset + n > shared.body.size() ||
          std::memcmp(shared.body.data() + offset, data, n) != 0) {
        mismatch = true;
      }
    };
  }
  std::string_view body = op == kPut ? std::string_view(shared.body) : std::string_view();
  std::string form;
  if (op == kPut && o.post_form) {
    form = PostFormBody(shared, key);
    head = PostFormHead(o, form.size());
    body = form;
  }
  bool ok = conn->Send(head, body, &error) && conn->ReadResponse(false, sink, &response, &error);
  Clock::time_point end = Clock::now();
  if (ok && response.status != 200) {
    std::string code = S3ErrorCode(response.body_prefix);
    error = "HTTP " + std::to_string(response.status) + (code.empty() ? "" : " " + code);
    ok = false;
  } else if (ok && op == kGet && response.body_bytes != o.size) {
    error = "GET returned " + std::to_string(response.body_bytes) + " bytes, expected " +
            std::to_string(o.size);
    ok = false;
  } else if (ok && mismatch) {
    error = "GET body differs from the bytes written";
    ok = false;
  } else if (ok && o.sse_s3) {
    const std::string* sse = response.Find(kSseHeader);
    if (sse == nullptr || *sse != "AES256") {
      error = std::string(op == kPut ? "PUT" : "GET") + " answer without " +
              std::string(kSseHeader) + ": AES256";
      ok = false;
    }
  }
  return Record(op, ok, key, error, o.size, start, end, response.first_byte, stats);
}

// Stop rule for a phase: a deadline, a total request budget, or a fixed key range.
struct Budget {
  std::optional<Clock::time_point> deadline;
  uint64_t limit = 0;  // > 0: at most this many requests in total
  std::atomic<uint64_t> next{0};

  // The index of the next request, or nullopt when the phase is over.
  std::optional<uint64_t> Take() {
    if (deadline && Clock::now() >= *deadline) return std::nullopt;
    uint64_t i = next.fetch_add(1, std::memory_order_relaxed);
    if (limit > 0 && i >= limit) return std::nullopt;
    return i;
  }
};

struct PhaseResult {
  std::vector<ThreadStats> threads;
  double wall_seconds = 0;
  double client_cpu_seconds = 0;
  std::optional<ProcSample> server_before;
  std::optional<ProcSample> server_after;
};

// Runs `concurrency` workers, each with its own connection, from a common start until the
// budget is spent. `choose(index, rng)` returns the op and key of request `index`.
template <typename Choose>
PhaseResult RunPhase(const Shared& shared, Budget* budget, double duration_seconds,
                     bool sample_server, Choose choose) {
  const Options& o = *shared.options;
  PhaseResult result;
  result.threads.resize(static_cast<size_t>(o.concurrency));
  std::latch ready(o.concurrency + 1);
  std::latch go(1);
  std::vector<std::thread> threads;
  for (int t = 0; t < o.concurrency; ++t) {
    threads.emplace_back([&, t] {
      ThreadStats& stats = result.threads[static_cast<size_t>(t)];
      for (OpStats& s : stats.ops) s.latency_ns.reserve(1 << 14), s.ttfb_ns.reserve(1 << 14);
      HttpConnection conn(o.endpoint, o.io_timeout);
      Signer signer(shared);
      std::mt19937_64 rng(static_cast<uint64_t>(t) * 0x9e3779b97f4a7c15ull + 1);
      ready.count_down();
      go.wait();
      int consecutive_errors = 0;
      while (std::optional<uint64_t> index = budget->Take()) {
        auto [op, key] = choose(*index, rng);
        if (Execute(shared, &conn, &signer, op, key, &stats)) {
          consecutive_errors = 0;
        } else if (++consecutive_errors >= kMaxConsecutiveErrors) {
          stats.gave_up = true;
          break;
        }
      }
    });
  }
  ready.arrive_and_wait();
  if (sample_server && o.server_pid > 0) {
    ResetPeakRss(o.server_pid);  // best effort: without it the peak is the process lifetime's
    result.server_before = SampleProcess(o.server_pid);
  }
  double cpu_before = SelfCpuSeconds();
  Clock::time_point start = Clock::now();
  if (duration_seconds > 0) {
    budget->deadline = start + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(duration_seconds));
  }
  go.count_down();
  for (std::thread& t : threads) t.join();
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.client_cpu_seconds = SelfCpuSeconds() - cpu_before;
  if (sample_server && o.server_pid > 0) result.server_after = SampleProcess(o.server_pid);
  return result;
}

std::string FirstError(const PhaseResult& r) {
  for (const ThreadStats& t : r.threads) {
    if (!t.first_error.empty()) return t.first_error;
  }
  return "";
}

uint64_t TotalErrors(const PhaseResult& r) {
  uint64_t n = 0;
  for (const ThreadStats& t : r.threads) {
    for (const OpStats& s : t.ops) n += s.errors;
  }
  return n;
}

// PUT /bucket; an existing bucket of ours is fine.
bool EnsureBucket(const Shared& shared, std::string* error) {
  const Options& o = *shared.options;
  HttpConnection conn(o.endpoint, o.io_timeout);
  Signer signer(shared);
  std::string head = signer.Head("PUT", "/" + o.bucket, "", kEmptySha256, 0);
  Response response;
  if (!conn.Send(head, "", error) || !conn.ReadResponse(false, {}, &response, error)) {
    *error = "create bucket: " + *error;
    return false;
  }
  std::string code = S3ErrorCode(response.body_prefix);
  if (response.status == 200 || code == "BucketAlreadyOwnedByYou") return true;
  *error = "create bucket " + o.bucket + ": HTTP " + std::to_string(response.status) + " " + code;
  return false;
}

std::string KeyName(const Options& o, uint64_t i) {
  return o.prefix + "/" + FormatSize(o.size) + "/obj-" + std::to_string(i);
}

void PrintLine(const Options& o, const char* op, const OpStats& merged_in,
               const PhaseResult& r) {
  OpStats merged = merged_in;
  LatencySummary latency = Summarize(&merged.latency_ns);
  LatencySummary ttfb = Summarize(&merged.ttfb_ns);
  double wall = r.wall_seconds > 0 ? r.wall_seconds : 1e-9;
  char server_cpu[32] = "-";
  char server_rss[32] = "-";
  if (r.server_before && r.server_after) {
    std::snprintf(server_cpu, sizeof server_cpu, "%.2f",
                  (r.server_after->cpu_seconds - r.server_before->cpu_seconds) / wall);
    std::snprintf(server_rss, sizeof server_rss, "%.1f",
                  static_cast<double>(r.server_after->peak_rss_bytes) / (1 << 20));
  }
  // A listing page's "size" is its key count; its bytes are the XML answers.
  std::string size = o.mode == Mode::kList ? std::to_string(o.max_keys) : FormatSize(o.size);
  auto number = [](const char* format, double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, format, v);
    return std::string(buf);
  };
  std::printf(kLineFormat, op, size.c_str(), std::to_string(o.concurrency).c_str(),
              number("%.1f", static_cast<double>(merged.ok) / wall).c_str(),
              number("%.2f", static_cast<double>(merged.bytes) / wall / (1 << 20)).c_str(),
              number("%.3f", latency.p50_ms).c_str(), number("%.3f", latency.p99_ms).c_str(),
              number("%.3f", ttfb.p50_ms).c_str(), std::to_string(merged.errors).c_str(),
              number("%.2f", r.client_cpu_seconds / wall).c_str(), server_cpu, server_rss);
}

// One line per operation that ran (the threads' figures merged), after the header unless
// --no-header.
void PrintResults(const Options& o, const PhaseResult& r) {
  if (o.header) PrintHeader();
  for (int op = 0; op < kOpCount; ++op) {
    OpStats merged;
    for (const ThreadStats& t : r.threads) {
      const OpStats& s = t.ops[op];
      merged.ok += s.ok;
      merged.errors += s.errors;
      merged.bytes += s.bytes;
      merged.latency_ns.insert(merged.latency_ns.end(), s.latency_ns.begin(), s.latency_ns.end());
      merged.ttfb_ns.insert(merged.ttfb_ns.end(), s.ttfb_ns.begin(), s.ttfb_ns.end());
    }
    if (merged.ok + merged.errors == 0) continue;
    std::string label = o.mode == Mode::kMixed ? std::string("m:") + kOpNames[op]
                        : !o.label.empty()     ? o.label
                                               : kOpNames[op];
    PrintLine(o, label.c_str(), merged, r);
  }
}

int Main(int argc, char** argv) {
  Options o;
  bool print_header = false;
  bool help = false;
  std::string error = ParseOptions(argc, argv, &o, &print_header, &help);
  if (help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!error.empty()) {
    std::fprintf(stderr, "cubby-loadgen: %s (see --help)\n", error.c_str());
    return 2;
  }
  if (print_header) {
    PrintHeader();
    return 0;
  }
  if (!IsPlainKeyText(o.prefix) || !IsPlainKeyText(o.bucket)) {
    std::fprintf(stderr, "cubby-loadgen: --bucket and --prefix must be [A-Za-z0-9/_.-]\n");
    return 2;
  }

  Shared shared;
  shared.options = &o;
  if (!auth::RandomBytes(o.size, &shared.body)) {
    std::fprintf(stderr, "cubby-loadgen: random body generation failed\n");
    return 1;
  }
  shared.body_sha256 = o.signed_payload ? text::HexEncode(auth::Sha256(shared.body))
                                        : std::string(kUnsignedPayload);
  if (o.post_form) shared.form_fields = PostFormFields(o);
  // A listing reads the bucket as it is: a missing one is an error of the run, not created.
  // --skip-prepare assumes the bucket exists too (it may be another user's).
  if (o.mode != Mode::kList && !o.skip_prepare && !EnsureBucket(shared, &error)) {
    std::fprintf(stderr, "cubby-loadgen: %s\n", error.c_str());
    return 1;
  }

  uint64_t keys = DefaultKeys(o);
  bool reads = o.mode == Mode::kGet || o.mode == Mode::kMixed;
  if (reads && !o.skip_prepare) {
    Budget prepare;
    prepare.limit = keys;
    PhaseResult r = RunPhase(shared, &prepare, 0, false, [&](uint64_t i, std::mt19937_64&) {
      return std::pair<Op, std::string>(kPut, KeyName(o, i));
    });
    if (uint64_t n = TotalErrors(r); n > 0) {
      std::fprintf(stderr, "cubby-loadgen: prepare: %llu of %llu PUTs failed; first: %s\n",
                   static_cast<unsigned long long>(n), static_cast<unsigned long long>(keys),
                   FirstError(r).c_str());
      return 1;
    }
  }

  // PUT-only runs write a fresh key per request unless --keys bounds the space; the run id
  // keeps repeated runs from overwriting each other.
  std::string run_id = std::to_string(
      std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::system_clock::now().time_since_epoch()).count());
  Budget budget;
  budget.limit = o.requests;
  double duration = o.requests > 0 ? 0 : o.duration_seconds;
  PhaseResult r = RunPhase(shared, &budget, duration, true,
                           [&](uint64_t i, std::mt19937_64& rng) -> std::pair<Op, std::string> {
    switch (o.mode) {
      case Mode::kPut:
        if (o.keys > 0) return {kPut, KeyName(o, i % o.keys)};
        return {kPut, o.prefix + "/" + FormatSize(o.size) + "/put-" + run_id + "/" +
                          std::to_string(i)};
      case Mode::kGet:
        return {kGet, KeyName(o, i % keys)};
      case Mode::kMixed: {
        bool get = static_cast<int>(rng() % 100) < o.get_percent;
        return {get ? kGet : kPut, KeyName(o, i % keys)};
      }
      case Mode::kList:
        return {kList, std::string()};  // the thread's walk says which page
    }
    return {kGet, KeyName(o, i % keys)};  // unreachable: the switch covers every Mode
  });

  PrintResults(o, r);
  std::fflush(stdout);
  uint64_t errors = TotalErrors(r);
  if (errors > 0) {
    bool gave_up = std::any_of(r.threads.begin(), r.threads.end(),
                               [](const ThreadStats& t) { return t.gave_up; });
    std::fprintf(stderr, "cubby-loadgen: %llu requests failed%s; first: %s\n",
                 static_cast<unsigned long long>(errors),
                 gave_up ? " (a thread gave up after repeated failures)" : "",
                 FirstError(r).c_str());
    return 3;
  }
  return 0;
}

}  // namespace
}  // namespace cubby::bench

int main(int argc, char** argv) { return cubby::bench::Main(argc, argv); }
