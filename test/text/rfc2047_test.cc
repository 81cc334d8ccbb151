#include "text/rfc2047.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cubby::text {
namespace {

TEST(Rfc2047Test, Decode) {
  struct Case {
    std::string value, text;
  };
  const std::vector<Case> cases = {
      {"Hello World", "Hello World"},
      {"", ""},
      {"Hello World\xc3\xa9", "Hello World\xc3\xa9"},  // raw UTF-8 stays
      {"Hello World\xe9", "Hello World\xc3\xa9"},      // not UTF-8: read as ISO-8859-1
      {"=?UTF-8?B?SGVsbG8gV29ybGTDqQ==?=", "Hello World\xc3\xa9"},
      {"=?utf-8?b?w6k=?=", "\xc3\xa9"},
      {"=?UTF-8?Q?Hello_World=C3=A9?=", "Hello World\xc3\xa9"},
      {"=?ISO-8859-1?Q?caf=E9?=", "caf\xc3\xa9"},
      {"=?US-ASCII?B?YWJj?=", "abc"},
      {"a =?UTF-8?B?w6k=?= b", "a \xc3\xa9 b"},                   // text around a word is kept
      {"=?UTF-8?B?w6k=?= =?UTF-8?B?w6k=?=", "\xc3\xa9\xc3\xa9"},  // space between words drops
      {"=?UTF-8?B?w6k=?=x=?UTF-8?B?w6k=?=", "\xc3\xa9x\xc3\xa9"},
      // Malformed or unknown: kept as sent.
      {"=?UTF-8?B?not base64?=", "=?UTF-8?B?not base64?="},
      {"=?UTF-8?B?w6k", "=?UTF-8?B?w6k"},
      {"=?KOI8-R?B?w6k=?=", "=?KOI8-R?B?w6k=?="},
      {"=?UTF-8?X?abc?=", "=?UTF-8?X?abc?="},
      {"=?UTF-8?Q?a=Z1?=", "=?UTF-8?Q?a=Z1?="},
      {"=?UTF-8?Q?a=C?=", "=?UTF-8?Q?a=C?="},
      {"=?UTF-8?B?/w==?=", "=?UTF-8?B?/w==?="},  // 0xFF is not UTF-8
      {"1+1=?", "1+1=?"},
      {"=?", "=?"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(DecodeHeaderText(c.value), c.text) << c.value;
  }
}

TEST(Rfc2047Test, Encode) {
  EXPECT_EQ(EncodeHeaderText("Hello World"), "Hello World");
  EXPECT_EQ(EncodeHeaderText("a\tb ~"), "a\tb ~");
  EXPECT_EQ(EncodeHeaderText(""), "");
  EXPECT_EQ(EncodeHeaderText("Hello World\xc3\xa9"), "=?UTF-8?B?SGVsbG8gV29ybGTDqQ==?=");
  EXPECT_EQ(EncodeHeaderText("a\x01"), "=?UTF-8?B?YQE=?=");
  // What is encoded decodes back.
  for (std::string text : {"\xe4\xb8\xad", "caf\xc3\xa9 au lait", "a=?b"}) {
    EXPECT_EQ(DecodeHeaderText(EncodeHeaderText(text)), text) << text;
  }
}

}  // namespace
}  // namespace cubby::text
