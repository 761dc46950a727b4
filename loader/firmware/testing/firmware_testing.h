// Test support for the firmware loader: sample inputs as .npy files, the
// host loader's outputs for them (the reference), the parsing of the
// firmware's "output <label> <count> <v0> ..." lines, and the check that a
// Cortex-M image has no heap.
#ifndef MLFKIT_LOADER_FIRMWARE_TESTING_FIRMWARE_TESTING_H_
#define MLFKIT_LOADER_FIRMWARE_TESTING_FIRMWARE_TESTING_H_

#include <map>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/dtype.h"
#include "artifact/format/metadata.h"
#include "loader/firmware/sample_input.h"
#include "loader/host/foreign_module.h"

namespace mlf::firmware::testing {

// One output of one module, as the firmware labels it.
struct OutputValues {
  DType dtype = DType::kFloat32;
  std::vector<double> values;
  std::vector<std::string> text;  // "%.9g" / integers, as the firmware prints them
};

// label -> values.
using Outputs = std::map<std::string, OutputValues>;

struct Samples {
  std::vector<SampleInputSpec> specs;  // for ProjectOptions::sample_inputs
  // (module, input index) -> bytes
  std::map<std::pair<std::string, int>, std::string> bytes;
};

// Writes reproducible random values for every input of every module of
// `metadata` to `dir`/<module>.<c_name>.npy. Names are qualified
// ("module.c_name") when there are several modules.
Result<Samples> WriteSamples(const Metadata& metadata, const std::string& dir, uint64_t seed);

// Runs every module of `archive` once with the host loader on `samples` and
// returns its outputs, labelled as the firmware labels them. `foreign` runs
// modules of a foreign archive (LoadOptions::foreign_modules; TVM's for TVM
// archives).
Result<Outputs> HostReference(const std::string& archive, const Samples& samples,
                              const std::string& cache_dir,
                              const ForeignModuleRunner* foreign = nullptr);

// Parses the firmware's output lines ("output <label> <count> <v>...");
// other lines are ignored. A count that differs from the values is an error.
Result<std::map<std::string, std::vector<std::string>>> ParseOutputLines(const std::string& text);

// Ok when the Cortex-M image `elf` links no allocator symbol (malloc, free,
// newlib's _malloc_r ...) and no code calls _sbrk (librdimon's _sbrk is
// linked only because it shares one object file with _write); otherwise an
// error naming `elf` and each offending symbol (arm-none-eabi-nm and
// -objdump).
Status CheckNoHeap(const std::string& elf);

}  // namespace mlf::firmware::testing

#endif  // MLFKIT_LOADER_FIRMWARE_TESTING_FIRMWARE_TESTING_H_
