#include "tools/mlf/table.h"

#include <algorithm>

#include "artifact/base/display_text.h"

namespace mlf::cli {

void Table::Print(std::ostream& out, const std::string& indent) const {
  // Cells are names and paths from archives: escaped before they are measured.
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : rows_) {
    std::vector<std::string> shown;
    for (const std::string& cell : row) shown.push_back(DisplayText(cell));
    rows.push_back(std::move(shown));
  }
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    out << line << "\n";
  }
}

}  // namespace mlf::cli
