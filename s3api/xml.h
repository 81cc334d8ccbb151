// XML for S3 bodies: a writer for responses and a small, safe reader for request bodies
// (CreateBucketConfiguration, Delete, CompleteMultipartUpload, AccessControlPolicy).
// The reader has no DTD support at all (a DOCTYPE is rejected), so there is no entity
// expansion; depth and size are capped.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cubby::s3api {

inline constexpr std::string_view kS3Namespace = "http://s3.amazonaws.com/doc/2006-03-01/";
// Request XML bodies larger than this are rejected (MalformedXML), as AWS caps them too. Large
// enough for a CompleteMultipartUpload of 10000 parts with SHA256 checksums (~1.7 MB) and a
// DeleteObjects of 1000 keys of 1024 bytes.
inline constexpr size_t kMaxRequestXmlBytes = 4 << 20;

// Escapes & < > " ' for text and attribute values.
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
  void Close();  // closes the innermost open element
  void Element(std::string_view name, std::string_view text);  // <name>text</name>
  // Closes any elements still open and returns the document.
  std::string Finish() &&;

 private:
  std::string out_;
  std::vector<std::string> open_;
};

struct XmlNode {
  std::string name;  // local name: a namespace prefix ("s3:Key" → "Key") is dropped
  std::string text;  // concatenated character data directly inside this element, decoded
  std::vector<XmlNode> children;

  // First child with this local name, or nullptr.
  const XmlNode* Child(std::string_view child_name) const;
};

// Parses a whole document into its root element. Returns false (the caller answers
// MalformedXML) on anything not well-formed: mismatched tags, bad entities, a DOCTYPE,
// trailing content, more than 64 levels or more than kMaxRequestXmlBytes of input.
bool ParseXml(std::string_view doc, XmlNode* root);

}  // namespace cubby::s3api
