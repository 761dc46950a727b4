// mlf: the Model Library Format command line. One file per subcommand
// (cmd_*.cc); this file only dispatches and prints help.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "artifact/base/closest_word.h"
#include "artifact/base/display_text.h"
#include "artifact/base/version.h"
#include "artifact/format/metadata.h"
#include "tools/mlf/command.h"

namespace mlf::cli {
namespace {

void PrintOverview(std::ostream& out) {
  out << "usage: mlf <command> [options]\n\n"
         "Model Library Format toolkit: build, inspect, verify and sign model archives.\n\n"
         "commands:\n";
  for (const Command* c : AllCommands()) {
    std::string name = c->name;
    out << "  " << name << std::string(10 - name.size(), ' ') << c->summary << "\n";
  }
  out << "  help      show this overview, or `mlf help COMMAND` for one command\n"
         "  --version print the version of mlf and the format versions it reads and writes\n\n"
         "Exit status: 0 success, 1 a failed operation or check, 2 bad usage.\n";
}

const Command* FindCommand(const std::string& name) {
  for (const Command* c : AllCommands()) {
    if (name == c->name) return c;
  }
  return nullptr;
}

// --json among the flags (before any "--").
bool WantsJson(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") return false;
    if (a == "--json") return true;
  }
  return false;
}

bool WantsHelp(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") return false;
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

// "unknown command 'inpsect' (did you mean 'inspect'?)"
std::string UnknownCommand(const std::string& name) {
  std::vector<std::string> names = {"help"};
  for (const Command* c : AllCommands()) names.push_back(c->name);
  const std::string closest = ClosestWord(name, names);
  return "unknown command '" + name + "'" +
         (closest.empty() ? "" : " (did you mean '" + closest + "'?)");
}

// `mlf --version [--json]`.
int Version(const std::vector<std::string>& args) {
  const bool json = args.size() == 1 && args[0] == "--json";
  if (!args.empty() && !json) {
    std::cerr << "mlf: error: 'mlf --version' takes no argument but --json\nTry 'mlf help'.\n";
    return kExitUsage;
  }
  if (json) {
    nlohmann::json reads = nlohmann::json::array({5, 6, 7});
    for (int v = kOldestMetadataVersion; v <= kMetadataVersion; ++v) reads.push_back(v);
    PrintJsonReport({{"writes_metadata_version", kMetadataVersion}, {"reads_metadata_versions", reads}});
  } else {
    std::cout << "mlf " << kMlfkitVersion << "\n"
              << "writes Model Library Format version " << kMetadataVersion << "; reads versions "
              << kOldestMetadataVersion << "-" << kMetadataVersion << " and TVM's versions 5-7\n";
  }
  return kExitOk;
}

int Help(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    PrintOverview(std::cout);
    return kExitOk;
  }
  const Command* c = FindCommand(args[0]);
  if (c == nullptr) return ReportUsageError("help", UnknownCommand(args[0]));
  std::cout << c->usage;
  return kExitOk;
}

int Main(int argc, char** argv) {
  std::vector<std::string> words(argv + 1, argv + argc);
  if (words.empty()) {
    PrintOverview(std::cerr);
    return kExitUsage;
  }
  const std::string name = words[0];
  std::vector<std::string> rest(words.begin() + 1, words.end());
  if (name == "help" || name == "--help" || name == "-h") return Help(rest);
  if (name == "--version") return Version(rest);
  const Command* command = FindCommand(name);
  if (command == nullptr) {
    std::cerr << "mlf: error: " << DisplayText(UnknownCommand(name)) << "\nTry 'mlf help'.\n";
    if (WantsJson(rest)) {
      PrintJsonReport({{"ok", false},
                       {"error", UnknownCommand(name)},
                       {"error_code", "usage"},
                       {"exit_status", kExitUsage}});
    }
    return kExitUsage;
  }
  SetJsonOutput(WantsJson(rest));
  if (WantsHelp(rest)) {
    std::cout << command->usage;
    return kExitOk;
  }
  Result<ParsedArgs> parsed = ParseArgs(command->flags, rest);
  if (!parsed.ok()) return ReportUsageError(name, parsed.status().message());
  return command->run(*parsed);
}

}  // namespace
}  // namespace mlf::cli

// The last guard on everything mlf prints through std::cout and std::cerr:
// whatever path forgot to escape a name from an archive, no control byte,
// C1 control, bidi override or invalid UTF-8 reaches the terminal (only line
// breaks and tabs pass; artifact/base/display_text.h). JSON output is ASCII
// (JsonText) and passes unchanged.
class TerminalGuard {
 public:
  TerminalGuard() : out_(std::cout.rdbuf()), err_(std::cerr.rdbuf()) {
    std::cout.rdbuf(&out_);
    std::cerr.rdbuf(&err_);
  }
  ~TerminalGuard() {
    std::cout.flush();
    std::cerr.flush();
    out_.Finish();
    err_.Finish();
    std::cout.rdbuf(out_target_);
    std::cerr.rdbuf(err_target_);
  }

 private:
  std::streambuf* out_target_ = std::cout.rdbuf();
  std::streambuf* err_target_ = std::cerr.rdbuf();
  mlf::DisplayStreamBuf out_;
  mlf::DisplayStreamBuf err_;
};

int main(int argc, char** argv) {
  TerminalGuard guard;
  return mlf::cli::Main(argc, argv);
}
