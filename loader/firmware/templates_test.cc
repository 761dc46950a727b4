#include "loader/firmware/templates.h"

#include <gtest/gtest.h>

namespace mlf::firmware {
namespace {

TEST(FillTextTest, ReplacesEveryPlaceholderOnce) {
  auto text = FillText("a {{X}} b {{Y}} {{X}}", {{"X", "1"}, {"Y", "{{X}}"}});
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, "a 1 b {{X}} 1");  // values are not scanned again
}

TEST(FillTextTest, LeavesSingleBracesAlone) {
  EXPECT_EQ(*FillText("struct s x = {0}; } {", {}), "struct s x = {0}; } {");
  EXPECT_EQ(*FillText("unterminated {{X", {}), "unterminated {{X");
}

TEST(FillTextTest, RefusesMissingAndUnusedValues) {
  EXPECT_EQ(FillText("{{X}} {{Z}}", {{"X", ""}}).status().message(),
            "template placeholder {{Z}} has no value");
  EXPECT_EQ(FillText("{{X}}", {{"X", ""}, {"W", ""}}).status().message(),
            "template has no placeholder {{W}}");
  EXPECT_EQ(FillText("{{X}}", {{"X", ""}, {"W", ""}}).status().code(), StatusCode::kInternal);
}

TEST(ProjectTemplateTest, EmbedsEveryTemplateFile) {
  for (const char* name : {"CMakeLists.txt", "Makefile", "README.md", "main.c", "module.c",
                           "mlf_print.c", "mlf_print.h", "startup.c", "mlf_cycles.c",
                           "mlf_cycles.h", "model.mk"}) {
    auto text = ProjectTemplate(name);
    ASSERT_TRUE(text.has_value()) << name;
    EXPECT_GT(text->size(), 100u) << name;
  }
  EXPECT_FALSE(ProjectTemplate("missing.c").has_value());
  EXPECT_EQ(FillTemplate("missing.c", {}).status().message(),
            "no project template named 'missing.c'");
}

TEST(ProjectTemplateTest, CopiedVerbatimFilesHaveNoPlaceholders) {
  for (const char* name : {"mlf_print.c", "mlf_print.h", "mlf_cycles.c", "mlf_cycles.h"}) {
    EXPECT_EQ(ProjectTemplate(name)->find("{{"), std::string_view::npos) << name;
  }
}

TEST(ProjectTemplateTest, FillErrorsNameTheTemplate) {
  EXPECT_EQ(FillTemplate("startup.c", {{"BOARD", "b"}}).status().message(),
            "startup.c: template placeholder {{CPU}} has no value");
}

}  // namespace
}  // namespace mlf::firmware
