// The one rule for names that become C (docs/design.md, "Generated-code ABI", version 1):
// every module and every input and output must stay distinct in every form
// generated code and tools give it, and must not take a name that C or the
// generated code already uses.
//
// For module `m` with C name `c` = SanitizeCName(m) and macro case `C`:
//   - `c` names tvmgen_<c>.h, tvmgen_<c>_run, parameters/<c>.bin, ... : two
//     modules with one C name are refused;
//   - the header guard TVMGEN_<C>_H_ and, on a case-insensitive file system,
//     every file name: two modules whose C names differ only in case are
//     refused;
//   - the macros TVMGEN_<C>_WORKSPACE_SIZE and TVMGEN_<C>_CONSTANTS_SIZE;
//   - `m` is at most kMaxModuleNameBytes long: its C name becomes file names
//     (tvmgen_<c>.h, mlf_tvm_operators_<c>.c, ...) that must stay within the
//     255 bytes a file name may have.
// For each input and output with C name `t` (the struct member, the
// `DIR/<t>.npy` file of mlf run):
//   - `t` is unique within its module;
//   - TVMGEN_<C>_<T>_SIZE (T = `t` upper-cased) is unique across the whole
//     archive — firmware includes every module's header into one main.c — and
//     differs from every generated macro above (an output named `workspace`
//     would redefine TVMGEN_<C>_WORKSPACE_SIZE); this also refuses C names that
//     differ only in case (`Y` and `y`), which would share one .npy file on a
//     case-insensitive file system;
//   - `t` is not a C keyword (C89 to C23), not an object-like macro of the
//     standard headers the generated code includes (NULL, INT8_MAX, NAN, ...,
//     and `linux`/`unix` of GNU modes), does not begin with "__" (reserved for
//     the compiler's own macros), nor with TVMGEN_ or MLF_ (the generated
//     code's macros).
// Messages name both originals (or the original and what it collides with).
//
// Used by the compiler and `mlf export` before anything is written, by the
// mlfkit metadata rules at every read (verify, run, project, ...) and by
// the TVM reader for TVM archives.
#ifndef MLFKIT_ARTIFACT_FORMAT_NAME_CLASH_H_
#define MLFKIT_ARTIFACT_FORMAT_NAME_CLASH_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/metadata.h"

namespace mlf {

// The longest module name accepted (bytes): the longest prefix and suffix the
// tools add to a C name (mlf_tvm_operators_<c>.c, tvmgen_<c>_lib0.c, ...) fit
// in the remaining 55 of the 255 bytes of a file name.
inline constexpr size_t kMaxModuleNameBytes = 200;

// Every rule above over all modules of `metadata` and their inputs and outputs.
Status CheckGeneratedNames(const Metadata& metadata);

// The rules for one module on its own (the compiler, before the archive's
// other modules are known).
Status CheckGeneratedNames(const std::string& module, const ModuleMetadata& m);

// The module rules only (C name, case), for readers that know the module
// names before their tensors (TVM's metadata.json).
Status CheckModuleNameClashes(const std::vector<std::string>& modules);

// Why `c_name` cannot be the C name of an input or output ("a C keyword",
// ...), or "" when it can.
std::string ReservedCNameReason(std::string_view c_name);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_FORMAT_NAME_CLASH_H_
