// Flash and RAM of a built Cortex-M firmware, by part.
//
// Totals come from `arm-none-eabi-size` (Berkeley format: flash = text +
// data, RAM = data + bss, where bss includes the stack). The parts come from
// the linker map (build/app.map, written by both build systems): every input
// section the linker kept is attributed by the object file it came from and,
// for main.c's buffers, by its symbol's section name:
//
//   model code          .text of objects under codegen/host/src/
//   model constants     other sections of those objects (linked parameters,
//                       the tvmgen_<mod>_metadata tables)
//   parameters          objects under parameters/ (file-storage blobs)
//   workspace           .bss.mlf_workspace_*        (src/main.c)
//   I/O buffers         .bss.mlf_in_*, .bss.mlf_out_*  (src/main.c)
//   sample inputs       src/sample_inputs.c
//   output formatting   src/mlf_print.c (exact "%.9g" without printf)
//   main                the rest of src/ (main.c)
//   startup             platform/startup.c
//   stack               the .stack section of the linker script
//   C library           archive members and absolute paths (newlib-nano,
//                       librdimon, libgcc)
//   padding             what the totals hold beyond all parts (alignment)
//
// The map is used rather than nm on the image: a linked image no longer says
// which object a symbol came from, the map does, section by section.
#ifndef MLFKIT_LOADER_FIRMWARE_SIZE_REPORT_H_
#define MLFKIT_LOADER_FIRMWARE_SIZE_REPORT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "artifact/base/status.h"

namespace mlf::firmware {

struct SizePart {
  std::string name;
  uint64_t flash = 0;
  uint64_t ram = 0;
};

struct SizeReport {
  uint64_t flash = 0;           // text + data
  uint64_t ram = 0;             // data + bss
  std::vector<SizePart> parts;  // in the order of the table above

  // The part called `name` (zeros when absent).
  SizePart Part(const std::string& name) const;
  // Flash beyond the model, its parameters and the C library: startup,
  // main and output formatting (sample inputs excluded: they are test data).
  uint64_t OverheadFlash() const;
};

// Parses `size` output and a GNU ld map file.
Result<SizeReport> ParseSizeReport(std::string_view size_output, std::string_view map_text);

// A Markdown table of the parts and totals, then one line on the overhead.
std::string FormatSizeReport(const SizeReport& report);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_SIZE_REPORT_H_
