// POST Object's policy document and the key a form names: pure functions of the form's fields
// and the clock. The form's signature is s3api/auth/post_form.h's.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/HTTPPOSTForms.html
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "s3api/errors.h"
#include "s3api/form_data.h"

namespace cubby::s3api {

// The policy JSON is at most this long (AWS bounds the form fields at 20 KB anyway).
inline constexpr size_t kMaxPostPolicyBytes = kMaxPostPreDataBytes;

struct PostCondition {
  enum class Kind { kEq, kStartsWith };
  Kind kind = Kind::kEq;
  std::string field;  // lowercase, without '$'
  std::string value;  // the value (eq) or prefix (starts-with; "" allows anything)
};

struct PostPolicy {
  int64_t expiration_ms = 0;
  std::vector<PostCondition> conditions;
  // content-length-range: the file's size must lie in [min, max] (several: all of them).
  std::optional<uint64_t> min_length;
  std::optional<uint64_t> max_length;
};

// Parses the decoded policy document: an object with "expiration" (ISO 8601) and
// "conditions", an array whose items are {"field": "value"} (eq), ["eq", "$field", "value"],
// ["starts-with", "$field", "prefix"] (operators case-insensitive) or
// ["content-length-range", min, max] (non-negative integers, min <= max). kNone, or
// InvalidPolicyDocument with *message saying what is wrong ("Invalid Policy: ...").
ErrorCode ParsePostPolicy(std::string_view json, PostPolicy* out, std::string* message);

// Checks the form `fields` (names lowercase) against `policy` at `now_ms`; the "bucket"
// condition is checked against `bucket` when the form has no bucket field. kNone, or
// AccessDenied with *message:
//  - "Invalid according to Policy: Policy expired." when now_ms is past the expiration;
//  - "Invalid according to Policy: Policy Condition failed: [\"eq\", \"$key\", \"v\"]" for the
//    first eq / starts-with condition the fields fail (a missing field is "");
//  - "Invalid according to Policy: Extra input fields: <name>" for the first field no condition
//    names, except the exempt ones: policy, file, x-amz-signature, signature, awsaccesskeyid
//    and x-ignore-*.
// content-length-range is the caller's to check while the file streams.
ErrorCode CheckPostPolicy(const PostPolicy& policy, const std::vector<FormField>& fields,
                          std::string_view bucket, int64_t now_ms, std::string* message);

// The policy of a signed form: its `policy` field base64-decoded (else InvalidPolicyDocument
// "Invalid Policy: Invalid Base64 encoding."), parsed (ParsePostPolicy) into *out and checked
// against the form's fields (CheckPostPolicy). kNone, or the first error with *message.
// AuthenticatePostForm has required the field of every signed form; a form without one is
// refused as one whose field is not base64.
ErrorCode ReadPostPolicy(const std::vector<FormField>& fields, std::string_view bucket,
                         int64_t now_ms, PostPolicy* out, std::string* message);

// The object key a form names: its key field with the first "${filename}" replaced by the
// file's name, of which only the last path segment counts (old browsers sent the whole path,
// with '/' or '\\'). S3 checks the policy's "$key" conditions against this key, not the field as
// sent (so ["eq", "$key", "uploads/photo.jpg"] accepts key "uploads/${filename}" and a file
// photo.jpg).
std::string PostObjectKey(std::string_view key_field, std::string_view filename);

}  // namespace cubby::s3api
