#include "text/names.h"

#include <gtest/gtest.h>

#include "text/status.h"

namespace cubby::text {
namespace {

enum class Color { kRed, kGreen, kBlue, kUnnamed };
constexpr Named<Color> kColors[] = {
    {Color::kRed, "red"}, {Color::kGreen, "green"}, {Color::kBlue, "blue"}};

TEST(NamesTest, ReadBothWays) {
  for (const auto& [color, name] : kColors) {
    EXPECT_EQ(NameOf(kColors, color), name);
    EXPECT_EQ(ValueNamed(kColors, name), color);
  }
  static_assert(NameOf(kColors, Color::kGreen) == "green");
}

TEST(NamesTest, UnknownValuesAndNames) {
  EXPECT_EQ(NameOf(kColors, Color::kUnnamed), "");
  EXPECT_EQ(NameOf(kColors, Color::kUnnamed, "red"), "red");
  EXPECT_EQ(NameOf(kColors, static_cast<Color>(42), "?"), "?");
  for (std::string_view bad : {"", "Red", "red ", " red", "redd", "purple"}) {
    EXPECT_EQ(ValueNamed(kColors, bad), std::nullopt) << bad;
  }
}

enum class Code { kOk, kBroken };
const char* CodeName(Code code) { return code == Code::kOk ? "OK" : "Broken"; }
using TestStatus = Status<Code>;

TEST(StatusTest, ToStringNamesTheCodeAndMessage) {
  EXPECT_EQ(TestStatus().ToString(), "OK");
  EXPECT_TRUE(TestStatus::Ok().ok());
  EXPECT_EQ(TestStatus(Code::kBroken, "").ToString(), "Broken");
  const TestStatus s(Code::kBroken, "a wheel came off");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kBroken);
  EXPECT_EQ(s.ToString(), "Broken: a wheel came off");
}

TEST(StatusTest, ResultHoldsAValueOrAFailure) {
  Result<TestStatus, std::string> value(std::string("four"));
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, "four");
  EXPECT_EQ(value->size(), 4u);
  EXPECT_EQ(std::move(value).value(), "four");
  Result<TestStatus, std::string> failed(TestStatus(Code::kBroken, "no"));
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().ToString(), "Broken: no");
}

}  // namespace
}  // namespace cubby::text
