#include "tvm/upgrade/c_rewrite.h"

#include <gtest/gtest.h>

namespace mlf::tvm_upgrade {
namespace {

TEST(CountIdentifier, WholeTokensOutsideCommentsAndLiterals) {
  const char text[] =
      "int32_t tvmgen_d_run(void); /* tvmgen_d_run */ // tvmgen_d_run\n"
      "const char* s = \"tvmgen_d_run\"; int x = tvmgen_d_run_model(); char c = 'x';\n"
      "#define CALL tvmgen_d_run()\n";
  EXPECT_EQ(CountIdentifier(text, "tvmgen_d_run"), 2);
  EXPECT_EQ(CountIdentifier(text, "tvmgen_d_run_model"), 1);
  EXPECT_EQ(CountIdentifier(text, "d_run"), 0);
}

TEST(RenameIdentifiers, RenamesOnlyTheIdentifier) {
  const char text[] =
      "#include <tvmgen_d.h>\n"
      "int32_t tvmgen_d_run(struct tvmgen_d_inputs* i) { return tvmgen_d_run_model(\"tvmgen_d_run\"); }\n"
      "/* tvmgen_d_run */ float f = 0x1p-1f + 1e-5;\n";
  EXPECT_EQ(RenameIdentifiers(text, {{"tvmgen_d_run", "tvmgen_d_tvm_run"}}),
            "#include <tvmgen_d.h>\n"
            "int32_t tvmgen_d_tvm_run(struct tvmgen_d_inputs* i) { return tvmgen_d_run_model(\"tvmgen_d_run\"); }\n"
            "/* tvmgen_d_run */ float f = 0x1p-1f + 1e-5;\n");
}

TEST(RenameIdentifiers, UnterminatedCommentOrLiteralIsKept) {
  EXPECT_EQ(RenameIdentifiers("a /* a", {{"a", "b"}}), "b /* a");
  EXPECT_EQ(RenameIdentifiers("a \"a", {{"a", "b"}}), "b \"a");
}

constexpr char kUsmp[] =
    "#include <stdint.h>\n"
    "static struct global_const_workspace { int8_t c[4]; } global_const_workspace = {{1, 2, 3, 4}};\n"
    "__attribute__((section(\".bss.noinit.tvm\"), aligned(16)))\n"
    "static uint8_t global_workspace[32];\n"
    "static uint8_t other[8];\n"
    "void f(void) { static uint8_t inner[4]; g((uint8_t*)&global_workspace, sizeof global_workspace, inner); }\n";

TEST(FindStaticPools, FileScopeUint8ArraysWithTheirAttributes) {
  const std::vector<StaticPool> pools = FindStaticPools(kUsmp);
  ASSERT_EQ(pools.size(), 2u);
  EXPECT_EQ(pools[0].name, "global_workspace");
  EXPECT_EQ(pools[0].size, 32u);
  const std::string text = kUsmp;
  EXPECT_EQ(text.substr(pools[0].begin, pools[0].end - pools[0].begin),
            "__attribute__((section(\".bss.noinit.tvm\"), aligned(16)))\n"
            "static uint8_t global_workspace[32];");
  EXPECT_EQ(pools[1].name, "other");
  EXPECT_EQ(pools[1].size, 8u);
}

TEST(FindStaticPools, ExternCBlocksStayAtFileScope) {
  const std::vector<StaticPool> pools = FindStaticPools(
      "#ifdef __cplusplus\nextern \"C\" {\n#endif\nstatic uint8_t pool[16];\n"
      "int f(void) { static uint8_t local[4]; return 0; }\n#ifdef __cplusplus\n}\n#endif\n"
      "static uint8_t after[8];\n");
  ASSERT_EQ(pools.size(), 2u);
  EXPECT_EQ(pools[0].name, "pool");
  EXPECT_EQ(pools[1].name, "after");
}

TEST(FindStaticPools, IgnoresConstInitialisedAndNonByteArrays) {
  EXPECT_TRUE(FindStaticPools("static const uint8_t a[4];\nstatic uint8_t b[4] = {0};\n"
                              "static float c[4];\nuint8_t d[4];\nstatic uint8_t e[N];\n")
                  .empty());
}

TEST(MovePoolsToCallerMemory, ReplacesDeclarationAndUses) {
  const std::vector<StaticPool> pools = FindStaticPools(kUsmp);
  const std::string moved = MovePoolsToCallerMemory(kUsmp, {pools[0]}, {64}, "pools_of_d");
  EXPECT_EQ(moved,
            "#include <stdint.h>\n"
            "static struct global_const_workspace { int8_t c[4]; } global_const_workspace = {{1, 2, 3, 4}};\n"
            "/* mlfkit upgrade: pool global_workspace (32 bytes) lives at offset 64 of the caller's "
            "workspace */\nuint8_t* pools_of_d(void);\n"
            "static uint8_t other[8];\n"
            "void f(void) { static uint8_t inner[4]; g((uint8_t*)&(*(uint8_t (*)[32])(pools_of_d() + 64)), "
            "sizeof (*(uint8_t (*)[32])(pools_of_d() + 64)), inner); }\n");
}

}  // namespace
}  // namespace mlf::tvm_upgrade
