#include "loader/firmware/stack_usage.h"

#include <gtest/gtest.h>

namespace mlf::firmware {
namespace {

// gcc 12's -fcallgraph-info=su, abridged: main calls run, which calls a
// task through a pointer and memset (a library call); "t.c:task" is static.
constexpr char kCi[] =
    "graph: { title: \"t.c\"\n"
    "node: { title: \"main\" label: \"main\\nt.c:9:5\\n16 bytes (static)\" }\n"
    "edge: { sourcename: \"main\" targetname: \"run\" label: \"t.c:9:20\" }\n"
    "node: { title: \"run\" label: \"run\\nt.c:5:6\\n32 bytes (static)\" }\n"
    "node: { title: \"__indirect_call\" label: \"Indirect Call Placeholder\" shape : ellipse }\n"
    "edge: { sourcename: \"run\" targetname: \"__indirect_call\" label: \"t.c:5:30\" }\n"
    "node: { title: \"memset\" label: \"__builtin_memset\\n<built-in>\" shape : ellipse }\n"
    "edge: { sourcename: \"run\" targetname: \"memset\" }\n"
    "node: { title: \"t.c:task\" label: \"task\\nt.c:2:13\\n600 bytes (static)\" }\n"
    "node: { title: \"isr\" label: \"isr\\nt.c:1:6\\n8 bytes (static)\" }\n"
    "}\n";

TEST(StackUsageTest, SumsTheDeepestPathWithIndirectCallsAndAllowances) {
  CallGraph g;
  ASSERT_TRUE(AddCallGraph(kCi, "t", &g).ok());
  // Without targets the indirect call reaches nothing: memset's allowance is deepest.
  StackBound b = BoundStack(g, {}, {"main"}, "isr", 40);
  ASSERT_TRUE(b.bounded) << b.why_unbounded;
  EXPECT_EQ(b.bytes, 16 + 32 + kLibraryCallAllowance + 40 + 8);
  EXPECT_EQ(b.deepest_path, (std::vector<std::string>{"main", "run", "memset"}));
  EXPECT_EQ(b.library_calls, 1u);
  g.indirect_targets["t"] = {"t.c:task"};
  b = BoundStack(g, {"outer", "main"}, {"run"}, "", 0);
  ASSERT_TRUE(b.bounded);
  EXPECT_EQ(b.bytes, 16 + 32 + 600u);  // "outer" has no figures: inlined, skipped
  EXPECT_EQ(b.deepest_path, (std::vector<std::string>{"main", "run", "t.c:task"}));
}

TEST(StackUsageTest, RecursionAndDynamicFramesAreUnbounded) {
  CallGraph g;
  ASSERT_TRUE(AddCallGraph(kCi, "t", &g).ok());
  g.calls["t.c:task"].insert("run");
  g.indirect_targets["t"] = {"t.c:task"};
  StackBound b = BoundStack(g, {}, {"main"}, "", 0);
  EXPECT_FALSE(b.bounded);
  EXPECT_EQ(b.why_unbounded, "recursion: run -> __indirect_call:t -> t.c:task -> run");
  CallGraph d;
  ASSERT_TRUE(AddCallGraph("node: { title: \"f\" label: \"f\\nf.c:1:1\\n24 bytes (dynamic,bounded)\" }\n", "f", &d).ok());
  b = BoundStack(d, {}, {"f"}, "", 0);
  EXPECT_FALSE(b.bounded);
  EXPECT_EQ(b.why_unbounded, "the frame of f is dynamic (a variable-length array or alloca)");
  b = BoundStack(d, {}, {"g"}, "", 0);
  EXPECT_EQ(b.why_unbounded, "no stack figures for g");
}

TEST(StackUsageTest, ReadsPaintedFigures) {
  std::vector<CountedModule> modules = {{"my model", "my_model", 0, {}}};
  Result<std::vector<StackMeasurement>> s = ReadStackMeasurements("output y 1 0\nstack my_model 1724\n", modules);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->size(), 1u);
  EXPECT_EQ((*s)[0].module, "my model");
  EXPECT_EQ((*s)[0].bytes, 1724u);
  EXPECT_EQ(ReadStackMeasurements("stack other 5\n", modules).status().message(),
            "the firmware printed a stack line for 'other', which is no module of the project: 'stack other 5'");
  EXPECT_EQ(ReadStackMeasurements("stack my_model 5 6\n", modules).status().message(),
            "the firmware printed a malformed stack line 'stack my_model 5 6' (expected 'stack <module> <bytes>')");
}

}  // namespace
}  // namespace mlf::firmware
