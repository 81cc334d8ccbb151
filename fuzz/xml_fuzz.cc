// Fuzzes s3api::ParseXml, the reader of request bodies (CreateBucketConfiguration, Delete,
// CompleteMultipartUpload, AccessControlPolicy). Besides not crashing, a document it accepts
// must survive a round trip: written back with XmlWriter (each element's text, then its
// children) it parses to the same tree, so the writer's escaping and the reader's decoding
// agree on every byte the reader lets through.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "s3api/xml.h"

namespace {

using cubby::s3api::XmlNode;
using cubby::s3api::XmlWriter;

void Write(const XmlNode& node, XmlWriter* writer) {
  writer->Open(node.name);
  if (!node.text.empty()) writer->Text(node.text);
  for (const XmlNode& child : node.children) Write(child, writer);
  writer->Close();
}

bool Same(const XmlNode& a, const XmlNode& b) {
  if (a.name != b.name || a.text != b.text || a.children.size() != b.children.size()) {
    return false;
  }
  for (size_t i = 0; i < a.children.size(); ++i) {
    if (!Same(a.children[i], b.children[i])) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view doc(reinterpret_cast<const char*>(data), size);
  XmlNode root;
  if (!cubby::s3api::ParseXml(doc, &root)) return 0;
  (void)root.Child("Object");
  XmlWriter writer;
  Write(root, &writer);
  std::string again = std::move(writer).Finish();
  if (again.size() > cubby::s3api::kMaxRequestXmlBytes) return 0;  // escaping grew it past the cap
  XmlNode reparsed;
  if (!cubby::s3api::ParseXml(again, &reparsed) || !Same(root, reparsed)) std::abort();
  return 0;
}
