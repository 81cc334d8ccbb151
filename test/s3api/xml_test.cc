#include "s3api/xml.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cubby::s3api {
namespace {

TEST(XmlTest, EscapesAllFiveCharacters) {
  EXPECT_EQ(XmlEscape(R"(a&b<c>d"e'f)"), "a&amp;b&lt;c&gt;d&quot;e&apos;f");
  EXPECT_EQ(XmlEscape("plain é"), "plain é");
}

TEST(XmlTest, WriterNestsAndEscapes) {
  XmlWriter w;
  w.Open("Root", kS3Namespace);
  w.Element("Key", "<a&b>");
  w.Open("Inner");
  w.Text("\"q\"");
  w.Close();
  w.OpenWithAttributes("G", {{"xsi:type", "Group"}});
  std::string doc = std::move(w).Finish();  // closes G and Root
  EXPECT_EQ(doc,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<Root xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Key>&lt;a&amp;b&gt;</Key>"
            "<Inner>&quot;q&quot;</Inner><G xsi:type=\"Group\"></G></Root>");
}

TEST(XmlTest, ParsesRequestBodies) {
  XmlNode root;
  ASSERT_TRUE(ParseXml(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<!-- c --><CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\n"
      "  <LocationConstraint>eu-west-1</LocationConstraint>\n"
      "</CreateBucketConfiguration>\n",
      &root));
  EXPECT_EQ(root.name, "CreateBucketConfiguration");
  ASSERT_NE(root.Child("LocationConstraint"), nullptr);
  EXPECT_EQ(root.Child("LocationConstraint")->text, "eu-west-1");
  EXPECT_EQ(root.Child("Missing"), nullptr);

  ASSERT_TRUE(ParseXml("<Delete><Object><Key>a&amp;b&#x20;&#233;&lt;</Key></Object>"
                       "<Object><Key><![CDATA[<raw>]]></Key></Object><Quiet>true</Quiet>"
                       "<s3:Empty/></Delete>",
                       &root));
  ASSERT_EQ(root.children.size(), 4u);
  EXPECT_EQ(root.children[0].Child("Key")->text, "a&b \xC3\xA9<");
  EXPECT_EQ(root.children[1].Child("Key")->text, "<raw>");
  EXPECT_EQ(root.children[3].name, "Empty");
  ASSERT_TRUE(ParseXml("<a x='1' y=\"&quot;2\"></a >", &root));
}

TEST(XmlTest, RejectsMalformed) {
  const std::vector<std::string> bad = {
      "",
      "just text",
      "<a>",
      "<a></b>",
      "<a><b></a></b>",
      "<a>&bogus;</a>",
      "<a>&#0;</a>",
      "<a>&#xD800;</a>",
      "<a>&#x110000;</a>",
      "<a>&amp</a>",
      "<a></a><b></b>",
      "<a></a>trailing",
      "<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>",
      "<a><!DOCTYPE x></a>",
      "<a x=1></a>",
      "<a x=\"1\"y=\"2\"></a>",
      "<a x=\"<\"></a>",
      "<a><!-- unterminated </a>",
      "<a><![CDATA[ unterminated</a>",
      "<>",
      "<a></a><?xml version=\"1.0\"?>",
  };
  for (const std::string& doc : bad) {
    SCOPED_TRACE(doc);
    XmlNode root;
    EXPECT_FALSE(ParseXml(doc, &root));
  }
}

// Found by fuzz/xml_fuzz: "<a:/>" parsed to an element with an empty name, which no writer can
// give back. Namespaces in XML (https://www.w3.org/TR/xml-names/#ns-qualnames): a prefix and a
// local part are both non-empty.
TEST(XmlTest, RejectsEmptyPrefixOrLocalName) {
  for (std::string doc : {"<a:/>", "<a:></a:>", "<x><b:>t</b:></x>", "<:a/>", "<\x9b:/>"}) {
    SCOPED_TRACE(doc);
    XmlNode root;
    EXPECT_FALSE(ParseXml(doc, &root));
  }
  XmlNode root;
  ASSERT_TRUE(ParseXml("<s3:Delete><s3:Quiet>true</s3:Quiet></s3:Delete>", &root));
  EXPECT_EQ(root.name, "Delete");
  ASSERT_EQ(root.children.size(), 1u);
  EXPECT_EQ(root.children[0].name, "Quiet");
}

TEST(XmlTest, CapsDepthAndSize) {
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "<a>";
  for (int i = 0; i < 100; ++i) deep += "</a>";
  XmlNode root;
  EXPECT_FALSE(ParseXml(deep, &root));
  std::string shallow;
  for (int i = 0; i < 10; ++i) shallow += "<a>";
  for (int i = 0; i < 10; ++i) shallow += "</a>";
  EXPECT_TRUE(ParseXml(shallow, &root));

  std::string big = "<a>" + std::string(kMaxRequestXmlBytes, 'x') + "</a>";
  EXPECT_FALSE(ParseXml(big, &root));
}

}  // namespace
}  // namespace cubby::s3api
