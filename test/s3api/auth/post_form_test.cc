// A POST form's signature (s3api/auth/post_form.h): SigV2 with AWS's published example, SigV4
// with the signing key of the SigV4 vectors, and each error.
#include "s3api/auth/post_form.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "s3api/auth/sigv4.h"
#include "text/encoding.h"

namespace cubby::s3api::auth {
namespace {

std::string Doc(const std::string& conditions) {
  return "{\"expiration\": \"2030-01-01T00:00:00.000Z\", \"conditions\": [" + conditions + "]}";
}

constexpr char kKeyId[] = "AKIAIOSFODNN7EXAMPLE";
constexpr char kSecret[] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

KeyLookup Lookup(const std::string& secret = kSecret) {
  return [secret](std::string_view id) -> std::optional<storage::AccessKeyRecord> {
    if (id != kKeyId) return std::nullopt;
    storage::AccessKeyRecord r;
    r.access_key_id = kKeyId;
    r.secret = storage::SecretKey(secret);
    return r;
  };
}

TEST(PostFormTest, AuthenticateSigV2WithAwsExample) {
  // https://docs.aws.amazon.com/AmazonS3/latest/userguide/HTTPPOSTExamples.html (SigV2)
  const std::string policy =
      "eyAiZXhwaXJhdGlvbiI6ICIyMDA3LTEyLTAxVDEyOjAwOjAwLjAwMFoiLAogICJjb25kaXRpb25zIjogWwogICAgey"
      "JidWNrZXQiOiAiam9obnNtaXRoIiB9LAogICAgWyJzdGFydHMtd2l0aCIsICIka2V5IiwgInVzZXIvZXJpYy8iXSwK"
      "ICAgIHsiYWNsIjogInB1YmxpYy1yZWFkIiB9LAogICAgeyJyZWRpcmVjdCI6ICJodHRwOi8vam9obnNtaXRoLnMzLm"
      "FtYXpvbmF3cy5jb20vc3VjY2Vzc2Z1bF91cGxvYWQuaHRtbCIgfSwKICAgIFsic3RhcnRzLXdpdGgiLCAiJENvbnRl"
      "bnQtVHlwZSIsICJpbWFnZS8iXSwKICAgIHsieC1hbXotbWV0YS11dWlkIjogIjE0MzY1MTIzNjUxMjc0In0sCiAgIC"
      "BbInN0YXJ0cy13aXRoIiwgIiR4LWFtei1tZXRhLXRhZyIsICIiXSwKICBdCn0K";
  const KeyLookup lookup = Lookup("uV3F3YluFJax1cknvbcGwgjvx4QpvB+leU8dUj2o");
  std::vector<FormField> fields = {{"awsaccesskeyid", kKeyId},
                                   {"policy", policy},
                                   {"signature", "2qCp0odXe7A9IYyUVqn0w2adtCA="}};
  AuthResult r = AuthenticatePostForm(fields, "us-east-1", lookup);
  EXPECT_EQ(r.error, ErrorCode::kNone);
  EXPECT_FALSE(r.anonymous);
  EXPECT_EQ(r.signature_version, 2);
  fields[2].value = "3qCp0odXe7A9IYyUVqn0w2adtCA=";
  EXPECT_EQ(AuthenticatePostForm(fields, "us-east-1", lookup).error,
            ErrorCode::kSignatureDoesNotMatch);
}

TEST(PostFormTest, Authenticate) {
  const std::string policy = text::Base64Encode(Doc(""));
  const std::string signature =
      sigv4::Signature(sigv4::SigningKey(kSecret, "20260101", "us-east-1", "s3"), policy);
  using Fields = std::vector<FormField>;
  const Fields v4 = {
      {"x-amz-algorithm", "AWS4-HMAC-SHA256"},
      {"x-amz-credential", std::string(kKeyId) + "/20260101/us-east-1/s3/aws4_request"},
      {"x-amz-date", "20260101T000000Z"},
      {"policy", policy},
      {"x-amz-signature", signature}};
  auto without = [](Fields f, const std::string& name) {
    std::erase_if(f, [&](const FormField& x) { return x.name == name; });
    return f;
  };
  auto replace = [](Fields f, const std::string& name, const std::string& value) {
    for (FormField& x : f) {
      if (x.name == name) x.value = value;
    }
    return f;
  };
  struct Case {
    std::string name;
    Fields fields;
    ErrorCode code;
    std::string message;
    bool anonymous;
  };
  const std::vector<Case> cases = {
      {"sigv4", v4, ErrorCode::kNone, "", false},
      {"anonymous", Fields{{"key", "k"}}, ErrorCode::kNone, "", true},
      {"policy alone", Fields{{"policy", policy}}, ErrorCode::kInvalidArgument,
       MissingPostField("AWSAccessKeyId"), true},
      {"no algorithm", without(v4, "x-amz-algorithm"), ErrorCode::kInvalidArgument,
       MissingPostField("x-amz-algorithm"), true},
      {"no credential", without(v4, "x-amz-credential"), ErrorCode::kInvalidArgument,
       MissingPostField("x-amz-credential"), true},
      {"no date", without(v4, "x-amz-date"), ErrorCode::kInvalidArgument,
       MissingPostField("x-amz-date"), true},
      {"no signature", without(v4, "x-amz-signature"), ErrorCode::kInvalidArgument,
       MissingPostField("x-amz-signature"), true},
      {"no policy", without(v4, "policy"), ErrorCode::kInvalidArgument, MissingPostField("policy"),
       true},
      {"other algorithm", replace(v4, "x-amz-algorithm", "AWS4-HMAC-SHA1"),
       ErrorCode::kInvalidArgument, "", true},
      {"bad credential", replace(v4, "x-amz-credential", "nonsense"),
       ErrorCode::kAuthorizationQueryParametersError, "", true},
      {"other region",
       replace(v4, "x-amz-credential", std::string(kKeyId) + "/20260101/eu-west-1/s3/aws4_request"),
       ErrorCode::kAuthorizationQueryParametersError, "", true},
      {"unknown key",
       replace(v4, "x-amz-credential", "AKIDOTHER/20260101/us-east-1/s3/aws4_request"),
       ErrorCode::kInvalidAccessKeyId, "", true},
      {"wrong signature", replace(v4, "x-amz-signature", std::string(64, '0')),
       ErrorCode::kSignatureDoesNotMatch, "", true},
      {"policy changed", replace(v4, "policy", text::Base64Encode(Doc("{\"a\": \"b\"}"))),
       ErrorCode::kSignatureDoesNotMatch, "", true},
      {"sigv2 without signature", Fields{{"awsaccesskeyid", kKeyId}, {"policy", policy}},
       ErrorCode::kInvalidArgument, MissingPostField("signature"), true},
      {"sigv2 without key id", Fields{{"signature", "x"}, {"policy", policy}},
       ErrorCode::kInvalidArgument, MissingPostField("AWSAccessKeyId"), true},
      {"sigv2 without policy", Fields{{"awsaccesskeyid", kKeyId}, {"signature", "x"}},
       ErrorCode::kInvalidArgument, MissingPostField("policy"), true},
      {"sigv2 unknown key",
       Fields{{"awsaccesskeyid", "nobody"}, {"signature", "x"}, {"policy", policy}},
       ErrorCode::kInvalidAccessKeyId, "", true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    AuthResult r = AuthenticatePostForm(c.fields, "us-east-1", Lookup());
    EXPECT_EQ(r.error, c.code);
    if (!c.message.empty()) {
      EXPECT_EQ(r.error_message, c.message);
    }
    EXPECT_EQ(r.anonymous, c.anonymous);
  }
  EXPECT_EQ(MissingPostField("key"),
            "Bucket POST must contain a field named 'key'.  If it is specified, please check the "
            "order of the fields.");
}

}  // namespace
}  // namespace cubby::s3api::auth
