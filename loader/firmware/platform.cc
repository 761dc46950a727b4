#include "loader/firmware/platform.h"

namespace mlf::firmware {
namespace {

Platform Host() {
  Platform host;
  host.name = "host";
  host.description = "this host, built with the system C compiler (cc)";
  return host;
}

const char* const kPlatformNames[] = {"host", "mps2-an385", "mps2-an386", "mps2-an500"};

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Platform BoardPlatform(const Board& board) {
  Platform p;
  p.name = board.name;
  p.cpu = CpuDisplayName(board);
  p.description = board.description.empty() ? board.name + ", " + p.cpu : board.description;
  p.cortex_m = true;
  p.arch_flags = CpuFlags(board);
  p.flash_bytes = board.Region(board.constants).size;
  p.ram_bytes = board.Region(board.io).size;
  p.stack_bytes = board.stack_bytes;
  p.board = board;
  return p;
}

std::vector<std::string> Platform::RunCommand() const {
  const std::string app = "build/" + app_name();
  if (!cortex_m) return {"./" + app};
  if (board.qemu_machine.empty()) return {};
  // -icount shift=0: one instruction is one nanosecond of virtual time, which
  // the SysTick counter of the instruction count measures (instruction_count.h).
  return {"qemu-system-arm", "-M",      board.qemu_machine, "-nographic", "-icount",
          "shift=0",         "-semihosting-config", "enable=on,target=native", "-kernel", app};
}

Result<Platform> FindPlatform(const std::string& name) {
  std::string names;
  for (const char* known : kPlatformNames) {
    if (name == known) return ResolveBoard(name);
    names += (names.empty() ? "" : ", ") + std::string(known);
  }
  return InvalidArgument("unknown platform '" + name + "' (choose one of: " + names + ")");
}

std::vector<std::string> PlatformNames() {
  return std::vector<std::string>(std::begin(kPlatformNames), std::end(kPlatformNames));
}

Result<Platform> ResolveBoard(const std::string& spec) {
  if (spec == "host") return Host();
  if (EndsWith(spec, ".yaml") || EndsWith(spec, ".yml") || spec.find('/') != std::string::npos) {
    MLF_ASSIGN_OR_RETURN(Board board, ReadBoardFile(spec));
    return BoardPlatform(board);
  }
  MLF_ASSIGN_OR_RETURN(Board board, BuiltinBoard(spec));
  return BoardPlatform(board);
}

}  // namespace mlf::firmware
