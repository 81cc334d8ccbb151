#include "cosi/params.h"

#include <openssl/evp.h>

#include <algorithm>
#include <iterator>
#include <string>

#include "storage/bucket_name.h"

namespace cubby::cosi {
namespace {

using storage::AccessMode;
using storage::Code;
using storage::Status;

Status Invalid(std::string message) { return Status(Code::kInvalidArgument, std::move(message)); }

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

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

std::string DeriveBucketName(std::string_view name) {
  if (storage::ValidateBucketName(name).ok()) return std::string(name);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_len = 0;
  // EVP_Digest cannot fail for SHA-256 on an in-memory buffer short of allocation failure; then
  // the digest stays zeros, which is still deterministic.
  std::fill(std::begin(digest), std::end(digest), 0);
  (void)EVP_Digest(name.data(), name.size(), digest, &digest_len, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hash;
  for (int i = 0; i < 8; ++i) {
    hash.push_back(kHex[digest[i] >> 4]);
    hash.push_back(kHex[digest[i] & 0xf]);
  }
  constexpr size_t kMaxPrefix = 63 - 1 - 16;
  std::string prefix;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (keep) {
      prefix.push_back(c);
    } else if (!prefix.empty() && prefix.back() != '-') {
      prefix.push_back('-');
    }
    if (prefix.size() >= kMaxPrefix) break;
  }
  if (prefix.size() > kMaxPrefix) prefix.resize(kMaxPrefix);
  while (!prefix.empty() && prefix.back() == '-') prefix.pop_back();
  std::string derived = (prefix.empty() ? std::string("cosi") : prefix) + "-" + hash;
  if (!storage::ValidateBucketName(derived).ok()) derived = "cosi-" + hash;  // reserved prefix
  return derived;
}

bool IsDnsSafeBucketName(std::string_view name) {
  return storage::ValidateBucketName(name).ok() && name.find('.') == std::string_view::npos;
}

Status ParseGrantParameters(const Parameters& parameters) {
  if (!parameters.empty()) return UnknownKey(parameters.begin()->first);
  return Status::Ok();
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
