#include "server/users_file.h"

#include "storage/users.h"

namespace cubby::server {
namespace {

using storage::Code;
using storage::Result;
using storage::Status;

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsBlank(line[i])) ++i;
    const size_t start = i;
    while (i < line.size() && !IsBlank(line[i])) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

Status LineError(int line, const std::string& why) {
  return Status(Code::kInvalidArgument, "users file line " + std::to_string(line) + ": " + why);
}

}  // namespace

Result<std::vector<UsersFileLine>> ParseUsersFile(std::string_view text) {
  std::vector<UsersFileLine> out;
  int number = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    std::vector<std::string_view> fields = Fields(line);
    if (fields.empty() || fields[0].starts_with('#')) continue;
    if (fields.size() != 3 && fields.size() != 4) {
      return LineError(number, "expected NAME ACCESS_KEY_ID SECRET_ACCESS_KEY [EMAIL], found " +
                                   std::to_string(fields.size()) + " fields");
    }
    if (Status s = storage::ValidateUserName(fields[0]); !s.ok()) {
      return LineError(number, s.message());
    }
    if (!storage::IsValidAccessKeyId(fields[1])) {
      return LineError(number, "the access key id must be 16 to 128 letters, digits or _");
    }
    if (!storage::IsValidSecretKey(fields[2])) {
      return LineError(number, "the secret must be 1 to 128 printable characters");
    }
    std::string email;
    if (fields.size() == 4) {
      if (Status s = storage::ValidateEmail(fields[3]); !s.ok()) {
        return LineError(number, s.message());
      }
      email = std::string(fields[3]);
    }
    for (const UsersFileLine& earlier : out) {
      if (earlier.name == fields[0] && !earlier.email.empty() && !email.empty() &&
          earlier.email != email) {
        return LineError(number, "user " + earlier.name + " was given another e-mail address on line " +
                                     std::to_string(earlier.line));
      }
    }
    out.push_back({number, std::string(fields[0]), std::string(fields[1]),
                   storage::SecretKey(std::string(fields[2])), std::move(email)});
  }
  return out;
}

Result<UsersFileOutcome> ApplyUsersFile(storage::Store& store,
                                        const std::vector<UsersFileLine>& lines, int64_t now_ms) {
  UsersFileOutcome outcome;
  for (const UsersFileLine& l : lines) {
    Result<storage::UserRecord> user = store.GetUser(l.name);
    if (!user.ok() && user.status().code() == Code::kNoSuchEntity) {
      storage::UserRecord candidate;
      candidate.name = l.name;
      candidate.email = l.email;
      candidate.created_ms = now_ms;
      user = store.CreateUser(candidate);
      if (user.ok()) ++outcome.users_created;
    }
    if (!user.ok()) return LineError(l.line, user.status().message());
    Result<storage::AccessKeyRecord> key = store.GetAccessKey(l.access_key_id);
    if (key.ok()) {
      if (key->user_id != user->user_id) {
        return LineError(l.line, "access key " + l.access_key_id + " belongs to another user");
      }
      continue;  // exists: left as it is
    }
    if (key.status().code() != Code::kNoSuchAccessKey) return key.status();
    storage::AccessKeyRecord candidate;
    candidate.access_key_id = l.access_key_id;
    candidate.secret = l.secret;
    candidate.created_ms = now_ms;
    Result<storage::AccessKeyRecord> made = store.CreateAccessKey(l.name, candidate);
    if (!made.ok()) {
      const Code code = made.status().code();
      if (code == Code::kLimitExceeded || code == Code::kEntityAlreadyExists) {
        return LineError(l.line, made.status().message());
      }
      return made.status();
    }
    ++outcome.keys_created;
  }
  return outcome;
}

}  // namespace cubby::server
