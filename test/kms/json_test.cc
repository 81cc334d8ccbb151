// kms/json.h: string escaping (control characters, quotes, ill-formed UTF-8) and the writer's
// commas, nesting and numbers. Every output is read back with text/json.h's strict reader.
#include "kms/json.h"

#include <gtest/gtest.h>

#include <string>

#include "text/json.h"

namespace cubby::kms {
namespace {

using namespace std::string_literals;

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
    text::JsonValue back;
    ASSERT_TRUE(text::ParseJson(out, 1 << 20, &back, nullptr)) << out;
    EXPECT_EQ(back.type, text::JsonType::kString);
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
  text::JsonValue back;
  ASSERT_TRUE(text::ParseJson(w.str(), 1 << 20, &back, nullptr));
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
}  // namespace cubby::kms
