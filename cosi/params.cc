#include "cosi/params.h"

#include <array>
#include <string>

namespace cubby::cosi {
namespace {

using storage::AccessMode;
using storage::Code;
using storage::Status;

Status Invalid(std::string message) { return Status(Code::kInvalidArgument, std::move(message)); }

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool IsLowerOrDigit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// "192.168.5.4": four dot-separated runs of digits. AWS refuses names formatted like this.
bool LooksLikeIPv4(std::string_view name) {
  int dots = 0;
  bool run = false;
  for (char c : name) {
    if (c == '.') {
      if (!run) return false;
      ++dots;
      run = false;
    } else if (IsDigit(c)) {
      run = true;
    } else {
      return false;
    }
  }
  return run && dots == 3;
}

// Reserved by AWS for other bucket kinds (access point aliases, directory buckets, ...).
constexpr std::array<std::string_view, 3> kReservedPrefixes = {"xn--", "sthree-",
                                                                "amzn-s3-demo-"};
constexpr std::array<std::string_view, 5> kReservedSuffixes = {"-s3alias", "--ol-s3", ".mrap",
                                                                "--x-s3", "--table-s3"};

Status UnknownKey(std::string_view key) {
  return Invalid("unknown parameter \"" + std::string(key) + "\"");
}

Status BadValue(std::string_view key, std::string_view allowed) {
  return Invalid("parameter \"" + std::string(key) + "\" must be one of " + std::string(allowed));
}

}  // namespace

Status CheckStringSize(std::string_view field, std::string_view value) {
  if (value.size() > kMaxStringBytes) {
    return Invalid(std::string(field) + " is longer than " + std::to_string(kMaxStringBytes) +
                   " bytes");
  }
  return Status::Ok();
}

Status CheckMapSize(std::string_view field, const Parameters& map) {
  size_t bytes = 0;
  for (const auto& [key, value] : map) bytes += key.size() + value.size();
  if (bytes > kMaxMapBytes) {
    return Invalid(std::string(field) + " is larger than " + std::to_string(kMaxMapBytes) +
                   " bytes");
  }
  return Status::Ok();
}

Status ValidateDriverName(std::string_view name) {
  if (name.empty()) return Invalid("driver name is empty");
  if (name.size() > 63) return Invalid("driver name is longer than 63 characters");
  if (!IsAlnum(name.front()) || !IsAlnum(name.back())) {
    return Invalid("driver name must begin and end with a letter or digit");
  }
  for (char c : name) {
    if (!IsAlnum(c) && c != '-' && c != '.') {
      return Invalid("driver name may contain only letters, digits, '-' and '.'");
    }
  }
  return Status::Ok();
}

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
  if (LooksLikeIPv4(name)) return Invalid("bucket name must not be formatted as an IP address");
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

storage::Result<BucketParams> ParseBucketParameters(const Parameters& parameters) {
  BucketParams params;
  for (const auto& [key, value] : parameters) {
    if (key == kAnonymousAccessMode) {
      if (value == "Private") {
        params.anonymous = AccessMode::kNone;
      } else if (value == "ReadOnly") {
        params.anonymous = AccessMode::kReadOnly;
      } else if (value == "WriteOnly") {
        params.anonymous = AccessMode::kWriteOnly;
      } else if (value == "ReadWrite") {
        params.anonymous = AccessMode::kReadWrite;
      } else {
        return BadValue(key, "Private, ReadOnly, WriteOnly, ReadWrite");
      }
    } else if (key == kForceDelete) {
      if (value == "true") {
        params.force_delete = true;
      } else if (value == "false") {
        params.force_delete = false;
      } else {
        return BadValue(key, "true, false");
      }
    } else {
      return UnknownKey(key);
    }
  }
  return params;
}

BucketParams BucketParamsOf(const storage::BucketRecord& bucket) {
  return BucketParams{.anonymous = bucket.anonymous, .force_delete = bucket.force_delete};
}

Parameters EffectiveParameters(const BucketParams& params) {
  return Parameters{
      {std::string(kAnonymousAccessMode), std::string(AnonymousModeName(params.anonymous))},
      {std::string(kForceDelete), params.force_delete ? "true" : "false"},
  };
}

storage::Result<AccessMode> ParseAccessParameters(const Parameters& parameters) {
  AccessMode mode = AccessMode::kReadWrite;
  for (const auto& [key, value] : parameters) {
    if (key != kAccessMode) return UnknownKey(key);
    if (value == "ReadWrite") {
      mode = AccessMode::kReadWrite;
    } else if (value == "ReadOnly") {
      mode = AccessMode::kReadOnly;
    } else if (value == "WriteOnly") {
      mode = AccessMode::kWriteOnly;
    } else {
      return BadValue(key, "ReadWrite, ReadOnly, WriteOnly");
    }
  }
  return mode;
}

std::string_view AnonymousModeName(AccessMode mode) {
  switch (mode) {
    case AccessMode::kNone:
      return "Private";
    case AccessMode::kReadOnly:
      return "ReadOnly";
    case AccessMode::kWriteOnly:
      return "WriteOnly";
    case AccessMode::kReadWrite:
      return "ReadWrite";
  }
  return "Private";
}

std::string_view AccessModeName(AccessMode mode) {
  switch (mode) {
    case AccessMode::kNone:
      return "None";
    case AccessMode::kReadOnly:
      return "ReadOnly";
    case AccessMode::kWriteOnly:
      return "WriteOnly";
    case AccessMode::kReadWrite:
      return "ReadWrite";
  }
  return "None";
}

}  // namespace cubby::cosi
