#include "s3api/format.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cubby::s3api {
namespace {

TEST(FormatTest, Timestamps) {
  EXPECT_EQ(Iso8601(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(Iso8601(1255369830123), "2009-10-12T17:50:30.123Z");
  EXPECT_EQ(HttpDate(784111777000), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(HttpDate(1445412480999), "Wed, 21 Oct 2015 07:28:00 GMT");
  EXPECT_EQ(HttpDate(951782400000), "Tue, 29 Feb 2000 00:00:00 GMT");  // leap day
  EXPECT_EQ(Iso8601(-1), "1969-12-31T23:59:59.999Z");                   // before the epoch
  EXPECT_EQ(HttpDate(-1), "Wed, 31 Dec 1969 23:59:59 GMT");
  EXPECT_EQ(Iso8601(9214646399999), "2261-12-31T23:59:59.999Z");  // the last year TimePoint holds
}

TEST(FormatTest, Etags) {
  EXPECT_EQ(QuoteEtag("abc"), "\"abc\"");
  EXPECT_EQ(ParseEtagList("\"a\", W/\"b\",c , *"),
            (std::vector<std::string>{"a", "b", "c", "*"}));
  EXPECT_TRUE(ParseEtagList("").empty());
}

}  // namespace
}  // namespace cubby::s3api
