// Runs a program with an argv vector (no shell, so paths are never
// interpreted) and captures its stdout, stderr and exit status separately.
//
//   CommandResult r = RunCommand({MlfBinary(), "verify", archive});
//   EXPECT_EQ(r.exit_code, 1);
//   EXPECT_EQ(r.err, "mlf: error: ...\n");
#ifndef MLFKIT_TESTS_RUN_COMMAND_H_
#define MLFKIT_TESTS_RUN_COMMAND_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlf {

struct CommandResult {
  // The exit status; 128 + signal number when the process was killed by a
  // signal (then `signaled` is true); -1 when it could not be started.
  int exit_code = -1;
  bool signaled = false;
  std::string out;
  std::string err;
};

struct RunOptions {
  // Environment changes on top of the test's environment: a value sets the
  // variable, nullopt removes it.
  std::vector<std::pair<std::string, std::optional<std::string>>> env;
  // Working directory of the child; empty keeps the test's.
  std::string cwd;
};

// argv[0] is the path of the program (not searched in PATH when it contains
// a '/'; otherwise PATH is searched).
CommandResult RunCommand(const std::vector<std::string>& argv, const RunOptions& options = {});

// The `mlf` binary in the test's runfiles ($TEST_SRCDIR/mlfkit/tools/mlf/mlf).
std::string MlfBinary();

// For failure messages: the command line with its output.
std::string Describe(const std::vector<std::string>& argv, const CommandResult& r);

}  // namespace mlf

#endif  // MLFKIT_TESTS_RUN_COMMAND_H_
