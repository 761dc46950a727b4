#include "tools/mlf/table.h"

#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace mlf::cli {
namespace {

TEST(TableTest, PadsColumnsToTheWidestCell) {
  Table t({"#", "name"});
  t.AddRow({"0", "serving_default_input_1:0"});
  t.AddRow({"10", "y"});
  std::ostringstream out;
  t.Print(out, "  ");
  EXPECT_EQ(out.str(), "  #   name\n  0   serving_default_input_1:0\n  10  y\n");
}

// Cells are names from archives: escaped, and measured after escaping so the
// columns stay aligned.
TEST(TableTest, EscapesCellsForTheTerminal) {
  Table t({"name", "c name"});
  t.AddRow({"y\x1b[2K\rverified OK\n", "y"});
  t.AddRow({"\xe2\x80\xae" "x", "x"});
  std::ostringstream out;
  t.Print(out, "");
  EXPECT_EQ(out.str(),
            "name" + std::string(25, ' ') + "c name\n" +
            "y\\x1b[2K\\x0dverified OK\\x0a  y\n" +
            "\\u{202E}x" + std::string(20, ' ') + "x\n");
}

}  // namespace
}  // namespace mlf::cli
