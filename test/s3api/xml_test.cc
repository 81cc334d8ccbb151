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

// What each character of a key becomes in a response: nothing raw can make it ill-formed.
TEST(XmlTest, EscapesWhatXmlCannotCarry) {
  struct Case {
    std::string_view in, out;
  };
  const std::vector<Case> cases = {
      {"tab\tnl\n", "tab\tnl\n"},                  // XML characters, kept raw
      {"a\rb", "a&#xD;b"},                           // raw CR would be read as LF
      {"a\r\nb", "a&#xD;\nb"},
      {"a\x01" "b\x1F" "c", "a&#x1;b&#x1F;c"},         // no XML 1.0 character: AWS's reference
      {std::string_view("\0", 1), "&#x0;"},
      {"\x7F\xC2\x80", "\x7F\xC2\x80"},             // DEL and C1 controls are XML characters
      {"\xEF\xBF\xBE\xEF\xBF\xBF", "&#xFFFE;&#xFFFF;"},  // UTF-8, but not XML characters
      {"\xEF\xBF\xBD\xF4\x8F\xBF\xBF", "\xEF\xBF\xBD\xF4\x8F\xBF\xBF"},
      {"\xFF\xFE", "\xEF\xBF\xBD\xEF\xBF\xBD"},    // not UTF-8: U+FFFD per byte
      {"a\xC0\xAF", "a\xEF\xBF\xBD\xEF\xBF\xBD"},    // overlong
      {"\xED\xA0\x80<", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD&lt;"},  // surrogate
      {"caf\xC3", "caf\xEF\xBF\xBD"},                 // truncated
  };
  for (const Case& c : cases) {
    EXPECT_EQ(XmlEscape(c.in), c.out) << testing::PrintToString(c.in);
  }
}

// What the writer writes for an XML character, the reader reads back exactly.
TEST(XmlTest, WrittenKeysParseBackExactly) {
  for (std::string_view key : {"g\rh", "m\r\nn", "i\tj\n", "\x7F<&>\"'", "\xF0\x9F\x98\x80"}) {
    XmlWriter w;
    w.Element("Key", key);
    XmlNode root;
    ASSERT_TRUE(ParseXml(std::move(w).Finish(), &root)) << testing::PrintToString(key);
    EXPECT_EQ(root.text, key);
  }
}

// XML's end-of-line handling: raw CR LF and CR are LF; a reference is a CR.
TEST(XmlTest, NormalizesLineEnds) {
  XmlNode root;
  ASSERT_TRUE(ParseXml("<?xml version=\"1.0\"?>\r\n<Key>a\r\nb\rc&#13;d&#xD;\r</Key>", &root));
  EXPECT_EQ(root.text, "a\nb\nc\rd\r\n");
  ASSERT_TRUE(ParseXml("<K><![CDATA[x\ry]]></K>", &root));
  EXPECT_EQ(root.text, "x\ny");
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
                       "<s3:Empty xmlns:s3=\"urn:x\"/></Delete>",
                       &root));
  ASSERT_EQ(root.children.size(), 4u);
  EXPECT_EQ(root.children[0].Child("Key")->text, "a&b \xC3\xA9<");
  EXPECT_EQ(root.children[1].Child("Key")->text, "<raw>");
  EXPECT_EQ(root.children[3].name, "Empty");
  ASSERT_TRUE(ParseXml("<a x='1' y=\"&quot;2\"></a >", &root));
}

TEST(XmlTest, ChildrenAmongAllowsOnlyTheNamedChildrenOnce) {
  struct Case {
    std::string_view doc;
    bool among;
  };
  const std::vector<Case> cases = {
      {"<R/>", true},
      {"<R><A/><B/></R>", true},
      {"<R><B/><A/></R>", true},  // in any order
      {"<R><A/><C/></R>", false},
      {"<R><A/><A/></R>", false},
      {"<R><A/><Rule/><Rule/></R>", true},  // Rule may repeat
      {"<R><Rule/><A/><A/></R>", false},
  };
  for (const Case& c : cases) {
    XmlNode root;
    ASSERT_TRUE(ParseXml(c.doc, &root)) << c.doc;
    EXPECT_EQ(ChildrenAmong(root, {"A", "B", "Rule"}, {"Rule"}), c.among) << c.doc;
  }
  XmlNode twice;
  ASSERT_TRUE(ParseXml("<R><Rule/><Rule/></R>", &twice));
  EXPECT_FALSE(ChildrenAmong(twice, {"Rule"}));  // nothing repeats unless named repeatable
}

// AccessControlPolicy's Grantee names its type in xsi:type: the reader resolves the prefix.
TEST(XmlTest, KeepsAttributesWithTheirNamespace) {
  XmlNode root;
  ASSERT_TRUE(
      ParseXml("<Grant><Grantee xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
               "xsi:type=\"Canonical&amp;User\" plain='p'><ID>x</ID></Grantee><Other/></Grant>",
               &root));
  const XmlNode* grantee = root.Child("Grantee");
  ASSERT_NE(grantee, nullptr);
  ASSERT_EQ(grantee->attributes.size(), 2u) << "xmlns:xsi is a declaration, not an attribute";
  const std::string* type = grantee->Attribute("http://www.w3.org/2001/XMLSchema-instance", "type");
  ASSERT_NE(type, nullptr);
  EXPECT_EQ(*type, "Canonical&User");
  ASSERT_NE(grantee->Attribute("", "plain"), nullptr);
  EXPECT_EQ(*grantee->Attribute("", "plain"), "p");
  EXPECT_EQ(grantee->Attribute("", "type"), nullptr) << "the namespace is part of the name";
  EXPECT_EQ(grantee->Attribute("http://www.w3.org/2001/XMLSchema-instance", "plain"), nullptr);
  EXPECT_TRUE(root.Child("Other")->attributes.empty());

  // Another prefix bound to the same namespace is the same attribute.
  ASSERT_TRUE(ParseXml(
      "<G xmlns:i=\"http://www.w3.org/2001/XMLSchema-instance\" i:type=\"Group\"/>", &root));
  ASSERT_NE(root.Attribute("http://www.w3.org/2001/XMLSchema-instance", "type"), nullptr);
  EXPECT_EQ(*root.Attribute("http://www.w3.org/2001/XMLSchema-instance", "type"), "Group");
  // An unbound prefix is not well-formed with namespaces.
  EXPECT_FALSE(ParseXml("<G xsi:type=\"Group\"/>", &root));
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
      // Characters XML 1.0 forbids, raw or as references (AWS: MalformedXML for "&#x1;").
      "<a>&#x1;</a>",
      "<a>&#31;</a>",
      "<a>&#xFFFE;</a>",
      "<a>&#xFFFF;</a>",
      std::string("<a>\x01</a>"),
      std::string("<a>\x1F</a>"),
      std::string("<a>\0</a>", 8),
      "<a>\xEF\xBF\xBE</a>",
      "<a x=\"\x01\"></a>",
      // Bytes that are not UTF-8, in text, CDATA, names and comments.
      "<a>\xFF\xFE</a>",
      "<a>\xC0\xAF</a>",
      "<a>\xED\xA0\x80</a>",
      "<a>\xF4\x90\x80\x80</a>",
      "<a><![CDATA[\xFF]]></a>",
      "<a\xFF></a\xFF>",
      "<a><!-- \xC3 --></a>",
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
  ASSERT_TRUE(ParseXml(
      "<s3:Delete xmlns:s3=\"http://s3.amazonaws.com/doc/2006-03-01/\"><s3:Quiet>true</s3:Quiet>"
      "</s3:Delete>",
      &root));
  EXPECT_EQ(root.name, "Delete");
  ASSERT_EQ(root.children.size(), 1u);
  EXPECT_EQ(root.children[0].name, "Quiet");
}

// What the hand-written reader let through and libexpat (its replacement) refuses, found by
// differential fuzzing (fuzz/README.md): none of these is well-formed XML 1.0 with namespaces.
TEST(XmlTest, RejectsWhatIsNotWellFormedXml) {
  const std::vector<std::string> bad = {
      "<3/>",                                   // a name cannot start with a digit
      "<-a/>",                                  // ... or with '-'
      "<a\xC3\x97/>",                          // U+00D7 is not a name character
      "<?xml version=\"1n c\".0?><a/>",        // a malformed XML declaration
      "<?xml encoding=\"UTF-8\"?><a/>",        // ... without its version
      "<s3:Delete></s3:Delete>",                // an unbound namespace prefix
      "<a><!-- a -- b --></a>",                 // "--" inside a comment
      "<a x=\"1\" x=\"2\"></a>",               // an attribute twice
      "<a>]]></a>",                             // "]]>" in character data
      "<a><?xml version=\"1.0\"?></a>",        // the declaration only at the start
  };
  for (const std::string& doc : bad) {
    SCOPED_TRACE(doc);
    XmlNode root;
    EXPECT_FALSE(ParseXml(doc, &root));
  }
}

// A body is UTF-8 whatever its declaration says; a byte order mark is allowed.
TEST(XmlTest, ReadsUtf8Only) {
  XmlNode root;
  ASSERT_TRUE(ParseXml("\xEF\xBB\xBF<Key>\xC3\xA9</Key>", &root));
  EXPECT_EQ(root.text, "\xC3\xA9");
  ASSERT_TRUE(ParseXml("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><Key>\xC3\xA9</Key>", &root));
  EXPECT_EQ(root.text, "\xC3\xA9");
  EXPECT_FALSE(ParseXml("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><Key>\xE9</Key>", &root));
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
