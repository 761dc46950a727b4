#include "artifact/jsonschema/json_schema_uri.h"

#include <gtest/gtest.h>

namespace mlf {
namespace json_schema_internal {
namespace {

using json = nlohmann::json;

TEST(ResolveUriTest, FollowsRfc3986Examples) {
  const std::string base = "http://a/b/c/d;p?q";
  EXPECT_EQ(ResolveUri(base, "g"), "http://a/b/c/g");
  EXPECT_EQ(ResolveUri(base, "./g"), "http://a/b/c/g");
  EXPECT_EQ(ResolveUri(base, "g/"), "http://a/b/c/g/");
  EXPECT_EQ(ResolveUri(base, "/g"), "http://a/g");
  EXPECT_EQ(ResolveUri(base, "//g"), "http://g");
  EXPECT_EQ(ResolveUri(base, "?y"), "http://a/b/c/d;p?y");
  EXPECT_EQ(ResolveUri(base, "#s"), "http://a/b/c/d;p?q#s");
  EXPECT_EQ(ResolveUri(base, ""), "http://a/b/c/d;p?q");
  EXPECT_EQ(ResolveUri(base, ".."), "http://a/b/");
  EXPECT_EQ(ResolveUri(base, "../../g"), "http://a/g");
  EXPECT_EQ(ResolveUri(base, "../../../../g"), "http://a/g");
  EXPECT_EQ(ResolveUri(base, "g:h"), "g:h");
}

TEST(ResolveUriTest, RelativeBaseStaysRelative) {
  EXPECT_EQ(ResolveUri("", "#/definitions/a"), "#/definitions/a");
  EXPECT_EQ(ResolveUri("", "node"), "node");
  EXPECT_EQ(ResolveUri("http://localhost:1234/tree", "node"), "http://localhost:1234/node");
  EXPECT_EQ(ResolveUri("http://localhost:1234", "folder/"), "http://localhost:1234/folder/");
}

TEST(SplitFragmentTest, SplitsAtFirstHash) {
  EXPECT_EQ(SplitFragment("a.json#/x"), std::make_pair(std::string("a.json"), std::string("/x")));
  EXPECT_EQ(SplitFragment("a.json"), std::make_pair(std::string("a.json"), std::string()));
}

TEST(PercentDecodeTest, DecodesAndRejectsMalformedEscapes) {
  EXPECT_EQ(PercentDecode("/percent%25field%2f"), "/percent%field/");
  EXPECT_EQ(PercentDecode("%2"), std::nullopt);
  EXPECT_EQ(PercentDecode("%zz"), std::nullopt);
}

TEST(JsonPointerTest, ParsesEscapesAndRoundTrips) {
  auto tokens = ParsePointer("/a~1b/c~0d/");
  ASSERT_TRUE(tokens.has_value());
  EXPECT_EQ(*tokens, (std::vector<std::string>{"a/b", "c~d", ""}));
  EXPECT_EQ(JoinPointer(*tokens), "/a~1b/c~0d/");
  EXPECT_EQ(ParsePointer(""), std::vector<std::string>{});
  EXPECT_EQ(ParsePointer("a"), std::nullopt);
  EXPECT_EQ(ParsePointer("/~2"), std::nullopt);
}

TEST(JsonPointerTest, FindsValuesAndRejectsBadIndices) {
  json doc = json::parse(R"({"a": [10, {"b/c": true}]})");
  EXPECT_EQ(*FindPointer(doc, {"a", "1", "b/c"}), json(true));
  EXPECT_EQ(FindPointer(doc, {"a", "01"}), nullptr);
  EXPECT_EQ(FindPointer(doc, {"a", "2"}), nullptr);
  EXPECT_EQ(FindPointer(doc, {"x"}), nullptr);
  EXPECT_EQ(FindPointer(doc, {}), &doc);
}

}  // namespace
}  // namespace json_schema_internal
}  // namespace mlf
