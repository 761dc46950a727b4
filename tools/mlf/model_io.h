// What `mlf run` and `mlf bench` share: loading an archive with the trust
// flags, choosing a module, filling inputs from .npy files or random values,
// and comparing outputs against expected .npy files.
#ifndef MLFKIT_TOOLS_MLF_MODEL_IO_H_
#define MLFKIT_TOOLS_MLF_MODEL_IO_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "tools/mlf/assignments.h"  // SplitAssignment, for the commands that read tensors
#include "artifact/format/npy.h"
#include "loader/host/model_library.h"
#include "tools/mlf/args.h"

namespace mlf::cli {

// The --key / --require-signature flags every loading command accepts.
std::vector<FlagSpec> TrustFlags();
Result<LoadOptions> LoadOptionsFromArgs(const ParsedArgs& args);

// --threads T (intra-op threads of one run) and --isa NAME (force a kernel
// variant), shared by run and bench.
std::vector<FlagSpec> ExecutionFlags();
// Their values; bad usage (T outside 1-256, an unknown NAME) is kInvalidArgument
// naming the flag, a variant this CPU lacks kFailedPrecondition naming --isa.
Result<ExecutorOptions> ExecutorOptionsFromArgs(const ParsedArgs& args);
// A forced variant this CPU lacks: kFailedPrecondition naming --isa and what
// the CPU runs (checked before loading, so the message names the flag).
Status CheckIsaFlag(const ExecutorOptions& options);
// The flags' usage help, two lines each (a macro: usage texts are literals).
#define MLF_EXECUTION_FLAGS_HELP                                                      \
  "  --threads T           threads one run uses (default 1, at most 256): the\n"    \
  "                        kernels split their outputs; results are the same bits\n" \
  "  --isa NAME            force the kernel variant portable, avx2 or avx512\n"      \
  "                        (default: $MLF_KERNEL_ISA, else the best the CPU runs)\n"

// `requested`, or the only module when `requested` is empty.
Result<std::string> SelectModule(const ModelLibrary& library, const std::string& requested);

// Sets input `index` from an .npy file whose dtype and shape must match
// exactly. With `quantize` (--quantize-inputs), a float32 file for an input
// whose metadata records a scale and zero point is quantized with them
// (artifact/format/quantized_values.h). Float data for a quantized input
// without it is refused, naming the input, both dtypes and the flag.
Status SetInputFromNpy(AotExecutor& executor, int index, const std::string& path,
                       bool quantize = false);

// Sets every input not in `given` to reproducible random values from `seed`
// (a different stream per input).
Status SetRandomInputs(AotExecutor& executor, const std::vector<bool>& given, uint64_t seed);

// The executor's output `index` as an .npy array. With `dequantize`
// (--dequantize-outputs), an output whose metadata records a scale and zero
// point comes as float32; other outputs as they are.
Result<NpyArray> OutputAsNpy(const AotExecutor& executor, int index, bool dequantize = false);

// The outcome of comparing an output with its expected values: the element
// with the largest error relative to the tolerance |got - want| / (atol + rtol*|want|).
struct Comparison {
  uint64_t elements = 0;
  uint64_t mismatches = 0;  // elements outside atol + rtol * |want|
  uint64_t worst_index = 0;
  double got = 0, want = 0, abs_error = 0;
};

// .npy has no bfloat16, so bfloat16 tensors travel in .npy files as their
// uint16 bit patterns (what ONNX's own test data does): an input file may
// hold uint16 for a bfloat16 input, output files are written that way, and
// an expected file may hold uint16 for a bfloat16 output.
//
// `array` as it is written to an .npy file: bfloat16 as uint16, others unchanged.
NpyArray ForNpyFile(NpyArray array);

// Compares output `name`'s values `got` (as OutputAsNpy gives them) with
// `expected`; dtype and shape must match (uint16 expected values stand for
// a bfloat16 output's bit patterns), else kInvalidArgument naming the output.
Result<Comparison> CompareOutput(const std::string& name, const NpyArray& got,
                                 const NpyArray& expected, double rtol, double atol);

}  // namespace mlf::cli

#endif  // MLFKIT_TOOLS_MLF_MODEL_IO_H_
