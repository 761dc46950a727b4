// mlf boards: the built-in boards of `mlf project --board`.
#include <iomanip>
#include <iostream>

#include "loader/firmware/board.h"
#include "loader/firmware/platform.h"
#include "tools/mlf/command.h"

namespace mlf::cli {
namespace {

constexpr char kUsage[] =
    "usage: mlf boards [--json]\n\n"
    "Lists the boards built into mlf for `mlf project --board NAME`: the CPU, the\n"
    "memory regions, the console and the QEMU machine that runs it (\"-\": none,\n"
    "the project is built but not run). A board of your own is a YAML file,\n"
    "`mlf project --board FILE.yaml` (loader/firmware/README.md, \"Boards\").\n\n"
    "options:\n"
    "  --json   one JSON report (docs/cli-json.md)\n";

std::string Size(uint64_t bytes) {
  if (bytes % (1024 * 1024) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes / 1024) + " KiB";
}

std::string Regions(const firmware::Board& b) {
  std::string out;
  for (const firmware::MemoryRegion& r : b.memory) {
    out += (out.empty() ? "" : ", ") + r.name + " " + Size(r.size);
  }
  return out;
}

nlohmann::json BoardJson(const firmware::Board& b) {
  nlohmann::json memory = nlohmann::json::array();
  for (const firmware::MemoryRegion& r : b.memory) {
    memory.push_back({{"name", r.name}, {"base", r.base}, {"size", r.size},
                      {"executable", r.executable}, {"dma", r.dma}, {"fast", r.fast}});
  }
  return {{"name", b.name},
          {"description", b.description},
          {"cpu", b.cpu},
          {"features", {{"fpu", b.fpu}, {"dsp", b.dsp}, {"mve", b.mve}}},
          {"memory", memory},
          {"placement",
           {{"code", b.code}, {"constants", b.constants}, {"workspace", b.workspace},
            {"io", b.io}, {"stack", b.stack}}},
          {"stack_size", b.stack_bytes},
          {"console", firmware::ConsoleName(b.console)},
          {"qemu_machine", b.qemu_machine.empty() ? nlohmann::json(nullptr)
                                                  : nlohmann::json(b.qemu_machine)}};
}

int RunBoards(const ParsedArgs& args) {
  int code = kExitOk;
  if (!ExpectPositionals("boards", args, 0, 0, &code)) return code;
  std::vector<firmware::Board> boards;
  for (const std::string& name : firmware::BuiltinBoardNames()) {
    Result<firmware::Board> b = firmware::BuiltinBoard(name);
    if (!b.ok()) return ReportFailure(b.status());
    boards.push_back(*b);
  }
  if (JsonOutput()) {
    nlohmann::json list = nlohmann::json::array();
    for (const firmware::Board& b : boards) list.push_back(BoardJson(b));
    PrintJsonReport({{"ok", true}, {"boards", list}});
    return kExitOk;
  }
  std::cout << std::left << std::setw(15) << "board" << std::setw(12) << "cpu" << std::setw(40)
            << "memory" << std::setw(13) << "console" << "qemu\n";
  for (const firmware::Board& b : boards) {
    std::cout << std::setw(15) << b.name << std::setw(12) << firmware::CpuDisplayName(b)
              << std::setw(40) << Regions(b) << std::setw(13) << firmware::ConsoleName(b.console)
              << (b.qemu_machine.empty() ? "-" : b.qemu_machine) << "\n";
  }
  return kExitOk;
}

}  // namespace

const Command& BoardsCommand() {
  static const Command command{"boards", "list the built-in boards of mlf project --board",
                               kUsage, {{"json", false, false, ""}}, RunBoards};
  return command;
}

}  // namespace mlf::cli
