#include "embed/embedded_files.h"

namespace mlf::embed {

std::optional<std::string_view> Find(const Table& table, std::string_view key) {
  for (const Entry& entry : table) {
    if (entry.key == key) return entry.data;
  }
  return std::nullopt;
}

}  // namespace mlf::embed
