// XML for S3 bodies: the writer for responses (text/xml_writer.h) and a safe reader for request
// bodies (CreateBucketConfiguration, Delete, CompleteMultipartUpload, AccessControlPolicy) on
// libexpat. The reader takes no DTD at all (a DOCTYPE is rejected), so there is no entity
// expansion; depth and size are capped.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "text/xml_writer.h"

namespace cubby::s3api {

inline constexpr std::string_view kS3Namespace = "http://s3.amazonaws.com/doc/2006-03-01/";
// Request XML bodies larger than this are rejected (MalformedXML), as AWS caps them too. Large
// enough for a CompleteMultipartUpload of 10000 parts with SHA256 checksums (~1.7 MB) and a
// DeleteObjects of 1000 keys of 1024 bytes.
inline constexpr size_t kMaxRequestXmlBytes = 4 << 20;

// The writer is the text library's (text/xml_writer.h), shared with the IAM API.
using text::XmlEscape;
using text::XmlWriter;

// An attribute as the namespaces resolve it: xsi:type (with xmlns:xsi bound to the schema
// instance URI) is {"http://www.w3.org/2001/XMLSchema-instance", "type", value}. An attribute
// without a prefix has no namespace (XML Namespaces 1.0 §6.2). Namespace declarations (xmlns,
// xmlns:p) are not attributes here.
struct XmlAttribute {
  std::string ns;
  std::string name;   // local name
  std::string value;  // decoded, normalized as XML says
};

struct XmlNode {
  std::string name;  // local name: a namespace prefix ("s3:Key" → "Key") is dropped
  std::string text;  // concatenated character data directly inside this element, decoded
  std::vector<XmlAttribute> attributes;  // in document order
  std::vector<XmlNode> children;

  // First child with this local name, or nullptr.
  const XmlNode* Child(std::string_view child_name) const;
  // The value of the attribute with this namespace and local name, or nullptr.
  const std::string* Attribute(std::string_view ns, std::string_view attribute_name) const;
};

// Parses a whole document into its root element. Returns false (the caller answers
// MalformedXML) on anything that is not well-formed XML 1.0 with namespaces (bytes that are not
// UTF-8 whatever the declaration says, a character XML 1.0 forbids, raw or as a reference such as
// "&#x1;", bad names, mismatched tags, unknown entities, an unbound namespace prefix, trailing
// content), on a DOCTYPE, more than 64 levels or more than kMaxRequestXmlBytes of input. Line
// ends are normalized as XML says (CR LF and CR are LF; "&#13;" stays CR). A UTF-8 byte order
// mark is allowed. Attributes are kept on their element (XmlNode::attributes).
bool ParseXml(std::string_view doc, XmlNode* root);

// True when every child of `node` has one of `names` and none but those in `repeatable` appears
// twice (S3's request schemas let no other element repeat in one parent).
bool ChildrenAmong(const XmlNode& node, std::initializer_list<std::string_view> names,
                   std::initializer_list<std::string_view> repeatable = {});

}  // namespace cubby::s3api
