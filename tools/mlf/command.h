// The subcommand table of `mlf` and what each subcommand file provides.
//
// Every subcommand lives in its own cmd_<name>.cc and exposes one Command.
// main.cc dispatches on the first word; `help` is generated from the table.
// Exit codes (docs/design.md, "The command line"): 0 success, 1 a failed operation or check,
// 2 bad usage. Errors go to stderr as "mlf: error: ...".
#ifndef MLFKIT_TOOLS_MLF_COMMAND_H_
#define MLFKIT_TOOLS_MLF_COMMAND_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "artifact/base/status.h"
#include "tools/mlf/args.h"

namespace mlf::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

struct Command {
  const char* name;
  const char* summary;  // one line for `mlf help`
  const char* usage;    // the full text for `mlf help CMD` and `mlf CMD --help`
  std::vector<FlagSpec> flags;
  // Runs with parsed arguments; returns the process exit code.
  int (*run)(const ParsedArgs& args);
};

// Human-readable output is terminal text: strings from archives and models go
// through artifact/base/display_text.h (DisplayText), and main() routes std::cout
// and std::cerr through a DisplayStreamBuf as the last guard. JSON output is
// JsonText, which is printable ASCII only, so the guard leaves it alone.

// `j` as --json prints it: two-space indent, every non-ASCII character and
// control escaped (\uXXXX), invalid UTF-8 replaced by U+FFFD; ends in "\n".
std::string JsonText(const nlohmann::json& j);

// --json documents (docs/cli-json.md). Every document a command prints on
// stdout is one JSON object carrying "schema_version"
// (kJsonReportSchemaVersion, artifact/base/version.h) and "mlf_version".

// Set by main() when the command line asks for --json: failures are then also
// reported as a JSON error object on stdout (unless the command already
// printed its document), so a script always has one document to read.
void SetJsonOutput(bool on);
bool JsonOutput();

// Adds "schema_version" and "mlf_version" to the object `report` and prints it
// on stdout.
void PrintJsonReport(nlohmann::json report);

// Prints "mlf: error: <message>" to stderr and returns kExitFailure. With
// --json, also {"ok": false, "error": MESSAGE, "error_code": "not_found" (the
// status code's name), "exit_status": 1} on stdout ("usage" and 2 for
// ReportUsageError).
int ReportFailure(const Status& status);
// Prints "mlf: error: <message>" and a hint to see `mlf CMD --help`; returns kExitUsage.
int ReportUsageError(const std::string& command, const std::string& message);
// Checks the positional count; on mismatch reports a usage error.
bool ExpectPositionals(const std::string& command, const ParsedArgs& args, size_t min,
                       size_t max, int* exit_code);

const Command& ExportCommand();
const Command& PackCommand();
const Command& UnpackCommand();
const Command& InspectCommand();
const Command& VerifyCommand();
const Command& KeygenCommand();
const Command& SignCommand();
const Command& RunCommand();
const Command& BenchCommand();
const Command& ProjectCommand();
const Command& BoardsCommand();
const Command& UpgradeCommand();

// Every subcommand, in the order `mlf help` lists them.
const std::vector<const Command*>& AllCommands();

}  // namespace mlf::cli

#endif  // MLFKIT_TOOLS_MLF_COMMAND_H_
