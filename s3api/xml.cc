#include "s3api/xml.h"

#include <cstdint>

#include "text/ascii.h"
#include "text/utf8.h"

namespace cubby::s3api {

namespace {

// XML 1.0's Char production: the characters a document may hold, raw or as a reference.
//   https://www.w3.org/TR/xml/#charsets
bool IsXmlChar(char32_t cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
         (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

void AppendHexReference(char32_t cp, std::string* out) {
  constexpr char kHex[] = "0123456789ABCDEF";
  std::string digits;
  do {
    digits.insert(digits.begin(), kHex[cp & 0xF]);
    cp >>= 4;
  } while (cp != 0);
  *out += "&#x" + digits + ';';
}

}  // namespace

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    char32_t cp = 0;
    const size_t n = text::DecodeUtf8(text, &cp);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not UTF-8
      text.remove_prefix(1);
      continue;
    }
    switch (cp) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      // A raw CR reaches the reader as LF (XML's end-of-line handling); a reference survives.
      case '\r': AppendHexReference(cp, &out); break;
      default:
        // What XML 1.0 cannot carry at all, AWS writes as a reference anyway ("a&#x1;b"): strict
        // parsers refuse it, so such keys are for encoding-type=url, as AWS's docs say
        // (EncodingType in https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html).
        if (!IsXmlChar(cp)) {
          AppendHexReference(cp, &out);
        } else {
          out.append(text.substr(0, n));
        }
    }
    text.remove_prefix(n);
  }
  return out;
}

XmlWriter::XmlWriter() : out_("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n") {}

void XmlWriter::Open(std::string_view name, std::string_view xmlns) {
  out_ += '<';
  out_ += name;
  if (!xmlns.empty()) {
    out_ += " xmlns=\"";
    out_ += XmlEscape(xmlns);
    out_ += '"';
  }
  out_ += '>';
  open_.emplace_back(name);
}

void XmlWriter::OpenWithAttributes(
    std::string_view name, const std::vector<std::pair<std::string, std::string>>& attributes) {
  out_ += '<';
  out_ += name;
  for (const auto& [attr, value] : attributes) {
    out_ += ' ';
    out_ += attr;
    out_ += "=\"";
    out_ += XmlEscape(value);
    out_ += '"';
  }
  out_ += '>';
  open_.emplace_back(name);
}

void XmlWriter::Text(std::string_view text) { out_ += XmlEscape(text); }

void XmlWriter::Close() {
  if (open_.empty()) return;
  out_ += "</";
  out_ += open_.back();
  out_ += '>';
  open_.pop_back();
}

void XmlWriter::Element(std::string_view name, std::string_view text) {
  out_ += '<';
  out_ += name;
  out_ += '>';
  out_ += XmlEscape(text);
  out_ += "</";
  out_ += name;
  out_ += '>';
}

std::string XmlWriter::Finish() && {
  while (!open_.empty()) Close();
  return std::move(out_);
}

const XmlNode* XmlNode::Child(std::string_view child_name) const {
  for (const XmlNode& c : children) {
    if (c.name == child_name) return &c;
  }
  return nullptr;
}

namespace {

constexpr int kMaxDepth = 64;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool IsNameChar(char c) {
  auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == ':' || c == '-' || c == '.';
}

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  bool Document(XmlNode* root) {
    if (!Misc(/*allow_decl=*/true)) return false;
    if (!Element(root, 0)) return false;
    if (!Misc(/*allow_decl=*/false)) return false;
    return pos_ == s_.size();
  }

 private:
  bool StartsWith(std::string_view p) const { return s_.substr(pos_).starts_with(p); }
  void SkipSpace() {
    while (pos_ < s_.size() && IsSpace(s_[pos_])) ++pos_;
  }

  // Whitespace, comments and processing instructions outside the root element.
  bool Misc(bool allow_decl) {
    for (;;) {
      SkipSpace();
      if (StartsWith("<?")) {
        if (!allow_decl && StartsWith("<?xml")) return false;
        size_t end = s_.find("?>", pos_ + 2);
        if (end == std::string_view::npos) return false;
        pos_ = end + 2;
        allow_decl = false;
      } else if (StartsWith("<!--")) {
        if (!Comment()) return false;
      } else if (StartsWith("<!")) {
        return false;  // DOCTYPE and friends: never.
      } else {
        return true;
      }
    }
  }

  bool Comment() {
    size_t end = s_.find("-->", pos_ + 4);
    if (end == std::string_view::npos) return false;
    pos_ = end + 3;
    return true;
  }

  bool Name(std::string* name) {
    size_t start = pos_;
    while (pos_ < s_.size() && IsNameChar(s_[pos_])) ++pos_;
    if (pos_ == start) return false;
    *name = std::string(s_.substr(start, pos_ - start));
    return true;
  }

  // Decodes character data up to (not including) the next '<' into *out.
  bool Text(std::string* out, char stop) {
    while (pos_ < s_.size() && s_[pos_] != stop) {
      char c = s_[pos_];
      if (c == '&') {
        if (!Entity(out)) return false;
      } else if (c == '<') {
        return false;  // only reachable inside attribute values
      } else {
        *out += c;
        ++pos_;
      }
    }
    return true;
  }

  bool Entity(std::string* out) {
    size_t end = s_.find(';', pos_);
    if (end == std::string_view::npos || end - pos_ > 12) return false;
    std::string_view ent = s_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    if (ent == "amp") { *out += '&'; return true; }
    if (ent == "lt") { *out += '<'; return true; }
    if (ent == "gt") { *out += '>'; return true; }
    if (ent == "quot") { *out += '"'; return true; }
    if (ent == "apos") { *out += '\''; return true; }
    if (ent.size() < 2 || ent[0] != '#') return false;
    const bool hex = ent[1] == 'x';
    uint64_t cp = 0;
    if (!text::ParseUint64(ent.substr(hex ? 2 : 1), &cp, hex ? 16 : 10)) return false;
    // A reference must name a character the document could hold (well-formedness constraint
    // "Legal Character"): AWS answers MalformedXML to a DeleteObjects key "&#x1;".
    if (cp > 0x10FFFF || !IsXmlChar(static_cast<char32_t>(cp))) return false;
    text::AppendUtf8(static_cast<char32_t>(cp), out);
    return true;
  }

  static std::string LocalName(const std::string& qname) {
    size_t colon = qname.rfind(':');
    return colon == std::string::npos ? qname : qname.substr(colon + 1);
  }

  bool Element(XmlNode* node, int depth) {
    if (depth >= kMaxDepth) return false;
    if (pos_ >= s_.size() || s_[pos_] != '<') return false;
    ++pos_;
    std::string qname;
    if (!Name(&qname)) return false;
    node->name = LocalName(qname);
    // "<a:>" and "<:a>" are not namespace-well-formed: both parts of a QName are non-empty.
    if (node->name.empty() || qname.front() == ':') return false;
    // Attributes are parsed for well-formedness and dropped.
    for (;;) {
      bool had_space = pos_ < s_.size() && IsSpace(s_[pos_]);
      SkipSpace();
      if (pos_ >= s_.size()) return false;
      if (StartsWith("/>")) {
        pos_ += 2;
        return true;
      }
      if (s_[pos_] == '>') {
        ++pos_;
        break;
      }
      if (!had_space) return false;
      std::string attr;
      if (!Name(&attr)) return false;
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '=') return false;
      ++pos_;
      SkipSpace();
      if (pos_ >= s_.size() || (s_[pos_] != '"' && s_[pos_] != '\'')) return false;
      char quote = s_[pos_++];
      std::string value;
      if (!Text(&value, quote)) return false;
      if (pos_ >= s_.size()) return false;
      ++pos_;
    }
    // Content.
    for (;;) {
      if (pos_ >= s_.size()) return false;
      if (StartsWith("</")) {
        pos_ += 2;
        std::string end_name;
        if (!Name(&end_name) || end_name != qname) return false;
        SkipSpace();
        if (pos_ >= s_.size() || s_[pos_] != '>') return false;
        ++pos_;
        return true;
      }
      if (StartsWith("<!--")) {
        if (!Comment()) return false;
      } else if (StartsWith("<![CDATA[")) {
        size_t end = s_.find("]]>", pos_ + 9);
        if (end == std::string_view::npos) return false;
        node->text.append(s_.substr(pos_ + 9, end - pos_ - 9));
        pos_ = end + 3;
      } else if (StartsWith("<?")) {
        size_t end = s_.find("?>", pos_ + 2);
        if (end == std::string_view::npos) return false;
        pos_ = end + 2;
      } else if (StartsWith("<!")) {
        return false;
      } else if (s_[pos_] == '<') {
        node->children.emplace_back();
        if (!Element(&node->children.back(), depth + 1)) return false;
      } else {
        if (!Text(&node->text, '<')) return false;
      }
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// A document is UTF-8 and holds only XML 1.0 characters; anything else is not well-formed.
bool IsXmlText(std::string_view doc) {
  while (!doc.empty()) {
    char32_t cp = 0;
    const size_t n = text::DecodeUtf8(doc, &cp);
    if (n == 0 || !IsXmlChar(cp)) return false;
    doc.remove_prefix(n);
  }
  return true;
}

// XML's end-of-line handling: a CR LF pair and a lone CR reach the parser as one LF, so a key
// sent with a raw CR means LF (AWS's guide asks for "&#13;" instead).
//   https://www.w3.org/TR/xml/#sec-line-ends
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-keys.html (XML related
//   object key constraints)
std::string NormalizeLineEnds(std::string_view doc) {
  std::string out;
  out.reserve(doc.size());
  for (size_t i = 0; i < doc.size(); ++i) {
    if (doc[i] != '\r') {
      out += doc[i];
      continue;
    }
    out += '\n';
    if (i + 1 < doc.size() && doc[i + 1] == '\n') ++i;
  }
  return out;
}

}  // namespace

bool ParseXml(std::string_view doc, XmlNode* root) {
  if (doc.size() > kMaxRequestXmlBytes || !IsXmlText(doc)) return false;
  *root = XmlNode{};
  if (doc.find('\r') == std::string_view::npos) return Parser(doc).Document(root);
  const std::string normalized = NormalizeLineEnds(doc);
  return Parser(normalized).Document(root);
}

}  // namespace cubby::s3api
