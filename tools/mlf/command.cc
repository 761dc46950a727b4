#include "tools/mlf/command.h"

#include <iostream>

#include "artifact/base/display_text.h"

namespace mlf::cli {

std::string JsonText(const nlohmann::json& j) {
  return j.dump(2, ' ', /*ensure_ascii=*/true, nlohmann::json::error_handler_t::replace) + "\n";
}

// Messages carry names from archives and models; a compiler's output inside
// one keeps its line breaks, nothing else that steers a terminal passes.
int ReportFailure(const Status& status) {
  std::cerr << "mlf: error: " << DisplayLines(status.message()) << "\n";
  return kExitFailure;
}

int ReportUsageError(const std::string& command, const std::string& message) {
  std::cerr << "mlf: error: " << DisplayLines(message) << "\n"
            << "Try 'mlf " << command << " --help'.\n";
  return kExitUsage;
}

bool ExpectPositionals(const std::string& command, const ParsedArgs& args, size_t min,
                       size_t max, int* exit_code) {
  const size_t n = args.positionals().size();
  if (n >= min && n <= max) return true;
  std::string message = n < min ? "missing argument" : "unexpected argument '" +
                                                           DisplayText(args.positionals()[max]) + "'";
  *exit_code = ReportUsageError(command, message);
  return false;
}

const std::vector<const Command*>& AllCommands() {
  static const std::vector<const Command*> commands = {
      &ExportCommand(), &PackCommand(),   &UnpackCommand(), &InspectCommand(),
      &VerifyCommand(), &KeygenCommand(), &SignCommand(),   &RunCommand(),
      &BenchCommand(),  &ProjectCommand(), &UpgradeCommand(),
  };
  return commands;
}

}  // namespace mlf::cli
