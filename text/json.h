// A strict JSON reader (RFC 8259) into a small tree, for documents clients send: bucket and user
// policies today. Strict means: exactly the grammar of RFC 8259 §2-7 (no comments, no trailing
// commas, no single quotes, no NaN, no leading zeros or '+', no bare control characters in
// strings), strings in well-formed UTF-8 (RFC 8259 §8.1) with every \u escape decoded and a lone
// surrogate refused, at most kMaxJsonDepth nested arrays and objects, and nothing after the
// value but whitespace. No exceptions; any input (of any bytes) is safe to give it.
//   https://www.rfc-editor.org/rfc/rfc8259
#pragma once

#include <cstddef>
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

}  // namespace cubby::text
