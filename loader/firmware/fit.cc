#include "loader/firmware/fit.h"

#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <sstream>

#include "artifact/base/scratch_dir.h"
#include "artifact/base/subprocess.h"
#include "loader/firmware/linker_script.h"

namespace mlf::firmware {
namespace {

constexpr uint64_t kStep = uint64_t{1} << 28;  // 256 MiB per region while measuring

// What an output section of the generated script holds, for the message.
std::string PartName(const Board& b, const std::string& section) {
  if (section == ".text") return b.constants == b.code ? "code and constants" : "code";
  if (section == ".constants") return "constants";
  if (section == ".stack") return "stack";
  if (section == ".workspace") return "workspace";
  if (section == ".data") return ".data";
  if (section == ".bss") return b.workspace == b.io ? "workspace, I/O buffers and .bss" : "I/O buffers and .bss";
  return "other";  // .ARM.exidx, .init_array, ...: the C library's
}

void Add(RegionUse* r, const std::string& part, uint64_t bytes) {
  if (bytes == 0) return;
  r->used += bytes;
  for (auto& [name, size] : r->parts) {
    if (name == part) {
      size += bytes;
      return;
    }
  }
  r->parts.push_back({part, bytes});
}

std::string Tail(const std::string& text) {
  return text.size() <= 2000 ? text : "..." + text.substr(text.size() - 2000);
}

// One hint per kind of region that is over.
std::string Hints(const Board& b, const std::vector<const RegionUse*>& over) {
  bool flash = false, ram = false;
  for (const RegionUse* r : over) {
    if (r->region == b.code || r->region == b.constants) flash = true;
    if (r->region == b.workspace || r->region == b.io || r->region == b.stack) ram = true;
  }
  std::string out = "what could help:";
  if (flash) {
    out += "\n  - int8 parameters (a quarter of float32's flash)"
           "\n  - exporting without --link-params: the parameters become one blob"
           " (parameters/<module>_params.c) that MLF_SECTION_CONSTANTS can place in another"
           " region or external flash";
  }
  if (ram) {
    out += "\n  - int8 activations (a quarter of float32's workspace and buffers)"
           "\n  - a smaller stack_size, or the workspace in another region (placement.workspace"
           " in a board file)";
  }
  return out + "\n  - a bigger board (`mlf boards` lists the built-in ones)";
}

}  // namespace

Board MeasuringBoard(const Board& board) {
  Board m = board;
  for (size_t i = 0; i < m.memory.size(); ++i) {
    m.memory[i].base = i * kStep;
    m.memory[i].size = kStep;
  }
  return m;
}

Result<FitReport> RegionUseFromSizes(const Board& board, const std::string& size_output) {
  FitReport report;
  report.measured = true;
  for (const MemoryRegion& r : board.memory) report.regions.push_back({r.name, r.size, 0, {}});
  auto region_of = [&](const std::string& name) -> RegionUse* {
    for (RegionUse& r : report.regions) {
      if (r.region == name) return &r;
    }
    return nullptr;
  };
  std::istringstream lines(size_output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string section;
    uint64_t size = 0, address = 0;
    if (!(fields >> section >> size >> address)) continue;
    static const char* const kAllocated[] = {".text",       ".constants", ".ARM.exidx", ".ARM.extab",
                                             ".init_array", ".fini_array", ".preinit_array", ".stack",
                                             ".workspace",  ".data",       ".bss"};
    if (std::find(std::begin(kAllocated), std::end(kAllocated), section) == std::end(kAllocated)) continue;
    const uint64_t index = address / kStep;
    if (size == 0 || index >= board.memory.size()) continue;  // not allocated (debug info, ...)
    Add(&report.regions[index], PartName(board, section), size);
    // .data also takes flash: its initial values, copied at reset.
    if (section == ".data") Add(region_of(board.code), "initial values of .data", size);
  }
  return report;
}

Result<FitReport> MeasureFit(const ProjectPlan& plan, const std::vector<ProjectFile>& files,
                             int timeout_seconds) {
  FitReport none;
  const Board& board = plan.platform.board;
  MLF_ASSIGN_OR_RETURN(ScratchDir scratch, ScratchDir::CreateInTemp("mlf-fit-"));
  const std::string dir = scratch.path() + "/project";
  std::vector<ProjectFile> measuring = files;
  for (ProjectFile& f : measuring) {
    if (f.path == LinkerScriptPath(board)) f.content = LinkerScript(MeasuringBoard(board));
  }
  MLF_RETURN_IF_ERROR(WriteProject(dir, measuring));
  ProcessOptions options;
  options.cwd = dir;
  options.timeout_seconds = timeout_seconds;
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  Result<ProcessResult> made =
      RunProcess({"make", "-j" + std::to_string(cpus > 0 ? cpus : 1), "build/app.elf"}, options);
  if (!made.ok() || made->exit_code != 0) {
    none.why_not = made.ok() ? "the project did not build:\n" + Tail(made->output)
                             : "make could not be run (" + made.status().message() + ")";
    return none;
  }
  Result<ProcessResult> sized = RunProcess({"arm-none-eabi-size", "-A", "build/app.elf"}, options);
  if (!sized.ok() || sized->exit_code != 0) {
    none.why_not = "arm-none-eabi-size could not be run";
    return none;
  }
  return RegionUseFromSizes(board, sized->output);
}

Status MisfitError(const Platform& platform, const std::vector<RegionUse>& uses,
                   const std::string& how) {
  std::vector<const RegionUse*> over;
  for (const RegionUse& r : uses) {
    if (r.used > r.size) over.push_back(&r);
  }
  if (over.empty()) return Status::Ok();
  std::string message = "the firmware does not fit " + platform.name + " (" + how + "):";
  for (const RegionUse* r : over) {
    std::string parts;
    for (const auto& [name, bytes] : r->parts) {
      parts += (parts.empty() ? "" : ", ") + name + " " + std::to_string(bytes);
    }
    message += "\n  " + r->region + ": needs " + std::to_string(r->used) + " bytes, has " +
               std::to_string(r->size) + ", over by " + std::to_string(r->used - r->size) + " (" +
               parts + ")";
  }
  return OutOfRange(message + "\n" + Hints(platform.board, over));
}

Status CheckFit(const FitReport& fit, const Platform& platform) {
  return MisfitError(platform, fit.regions, "measured by building it");
}

}  // namespace mlf::firmware
