// NAME=VALUE flags of the command line: --input NAME=FILE.npy, --expect,
// --sample-input, --input-shape NAME=D0,D1,..., --constant NAME=FILE.npy.
#ifndef MLFKIT_TOOLS_MLF_ASSIGNMENTS_H_
#define MLFKIT_TOOLS_MLF_ASSIGNMENTS_H_

#include <string>
#include <utility>
#include <vector>

#include "artifact/base/status.h"
#include "tools/mlf/args.h"

namespace mlf::cli {

// Splits "NAME=VALUE" at the first '='. Neither part may be empty; the error
// names the flag and the form expected ("--input needs NAME=FILE.npy, got 'x'").
Result<std::pair<std::string, std::string>> SplitAssignment(const std::string& flag,
                                                            const std::string& text,
                                                            const std::string& value_form = "FILE.npy");

// Every NAME=VALUE of repeatable `flag`, in command-line order; a NAME given
// twice is an error ("--input names 'x' more than once").
Result<std::vector<std::pair<std::string, std::string>>> Assignments(
    const ParsedArgs& args, const std::string& flag, const std::string& value_form = "FILE.npy");

}  // namespace mlf::cli

#endif  // MLFKIT_TOOLS_MLF_ASSIGNMENTS_H_
