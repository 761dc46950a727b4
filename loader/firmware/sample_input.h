// Sample inputs of a firmware project: the .npy files given with
// `mlf project --sample-input NAME=FILE.npy`, matched to the archive's
// module inputs and embedded in the firmware as const data.
//
// NAME is an input's raw name ("input:0") or C name ("input_0"). When that
// names inputs of several modules, qualify it with the module:
// "MODULE.NAME" (MODULE by its name or C name). The array's dtype and shape
// must be exactly the input's, except that with `quantize` (mlf project
// --quantize-inputs) a float32 array for an input whose metadata records a
// scale and zero point is quantized with them (quantized_values.h). Inputs
// without a sample start as zeros.
#ifndef MLFKIT_LOADER_FIRMWARE_SAMPLE_INPUT_H_
#define MLFKIT_LOADER_FIRMWARE_SAMPLE_INPUT_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/metadata.h"

namespace mlf::firmware {

struct SampleInputSpec {
  std::string name;  // NAME as given
  std::string path;  // the .npy file
};

struct SampleData {
  std::string bytes;   // the input's size_bytes, C order
  std::string source;  // the .npy file's base name, for comments
};

// (module name, input index) -> data.
using SampleInputs = std::map<std::pair<std::string, int>, SampleData>;

// Reads and checks every sample. Errors name the NAME and the file: no such
// input (listing the inputs), an ambiguous NAME (listing the modules), an
// input given twice, a .npy file that does not parse or whose dtype or
// shape differs from the input's; float data for a quantized input without
// `quantize` names the flag.
Result<SampleInputs> ReadSampleInputs(const Metadata& metadata,
                                      const std::vector<SampleInputSpec>& specs,
                                      bool quantize = false);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_SAMPLE_INPUT_H_
