#include "artifact/jsonschema/json_limits.h"

#include <string>

#include <gtest/gtest.h>

namespace mlf {
namespace {

TEST(JsonLimitsTest, ParsesOrdinaryDocuments) {
  auto j = ParseBoundedJson(R"({"a": [1, {"b": "x[{"}]})", 1024, 8);
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  EXPECT_EQ((*j)["a"][1]["b"], "x[{");
}

TEST(JsonLimitsTest, DepthIgnoresBracketsInStrings) {
  EXPECT_EQ(JsonNestingDepth(R"({"k": "[[[[\"{{{"})", 10), 1);
  EXPECT_EQ(JsonNestingDepth("[[[]]]", 10), 3);
}

TEST(JsonLimitsTest, RefusesDeepNestingBeforeParsing) {
  std::string deep(100000, '[');  // would overflow a recursive parser's stack
  auto j = ParseBoundedJson(deep, 1 << 20, 64);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(j.status().message(), "JSON nesting is deeper than the limit of 64 levels");
}

TEST(JsonLimitsTest, RefusesOversizeDocument) {
  auto j = ParseBoundedJson(std::string(2000, ' ') + "{}", 1000, 8);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().message(), "JSON document is 2002 bytes, more than the limit of 1000");
}

TEST(JsonLimitsTest, RefusesDuplicateKeys) {
  auto j = ParseBoundedJson(R"({"a": {"x": 1, "x": 2}})", 1024, 8);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().message(), "duplicate JSON object key \"x\"");
  EXPECT_TRUE(ParseBoundedJson(R"({"a": {"x": 1}, "b": {"x": 2}})", 1024, 8).ok());
}

// Found by the metadata fuzzer: "size_bytes": 2222...560 (46 digits) became a
// double, and get<uint64_t>() converted it with undefined behaviour.
TEST(JsonLimitsTest, RefusesNumbersBeyondSixtyFourBits) {
  auto j = ParseBoundedJson(R"({"size_bytes": 2222222222222222222222222222222222222222222560})",
                            1024, 8);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(j.status().message(), "JSON number 2.2222222222222223e+45 is out of range: numbers "
                                  "must lie within 64-bit integers");
  j = ParseBoundedJson(R"([1, -9.3e18])", 1024, 8);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().message(),
            "JSON number -9.3e+18 is out of range: numbers must lie within 64-bit integers");
  // The largest unsigned and the smallest signed 64-bit integers stay integers.
  j = ParseBoundedJson(R"([18446744073709551615, -9223372036854775808, 1.5, 1e18])", 1024, 8);
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  EXPECT_EQ((*j)[0].get<uint64_t>(), 18446744073709551615u);
  EXPECT_EQ((*j)[1].get<int64_t>(), INT64_MIN);
}

TEST(JsonLimitsTest, RefusesInvalidJson) {
  auto j = ParseBoundedJson("{\"a\": ", 1024, 8);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(j.status().message().rfind("not valid JSON: ", 0), 0u);
}

}  // namespace
}  // namespace mlf
