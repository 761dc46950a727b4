#include "loader/firmware/c_text.h"

#include <gtest/gtest.h>

namespace mlf::firmware {
namespace {

TEST(CTextTest, ByteInitializers) {
  EXPECT_EQ(CByteInitializer(""), "{0}");
  EXPECT_EQ(CByteInitializer(std::string("\x00\xab", 2)), "{\n  0x00, 0xab,\n}");
  const std::string init = CByteInitializer(std::string(17, '\x01'));
  EXPECT_EQ(init.substr(init.size() - 10), "\n  0x01,\n}");
}

TEST(CTextTest, ElementTypesAndFormatters) {
  EXPECT_STREQ(CElementType(DType::kFloat32), "float");
  EXPECT_STREQ(CElementType(DType::kBool), "uint8_t");
  EXPECT_STREQ(CElementType(DType::kFloat16), "uint16_t");
  EXPECT_STREQ(FormatFunction(DType::kInt64), "mlf_format_i64");
  EXPECT_STREQ(FormatFunction(DType::kBFloat16), "mlf_format_bf16");
}

TEST(CTextTest, BuildSafePaths) {
  EXPECT_TRUE(IsBuildSafePath("codegen/host/src/default_lib0.c"));
  EXPECT_TRUE(IsBuildSafePath("codegen/host/src/a-b+c.c"));
  for (const char* bad : {"a b.c", "a$(shell x).c", "a;b.c", "a#b.c", "a\"b.c", "-rf.c", "src/-x.c",
                          "../x.c", "/abs.c", "a\\b.c", "a'b.c", "a:b.c", ""}) {
    EXPECT_FALSE(IsBuildSafePath(bad)) << bad;
  }
}

}  // namespace
}  // namespace mlf::firmware
