// POST Object's form signature (SigV4 or SigV2 over the policy field).
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-authentication-HTTPPOST.html
#include "s3api/auth/post_form.h"

#include <optional>
#include <utility>

#include "s3api/auth/crypto.h"
#include "s3api/auth/sigv2.h"
#include "s3api/auth/sigv4.h"
#include "text/ascii.h"

namespace cubby::s3api::auth {

std::string MissingPostField(std::string_view name) {
  return "Bucket POST must contain a field named '" + std::string(name) +
         "'.  If it is specified, please check the order of the fields.";
}

AuthResult AuthenticatePostForm(const std::vector<FormField>& fields, std::string_view region,
                                const KeyLookup& lookup) {
  const std::string* policy = FindFormField(fields, "policy");
  const std::string* algorithm = FindFormField(fields, "x-amz-algorithm");
  const std::string* credential = FindFormField(fields, "x-amz-credential");
  const std::string* signature4 = FindFormField(fields, "x-amz-signature");
  const std::string* key_id = FindFormField(fields, "awsaccesskeyid");
  const std::string* signature2 = FindFormField(fields, "signature");
  auto missing = [](std::string_view name) {
    return Refuse(ErrorCode::kInvalidArgument, MissingPostField(name));
  };

  if (algorithm != nullptr || credential != nullptr || signature4 != nullptr) {
    const std::string* date = FindFormField(fields, "x-amz-date");
    if (algorithm == nullptr) return missing("x-amz-algorithm");
    if (credential == nullptr) return missing("x-amz-credential");
    if (date == nullptr) return missing("x-amz-date");
    if (signature4 == nullptr) return missing("x-amz-signature");
    if (policy == nullptr) return missing("policy");
    if (*algorithm != "AWS4-HMAC-SHA256") {
      return Refuse(ErrorCode::kInvalidArgument,
                    "Only AWS4-HMAC-SHA256 is supported as x-amz-algorithm.");
    }
    std::optional<sigv4::Credential> cred = sigv4::ParseCredential(*credential);
    if (!cred) {
      return Refuse(ErrorCode::kAuthorizationQueryParametersError,
                    "Error parsing the X-Amz-Credential parameter; the Credential is "
                    "mal-formed; expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/"
                    "aws4_request\".");
    }
    const std::string why = sigv4::CheckScope(*cred, cred->date, region);
    if (!why.empty()) {
      AuthResult refused = Refuse(ErrorCode::kAuthorizationQueryParametersError,
                                  "Error parsing the X-Amz-Credential parameter; " + why);
      if (cred->region != region) refused.error_region = std::string(region);
      return refused;
    }
    std::optional<storage::AccessKeyRecord> key = lookup(cred->access_key_id);
    if (!key) return Refuse(ErrorCode::kInvalidAccessKeyId);
    const std::string signing_key =
        sigv4::CachedSigningKey(key->secret.reveal(), cred->date, region, "s3");
    const std::string expected = sigv4::Signature(signing_key, *policy);
    if (!ConstantTimeEquals(expected, text::AsciiLowercase(*signature4))) {
      return Refuse(ErrorCode::kSignatureDoesNotMatch);
    }
    return Accept(std::move(*key), 4);
  }
  if (key_id != nullptr || signature2 != nullptr) {
    if (key_id == nullptr) return missing("AWSAccessKeyId");
    if (signature2 == nullptr) return missing("signature");
    if (policy == nullptr) return missing("policy");
    std::optional<storage::AccessKeyRecord> key = lookup(*key_id);
    if (!key) return Refuse(ErrorCode::kInvalidAccessKeyId);
    const std::string expected = sigv2::Signature(key->secret.reveal(), *policy);
    if (!ConstantTimeEquals(expected, *signature2)) {
      return Refuse(ErrorCode::kSignatureDoesNotMatch);
    }
    return Accept(std::move(*key), 2);
  }
  if (policy != nullptr) return missing("AWSAccessKeyId");
  return AuthResult{};
}

}  // namespace cubby::s3api::auth
