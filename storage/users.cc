#include "storage/users.h"

#include <openssl/sha.h>

#include <algorithm>

#include "text/ascii.h"
#include "text/encoding.h"
#include "text/utf8.h"

namespace cubby::storage {
namespace {

// IAM's [\w+=,.@-]: ASCII letters, digits, underscore and + = , . @ -.
bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '+' || c == '=' || c == ',' || c == '.' || c == '@' || c == '-';
}

Status Invalid(std::string message) { return Status(Code::kInvalidArgument, std::move(message)); }

Status ValidateIamName(std::string_view what, std::string_view name, size_t max) {
  if (name.empty() || name.size() > max) {
    return Invalid(std::string(what) + " must be 1 to " + std::to_string(max) + " characters long");
  }
  for (char c : name) {
    if (!IsNameChar(c)) {
      return Invalid(std::string(what) +
                     " may contain only letters, digits and the characters _+=,.@-");
    }
  }
  return Status::Ok();
}

// The characters IAM allows in tags beyond letters, digits and white space.
bool IsTagPunctuation(char32_t c) {
  return c == '_' || c == '.' || c == ':' || c == '/' || c == '=' || c == '+' || c == '-' ||
         c == '@';
}

// Checks a tag key or value and counts its characters; false when one is not allowed.
bool TagText(std::string_view s, size_t* chars) {
  *chars = 0;
  while (!s.empty()) {
    char32_t cp = 0;
    const size_t n = text::DecodeUtf8(s, &cp);
    if (n == 0) return false;
    const bool ascii_ok = (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
                          (cp >= '0' && cp <= '9') || cp == ' ' || IsTagPunctuation(cp);
    if (cp < 0x80 ? !ascii_ok : cp < 0xa0) return false;  // C1 controls are not letters
    s.remove_prefix(n);
    ++*chars;
  }
  return true;
}

}  // namespace

Status ValidateUserName(std::string_view name) { return ValidateIamName("user name", name, 64); }

std::string GrantUserName(std::string_view grant_name) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(grant_name.data()), grant_name.size(), digest);
  return "cosi-grant-" +
         text::HexEncode(std::string_view(reinterpret_cast<const char*>(digest), 16));
}

Status ValidatePolicyName(std::string_view name) {
  return ValidateIamName("policy name", name, 128);
}

Status ValidateTag(std::string_view key, std::string_view value) {
  size_t chars = 0;
  if (!TagText(key, &chars) || chars == 0 || chars > 128) {
    return Invalid("tag keys must be 1 to 128 letters, digits, spaces or _.:/=+-@");
  }
  if (text::StartsWithIgnoreCase(key, "aws:")) {
    return Invalid("tag keys starting with aws: are reserved for AWS use");
  }
  if (!TagText(value, &chars) || chars > 256) {
    return Invalid("tag values must be at most 256 letters, digits, spaces or _.:/=+-@");
  }
  return Status::Ok();
}

Status ValidateEmail(std::string_view email) {
  const size_t at = email.find('@');
  if (email.size() < 3 || email.size() > 128 || at == 0 || at == std::string_view::npos ||
      at + 1 == email.size() || email.find('@', at + 1) != std::string_view::npos) {
    return Invalid("an e-mail address is 3 to 128 characters with one @ inside");
  }
  for (char c : email) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) {
      return Invalid("an e-mail address holds no white space or control characters");
    }
  }
  return Status::Ok();
}

std::string FoldName(std::string_view name) { return text::AsciiLowercase(name); }

bool IsCanonicalId(std::string_view id) {
  if (id.size() != 64) return false;
  for (char c : id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool IsValidAccessKeyId(std::string_view id) {
  return id.size() >= 16 && id.size() <= 128 && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '_';
         });
}

bool IsValidSecretKey(std::string_view secret) {
  return !secret.empty() && secret.size() <= 128 &&
         std::all_of(secret.begin(), secret.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

std::string UserArn(std::string_view account_id, const UserRecord& user) {
  std::string arn = "arn:aws:iam::";
  arn.append(account_id);
  arn.append(":user");
  arn.append(user.path.empty() ? "/" : user.path);
  arn.append(user.name);
  return arn;
}

size_t PolicyChars(std::string_view document) {
  size_t n = 0;
  for (char c : document) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') ++n;
  }
  return n;
}

AclRecord BucketAclFor(std::string_view owner_id, AccessMode anonymous) {
  AclRecord acl;
  acl.owner_id = std::string(owner_id);
  if (CanRead(anonymous)) {
    acl.grants.push_back({GranteeType::kGroup, std::string(kAllUsersGroup), AclPermission::kRead});
  }
  if (CanWrite(anonymous)) {
    acl.grants.push_back({GranteeType::kGroup, std::string(kAllUsersGroup), AclPermission::kWrite});
  }
  acl.grants.push_back(
      {GranteeType::kCanonicalUser, std::string(owner_id), AclPermission::kFullControl});
  return acl;
}

}  // namespace cubby::storage
