#include "tools/mlf/args.h"

#include <gtest/gtest.h>

namespace mlf::cli {
namespace {

const std::vector<FlagSpec> kSpecs = {
    {"output", true, false, "o"},
    {"json", false, false, ""},
    {"input", true, true, ""},
};

TEST(ArgsTest, ParsesFlagsAndPositionalsInAnyOrder) {
  auto a = ParseArgs(kSpecs, {"x.tar", "-o", "out", "--json", "--input=a=1.npy",
                              "--input", "b=2.npy", "y"});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->positionals(), (std::vector<std::string>{"x.tar", "y"}));
  EXPECT_EQ(a->Get("output"), "out");
  EXPECT_TRUE(a->Has("json"));
  EXPECT_EQ(a->GetAll("input"), (std::vector<std::string>{"a=1.npy", "b=2.npy"}));
  EXPECT_EQ(a->Get("missing", "dflt"), "dflt");
}

TEST(ArgsTest, DoubleDashEndsFlags) {
  auto a = ParseArgs(kSpecs, {"--", "--json"});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->positionals(), (std::vector<std::string>{"--json"}));
}

TEST(ArgsTest, UsageErrors) {
  EXPECT_EQ(ParseArgs(kSpecs, {"--bogus"}).status().message(), "unknown option '--bogus'");
  EXPECT_EQ(ParseArgs(kSpecs, {"--ouput", "x"}).status().message(),
            "unknown option '--ouput' (did you mean '--output'?)");
  EXPECT_EQ(ParseArgs(kSpecs, {"--jsno"}).status().message(),
            "unknown option '--jsno' (did you mean '--json'?)");
  EXPECT_EQ(ParseArgs(kSpecs, {"--inptu=a=1.npy"}).status().message(),
            "unknown option '--inptu' (did you mean '--input'?)");
  EXPECT_EQ(ParseArgs(kSpecs, {"-x"}).status().message(), "unknown option '-x'");
  EXPECT_EQ(ParseArgs(kSpecs, {"-o"}).status().message(), "option '--output' needs a value");
  EXPECT_EQ(ParseArgs(kSpecs, {"-o", "a", "--output=b"}).status().message(),
            "option '--output' given more than once");
  EXPECT_EQ(ParseArgs(kSpecs, {"--json=1"}).status().message(),
            "option '--json' takes no value");
}

TEST(ArgsTest, ParseUnsigned) {
  EXPECT_EQ(*ParseUnsigned("n", "42"), 42u);
  EXPECT_EQ(ParseUnsigned("n", "-1").status().message(),
            "option '--n' needs a non-negative integer, got '-1'");
  EXPECT_EQ(ParseUnsigned("n", "99999999999999999999999").status().message(),
            "option '--n': '99999999999999999999999' is too large");
}

}  // namespace
}  // namespace mlf::cli
