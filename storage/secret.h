// A secret string (S3 secret access key). It has no stream operator and no implicit
// conversion, so it cannot end up in a log line by accident; reveal() is the one,
// greppable way to use its bytes (signing, persisting, handing to the COSI sidecar).
#pragma once

#include <string>
#include <utility>

namespace cubby::storage {

class SecretKey {
 public:
  SecretKey() = default;
  explicit SecretKey(std::string value) : value_(std::move(value)) {}
  const std::string& reveal() const { return value_; }
  bool empty() const { return value_.empty(); }
  friend bool operator==(const SecretKey&, const SecretKey&) = default;

 private:
  std::string value_;
};

}  // namespace cubby::storage
