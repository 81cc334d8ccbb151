// JSON both ways: a strict reader into a small tree, for documents clients send (bucket and user
// policies, KMS and admin requests), and a small streaming writer for the answers (the KMS API,
// the admin endpoints). Strict means: exactly the grammar of RFC 8259 §2-7 (no comments, no
// trailing commas, no single quotes, no NaN, no leading zeros or '+', no bare control characters
// in strings), strings in well-formed UTF-8 (RFC 8259 §8.1) with every \u escape decoded and a
// lone surrogate refused, at most kMaxJsonDepth nested arrays and objects, and nothing after the
// value but whitespace. No exceptions; any input (of any bytes) is safe to give it.
//   https://www.rfc-editor.org/rfc/rfc8259
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cubby::text {

// Arrays and objects nested deeper than this are refused (the reader recurses once per level).
inline constexpr int kMaxJsonDepth = 64;

enum class JsonType { kNull, kBool, kNumber, kString, kArray, kObject };

struct JsonMember;

// One value. Which fields mean something depends on `type`:
//   kBool: `boolean`; kNumber: `text` (the number exactly as written, e.g. "-1.50e3");
//   kString: `text` (decoded: escapes replaced, well-formed UTF-8, may hold NUL bytes);
//   kArray: `items`; kObject: `members`, in document order. An object may name a member twice:
//   both are kept, in order (RFC 8259 leaves duplicates to the application; see FindDuplicate).
struct JsonValue {
  JsonType type = JsonType::kNull;
  bool boolean = false;
  std::string text;
  std::vector<JsonValue> items;
  std::vector<JsonMember> members;

  // The first member named `name` (compared exactly, as JSON does), or null. REQUIRES: kObject
  // for a non-null answer (other types have no members).
  const JsonValue* Find(std::string_view name) const;
  // The name of the first member whose name an earlier member already has, or nullopt.
  std::optional<std::string_view> FindDuplicate() const;
  // A kNumber's value as a double (nearest, as strtod rounds; ±inf past the range); nullopt for
  // any other type.
  std::optional<double> Number() const;
};

struct JsonMember {
  std::string name;
  JsonValue value;
};

// Where and why a document was refused: `offset` is the byte at which reading stopped.
struct JsonError {
  size_t offset = 0;
  std::string reason;  // short and fixed, e.g. "unterminated string", "invalid \\u escape"
};

// Reads `doc`, which must be one JSON value with optional whitespace around it and at most
// `max_bytes` long. True and the tree in *out on success; false and *error (when non-null) on
// any deviation from the grammar above (*out is then unspecified). Runs in time linear in
// doc.size().
[[nodiscard]] bool ParseJson(std::string_view doc, size_t max_bytes, JsonValue* out,
                             JsonError* error);

// Appends `s` as a JSON string (with its quotes) to *out: '"', '\\' and the control characters
// U+0000-U+001F escaped (\b \f \n \r \t, else \u00XX), DEL and everything else as is; each
// maximal ill-formed UTF-8 subsequence (text/utf8.h's DecodeUtf8 refuses it) becomes U+FFFD, so
// the output is always well-formed UTF-8 whatever bytes `s` holds.
void AppendJsonString(std::string_view s, std::string* out);

// Writes one JSON document. Values inside an object must follow a Key(); the writer adds the
// commas and colons. REQUIRES (asserted): Begin/End calls balanced and matching, Key() only
// directly inside an object. Not thread-safe (one per response).
class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view name);
  JsonWriter& String(std::string_view value);
  JsonWriter& Bool(bool value);
  JsonWriter& Int(int64_t value);
  // Milliseconds since the epoch as the number of seconds AWS's JSON protocols use for a
  // timestamp, with the milliseconds as a fraction: 1700000000123 → 1700000000.123,
  // 1700000000000 → 1700000000.
  JsonWriter& EpochSeconds(int64_t ms);
  JsonWriter& Null();

  const std::string& str() const { return out_; }

 private:
  void BeforeValue();

  std::string out_;
  // One entry per open object or array: true once it holds an element.
  std::vector<bool> nonempty_;
  std::vector<bool> is_object_;
  bool after_key_ = false;
};

}  // namespace cubby::text
