// What mlfkit reads out of the C code and headers of TVM archives, without
// compiling anything: which files a source includes, which tvmgen_ functions
// it defines, whether it only builds for another architecture, and the C
// interface header's structs, macros and run prototype.
//
// The scanner is lexical (comments and string literals are skipped, lines
// are joined at backslash-newlines) and never fails: text it does not
// understand simply yields nothing.
#ifndef MLFKIT_TVM_FORMAT_TVM_CODE_H_
#define MLFKIT_TVM_FORMAT_TVM_CODE_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mlf {

struct CodeInclude {
  std::string path;     // as written between the quotes or brackets
  bool angled = false;  // <...> rather than "..."
};

// Families of code that only builds for some architectures.
enum class CodeArch {
  kAny,          // portable C
  kArmCortexM,   // CMSIS / Arm C Language Extensions DSP intrinsics (__SMLAD, arm_math.h, ...)
  kArm,          // NEON (arm_neon.h): Arm and AArch64 hosts
  kX86,          // SSE/AVX intrinsics headers
  kRiscV,        // RISC-V vector intrinsics
};

// One parameter of a function definition, as written: the type with
// whitespace normalised ("void*", "float*", "struct tvmgen_m_inputs*",
// "int32_t") and the name ("" when the definition names none).
struct CodeParam {
  std::string type;
  std::string name;
  bool operator==(const CodeParam& o) const { return type == o.type && name == o.name; }
};

// A call of a tvmgen_ function in the body of an entry function: the callee
// and each argument when it is a plain identifier ("" for an expression).
struct CodeCall {
  std::string callee;
  std::vector<std::string> args;
};

// What the scan keeps of the body of a tvmgen_ function: what it needs to
// follow a void* input or output to the C type the code gives it.
struct CodeEntryBody {
  // Calls of tvmgen_ functions, in order; kept for entry functions only
  // (names ending in "_run_model" or "___tvm_main__").
  std::vector<CodeCall> calls;
  std::map<std::string, std::string> aliases;  // `void* output = arg1;`: "output" -> "arg1"
  std::map<std::string, std::string> casts;    // `((int8_t*)T_cast)`: "T_cast" -> "int8_t" (the first)
};

struct TvmCodeScan {
  std::vector<CodeInclude> includes;
  // tvmgen_* functions this text defines (a body follows the parameter list).
  std::set<std::string> defined_functions;
  // Their parameter lists ("(void)" is none).
  std::map<std::string, std::vector<CodeParam>> function_params;
  // Their bodies.
  std::map<std::string, CodeEntryBody> entry_bodies;
  // Evidence that the code binds parameters itself (linked parameters), ""
  // when it shows none: "defines __tvm_param__p0" (TVM 0.8's linked params),
  // "defines the constant pool global_const_workspace" (USMP),
  // "keeps constants in section .rodata.tvm" (TVM 0.9's fused constants).
  std::string linked_params;
  CodeArch arch = CodeArch::kAny;
  std::string arch_evidence;  // e.g. "includes <arm_acle.h>", "uses __SMLAD"
};

TvmCodeScan ScanTvmCode(std::string_view text);

// The dtype of a C element type as TVM writes it ("float" -> "float32",
// "int8_t" -> "int8", "uint8_t" -> "uint8", ...); "" for others (void, structs).
std::string DTypeOfCType(std::string_view c_type);

// A printable name for `arch`, e.g. "Arm Cortex-M (CMSIS-DSP intrinsics)".
const char* CodeArchName(CodeArch arch);

// Whether code of `arch` builds for the machine this mlfkit was built for.
bool CodeArchRunsOnThisHost(CodeArch arch);

// The TVM C interface header codegen/host/include/tvmgen_<mod>.h.
struct TvmInterfaceHeader {
  std::vector<std::string> inputs;   // members of struct tvmgen_<mod>_inputs, in order
  std::vector<std::string> outputs;  // members of struct tvmgen_<mod>_outputs, in order
  bool has_inputs_struct = false;
  bool has_outputs_struct = false;
  bool declares_run = false;  // int32_t tvmgen_<mod>_run(...)
  // The struct names of the run function's parameters after tvmgen_<mod>_,
  // e.g. {"inputs", "outputs", "workspace_pools"}.
  std::vector<std::string> run_parameters;
  std::map<std::string, uint64_t> numeric_macros;  // #define NAME <integer>
};

// `c_module` is the module's C name (tvmgen_<c_module>_...).
TvmInterfaceHeader ParseTvmInterfaceHeader(std::string_view text, const std::string& c_module);

}  // namespace mlf

#endif  // MLFKIT_TVM_FORMAT_TVM_CODE_H_
