// Aligned text tables for human-readable command output.
#ifndef MLFKIT_TOOLS_MLF_TABLE_H_
#define MLFKIT_TOOLS_MLF_TABLE_H_

#include <ostream>
#include <string>
#include <vector>

namespace mlf::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // Prints every row with columns padded to their widest cell, each cell
  // escaped for the terminal (artifact/base/display_text.h DisplayText).
  void Print(std::ostream& out, const std::string& indent) const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace mlf::cli

#endif  // MLFKIT_TOOLS_MLF_TABLE_H_
