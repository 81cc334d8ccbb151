#include "text/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace cubby::text {
namespace {

using namespace std::string_literals;

// A compact rendering of a tree, so each table row states the whole expected result.
std::string Show(const JsonValue& v) {
  switch (v.type) {
    case JsonType::kNull:
      return "null";
    case JsonType::kBool:
      return v.boolean ? "true" : "false";
    case JsonType::kNumber:
      return "#" + v.text;
    case JsonType::kString:
      return "'" + v.text + "'";
    case JsonType::kArray: {
      std::string out = "[";
      for (size_t i = 0; i < v.items.size(); ++i) out += (i ? "," : "") + Show(v.items[i]);
      return out + "]";
    }
    case JsonType::kObject: {
      std::string out = "{";
      for (size_t i = 0; i < v.members.size(); ++i) {
        out += (i ? "," : "") + v.members[i].name + ":" + Show(v.members[i].value);
      }
      return out + "}";
    }
  }
  return "?";
}

struct Good {
  std::string_view in;
  std::string_view tree;
};

const std::vector<Good> kGood = {
    {"null", "null"},
    {" true ", "true"},
    {"\t\r\nfalse\n", "false"},
    {"0", "#0"},
    {"-0", "#-0"},
    {"12", "#12"},
    {"-1.5e+3", "#-1.5e+3"},
    {"1E-2", "#1E-2"},
    {"0.25", "#0.25"},
    {R"("")", "''"},
    {R"("abc")", "'abc'"},
    {R"("a\"b\\c\/d")", R"('a"b\c/d')"},
    {R"("\b\f\n\r\t")", "'\b\f\n\r\t'"},
    {R"("\u0041\u00e9\u20AC")", "'A\xC3\xA9\xE2\x82\xAC'"},
    {R"("\ud83d\ude00")", "'\xF0\x9F\x98\x80'"},  // a surrogate pair: U+1F600
    {R"("\uDBFF\uDFFF")", "'\xF4\x8F\xBF\xBF'"},  // U+10FFFF
    {"\"\xC3\xA9\"", "'\xC3\xA9'"},               // raw UTF-8 passes through
    {"[]", "[]"},
    {"[ 1 , \"a\" ,null]", "[#1,'a',null]"},
    {"{}", "{}"},
    {R"({"a":1,"b":[true,{}]})", "{a:#1,b:[true,{}]}"},
    {R"({"a":1,"a":2})", "{a:#1,a:#2}"},  // duplicates kept, in order
    {R"( { "Version" : "2012-10-17" } )", "{Version:'2012-10-17'}"},
};

TEST(JsonTest, ReadsValidDocuments) {
  for (const Good& c : kGood) {
    JsonValue v;
    JsonError error;
    ASSERT_TRUE(ParseJson(c.in, 1 << 20, &v, &error)) << c.in << ": " << error.reason;
    EXPECT_EQ(Show(v), c.tree) << c.in;
  }
}

TEST(JsonTest, ReadsNulInStrings) {
  JsonValue v;
  ASSERT_TRUE(ParseJson(R"("a\u0000b")", 100, &v, nullptr));
  EXPECT_EQ(v.text, std::string("a\0b", 3));
}

struct Bad {
  std::string_view in;
  size_t offset;
  std::string_view reason;
};

const std::vector<Bad> kBad = {
    {"", 0, "unexpected end of input"},
    {"   ", 3, "unexpected end of input"},
    {"nul", 0, "invalid literal"},
    {"True", 0, "unexpected character"},
    {"nan", 0, "invalid literal"},
    {"+1", 0, "unexpected character"},
    {"01", 1, "leading zero in a number"},
    {"-", 1, "invalid number"},
    {"-a", 1, "invalid number"},
    {"1.", 2, "invalid number"},
    {".5", 0, "unexpected character"},
    {"1e", 2, "invalid number"},
    {"1e+", 3, "invalid number"},
    {"1 2", 2, "unexpected data after the value"},
    {"{} x", 3, "unexpected data after the value"},
    {"'a'", 0, "unexpected character"},
    {"\"abc", 4, "unterminated string"},
    {"\"a\\", 3, "unterminated string"},
    {"\"a\nb\"", 2, "control character in a string"},
    {"\"\\x\"", 2, "invalid escape"},
    {"\"\\u12\"", 3, "invalid \\u escape"},
    {"\"\\u12G4\"", 3, "invalid \\u escape"},
    {"\"\\ud83d\"", 7, "lone high surrogate"},
    {"\"\\ud83dx\"", 7, "lone high surrogate"},
    {"\"\\ud83d\\u0041\"", 13, "lone high surrogate"},
    {"\"\\ude00\"", 7, "lone low surrogate"},
    {"\"\xC3\"", 1, "invalid UTF-8"},
    {"\"\xC0\xAF\"", 1, "invalid UTF-8"},      // overlong
    {"\"\xED\xA0\x80\"", 1, "invalid UTF-8"},  // an encoded surrogate
    {"\"\xFF\"", 1, "invalid UTF-8"},
    {"[", 1, "unexpected end of input"},
    {"[1", 2, "unterminated array"},
    {"[1,]", 3, "unexpected character"},
    {"[1 2]", 3, "expected ',' or ']'"},
    {"{", 1, "expected a member name"},
    {"{\"a\"}", 4, "expected ':'"},
    {"{\"a\":}", 5, "unexpected character"},
    {"{\"a\":1,}", 7, "expected a member name"},
    {"{\"a\":1 \"b\":2}", 7, "expected ',' or '}'"},
    {"{\"a\":1", 6, "unterminated object"},
    {"{a:1}", 1, "expected a member name"},
    {"[1]/*c*/", 3, "unexpected data after the value"},
};

TEST(JsonTest, RefusesWhatIsNotStrictJson) {
  for (const Bad& c : kBad) {
    JsonValue v;
    JsonError error;
    EXPECT_FALSE(ParseJson(c.in, 1 << 20, &v, &error)) << c.in;
    EXPECT_EQ(error.offset, c.offset) << c.in;
    EXPECT_EQ(error.reason, c.reason) << c.in;
  }
}

TEST(JsonTest, LimitsDepth) {
  std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  JsonValue v;
  EXPECT_TRUE(ParseJson(ok, 1 << 20, &v, nullptr));
  std::string deep = std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
  JsonError error;
  EXPECT_FALSE(ParseJson(deep, 1 << 20, &v, &error));
  EXPECT_EQ(error.reason, "nested too deeply");
  EXPECT_EQ(error.offset, static_cast<size_t>(kMaxJsonDepth));
  std::string objects;
  for (int i = 0; i <= kMaxJsonDepth; ++i) objects += "{\"a\":";
  EXPECT_FALSE(ParseJson(objects, 1 << 20, &v, &error));
  EXPECT_EQ(error.reason, "nested too deeply");
  // A hostile depth is refused without recursing into it.
  EXPECT_FALSE(ParseJson(std::string(100000, '['), 1 << 20, &v, &error));
}

TEST(JsonTest, LimitsSize) {
  JsonValue v;
  JsonError error;
  EXPECT_TRUE(ParseJson("[1,2]", 5, &v, &error));
  EXPECT_FALSE(ParseJson("[1,2] ", 5, &v, &error));
  EXPECT_EQ(error.reason, "document too large");
}

TEST(JsonTest, FindAndDuplicates) {
  JsonValue v;
  ASSERT_TRUE(ParseJson(R"({"a":1,"b":2,"a":3})", 100, &v, nullptr));
  ASSERT_NE(v.Find("a"), nullptr);
  EXPECT_EQ(v.Find("a")->text, "1");
  EXPECT_EQ(v.Find("A"), nullptr);  // names are exact
  EXPECT_EQ(v.FindDuplicate(), "a");
  ASSERT_TRUE(ParseJson(R"({"a":1,"b":2})", 100, &v, nullptr));
  EXPECT_EQ(v.FindDuplicate(), std::nullopt);
}

TEST(JsonTest, Numbers) {
  struct Row {
    std::string_view in;
    double value;
  };
  const Row rows[] = {{"0", 0}, {"-2.5", -2.5}, {"1e3", 1000}, {"123456789012", 123456789012.0}};
  for (const Row& r : rows) {
    JsonValue v;
    ASSERT_TRUE(ParseJson(r.in, 100, &v, nullptr));
    EXPECT_EQ(v.Number(), r.value) << r.in;
  }
  JsonValue v;
  ASSERT_TRUE(ParseJson("1e999", 100, &v, nullptr));
  EXPECT_EQ(v.Number(), HUGE_VAL);
  ASSERT_TRUE(ParseJson("\"1\"", 100, &v, nullptr));
  EXPECT_EQ(v.Number(), std::nullopt);
}

// The writer: string escaping (control characters, quotes, ill-formed UTF-8), commas,
// nesting and numbers; every output is read back with the strict reader.

TEST(JsonString, EscapesAndRepairs) {
  struct Case {
    std::string in;
    std::string out;  // without the quotes
  } cases[] = {
      {"", ""},
      {"plain text", "plain text"},
      {"q\"b\\s/", "q\\\"b\\\\s/"},
      {"\b\f\n\r\t", "\\b\\f\\n\\r\\t"},
      {"\x01\x1f"s + "\0"s, "\\u0001\\u001f\\u0000"},
      {"\x7f", "\x7f"},  // DEL is not a control to escape
      {"\xc3\xa4\xe2\x82\xac\xf0\x9f\x98\x80", "\xc3\xa4\xe2\x82\xac\xf0\x9f\x98\x80"},  // ä € 😀
      {"a\xff"
       "b",
       "a\xef\xbf\xbd"
       "b"},                               // impossible byte
      {"\x80", "\xef\xbf\xbd"},            // stray continuation byte
      {"\xe2\x82", "\xef\xbf\xbd"},        // truncated sequence: one U+FFFD
      {"\xed\xa0\x80x", "\xef\xbf\xbdx"},  // an encoded surrogate
      {"\xc0\xaf", "\xef\xbf\xbd"},        // overlong '/'
  };
  for (const Case& c : cases) {
    std::string out;
    AppendJsonString(c.in, &out);
    EXPECT_EQ(out, "\"" + c.out + "\"") << c.in;
    JsonValue back;
    ASSERT_TRUE(ParseJson(out, 1 << 20, &back, nullptr)) << out;
    EXPECT_EQ(back.type, JsonType::kString);
  }
}

TEST(JsonWriter, NestsWithCommas) {
  JsonWriter w;
  w.BeginObject()
      .Key("a")
      .Int(-5)
      .Key("b")
      .BeginArray()
      .String("x")
      .Bool(true)
      .Null()
      .BeginObject()
      .EndObject()
      .EndArray()
      .Key("c")
      .BeginObject()
      .Key("d")
      .Bool(false)
      .EndObject()
      .Key("e")
      .BeginArray()
      .EndArray()
      .EndObject();
  EXPECT_EQ(w.str(), R"({"a":-5,"b":["x",true,null,{}],"c":{"d":false},"e":[]})");
  JsonValue back;
  ASSERT_TRUE(ParseJson(w.str(), 1 << 20, &back, nullptr));
}

TEST(JsonWriter, EpochSeconds) {
  struct Case {
    int64_t ms;
    std::string out;
  } cases[] = {
      {0, "0"},
      {1700000000000, "1700000000"},
      {1700000000123, "1700000000.123"},
      {1700000000120, "1700000000.12"},
      {1700000000001, "1700000000.001"},
      {-1, "-0.001"},
      {-1500, "-1.5"},
  };
  for (const Case& c : cases) {
    JsonWriter w;
    w.EpochSeconds(c.ms);
    EXPECT_EQ(w.str(), c.out) << c.ms;
  }
}

}  // namespace
}  // namespace cubby::text
