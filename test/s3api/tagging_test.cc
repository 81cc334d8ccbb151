// Tagging's pure functions (s3api/tagging.h): S3's limits, the Tagging XML and the x-amz-tagging
// header, each error provoked. The handlers are driven end to end in test/e2e/test_tagging.py.
#include "s3api/tagging.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cubby::s3api {
namespace {

std::string Doc(const std::string& tags) {
  return "<Tagging xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><TagSet>" + tags +
         "</TagSet></Tagging>";
}
std::string Tag(const std::string& key, const std::string& value) {
  return "<Tag><Key>" + key + "</Key><Value>" + value + "</Value></Tag>";
}
std::string Tags(size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += Tag("k" + std::to_string(i), "v");
  return out;
}

TEST(TaggingTest, ParseTagging) {
  const std::string e = "\xc3\xa9";  // é: one character, two bytes
  struct Case {
    std::string body;
    TagTarget target;
    ErrorCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {Doc(""), TagTarget::kObject, ErrorCode::kNone, ""},
      {Doc(Tag("a", "1") + Tag("b", "")), TagTarget::kObject, ErrorCode::kNone, ""},
      {Doc(Tags(10)), TagTarget::kObject, ErrorCode::kNone, ""},
      {Doc(Tags(11)), TagTarget::kObject, ErrorCode::kInvalidTag,
       "Object tags cannot be greater than 10"},
      {Doc(Tags(50)), TagTarget::kBucket, ErrorCode::kNone, ""},
      {Doc(Tags(51)), TagTarget::kBucket, ErrorCode::kBadRequest,
       "Bucket tag count cannot be greater than 50"},
      {Doc(Tag(std::string(128, 'k'), std::string(256, 'v'))), TagTarget::kObject, ErrorCode::kNone,
       ""},
      // Characters, not bytes: 128 two-byte characters are a valid key.
      {Doc(Tag(
           [&] {
             std::string k;
             for (int i = 0; i < 128; ++i) k += e;
             return k;
           }(),
           [&] {
             std::string v;
             for (int i = 0; i < 256; ++i) v += e;
             return v;
           }())),
       TagTarget::kObject, ErrorCode::kNone, ""},
      {Doc(Tag(std::string(129, 'k'), "v")), TagTarget::kObject, ErrorCode::kInvalidTag,
       "The TagKey you have provided is invalid"},
      {Doc(Tag("", "v")), TagTarget::kObject, ErrorCode::kInvalidTag,
       "The TagKey you have provided is invalid"},
      {Doc(Tag("k", std::string(257, 'v'))), TagTarget::kObject, ErrorCode::kInvalidTag,
       "The TagValue you have provided is invalid"},
      {Doc(Tag("k", "1") + Tag("k", "2")), TagTarget::kObject, ErrorCode::kInvalidTag,
       "Cannot provide multiple Tags with the same key"},
      {Doc(Tag("aws:x", "1")), TagTarget::kBucket, ErrorCode::kInvalidTag,
       "System tags cannot be added/updated by requester"},
      {Doc(Tag("AWS:x", "1")), TagTarget::kObject, ErrorCode::kInvalidTag,
       "System tags cannot be added/updated by requester"},
      {"<Tagging/>", TagTarget::kObject, ErrorCode::kMalformedXML, ""},
      {"<Other><TagSet/></Other>", TagTarget::kObject, ErrorCode::kMalformedXML, ""},
      {"<Tagging><TagSet/><TagSet/></Tagging>", TagTarget::kObject, ErrorCode::kMalformedXML, ""},
      {Doc("<Tag><Key>k</Key></Tag>"), TagTarget::kObject, ErrorCode::kMalformedXML, ""},
      {Doc("<Tag><Value>v</Value></Tag>"), TagTarget::kObject, ErrorCode::kMalformedXML, ""},
      {Doc("<Tag><Key>k</Key><Value>v</Value><X/></Tag>"), TagTarget::kObject,
       ErrorCode::kMalformedXML, ""},
      {Doc("<Other/>"), TagTarget::kObject, ErrorCode::kMalformedXML, ""},
      {"not xml", TagTarget::kObject, ErrorCode::kMalformedXML, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body.substr(0, 200));
    TagSet tags;
    XmlBodyError e = ParseTagging(c.body, c.target, &tags);
    EXPECT_EQ(e.code, c.code);
    EXPECT_EQ(e.message, c.message);
  }
  TagSet tags;
  ASSERT_TRUE(
      ParseTagging(Doc(Tag("b", "2") + Tag("a", "1 &amp; 2")), TagTarget::kObject, &tags).ok());
  EXPECT_EQ(tags, (TagSet{{"b", "2"}, {"a", "1 & 2"}}));  // as given, decoded
}

TEST(TaggingTest, TaggingXmlRoundTrips) {
  const TagSet tags = {{"b", "<2>"}, {"a", ""}};
  const std::string xml = TaggingXml(tags);
  EXPECT_NE(xml.find("<Tagging xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><TagSet><Tag>"
                     "<Key>b</Key><Value>&lt;2&gt;</Value></Tag>"),
            std::string::npos)
      << xml;
  TagSet back;
  ASSERT_TRUE(ParseTagging(xml, TagTarget::kObject, &back).ok());
  EXPECT_EQ(back, tags);
  EXPECT_NE(TaggingXml({}).find("<TagSet></TagSet>"), std::string::npos);
}

TEST(TaggingTest, ParseTaggingHeader) {
  const std::string dup =
      "The header 'x-amz-tagging' shall be encoded as UTF-8 then URLEncoded URL query parameters "
      "without tag name duplicates.";
  struct Case {
    std::string header;
    ErrorCode code;
    std::string message;
    TagSet tags;
  };
  std::string eleven;
  for (int i = 0; i < 11; ++i) eleven += (i ? "&k" : "k") + std::to_string(i) + "=v";
  const std::vector<Case> cases = {
      {"", ErrorCode::kNone, "", {}},
      {"a=1&b=two+words&c", ErrorCode::kNone, "", {{"a", "1"}, {"b", "two words"}, {"c", ""}}},
      {"k%20x=%C3%A9", ErrorCode::kNone, "", {{"k x", "\xc3\xa9"}}},
      {"a=1&a=2", ErrorCode::kInvalidArgument, dup, {}},
      {"a=%zz", ErrorCode::kInvalidArgument, dup, {}},
      {eleven, ErrorCode::kInvalidTag, "Object tags cannot be greater than 10", {}},
      {"=v", ErrorCode::kInvalidTag, "The TagKey you have provided is invalid", {}},
      {"k=" + std::string(257, 'v'),
       ErrorCode::kInvalidTag,
       "The TagValue you have provided is invalid",
       {}},
      {"aws%3Ax=1", ErrorCode::kInvalidTag, "System tags cannot be added/updated by requester", {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.header.substr(0, 80));
    TagSet tags;
    XmlBodyError e = ParseTaggingHeader(c.header, &tags);
    EXPECT_EQ(e.code, c.code);
    EXPECT_EQ(e.message, c.message);
    if (e.ok()) EXPECT_EQ(tags, c.tags);
  }
}

}  // namespace
}  // namespace cubby::s3api
