// Writing XML documents: escaping and a small element writer. Pure; used for S3 responses
// (s3api/xml.h re-exports it) and IAM's query API responses (iam/iam_api.h).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cubby::text {

// `text` as XML character data or an attribute value: & < > " ' become entities; CR becomes
// "&#xD;" (a raw one would reach the reader as LF); a character XML 1.0 cannot carry (C0 controls
// but TAB and LF, U+FFFE, U+FFFF) becomes a reference such as "&#x1;", as AWS writes it, which
// strict parsers refuse (clients ask for encoding-type=url for such keys); a byte that is not
// UTF-8 becomes U+FFFD. So no raw byte of `text` can make the document ill-formed.
std::string XmlEscape(std::string_view text);

// Builds a document that starts with <?xml version="1.0" encoding="UTF-8"?>\n.
class XmlWriter {
 public:
  XmlWriter();
  // Opens <name> (with xmlns="..." when xmlns is not empty).
  void Open(std::string_view name, std::string_view xmlns = {});
  // Opens <name attr_name="attr_value" ...>, attributes given as raw text (escaped here).
  void OpenWithAttributes(std::string_view name,
                          const std::vector<std::pair<std::string, std::string>>& attributes);
  void Text(std::string_view text);  // escaped character data inside the open element
  void Close();                      // closes the innermost open element
  void Element(std::string_view name, std::string_view text);  // <name>text</name>
  // Closes any elements still open and returns the document.
  std::string Finish() &&;

 private:
  std::string out_;
  std::vector<std::string> open_;
};

}  // namespace cubby::text
