// POST Object's policy (s3api/post_policy.h): each condition kind, each error.
#include "s3api/post_policy.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "text/encoding.h"

namespace cubby::s3api {
namespace {

constexpr int64_t kNow = 1767225600000;  // 2026-01-01T00:00:00Z

std::string Doc(const std::string& conditions,
                const std::string& expiration = "\"2030-01-01T00:00:00.000Z\"") {
  return "{\"expiration\": " + expiration + ", \"conditions\": [" + conditions + "]}";
}

TEST(PostPolicyTest, Parse) {
  struct Case {
    std::string name, json;
    ErrorCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"ok", Doc(R"({"bucket": "b"}, ["eq", "$Key", "k"], ["starts-with", "$x-amz-meta-a", ""],
                   ["content-length-range", 1, 10], ["Starts-With", "$acl", "pub"])"),
       ErrorCode::kNone, ""},
      {"no conditions needed", Doc(""), ErrorCode::kNone, ""},
      {"length as strings", Doc(R"(["content-length-range", "0", "5"])"), ErrorCode::kNone, ""},
      {"not json", "{", ErrorCode::kInvalidPolicyDocument, "Invalid Policy: Invalid JSON."},
      {"not an object", "[]", ErrorCode::kInvalidPolicyDocument, "Invalid Policy: Invalid JSON."},
      {"no expiration", R"({"conditions": []})", ErrorCode::kInvalidPolicyDocument,
       "Invalid Policy: Policy missing expiration."},
      {"bad expiration", Doc("", "\"tomorrow\""), ErrorCode::kInvalidPolicyDocument,
       "Invalid Policy: Invalid 'expiration' value."},
      {"expiration number", Doc("", "12"), ErrorCode::kInvalidPolicyDocument,
       "Invalid Policy: Invalid 'expiration' value."},
      {"no conditions", R"({"expiration": "2030-01-01T00:00:00Z"})",
       ErrorCode::kInvalidPolicyDocument, "Invalid Policy: Policy missing conditions."},
      {"conditions not a list", R"({"expiration": "2030-01-01T00:00:00Z", "conditions": {}})",
       ErrorCode::kInvalidPolicyDocument,
       "Invalid Policy: Invalid 'conditions' value: must be a list."},
      {"two members", Doc(R"({"a": "1", "b": "2"})"), ErrorCode::kInvalidPolicyDocument,
       "Invalid Policy: Invalid Simple-Condition: too many fields."},
      {"value not string", Doc(R"({"a": 1})"), ErrorCode::kInvalidPolicyDocument,
       "Invalid Policy: Invalid Simple-Condition: value must be a string."},
      {"two elements", Doc(R"(["eq", "$a"])"), ErrorCode::kInvalidPolicyDocument, ""},
      {"a number", Doc("1"), ErrorCode::kInvalidPolicyDocument, ""},
      {"unknown op", Doc(R"(["ne", "$a", "b"])"), ErrorCode::kInvalidPolicyDocument,
       "Invalid Policy: Invalid Condition: unknown operation 'ne'."},
      {"field without $", Doc(R"(["eq", "a", "b"])"), ErrorCode::kInvalidPolicyDocument, ""},
      {"value not string", Doc(R"(["eq", "$a", 3])"), ErrorCode::kInvalidPolicyDocument, ""},
      {"range reversed", Doc(R"(["content-length-range", 5, 1])"),
       ErrorCode::kInvalidPolicyDocument, ""},
      {"range negative", Doc(R"(["content-length-range", -1, 1])"),
       ErrorCode::kInvalidPolicyDocument, ""},
      {"range fraction", Doc(R"(["content-length-range", 0, 1.5])"),
       ErrorCode::kInvalidPolicyDocument, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    PostPolicy policy;
    std::string message;
    EXPECT_EQ(ParsePostPolicy(c.json, &policy, &message), c.code);
    if (!c.message.empty()) EXPECT_EQ(message, c.message);
  }
  PostPolicy policy;
  std::string message;
  ASSERT_EQ(ParsePostPolicy(Doc(R"(["content-length-range", 1, 10],
                                   ["content-length-range", 3, 20], ["eq", "$Key", "k"])"),
                            &policy, &message),
            ErrorCode::kNone);
  EXPECT_EQ(policy.min_length, 3u);
  EXPECT_EQ(policy.max_length, 10u);
  ASSERT_EQ(policy.conditions.size(), 1u);
  EXPECT_EQ(policy.conditions[0].field, "key");
  EXPECT_EQ(policy.expiration_ms, 1893456000000);
}

TEST(PostPolicyTest, Check) {
  PostPolicy policy;
  std::string message;
  ASSERT_EQ(ParsePostPolicy(Doc(R"({"bucket": "b"}, ["starts-with", "$key", "user/"],
                                   {"acl": "public-read"}, ["starts-with", "$Content-Type", ""],
                                   ["eq", "$x-amz-meta-a", "1"])"),
                            &policy, &message),
            ErrorCode::kNone);
  using Fields = std::vector<FormField>;
  const Fields good = {
      {"key", "user/x"},       {"acl", "public-read"}, {"content-type", "image/png"},
      {"x-amz-meta-a", "1"},   {"policy", "p"},        {"x-amz-signature", "s"},
      {"awsaccesskeyid", "a"}, {"signature", "s"},     {"x-ignore-me", "z"}};
  struct Case {
    std::string name;
    Fields fields;
    std::string bucket;
    int64_t now;
    ErrorCode code;
    std::string message;
  };
  auto with = [&](Fields f, FormField extra) {
    f.push_back(std::move(extra));
    return f;
  };
  auto replace = [&](Fields f, const std::string& name, const std::string& value) {
    for (FormField& x : f) {
      if (x.name == name) x.value = value;
    }
    return f;
  };
  const std::vector<Case> cases = {
      {"ok", good, "b", kNow, ErrorCode::kNone, ""},
      {"bucket field", with(good, {"bucket", "b"}), "b", kNow, ErrorCode::kNone, ""},
      {"expired", good, "b", 1893456000001, ErrorCode::kAccessDenied,
       "Invalid according to Policy: Policy expired."},
      {"other bucket", good, "c", kNow, ErrorCode::kAccessDenied,
       "Invalid according to Policy: Policy Condition failed: [\"eq\", \"$bucket\", \"b\"]"},
      {"key prefix", replace(good, "key", "other/x"), "b", kNow, ErrorCode::kAccessDenied,
       "Invalid according to Policy: Policy Condition failed: [\"starts-with\", \"$key\", "
       "\"user/\"]"},
      {"acl differs", replace(good, "acl", "private"), "b", kNow, ErrorCode::kAccessDenied,
       "Invalid according to Policy: Policy Condition failed: [\"eq\", \"$acl\", \"public-read\"]"},
      {"eq missing field", Fields{{"key", "user/x"}, {"acl", "public-read"}}, "b", kNow,
       ErrorCode::kAccessDenied,
       "Invalid according to Policy: Policy Condition failed: [\"eq\", \"$x-amz-meta-a\", \"1\"]"},
      {"extra field", with(good, {"x-amz-meta-b", "2"}), "b", kNow, ErrorCode::kAccessDenied,
       "Invalid according to Policy: Extra input fields: x-amz-meta-b"},
      {"extra success_action_status", with(good, {"success_action_status", "201"}), "b", kNow,
       ErrorCode::kAccessDenied,
       "Invalid according to Policy: Extra input fields: success_action_status"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    message.clear();
    EXPECT_EQ(CheckPostPolicy(policy, c.fields, c.bucket, c.now, &message), c.code);
    EXPECT_EQ(message, c.message);
  }
}

TEST(PostPolicyTest, ObjectKeyReplacesFilename) {
  struct Case {
    std::string key, filename, want;
  } cases[] = {
      {"uploads/${filename}", "photo.jpg", "uploads/photo.jpg"},
      {"uploads/${filename}", "C:\\docs\\photo.jpg", "uploads/photo.jpg"},
      {"uploads/${filename}", "/home/me/photo.jpg", "uploads/photo.jpg"},
      {"${filename}.bak/${filename}", "a", "a.bak/${filename}"},  // the first only
      {"plain", "photo.jpg", "plain"},
      {"uploads/${filename}", "", "uploads/"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(PostObjectKey(c.key, c.filename), c.want) << c.key << " " << c.filename;
  }
}

// A condition naming the file holds for the key S3 writes, ${filename} replaced; the key field
// as sent would fail it.
TEST(PostPolicyTest, KeyConditionsSeeTheFilesName) {
  PostPolicy policy;
  std::string message;
  ASSERT_EQ(ParsePostPolicy(Doc(R"(["eq", "$key", "uploads/photo.jpg"])"), &policy, &message),
            ErrorCode::kNone);
  const std::string key = PostObjectKey("uploads/${filename}", "photo.jpg");
  EXPECT_EQ(CheckPostPolicy(policy, {{"key", key}}, "b", kNow, &message), ErrorCode::kNone)
      << message;
  EXPECT_EQ(CheckPostPolicy(policy, {{"key", PostObjectKey("uploads/${filename}", "other.jpg")}},
                            "b", kNow, &message),
            ErrorCode::kAccessDenied);
}

TEST(PostPolicyTest, ReadPostPolicy) {
  const std::string doc = Doc(R"({"bucket": "b"}, ["starts-with", "$key", "u/"])");
  struct Case {
    std::string name;
    std::vector<FormField> fields;
    ErrorCode code;
    std::string message;  // "": any
  };
  const std::vector<Case> cases = {
      {"ok", {{"key", "u/1"}, {"policy", text::Base64Encode(doc)}}, ErrorCode::kNone, ""},
      {"not base64",
       {{"key", "u/1"}, {"policy", "%%%"}},
       ErrorCode::kInvalidPolicyDocument,
       "Invalid Policy: Invalid Base64 encoding."},
      {"no policy field",
       {{"key", "u/1"}},
       ErrorCode::kInvalidPolicyDocument,
       "Invalid Policy: Invalid Base64 encoding."},
      {"not JSON",
       {{"key", "u/1"}, {"policy", text::Base64Encode("{")}},
       ErrorCode::kInvalidPolicyDocument,
       "Invalid Policy: Invalid JSON."},
      {"condition failed",
       {{"key", "v/1"}, {"policy", text::Base64Encode(doc)}},
       ErrorCode::kAccessDenied,
       "Invalid according to Policy: Policy Condition failed: [\"starts-with\", \"$key\", \"u/\"]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    PostPolicy policy;
    std::string message;
    EXPECT_EQ(ReadPostPolicy(c.fields, "b", kNow, &policy, &message), c.code);
    if (!c.message.empty()) {
      EXPECT_EQ(message, c.message);
    }
    if (c.code == ErrorCode::kNone) {
      EXPECT_EQ(policy.conditions.size(), 2u);
    }
  }
}

}  // namespace
}  // namespace cubby::s3api
