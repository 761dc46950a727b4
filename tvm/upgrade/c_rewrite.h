// Token-level rewriting of C code from TVM archives, for `mlf upgrade`
// (tvm/upgrade/upgrade.h). Two edits, both on whole identifier tokens
// outside comments and string or character literals, so text that merely
// contains a name (tvmgen_default_run_model contains tvmgen_default_run) is
// never touched:
//
//   - renaming an identifier (TVM's run wrapper tvmgen_<mod>_run becomes
//     tvmgen_<mod>_tvm_run, freeing the name for ABI version 1's entry);
//   - moving USMP pools that TVM emitted as mutable static arrays
//     (`__attribute__((...)) static uint8_t NAME[N];` at file scope) into
//     memory the caller provides: the declaration is replaced and every use
//     of NAME becomes `(*(uint8_t (*)[N])(ACCESSOR() + OFFSET))`, which has
//     NAME's type, so `&NAME`, `NAME[i]` and `sizeof NAME` keep their meaning.
//
// The scanner is lexical and never fails; it only needs the code to be C.
#ifndef MLFKIT_TVM_UPGRADE_C_REWRITE_H_
#define MLFKIT_TVM_UPGRADE_C_REWRITE_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mlf::tvm_upgrade {

// The number of times `name` occurs as an identifier token in `text`.
int CountIdentifier(std::string_view text, std::string_view name);

// `text` with every identifier token found in `renames` replaced.
std::string RenameIdentifiers(std::string_view text,
                              const std::map<std::string, std::string>& renames);

// A file-scope `static uint8_t NAME[N];` (with any __attribute__((...))
// before it): how TVM's USMP kept workspace pools inside the code.
struct StaticPool {
  std::string name;
  uint64_t size = 0;
  size_t begin = 0, end = 0;  // the declaration's bytes in the text, attributes included
};

std::vector<StaticPool> FindStaticPools(std::string_view text);

// Replaces the pools' declarations with a prototype of `accessor`
// (uint8_t* accessor(void)) and each use of a pool with its place at
// `offsets[i]` in the memory the accessor returns. `pools` must come from
// FindStaticPools(text); `offsets` has one entry per pool.
std::string MovePoolsToCallerMemory(std::string_view text, const std::vector<StaticPool>& pools,
                                    const std::vector<uint64_t>& offsets,
                                    const std::string& accessor);

}  // namespace mlf::tvm_upgrade

#endif  // MLFKIT_TVM_UPGRADE_C_REWRITE_H_
