#include "tools/mlf/assignments.h"

#include "artifact/base/display_text.h"

namespace mlf::cli {

Result<std::pair<std::string, std::string>> SplitAssignment(const std::string& flag,
                                                            const std::string& text,
                                                            const std::string& value_form) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    return InvalidArgument("--" + flag + " needs NAME=" + value_form + ", got " +
                           QuoteForMessage(text));
  }
  return std::make_pair(text.substr(0, eq), text.substr(eq + 1));
}

Result<std::vector<std::pair<std::string, std::string>>> Assignments(
    const ParsedArgs& args, const std::string& flag, const std::string& value_form) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const std::string& assignment : args.GetAll(flag)) {
    MLF_ASSIGN_OR_RETURN(auto pair, SplitAssignment(flag, assignment, value_form));
    for (const auto& earlier : pairs) {
      if (earlier.first == pair.first) {
        return InvalidArgument("--" + flag + " names " + QuoteForMessage(pair.first) +
                               " more than once");
      }
    }
    pairs.push_back(pair);
  }
  return pairs;
}

}  // namespace mlf::cli
