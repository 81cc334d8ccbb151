#include "text/xml_writer.h"

#include <string>
#include <vector>

#include "text/utf8.h"

namespace cubby::text {

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
    const size_t n = DecodeUtf8(text, &cp);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not UTF-8
      text.remove_prefix(1);
      continue;
    }
    switch (cp) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      // A raw CR reaches the reader as LF (XML's end-of-line handling); a reference survives.
      case '\r':
        AppendHexReference(cp, &out);
        break;
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

}  // namespace cubby::text
