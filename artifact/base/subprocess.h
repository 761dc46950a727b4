// Running a program and collecting its output, without a shell.
//
// Used wherever mlfkit drives a tool: the system C compiler (host libraries),
// make/cmake and QEMU (firmware). Arguments are passed as an argv vector, so
// paths with spaces or quotes need no escaping and cannot inject commands.
#ifndef MLFKIT_ARTIFACT_BASE_SUBPROCESS_H_
#define MLFKIT_ARTIFACT_BASE_SUBPROCESS_H_

#include <string>
#include <vector>

#include "artifact/base/status.h"

namespace mlf {

struct ProcessResult {
  int exit_code = 0;   // the exit status, or 128 + signal number when killed
  std::string output;  // stdout and stderr interleaved, truncated at max_output
};

struct ProcessOptions {
  std::string cwd;                  // empty: the caller's directory
  size_t max_output = 1 << 20;      // bytes kept of the output
  std::vector<std::string> env;     // extra "NAME=value" entries
  int timeout_seconds = 0;          // 0: none; else the process is killed (exit 128+9)
};

// Runs argv[0] (looked up in PATH when it has no '/'). Fails only when the
// program cannot be started; a non-zero exit is reported in the result.
Result<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                 const ProcessOptions& options = {});

// "cc -O2 ..." for messages: the argv as a shell command line that runs the
// same program with the same arguments (shell_text.h quotes each word that
// needs it), so a path from an archive cannot become shell syntax when the
// user pastes it.
std::string CommandLine(const std::vector<std::string>& argv);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_BASE_SUBPROCESS_H_
