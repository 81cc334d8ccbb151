// Fuzzes POST Object's policy document (s3api/post_policy.h): ParsePostPolicy on the input, and
// an accepted policy checked (CheckPostPolicy) against a few forms: fixed ones and one made of
// the policy's own conditions (which must then pass, unless expired). The input's lines after a
// NUL byte also become form fields ("name=value") for AuthenticatePostForm
// (s3api/auth/post_form.h) with a fixed key.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "s3api/auth/post_form.h"
#include "s3api/post_policy.h"

namespace {

namespace s3api = cubby::s3api;
namespace storage = cubby::storage;

constexpr int64_t kNow = 1767225600000;  // 2026-01-01T00:00:00Z

std::vector<s3api::FormField> FieldsOf(std::string_view text) {
  std::vector<s3api::FormField> out;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    const size_t eq = line.find('=');
    out.push_back({std::string(line.substr(0, eq)),
                   eq == std::string_view::npos ? "" : std::string(line.substr(eq + 1))});
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view doc = input.substr(0, nul);
  const std::string_view rest = nul == std::string_view::npos ? "" : input.substr(nul + 1);

  s3api::PostPolicy policy;
  std::string message;
  const s3api::ErrorCode parsed = s3api::ParsePostPolicy(doc, &policy, &message);
  if (parsed != s3api::ErrorCode::kNone) {
    if (parsed != s3api::ErrorCode::kInvalidPolicyDocument || message.empty()) std::abort();
  } else {
    // A form made of the policy's own eq values (first condition per field wins) and
    // starts-with prefixes passes every condition it names, unless two conditions on one
    // field disagree; it only must not crash, and an expired policy must say so.
    std::vector<s3api::FormField> own;
    for (const s3api::PostCondition& c : policy.conditions) {
      if (s3api::FindFormField(own, c.field) == nullptr) own.push_back({c.field, c.value});
    }
    message.clear();
    const s3api::ErrorCode checked = s3api::CheckPostPolicy(policy, own, "bucket", kNow, &message);
    if (checked != s3api::ErrorCode::kNone &&
        (checked != s3api::ErrorCode::kAccessDenied || message.empty())) {
      std::abort();
    }
    message.clear();
    (void)s3api::CheckPostPolicy(policy, FieldsOf(rest), "bucket", kNow, &message);
    if (policy.expiration_ms < kNow &&
        s3api::CheckPostPolicy(policy, own, "bucket", kNow, &message) !=
            s3api::ErrorCode::kAccessDenied) {
      std::abort();
    }
  }

  const cubby::s3api::auth::KeyLookup lookup =
      [](std::string_view id) -> std::optional<storage::AccessKeyRecord> {
    if (id != "AKIAIOSFODNN7EXAMPLE") return std::nullopt;
    storage::AccessKeyRecord r;
    r.access_key_id = std::string(id);
    r.secret = storage::SecretKey("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
    return r;
  };
  const cubby::s3api::auth::AuthResult who =
      s3api::auth::AuthenticatePostForm(FieldsOf(rest), "us-east-1", lookup);
  if (who.error == s3api::ErrorCode::kNone && !who.anonymous && !who.key) std::abort();
  return 0;
}
