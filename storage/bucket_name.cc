#include "storage/bucket_name.h"

#include <array>
#include <string>

#include "text/ascii.h"

namespace cubby::storage {
namespace {

Status Invalid(std::string message) { return Status(Code::kInvalidArgument, std::move(message)); }

bool IsLowerOrDigit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// "192.168.5.4": four dot-separated runs of one to three digits.
bool LooksLikeIpv4(std::string_view name) {
  int parts = 0;
  for (;;) {
    size_t dot = name.find('.');
    std::string_view part = name.substr(0, dot);
    if (part.size() > 3 || !text::IsDecimalDigits(part)) return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    name.remove_prefix(dot + 1);
  }
  return parts == 4;
}

// Reserved by AWS for other bucket kinds (access point aliases, directory buckets, ...).
constexpr std::array<std::string_view, 3> kReservedPrefixes = {"xn--", "sthree-",
                                                                "amzn-s3-demo-"};
constexpr std::array<std::string_view, 5> kReservedSuffixes = {"-s3alias", "--ol-s3", ".mrap",
                                                                "--x-s3", "--table-s3"};

}  // namespace

Status ValidateBucketName(std::string_view name) {
  if (name.empty()) return Invalid("bucket name is required");
  if (name.size() < 3 || name.size() > 63) {
    return Invalid("bucket name must be 3 to 63 characters long");
  }
  for (char c : name) {
    if (!IsLowerOrDigit(c) && c != '.' && c != '-') {
      return Invalid("bucket name may contain only lowercase letters, digits, '.' and '-'");
    }
  }
  if (!IsLowerOrDigit(name.front()) || !IsLowerOrDigit(name.back())) {
    return Invalid("bucket name must begin and end with a lowercase letter or digit");
  }
  if (name.find("..") != std::string_view::npos) {
    return Invalid("bucket name must not contain two adjacent periods");
  }
  if (name.find(".-") != std::string_view::npos || name.find("-.") != std::string_view::npos) {
    return Invalid("bucket name must not contain a period next to a hyphen");
  }
  if (LooksLikeIpv4(name)) return Invalid("bucket name must not be formatted as an IP address");
  for (std::string_view prefix : kReservedPrefixes) {
    if (name.starts_with(prefix)) {
      return Invalid("bucket name must not start with \"" + std::string(prefix) + "\"");
    }
  }
  for (std::string_view suffix : kReservedSuffixes) {
    if (name.ends_with(suffix)) {
      return Invalid("bucket name must not end with \"" + std::string(suffix) + "\"");
    }
  }
  return Status::Ok();
}

}  // namespace cubby::storage
