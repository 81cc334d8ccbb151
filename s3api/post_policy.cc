// POST Object's policy.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html
#include "s3api/post_policy.h"

#include "text/ascii.h"
#include "text/encoding.h"
#include "text/iso8601.h"
#include "text/json.h"

namespace cubby::s3api {

namespace {

ErrorCode Invalid(std::string* message, std::string_view why) {
  *message = "Invalid Policy: " + std::string(why);
  return ErrorCode::kInvalidPolicyDocument;
}

// A content-length-range bound: a JSON integer (or a string of digits, as some SDKs send).
bool LengthBound(const text::JsonValue& v, uint64_t* out) {
  if (v.type != text::JsonType::kNumber && v.type != text::JsonType::kString) return false;
  return text::ParseUint64(v.text, out);
}

bool Exempt(std::string_view name) {
  return name == "policy" || name == "file" || name == "x-amz-signature" || name == "signature" ||
         name == "awsaccesskeyid" || name.starts_with("x-ignore-");
}

// ["eq", "$key", "v"] as AWS quotes a failed condition.
std::string Quoted(const PostCondition& c) {
  std::string out = "[\"";
  out += c.kind == PostCondition::Kind::kEq ? "eq" : "starts-with";
  out += "\", \"$" + c.field + "\", \"" + c.value + "\"]";
  return out;
}

}  // namespace

std::string PostObjectKey(std::string_view key_field, std::string_view filename) {
  std::string key(key_field);
  constexpr std::string_view kPlaceholder = "${filename}";
  if (const size_t at = key.find(kPlaceholder); at != std::string::npos) {
    const size_t slash = filename.find_last_of("/\\");
    key.replace(at, kPlaceholder.size(),
                slash == std::string_view::npos ? filename : filename.substr(slash + 1));
  }
  return key;
}

ErrorCode ParsePostPolicy(std::string_view json, PostPolicy* out, std::string* message) {
  *out = PostPolicy{};
  text::JsonValue doc;
  if (!text::ParseJson(json, kMaxPostPolicyBytes, &doc, nullptr) ||
      doc.type != text::JsonType::kObject) {
    return Invalid(message, "Invalid JSON.");
  }
  const text::JsonValue* expiration = doc.Find("expiration");
  if (expiration == nullptr) return Invalid(message, "Policy missing expiration.");
  std::optional<text::TimePoint> when;
  if (expiration->type == text::JsonType::kString) {
    when = text::ParseIso8601Extended(expiration->text);
  }
  if (!when) return Invalid(message, "Invalid 'expiration' value.");
  out->expiration_ms = text::ToUnixMillis(*when);
  const text::JsonValue* conditions = doc.Find("conditions");
  if (conditions == nullptr) return Invalid(message, "Policy missing conditions.");
  if (conditions->type != text::JsonType::kArray) {
    return Invalid(message, "Invalid 'conditions' value: must be a list.");
  }
  for (const text::JsonValue& item : conditions->items) {
    if (item.type == text::JsonType::kObject) {
      // {"field": "value"}: an exact match.
      if (item.members.size() != 1) {
        return Invalid(message, "Invalid Simple-Condition: too many fields.");
      }
      const text::JsonMember& m = item.members.front();
      if (m.value.type != text::JsonType::kString) {
        return Invalid(message, "Invalid Simple-Condition: value must be a string.");
      }
      std::string field = text::AsciiLowercase(m.name);
      if (field.starts_with('$')) field.erase(0, 1);
      out->conditions.push_back({PostCondition::Kind::kEq, std::move(field), m.value.text});
      continue;
    }
    if (item.type != text::JsonType::kArray || item.items.size() != 3 ||
        item.items[0].type != text::JsonType::kString) {
      return Invalid(message, "Invalid Condition: must be a list of three elements or an object.");
    }
    const std::string op = text::AsciiLowercase(item.items[0].text);
    if (op == "content-length-range") {
      uint64_t min = 0, max = 0;
      if (!LengthBound(item.items[1], &min) || !LengthBound(item.items[2], &max) || min > max) {
        return Invalid(message,
                       "Invalid content-length-range: must be two non-negative "
                       "integers, the first no larger than the second.");
      }
      out->min_length = std::max(out->min_length.value_or(0), min);
      out->max_length = std::min(out->max_length.value_or(max), max);
      continue;
    }
    PostCondition c;
    if (op == "eq") {
      c.kind = PostCondition::Kind::kEq;
    } else if (op == "starts-with") {
      c.kind = PostCondition::Kind::kStartsWith;
    } else {
      return Invalid(message, "Invalid Condition: unknown operation '" + item.items[0].text + "'.");
    }
    if (item.items[1].type != text::JsonType::kString || !item.items[1].text.starts_with('$') ||
        item.items[2].type != text::JsonType::kString) {
      return Invalid(message,
                     "Invalid Condition: the field must be a string starting with '$' "
                     "and the value a string.");
    }
    c.field = text::AsciiLowercase(std::string_view(item.items[1].text).substr(1));
    c.value = item.items[2].text;
    out->conditions.push_back(std::move(c));
  }
  return ErrorCode::kNone;
}

ErrorCode CheckPostPolicy(const PostPolicy& policy, const std::vector<FormField>& fields,
                          std::string_view bucket, int64_t now_ms, std::string* message) {
  if (now_ms > policy.expiration_ms) {
    *message = "Invalid according to Policy: Policy expired.";
    return ErrorCode::kAccessDenied;
  }
  for (const PostCondition& c : policy.conditions) {
    const std::string* sent = FindFormField(fields, c.field);
    std::string_view value = sent != nullptr ? std::string_view(*sent) : std::string_view();
    if (sent == nullptr && c.field == "bucket") value = bucket;
    const bool holds =
        c.kind == PostCondition::Kind::kEq ? value == c.value : value.starts_with(c.value);
    if (!holds) {
      *message = "Invalid according to Policy: Policy Condition failed: " + Quoted(c);
      return ErrorCode::kAccessDenied;
    }
  }
  for (const FormField& f : fields) {
    if (Exempt(f.name)) continue;
    bool named = false;
    for (const PostCondition& c : policy.conditions) named = named || c.field == f.name;
    if (!named) {
      *message = "Invalid according to Policy: Extra input fields: " + f.name;
      return ErrorCode::kAccessDenied;
    }
  }
  return ErrorCode::kNone;
}

ErrorCode ReadPostPolicy(const std::vector<FormField>& fields, std::string_view bucket,
                         int64_t now_ms, PostPolicy* out, std::string* message) {
  const std::string* field = FindFormField(fields, "policy");
  std::string json;
  if (field == nullptr || !text::Base64Decode(*field, &json)) {
    *message = "Invalid Policy: Invalid Base64 encoding.";
    return ErrorCode::kInvalidPolicyDocument;
  }
  if (ErrorCode e = ParsePostPolicy(json, out, message); e != ErrorCode::kNone) return e;
  return CheckPostPolicy(*out, fields, bucket, now_ms, message);
}

}  // namespace cubby::s3api
