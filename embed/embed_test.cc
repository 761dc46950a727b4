#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "embed/embed_test_files.h"
#include "embed/embedded_files.h"

namespace mlf::embed {
namespace {

std::string Runfile(const std::string& path) {
  return std::string(std::getenv("TEST_SRCDIR")) + "/mlfkit/" + path;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(EmbedFilesTest, HoldsEveryFileByteForByteInOrder) {
  const Table table = testing::TestFiles();
  const char* keys[] = {"testdata/empty.txt", "testdata/text.txt", "testdata/gen/tricky.bin"};
  ASSERT_EQ(table.size, 3u);
  for (size_t i = 0; i < table.size; ++i) {
    const Entry& entry = table.entries[i];
    EXPECT_EQ(entry.key, keys[i]);
    EXPECT_EQ(entry.data, Slurp(Runfile("embed/" + std::string(keys[i])))) << keys[i];
    EXPECT_EQ(entry.data.data()[entry.data.size()], '\0') << keys[i];
  }
  // The generated file really holds the bytes that could break a literal.
  EXPECT_EQ(table.entries[2].data, std::string("a\0b\"c\\d?\?=e)\"f\377\200\n\tg\n\n", 21));
}

TEST(EmbedFilesTest, FindLooksUpByKey) {
  EXPECT_EQ(Find(testing::TestFiles(), "testdata/text.txt"),
            Slurp(Runfile("embed/testdata/text.txt")));
  EXPECT_EQ(Find(testing::TestFiles(), "testdata/empty.txt"), std::string_view());
  EXPECT_FALSE(Find(testing::TestFiles(), "text.txt").has_value());
  EXPECT_FALSE(Find(testing::TestFiles(), "testdata/missing.txt").has_value());
}

std::string TmpDir() { return std::getenv("TEST_TMPDIR"); }

struct ToolResult {
  int exit_code;
  std::string out;
  std::string err;
};

// Runs the embed tool with `args` (shell words; the paths used here need no
// quoting) in `dir`, by default the runfiles root, which stands in for the
// execution root a genrule runs in.
ToolResult RunTool(const std::string& args, const std::string& dir = Runfile("")) {
  const std::string command = "cd " + dir + " && " + Runfile("embed/embed") + " " + args + " >" +
                              TmpDir() + "/out 2>" + TmpDir() + "/err";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, Slurp(TmpDir() + "/out"),
          Slurp(TmpDir() + "/err")};
}

constexpr char kUsageLine[] =
    "usage: embed --function NS::NAME --include HEADER --strip PREFIX OUT.h OUT.cc FILE...\n";

TEST(EmbedToolTest, HelpGoesToStdout) {
  ToolResult r = RunTool("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind(kUsageLine, 0), 0u) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST(EmbedToolTest, RefusesBadUsageWithTheUsage) {
  const std::string outs = " " + TmpDir() + "/x.h " + TmpDir() + "/x.cc embed/testdata/text.txt";
  struct Case {
    std::string args;
    std::string message;
  } cases[] = {
      {"--include x.h --function Files" + outs,
       "--function wants a qualified C++ name such as mlf::Files, not 'Files'"},
      {"--include x.h --function a::1b" + outs,
       "--function wants a qualified C++ name such as mlf::Files, not 'a::1b'"},
      {"--include x.h --function ::b" + outs,
       "--function wants a qualified C++ name such as mlf::Files, not '::b'"},
      {"--function a::B" + outs, "--include wants the path OUT.cc includes OUT.h by"},
      {"--include x.h --function a::B x.h x.cc", "wants OUT.h, OUT.cc and at least one FILE"},
      {"--include x.h --function a::B --verbose" + outs, "unknown option --verbose"},
      {"--include x.h --function a::B --strip", "--strip wants a value"},
  };
  for (const Case& c : cases) {
    ToolResult r = RunTool(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    const size_t usage = r.err.find("usage: ");
    EXPECT_EQ(r.err.substr(0, usage), "embed: " + c.message + "\n") << c.args;
    EXPECT_EQ(r.err.rfind(kUsageLine, usage), usage) << r.err;
  }
}

TEST(EmbedToolTest, RefusesBadInputsNamingThem) {
  const std::string outs = " " + TmpDir() + "/x.h " + TmpDir() + "/x.cc ";
  const std::string base = "--include x.h --function a::B ";
  struct Case {
    std::string args;
    std::string message;
  } cases[] = {
      {base + "--strip nowhere/" + outs + "embed/testdata/text.txt",
       "embed/testdata/text.txt is not below 'nowhere/'"},
      // The prefix must start the path, not stand somewhere in it.
      {base + "--strip testdata/" + outs + "embed/testdata/text.txt",
       "embed/testdata/text.txt is not below 'testdata/'"},
      {base + "--strip embed/testdata/text.txt" + outs + "embed/testdata/text.txt",
       "embed/testdata/text.txt is not below 'embed/testdata/text.txt'"},
      {base + "--strip embed/" + outs + "embed/testdata/text.txt embed/testdata/text.txt",
       "two files have the key testdata/text.txt"},
      {base + "--strip embed/" + outs + "embed/testdata/missing.txt",
       "cannot read embed/testdata/missing.txt"},
      {base + "--strip embed/ " + TmpDir() + "/no/dir/x.h " + TmpDir() +
           "/x.cc embed/testdata/text.txt",
       "cannot write " + TmpDir() + "/no/dir/x.h"},
  };
  for (const Case& c : cases) {
    ToolResult r = RunTool(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args;
    EXPECT_EQ(r.err, "embed: " + c.message + "\n") << c.args;
  }
}

// The same file as a source, as a generated file and in another repository
// gives the same key, and the output depends on keys and bytes only.
TEST(EmbedToolTest, KeysIgnoreTheOutputTreeAndRepository) {
  const std::string root = TmpDir() + "/execroot";
  const std::string text = Slurp(Runfile("embed/testdata/text.txt"));
  const std::string paths[] = {"embed/testdata/text.txt",
                               "bazel-out/k8-fastbuild/bin/embed/testdata/text.txt",
                               "external/other/embed/testdata/text.txt",
                               "bazel-out/k8-opt/bin/external/other/embed/testdata/text.txt"};
  std::string first_h, first_cc;
  for (const std::string& path : paths) {
    const std::string dir = root + "/" + path.substr(0, path.rfind('/'));
    ASSERT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
    std::ofstream(root + "/" + path, std::ios::binary) << text;
    ToolResult r = RunTool("--include p/x.h --function a::B --strip embed/ " + TmpDir() + "/x.h " +
                               TmpDir() + "/x.cc " + path,
                           root);
    ASSERT_EQ(r.exit_code, 0) << path << ": " << r.err;
    const std::string h = Slurp(TmpDir() + "/x.h"), cc = Slurp(TmpDir() + "/x.cc");
    EXPECT_NE(cc.find("{\"testdata/text.txt\", {kFile0, 1004u}}"), std::string::npos) << cc;
    if (first_h.empty()) {
      first_h = h;
      first_cc = cc;
    }
    EXPECT_EQ(h, first_h) << path;
    EXPECT_EQ(cc, first_cc) << path;
  }
  EXPECT_NE(first_h.find("\n::mlf::embed::Table B();\n"), std::string::npos) << first_h;
}

}  // namespace
}  // namespace mlf::embed
