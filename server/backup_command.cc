#include "server/backup_command.h"

#include <chrono>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "s3api/xml.h"
#include "server/http_client.h"
#include "text/uri.h"

namespace cubby::server {
namespace {

constexpr std::chrono::seconds kCallTimeout{30};
constexpr std::chrono::milliseconds kPollEvery{250};
constexpr std::chrono::seconds kProgressEvery{1};

constexpr char kUsage[] =
    "usage: cubby backup --endpoint URL --to DIR [--credentials-file FILE] [--region REGION]\n"
    "  Backs up the running cubby at URL into DIR, an absolute path on the server's machine\n"
    "  that does not exist yet (or is an empty folder). Root credentials from FILE (e.g.\n"
    "  <data dir>/root-credentials) or AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY.\n";

struct Options {
  std::string endpoint;
  std::string to;
  std::string credentials_file;
  std::string region;
  Credentials key;
};

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "cubby backup: %s\n", message.c_str());
  return code;
}

// Parses the flags (--name VALUE or --name=VALUE); nullopt after printing why.
std::optional<Options> ParseFlags(int argc, const char* const* argv, int* exit_code) {
  Options options;
  *exit_code = 2;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      *exit_code = 0;
      return std::nullopt;
    }
    std::string value;
    if (size_t eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
    } else if (i + 1 < argc && !std::string_view(argv[i + 1]).starts_with("--")) {
      value = argv[++i];
    } else {
      Fail(2, arg + " needs a value");
      return std::nullopt;
    }
    if (arg == "--endpoint") {
      options.endpoint = value;
    } else if (arg == "--to") {
      options.to = value;
    } else if (arg == "--credentials-file") {
      options.credentials_file = value;
    } else if (arg == "--region") {
      options.region = value;
    } else {
      Fail(2, "unknown flag " + arg + "\n" + kUsage);
      return std::nullopt;
    }
  }
  if (options.endpoint.empty() || options.to.empty()) {
    Fail(2, std::string("--endpoint and --to are required\n") + kUsage);
    return std::nullopt;
  }
  if (options.to.front() != '/') {
    Fail(2, "--to must be an absolute path on the server's machine: " + options.to);
    return std::nullopt;
  }
  return options;
}

// Credentials and region from the flags and the environment; false after printing why.
bool ResolveCredentials(const EnvLookup& env, Options* options) {
  if (std::string error; !ReadCredentials(options->credentials_file, env, &options->key, &error)) {
    Fail(2, error);
    return false;
  }
  if (options->region.empty()) options->region = env("AWS_REGION").value_or("");
  if (options->region.empty()) options->region = env("AWS_DEFAULT_REGION").value_or("");
  if (options->region.empty()) options->region = "us-east-1";
  return true;
}

// One signed call to /_cubby/backup with `query`.
storage::Result<ClientResponse> SignedCall(const Options& options, const ProbeTarget& target,
                                           const std::string& method, const std::string& query) {
  return SignedHttpCall(target, options.key,
                        {.method = method,
                         .path = "/_cubby/backup",
                         .query = query,
                         .service = "s3",
                         .region = options.region,
                         .user_agent = "cubby-backup"},
                        kCallTimeout);
}

// The text of `name` under the document's root, or "".
std::string Field(const s3api::XmlNode& root, std::string_view name) {
  const s3api::XmlNode* child = root.Child(name);
  return child != nullptr ? child->text : std::string();
}

// "cubby backup: HTTP 403 AccessDenied: Access Denied" from an error answer.
int FailWithAnswer(const ClientResponse& answer) {
  s3api::XmlNode root;
  std::string detail;
  if (s3api::ParseXml(answer.body, &root) && root.name == "Error") {
    detail = " " + Field(root, "Code") + ": " + Field(root, "Message");
  }
  return Fail(1, "HTTP " + std::to_string(answer.status) + detail);
}

std::string Mib(const std::string& bytes) {
  char out[32];
  std::snprintf(out, sizeof(out), "%.1f MiB", std::strtod(bytes.c_str(), nullptr) / (1 << 20));
  return out;
}

// Polls the job `id` until it ends; prints progress, then the outcome.
int Follow(const Options& options, const ProbeTarget& target, const std::string& id) {
  auto last_print = std::chrono::steady_clock::now();
  std::string last_line;
  for (;;) {
    std::this_thread::sleep_for(kPollEvery);
    storage::Result<ClientResponse> answer = SignedCall(options, target, "GET", "");
    if (!answer.ok())
      return Fail(1, "lost the server while following the backup: " + answer.status().message());
    if (answer->status != 200) return FailWithAnswer(*answer);
    s3api::XmlNode job;
    if (!s3api::ParseXml(answer->body, &job) || job.name != "Backup") {
      return Fail(1, "the server's answer is not a backup state");
    }
    if (Field(job, "Id") != id) return Fail(1, "another backup replaced this one's state");
    const std::string state = Field(job, "State");
    if (state == "failed") return Fail(1, "backup failed: " + Field(job, "Error"));
    if (state == "succeeded") {
      std::printf("backup complete: %s (%s files, %s bytes, %s files copied, %s s)\n",
                  Field(job, "Target").c_str(), Field(job, "FilesTotal").c_str(),
                  Field(job, "BytesTotal").c_str(), Field(job, "FilesCopied").c_str(),
                  Field(job, "Seconds").c_str());
      return 0;
    }
    std::string line = "backup: " + Mib(Field(job, "BytesDone")) + " of " +
                       Mib(Field(job, "BytesTotal")) + ", " + Field(job, "FilesDone") + " of " +
                       Field(job, "FilesTotal") + " files";
    const auto now = std::chrono::steady_clock::now();
    if (line != last_line && now - last_print >= kProgressEvery) {
      std::fprintf(stderr, "%s\n", line.c_str());
      last_line = line;
      last_print = now;
    }
  }
}

}  // namespace

int RunBackupCommand(int argc, const char* const* argv, const EnvLookup& env) {
  int exit_code = 2;
  std::optional<Options> options = ParseFlags(argc, argv, &exit_code);
  if (!options) return exit_code;
  if (!ResolveCredentials(env, &*options)) return 2;
  std::optional<ProbeTarget> target = ParseProbeUrl(options->endpoint);
  if (!target) return Fail(2, "--endpoint: cannot parse " + options->endpoint);
  storage::Result<ClientResponse> started = SignedCall(
      *options, *target, "POST", "target=" + text::UriEncode(options->to, text::Slash::kEncode));
  if (!started.ok()) return Fail(1, options->endpoint + ": " + started.status().message());
  if (started->status != 202) return FailWithAnswer(*started);
  s3api::XmlNode job;
  if (!s3api::ParseXml(started->body, &job) || job.name != "Backup") {
    return Fail(1, "the server's answer is not a backup state");
  }
  std::fprintf(stderr, "backup started: %s\n", options->to.c_str());
  return Follow(*options, *target, Field(job, "Id"));
}

}  // namespace cubby::server
