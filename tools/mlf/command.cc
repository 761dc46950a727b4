#include "tools/mlf/command.h"

#include <iostream>

#include "artifact/base/display_text.h"
#include "artifact/base/version.h"

namespace mlf::cli {
namespace {

bool json_output = false;
bool json_printed = false;

// The error object of a failed command run with --json, unless its document
// is already out (verify and run print theirs before failing a check).
// The fields are those of `mlf verify --json` on a failed check.
void PrintJsonError(const std::string& error_code, const std::string& message, int exit_status) {
  if (!json_output || json_printed) return;
  PrintJsonReport({{"ok", false},
                   {"error", message},
                   {"error_code", error_code},
                   {"exit_status", exit_status}});
}

}  // namespace

std::string JsonText(const nlohmann::json& j) {
  return j.dump(2, ' ', /*ensure_ascii=*/true, nlohmann::json::error_handler_t::replace) + "\n";
}

void SetJsonOutput(bool on) { json_output = on; }
bool JsonOutput() { return json_output; }

void PrintJsonReport(nlohmann::json report) {
  report["schema_version"] = kJsonReportSchemaVersion;
  report["mlf_version"] = kMlfkitVersion;
  std::cout << JsonText(report) << std::flush;
  json_printed = true;
}

// Messages carry names from archives and models; a compiler's output inside
// one keeps its line breaks, nothing else that steers a terminal passes.
int ReportFailure(const Status& status) {
  std::cerr << "mlf: error: " << DisplayLines(status.message()) << "\n";
  PrintJsonError(StatusCodeName(status.code()), status.message(), kExitFailure);
  return kExitFailure;
}

int ReportUsageError(const std::string& command, const std::string& message) {
  std::cerr << "mlf: error: " << DisplayLines(message) << "\n"
            << "Try 'mlf " << command << " --help'.\n";
  PrintJsonError("usage", message, kExitUsage);
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
      &BenchCommand(),  &ProjectCommand(), &BoardsCommand(), &UpgradeCommand(),
  };
  return commands;
}

}  // namespace mlf::cli
