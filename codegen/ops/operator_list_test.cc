// codegen/ops/README.md's list of supported operators is the registry's:
// the test fails when an operator is registered but not listed, or listed
// but not registered, and prints the list to paste.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/ops/op.h"

namespace mlf::ops {
namespace {

constexpr const char* kReadme = "codegen/ops/README.md";
constexpr const char* kBegin = "<!-- operator list: begin -->";
constexpr const char* kEnd = "<!-- operator list: end -->";

// The names between the markers: "`Abs`, `Acos`, ..." -> {"Abs", "Acos", ...}.
std::vector<std::string> ListedOperators(const std::string& text) {
  const size_t begin = text.find(kBegin);
  const size_t end = text.find(kEnd);
  std::vector<std::string> names;
  if (begin == std::string::npos || end == std::string::npos || end < begin) return names;
  const std::string list = text.substr(begin, end - begin);
  for (size_t at = list.find('`'); at != std::string::npos; at = list.find('`', at)) {
    const size_t close = list.find('`', at + 1);
    if (close == std::string::npos) break;
    names.push_back(list.substr(at + 1, close - at - 1));
    at = close + 1;
  }
  return names;
}

// The list as it belongs in the README, wrapped at 100 columns.
std::string ListText(const std::vector<std::string>& names) {
  std::string text, line;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string item = "`" + names[i] + "`" + (i + 1 < names.size() ? "," : "");
    if (!line.empty() && line.size() + 1 + item.size() > 100) {
      text += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + item;
  }
  return text + line + "\n";
}

TEST(OperatorList, ReadmeListsExactlyTheRegisteredOperators) {
  std::ifstream f(kReadme);
  ASSERT_TRUE(f) << "cannot read " << kReadme;
  std::stringstream ss;
  ss << f.rdbuf();
  const std::vector<std::string> listed = ListedOperators(ss.str());
  const std::vector<std::string> registered = SupportedOps();
  EXPECT_EQ(listed, registered) << kReadme << " between '" << kBegin << "' and '" << kEnd
                                << "' should read:\n"
                                << ListText(registered);
}

TEST(OperatorList, ParsesTheMarkedList) {
  EXPECT_EQ(ListedOperators(std::string("x `No` ") + kBegin + "\n`Abs`, `Add`\n" + kEnd + " `No`"),
            (std::vector<std::string>{"Abs", "Add"}));
  EXPECT_TRUE(ListedOperators("`Abs` without markers").empty());
}

}  // namespace
}  // namespace mlf::ops
