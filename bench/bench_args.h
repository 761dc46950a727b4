// The command line and scratch space of the benchmark programs
// (compiler_bench, loader_bench): `--help`, `--name VALUE` flags, and a fresh
// work directory under the system's temporary directory.
#ifndef MLFKIT_BENCH_BENCH_ARGS_H_
#define MLFKIT_BENCH_BENCH_ARGS_H_

#include <string>

namespace mlf::bench {

// True when "--help" is one of the arguments.
bool WantsHelp(int argc, char** argv);

// The argument after the flag `name` (e.g. "--rounds"), or nullptr when the
// flag is absent or has no argument after it.
const char* FlagValue(int argc, char** argv, const char* name);

// A new directory <temp>/<prefix>-XXXXXX (mkdtemp), or "" when it cannot be made.
std::string MakeWorkDir(const std::string& prefix);

}  // namespace mlf::bench

#endif  // MLFKIT_BENCH_BENCH_ARGS_H_
