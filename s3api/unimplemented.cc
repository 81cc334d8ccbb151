// One table of the headers that ask for server-side encryption, and the operations AWS reads
// each on. Header names are lowercase, as HttpRequest keeps them. (Object lock is implemented:
// object_lock.cc.)
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/ServerSideEncryptionCustomerKeys.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/specifying-kms-encryption.html
#include "s3api/unimplemented.h"

#include <algorithm>
#include <span>
#include <string_view>

#include "text/ascii.h"

namespace cubby::s3api {

namespace {

enum class Feature { kEncryption };

// What a header's value must be for the request to ask for the feature.
enum class Asks {
  kAlways,       // any value
  kUnlessFalse,  // a boolean header: anything but "false"
  kSseMethod,    // a method AWS knows; any other value is InvalidArgument
};

constexpr Operation kObjectWrites[] = {Operation::kPutObject, Operation::kCopyObject,
                                       Operation::kCreateMultipartUpload};
// The calls that take an SSE-C key: the writes, the upload's parts and completion, and reads.
constexpr Operation kCustomerKeyCalls[] = {
    Operation::kPutObject,  Operation::kCopyObject,     Operation::kCreateMultipartUpload,
    Operation::kUploadPart, Operation::kUploadPartCopy, Operation::kCompleteMultipartUpload,
    Operation::kListParts,  Operation::kGetObject,      Operation::kHeadObject};
constexpr Operation kCopies[] = {Operation::kCopyObject, Operation::kUploadPartCopy};

struct Row {
  std::string_view header;
  Feature feature;
  std::span<const Operation> operations;
  Asks asks;
};

constexpr Row kRows[] = {
    {"x-amz-server-side-encryption", Feature::kEncryption, kObjectWrites, Asks::kSseMethod},
    {"x-amz-server-side-encryption-aws-kms-key-id", Feature::kEncryption, kObjectWrites,
     Asks::kAlways},
    {"x-amz-server-side-encryption-context", Feature::kEncryption, kObjectWrites, Asks::kAlways},
    {"x-amz-server-side-encryption-bucket-key-enabled", Feature::kEncryption, kObjectWrites,
     Asks::kUnlessFalse},
    {"x-amz-server-side-encryption-customer-algorithm", Feature::kEncryption, kCustomerKeyCalls,
     Asks::kAlways},
    {"x-amz-server-side-encryption-customer-key", Feature::kEncryption, kCustomerKeyCalls,
     Asks::kAlways},
    {"x-amz-server-side-encryption-customer-key-md5", Feature::kEncryption, kCustomerKeyCalls,
     Asks::kAlways},
    {"x-amz-copy-source-server-side-encryption-customer-algorithm", Feature::kEncryption, kCopies,
     Asks::kAlways},
    {"x-amz-copy-source-server-side-encryption-customer-key", Feature::kEncryption, kCopies,
     Asks::kAlways},
    {"x-amz-copy-source-server-side-encryption-customer-key-md5", Feature::kEncryption, kCopies,
     Asks::kAlways},
};

// The values PutObject's x-amz-server-side-encryption takes
// (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html); AWS answers any other
// with 400 InvalidArgument "The encryption method specified is not supported".
bool IsSseMethod(std::string_view value) {
  return value == "AES256" || value == "aws:kms" || value == "aws:kms:dsse" || value == "aws:fsx";
}

std::string_view FeatureName(Feature feature) {
  switch (feature) {
    case Feature::kEncryption: return "Server-side encryption";
  }
  return "This feature";
}

}  // namespace

Refusal RefuseUnimplemented(Operation op, const HttpRequest& request) {
  for (const Row& row : kRows) {
    if (std::find(row.operations.begin(), row.operations.end(), op) == row.operations.end()) {
      continue;
    }
    const std::string* value = request.Find(row.header);
    if (value == nullptr) continue;
    if (row.asks == Asks::kUnlessFalse && text::EqualsIgnoreCase(*value, "false")) continue;
    if (row.asks == Asks::kSseMethod && !IsSseMethod(*value)) {
      return {ErrorCode::kInvalidArgument, "The encryption method specified is not supported"};
    }
    return {ErrorCode::kNotImplemented, std::string(FeatureName(row.feature)) +
                                            " is not implemented by cubby (" +
                                            std::string(row.header) + ")."};
  }
  return {};
}

}  // namespace cubby::s3api
