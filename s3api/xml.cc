#include "s3api/xml.h"

#include <expat.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace cubby::s3api {

const XmlNode* XmlNode::Child(std::string_view child_name) const {
  for (const XmlNode& c : children) {
    if (c.name == child_name) return &c;
  }
  return nullptr;
}

const std::string* XmlNode::Attribute(std::string_view ns, std::string_view attribute_name) const {
  for (const XmlAttribute& a : attributes) {
    if (a.ns == ns && a.name == attribute_name) return &a.value;
  }
  return nullptr;
}

bool ChildrenAmong(const XmlNode& node, std::initializer_list<std::string_view> names,
                   std::initializer_list<std::string_view> repeatable) {
  std::vector<std::string_view> seen;
  for (const XmlNode& child : node.children) {
    if (std::find(names.begin(), names.end(), child.name) == names.end()) return false;
    if (std::find(repeatable.begin(), repeatable.end(), child.name) != repeatable.end()) continue;
    if (std::find(seen.begin(), seen.end(), child.name) != seen.end()) return false;
    seen.push_back(child.name);
  }
  return true;
}

namespace {

constexpr int kMaxDepth = 64;
// Expat reports a namespaced name as "<uri><separator><local>"; the tree keeps the local part.
constexpr char kNamespaceSeparator = '\x01';

// What the expat callbacks build: the tree so far and the path of open elements.
struct TreeBuilder {
  XML_Parser parser = nullptr;
  XmlNode* root = nullptr;
  std::vector<XmlNode*> open;
  bool has_root = false;
  bool refused = false;  // a DOCTYPE or more than kMaxDepth levels
};

void Refuse(TreeBuilder* builder) {
  builder->refused = true;
  XML_StopParser(builder->parser, XML_FALSE);
}

// Splits expat's "<uri><separator><local>" (or a bare "<local>") into its two parts.
void SplitQualifiedName(std::string_view qualified, std::string* ns, std::string* local) {
  const size_t separator = qualified.rfind(kNamespaceSeparator);
  if (separator == std::string_view::npos) {
    ns->clear();
    *local = qualified;
  } else {
    *ns = qualified.substr(0, separator);
    *local = qualified.substr(separator + 1);
  }
}

void XMLCALL OnStartElement(void* data, const XML_Char* name, const XML_Char** attributes) {
  auto* builder = static_cast<TreeBuilder*>(data);
  if (builder->open.size() >= static_cast<size_t>(kMaxDepth)) return Refuse(builder);
  XmlNode* node = builder->root;
  if (builder->open.empty()) {
    builder->has_root = true;  // expat itself refuses a second root element
  } else {
    node = &builder->open.back()->children.emplace_back();
  }
  std::string element_ns;
  SplitQualifiedName(name, &element_ns, &node->name);
  // expat passes name, value, name, value, ..., nullptr.
  for (const XML_Char** a = attributes; a[0] != nullptr; a += 2) {
    XmlAttribute& attribute = node->attributes.emplace_back();
    SplitQualifiedName(a[0], &attribute.ns, &attribute.name);
    attribute.value = a[1];
  }
  builder->open.push_back(node);
}

void XMLCALL OnEndElement(void* data, const XML_Char* /*name*/) {
  static_cast<TreeBuilder*>(data)->open.pop_back();
}

// Character data, CDATA sections included, already decoded and with line ends normalized.
void XMLCALL OnCharacters(void* data, const XML_Char* text, int length) {
  auto* builder = static_cast<TreeBuilder*>(data);
  if (!builder->open.empty()) builder->open.back()->text.append(text, length);
}

// No DTD at all: a DOCTYPE is the only place entities can be declared, so refusing it rules out
// entity expansion (billion laughs) and external entities (XXE) before any is read.
void XMLCALL OnDoctype(void* data, const XML_Char*, const XML_Char*, const XML_Char*, int) {
  Refuse(static_cast<TreeBuilder*>(data));
}

}  // namespace

// libexpat, not a reader of our own: under differential fuzzing (fuzz/README.md) the hand-written
// reader this replaces accepted thousands of documents that are not well-formed (names such as
// "<3/>", malformed XML declarations, unbound namespace prefixes), while expat is a complete
// XML 1.0 + Namespaces reader, fuzzed continuously upstream. Forcing "UTF-8" makes expat ignore
// an encoding declaration, so a body is UTF-8 whatever it claims.
bool ParseXml(std::string_view doc, XmlNode* root) {
  if (doc.size() > kMaxRequestXmlBytes) return false;
  *root = XmlNode{};
  TreeBuilder builder;
  builder.root = root;
  builder.parser = XML_ParserCreateNS("UTF-8", kNamespaceSeparator);
  if (builder.parser == nullptr) return false;
  XML_SetUserData(builder.parser, &builder);
  XML_SetElementHandler(builder.parser, OnStartElement, OnEndElement);
  XML_SetCharacterDataHandler(builder.parser, OnCharacters);
  XML_SetStartDoctypeDeclHandler(builder.parser, OnDoctype);
  const bool parsed = XML_Parse(builder.parser, doc.data(), static_cast<int>(doc.size()),
                                XML_TRUE) == XML_STATUS_OK;
  XML_ParserFree(builder.parser);
  return parsed && !builder.refused && builder.has_root;
}

}  // namespace cubby::s3api
