#include "kms/json.h"

#include <cassert>
#include <cstdio>

#include "text/utf8.h"

namespace cubby::kms {

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  while (!s.empty()) {
    const unsigned char c = static_cast<unsigned char>(s.front());
    if (c < 0x80) {
      switch (c) {
        case '"':
          out->append("\\\"");
          break;
        case '\\':
          out->append("\\\\");
          break;
        case '\b':
          out->append("\\b");
          break;
        case '\f':
          out->append("\\f");
          break;
        case '\n':
          out->append("\\n");
          break;
        case '\r':
          out->append("\\r");
          break;
        case '\t':
          out->append("\\t");
          break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof(buf), "\\u%04x", c);
            out->append(buf);
          } else {
            out->push_back(static_cast<char>(c));
          }
      }
      s.remove_prefix(1);
      continue;
    }
    char32_t cp = 0;
    const size_t n = text::DecodeUtf8(s, &cp);
    if (n > 0) {
      out->append(s.substr(0, n));
      s.remove_prefix(n);
      continue;
    }
    // Ill-formed: one U+FFFD for the lead byte and the continuation bytes that follow it
    // (at most 3), the "maximal subpart" practice of Unicode §3.9 close enough for a reply.
    out->append("\xEF\xBF\xBD");
    s.remove_prefix(1);
    for (int i = 0; i < 3 && !s.empty() && (static_cast<unsigned char>(s.front()) & 0xC0) == 0x80;
         ++i) {
      s.remove_prefix(1);
    }
  }
  out->push_back('"');
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  assert(nonempty_.empty() || !is_object_.back());  // inside an object a value needs a Key()
  if (!nonempty_.empty()) {
    if (nonempty_.back()) out_.push_back(',');
    nonempty_.back() = true;
  }
}

JsonWriter& JsonWriter::BeginObject() {
  BeforeValue();
  out_.push_back('{');
  nonempty_.push_back(false);
  is_object_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  assert(!is_object_.empty() && is_object_.back() && !after_key_);
  out_.push_back('}');
  nonempty_.pop_back();
  is_object_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  BeforeValue();
  out_.push_back('[');
  nonempty_.push_back(false);
  is_object_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  assert(!is_object_.empty() && !is_object_.back());
  out_.push_back(']');
  nonempty_.pop_back();
  is_object_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view name) {
  assert(!is_object_.empty() && is_object_.back() && !after_key_);
  if (nonempty_.back()) out_.push_back(',');
  nonempty_.back() = true;
  AppendJsonString(name, &out_);
  out_.push_back(':');
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view value) {
  BeforeValue();
  AppendJsonString(value, &out_);
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  BeforeValue();
  out_.append(value ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t value) {
  BeforeValue();
  out_.append(std::to_string(value));
  return *this;
}

JsonWriter& JsonWriter::EpochSeconds(int64_t ms) {
  BeforeValue();
  if (ms < 0) {
    out_.push_back('-');
    ms = -ms;
  }
  const int64_t seconds = ms / 1000;
  const int64_t frac = ms % 1000;
  out_.append(std::to_string(seconds));
  if (frac != 0) {
    char buf[8];
    std::snprintf(buf, sizeof(buf), ".%03d", static_cast<int>(frac));
    std::string f(buf);
    while (f.back() == '0') f.pop_back();
    out_.append(f);
  }
  return *this;
}

JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_.append("null");
  return *this;
}

}  // namespace cubby::kms
