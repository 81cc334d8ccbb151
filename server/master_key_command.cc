#include "server/master_key_command.h"

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include "server/master_key.h"

namespace cubby::server {
namespace {

constexpr char kUsage[] =
    "usage: cubby master-key rotate --data-dir DIR [--master-key-file OLD]\n"
    "                               --new-master-key-file NEW\n"
    "  Re-wraps DIR's keyring under the master key in NEW (44 characters of base64, e.g.\n"
    "  `openssl rand -base64 32`, mode 0600 or 0400). OLD is the current key (default:\n"
    "  DIR/master.key, which then holds NEW). Run it with cubby stopped; start cubby with NEW\n"
    "  afterwards. --data-dir and --master-key-file default to CUBBY_DATA_DIR and\n"
    "  CUBBY_MASTER_KEY_FILE.\n";

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "cubby master-key: %s\n", message.c_str());
  return code;
}

}  // namespace

int RunMasterKeyCommand(int argc, const char* const* argv, const EnvLookup& env) {
  if (argc >= 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (argc < 2 || std::string_view(argv[1]) != "rotate") {
    return Fail(2, std::string("expected `rotate`\n") + kUsage);
  }
  std::string data_dir = env("CUBBY_DATA_DIR").value_or("");
  std::string old_key = env("CUBBY_MASTER_KEY_FILE").value_or("");
  std::string new_key;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    std::string value;
    if (size_t eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return Fail(2, arg + " needs a value");
    }
    if (value.empty()) return Fail(2, "empty value for " + arg);
    if (arg == "--data-dir") {
      data_dir = value;
    } else if (arg == "--master-key-file") {
      old_key = value;
    } else if (arg == "--new-master-key-file") {
      new_key = value;
    } else {
      return Fail(2, "unknown flag " + arg + "\n" + kUsage);
    }
  }
  if (data_dir.empty()) data_dir = "./data";  // the server's default
  if (new_key.empty()) return Fail(2, std::string("--new-master-key-file is required\n") + kUsage);

  storage::Status s = RotateMasterKey(data_dir, old_key, new_key);
  if (!s.ok()) return Fail(s.code() == storage::Code::kInvalidArgument ? 2 : 1, s.message());
  std::error_code ec;
  if (old_key.empty() || std::filesystem::equivalent(old_key, data_dir + "/master.key", ec)) {
    std::fprintf(stderr,
                 "cubby master-key: rotated: %s/keyring is wrapped under the new key, which "
                 "%s/master.key now holds\n",
                 data_dir.c_str(), data_dir.c_str());
  } else {
    std::fprintf(stderr,
                 "cubby master-key: rotated: %s/keyring is wrapped under the new key; start "
                 "cubby with --master-key-file %s\n",
                 data_dir.c_str(), new_key.c_str());
  }
  return 0;
}

}  // namespace cubby::server
