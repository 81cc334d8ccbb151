#include "text/json.h"

#include <cassert>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <system_error>

#include "text/utf8.h"

namespace cubby::text {

const JsonValue* JsonValue::Find(std::string_view name) const {
  for (const JsonMember& m : members) {
    if (m.name == name) return &m.value;
  }
  return nullptr;
}

std::optional<std::string_view> JsonValue::FindDuplicate() const {
  // Objects in policies have a handful of members: a quadratic scan beats building a set.
  for (size_t i = 1; i < members.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (members[i].name == members[j].name) return std::string_view(members[i].name);
    }
  }
  return std::nullopt;
}

std::optional<double> JsonValue::Number() const {
  if (type != JsonType::kNumber) return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    // from_chars leaves the value unchanged on overflow and underflow; strtod saturates as the
    // contract says (the text is a valid JSON number, so strtod reads all of it).
    return std::strtod(text.c_str(), nullptr);
  }
  return value;
}

namespace {

class Reader {
 public:
  explicit Reader(std::string_view doc) : doc_(doc) {}

  bool Document(JsonValue* out) {
    SkipSpace();
    if (!Value(out, 0)) return false;
    SkipSpace();
    if (pos_ != doc_.size()) return Fail("unexpected data after the value");
    return true;
  }

  JsonError error() const { return {pos_, reason_}; }

 private:
  bool Fail(const char* reason) {
    reason_ = reason;
    return false;
  }
  bool AtEnd() const { return pos_ >= doc_.size(); }
  char Peek() const { return doc_[pos_]; }

  void SkipSpace() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\n' || Peek() == '\r')) {
      ++pos_;
    }
  }

  bool Literal(std::string_view word) {
    if (doc_.substr(pos_, word.size()) != word) return Fail("invalid literal");
    pos_ += word.size();
    return true;
  }

  bool Value(JsonValue* out, int depth) {
    if (AtEnd()) return Fail("unexpected end of input");
    switch (Peek()) {
      case '{':
        return Object(out, depth + 1);
      case '[':
        return Array(out, depth + 1);
      case '"':
        out->type = JsonType::kString;
        return String(&out->text);
      case 't':
        out->type = JsonType::kBool;
        out->boolean = true;
        return Literal("true");
      case 'f':
        out->type = JsonType::kBool;
        out->boolean = false;
        return Literal("false");
      case 'n':
        out->type = JsonType::kNull;
        return Literal("null");
      default:
        out->type = JsonType::kNumber;
        return Number(&out->text);
    }
  }

  bool Object(JsonValue* out, int depth) {
    if (depth > kMaxJsonDepth) return Fail("nested too deeply");
    out->type = JsonType::kObject;
    ++pos_;  // '{'
    SkipSpace();
    if (!AtEnd() && Peek() == '}') {
      ++pos_;
      return true;
    }
    while (true) {
      SkipSpace();
      if (AtEnd() || Peek() != '"') return Fail("expected a member name");
      JsonMember& member = out->members.emplace_back();
      if (!String(&member.name)) return false;
      SkipSpace();
      if (AtEnd() || Peek() != ':') return Fail("expected ':'");
      ++pos_;
      SkipSpace();
      if (!Value(&member.value, depth)) return false;
      SkipSpace();
      if (AtEnd()) return Fail("unterminated object");
      if (Peek() == '}') {
        ++pos_;
        return true;
      }
      if (Peek() != ',') return Fail("expected ',' or '}'");
      ++pos_;
    }
  }

  bool Array(JsonValue* out, int depth) {
    if (depth > kMaxJsonDepth) return Fail("nested too deeply");
    out->type = JsonType::kArray;
    ++pos_;  // '['
    SkipSpace();
    if (!AtEnd() && Peek() == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      SkipSpace();
      if (!Value(&out->items.emplace_back(), depth)) return false;
      SkipSpace();
      if (AtEnd()) return Fail("unterminated array");
      if (Peek() == ']') {
        ++pos_;
        return true;
      }
      if (Peek() != ',') return Fail("expected ',' or ']'");
      ++pos_;
    }
  }

  bool Digits() {
    size_t start = pos_;
    while (!AtEnd() && Peek() >= '0' && Peek() <= '9') ++pos_;
    return pos_ > start;
  }

  // number = [ minus ] int [ frac ] [ exp ] (RFC 8259 §6).
  bool Number(std::string* out) {
    size_t start = pos_;
    if (!AtEnd() && Peek() == '-') ++pos_;
    if (AtEnd()) return Fail("invalid number");
    if (Peek() == '0') {
      ++pos_;
      if (!AtEnd() && Peek() >= '0' && Peek() <= '9') return Fail("leading zero in a number");
    } else if (!Digits()) {
      return Fail(pos_ == start ? "unexpected character" : "invalid number");
    }
    if (!AtEnd() && Peek() == '.') {
      ++pos_;
      if (!Digits()) return Fail("invalid number");
    }
    if (!AtEnd() && (Peek() == 'e' || Peek() == 'E')) {
      ++pos_;
      if (!AtEnd() && (Peek() == '+' || Peek() == '-')) ++pos_;
      if (!Digits()) return Fail("invalid number");
    }
    out->assign(doc_.substr(start, pos_ - start));
    return true;
  }

  bool Hex4(uint32_t* out) {
    if (doc_.size() - pos_ < 4) return Fail("invalid \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = doc_[pos_ + i];
      int d;
      if (c >= '0' && c <= '9') {
        d = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        d = c - 'A' + 10;
      } else {
        return Fail("invalid \\u escape");
      }
      v = v * 16 + static_cast<uint32_t>(d);
    }
    pos_ += 4;
    *out = v;
    return true;
  }

  // After "\u": one escaped scalar value, or a surrogate pair written as two escapes.
  bool Unicode(std::string* out) {
    uint32_t unit = 0;
    if (!Hex4(&unit)) return false;
    if (unit >= 0xDC00 && unit <= 0xDFFF) return Fail("lone low surrogate");
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      if (doc_.substr(pos_, 2) != "\\u") return Fail("lone high surrogate");
      pos_ += 2;
      uint32_t low = 0;
      if (!Hex4(&low)) return false;
      if (low < 0xDC00 || low > 0xDFFF) return Fail("lone high surrogate");
      unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
    }
    AppendUtf8(static_cast<char32_t>(unit), out);
    return true;
  }

  bool String(std::string* out) {
    ++pos_;  // '"'
    out->clear();
    while (true) {
      if (AtEnd()) return Fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(Peek());
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return Fail("control character in a string");
      if (c == '\\') {
        ++pos_;
        if (AtEnd()) return Fail("unterminated string");
        char e = Peek();
        ++pos_;
        switch (e) {
          case '"':
            out->push_back('"');
            break;
          case '\\':
            out->push_back('\\');
            break;
          case '/':
            out->push_back('/');
            break;
          case 'b':
            out->push_back('\b');
            break;
          case 'f':
            out->push_back('\f');
            break;
          case 'n':
            out->push_back('\n');
            break;
          case 'r':
            out->push_back('\r');
            break;
          case 't':
            out->push_back('\t');
            break;
          case 'u':
            if (!Unicode(out)) return false;
            break;
          default:
            --pos_;
            return Fail("invalid escape");
        }
        continue;
      }
      if (c < 0x80) {
        out->push_back(static_cast<char>(c));
        ++pos_;
        continue;
      }
      char32_t cp = 0;
      size_t len = DecodeUtf8(doc_.substr(pos_), &cp);
      if (len == 0) return Fail("invalid UTF-8");
      out->append(doc_.substr(pos_, len));
      pos_ += len;
    }
  }

  std::string_view doc_;
  size_t pos_ = 0;
  const char* reason_ = "";
};

}  // namespace

bool ParseJson(std::string_view doc, size_t max_bytes, JsonValue* out, JsonError* error) {
  if (doc.size() > max_bytes) {
    if (error != nullptr) *error = {max_bytes, "document too large"};
    return false;
  }
  *out = JsonValue();
  Reader reader(doc);
  if (reader.Document(out)) return true;
  if (error != nullptr) *error = reader.error();
  return false;
}

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
    const size_t n = DecodeUtf8(s, &cp);
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

}  // namespace cubby::text
