// The JSON the KMS API answers with (application/x-amz-json-1.1): a small streaming writer.
// Requests are read with text/json.h's strict reader (RFC 8259, \u escapes and surrogate pairs
// decoded, lone surrogates refused, depth-limited), so this file only writes.
//   https://www.rfc-editor.org/rfc/rfc8259
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cubby::kms {

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

}  // namespace cubby::kms
