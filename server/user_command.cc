#include "server/user_command.h"

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "s3api/xml.h"
#include "server/http_client.h"
#include "text/uri.h"

namespace cubby::server {
namespace {

constexpr char kUsage[] =
    "usage: cubby user create --endpoint URL --name NAME [--access-key ID --secret-key SECRET]\n"
    "                         [--email ADDRESS] [--credentials-file FILE] [--region REGION]\n"
    "  Creates user NAME and an access key on the cubby at URL through its IAM API, as root\n"
    "  (credentials from FILE, e.g. <data dir>/root-credentials, or AWS_ACCESS_KEY_ID /\n"
    "  AWS_SECRET_ACCESS_KEY). With --access-key and --secret-key the key gets that id and\n"
    "  secret; otherwise the server makes one and its secret is printed once. --email gives the\n"
    "  user the address that ACL grants by e-mail (emailAddress=...) resolve to.\n";
constexpr std::chrono::seconds kCallTimeout{30};

struct Options {
  std::string endpoint, name, access_key, secret_key, email, credentials_file, region;
  Credentials root;
};

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "cubby user: %s\n", message.c_str());
  return code;
}

std::optional<Options> ParseFlags(int argc, const char* const* argv, int* exit_code) {
  Options options;
  *exit_code = 2;
  if (argc < 2 || std::string_view(argv[1]) != "create") {
    if (argc >= 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
      std::fputs(kUsage, stdout);
      *exit_code = 0;
      return std::nullopt;
    }
    Fail(2, std::string("expected `create`\n") + kUsage);
    return std::nullopt;
  }
  for (int i = 2; i < argc; ++i) {
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
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      Fail(2, arg + " needs a value");
      return std::nullopt;
    }
    if (arg == "--endpoint") {
      options.endpoint = value;
    } else if (arg == "--name") {
      options.name = value;
    } else if (arg == "--access-key") {
      options.access_key = value;
    } else if (arg == "--secret-key") {
      options.secret_key = value;
    } else if (arg == "--email") {
      options.email = value;
    } else if (arg == "--credentials-file") {
      options.credentials_file = value;
    } else if (arg == "--region") {
      options.region = value;
    } else {
      Fail(2, "unknown flag " + arg + "\n" + kUsage);
      return std::nullopt;
    }
  }
  if (options.endpoint.empty() || options.name.empty()) {
    Fail(2, std::string("--endpoint and --name are required\n") + kUsage);
    return std::nullopt;
  }
  if (options.access_key.empty() != options.secret_key.empty()) {
    Fail(2, "give --access-key and --secret-key together, or neither");
    return std::nullopt;
  }
  return options;
}

// The IAM error of an answer: "HTTP 409 EntityAlreadyExists: ...".
std::string Describe(const ClientResponse& answer) {
  s3api::XmlNode root;
  std::string detail;
  if (s3api::ParseXml(answer.body, &root) && root.name == "ErrorResponse") {
    if (const s3api::XmlNode* error = root.Child("Error")) {
      const s3api::XmlNode* code = error->Child("Code");
      const s3api::XmlNode* message = error->Child("Message");
      detail = " " + (code ? code->text : "") + ": " + (message ? message->text : "");
    }
  }
  return "HTTP " + std::to_string(answer.status) + detail;
}

// One IAM call: POST / with the form (so no secret rides in a URL), signed for service "iam".
storage::Result<ClientResponse> IamCall(
    const Options& options, const ProbeTarget& target,
    const std::vector<std::pair<std::string, std::string>>& params) {
  std::string form = "Version=2010-05-08";
  for (const auto& [name, value] : params) {
    form += "&" + name + "=" + text::UriEncode(value, text::Slash::kEncode);
  }
  return SignedHttpCall(target, options.root,
                        {.method = "POST",
                         .path = "/",
                         .content_type = "application/x-www-form-urlencoded; charset=utf-8",
                         .body = form,
                         .service = "iam",
                         .region = options.region,
                         .user_agent = "cubby-user"},
                        kCallTimeout);
}

// The text of <name> anywhere under `node`, or "".
std::string Find(const s3api::XmlNode& node, std::string_view name) {
  if (node.name == name) return node.text;
  for (const s3api::XmlNode& child : node.children) {
    std::string found = Find(child, name);
    if (!found.empty()) return found;
  }
  return {};
}

}  // namespace

int RunUserCommand(int argc, const char* const* argv, const EnvLookup& env) {
  int exit_code = 2;
  std::optional<Options> options = ParseFlags(argc, argv, &exit_code);
  if (!options) return exit_code;
  if (std::string error; !ReadCredentials(options->credentials_file, env, &options->root, &error)) {
    return Fail(2, error);
  }
  // IAM is signed for us-east-1 whatever the endpoint, as the aws cli does.
  if (options->region.empty()) options->region = "us-east-1";
  std::optional<ProbeTarget> target = ParseProbeUrl(options->endpoint);
  if (!target) return Fail(2, "--endpoint: cannot parse " + options->endpoint);

  std::vector<std::pair<std::string, std::string>> create = {{"Action", "CreateUser"},
                                                             {"UserName", options->name}};
  if (!options->email.empty()) create.emplace_back("EmailAddress", options->email);
  storage::Result<ClientResponse> created = IamCall(*options, *target, create);
  if (!created.ok()) return Fail(1, options->endpoint + ": " + created.status().message());
  if (created->status != 200) return Fail(1, "CreateUser: " + Describe(*created));
  std::vector<std::pair<std::string, std::string>> key_params = {{"Action", "CreateAccessKey"},
                                                                 {"UserName", options->name}};
  if (!options->access_key.empty()) {
    key_params.emplace_back("AccessKeyId", options->access_key);
    key_params.emplace_back("SecretAccessKey", options->secret_key);
  }
  storage::Result<ClientResponse> key = IamCall(*options, *target, key_params);
  if (!key.ok()) return Fail(1, options->endpoint + ": " + key.status().message());
  if (key->status != 200) return Fail(1, "CreateAccessKey: " + Describe(*key));
  s3api::XmlNode root;
  if (!s3api::ParseXml(key->body, &root)) return Fail(1, "the server's answer is not IAM XML");
  std::printf("[%s]\naws_access_key_id = %s\n", options->name.c_str(),
              Find(root, "AccessKeyId").c_str());
  // The secret goes to stdout only when the server made it (the caller knows a given one).
  if (options->secret_key.empty()) {
    std::printf("aws_secret_access_key = %s\n", Find(root, "SecretAccessKey").c_str());
  }
  return 0;
}

}  // namespace cubby::server
