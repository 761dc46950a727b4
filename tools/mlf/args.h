// A small command-line parser for the `mlf` subcommands.
//
// Each subcommand declares its flags up front (name, whether it takes a value,
// whether it may repeat); Parse() then accepts `--flag VALUE`, `--flag=VALUE`,
// boolean `--flag`, positionals in any order, and `--` to end the flags. An
// unknown flag, a missing value or a repeated single flag is a usage error.
#ifndef MLFKIT_TOOLS_MLF_ARGS_H_
#define MLFKIT_TOOLS_MLF_ARGS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "artifact/base/status.h"

namespace mlf::cli {

struct FlagSpec {
  std::string name;  // without the leading "--", e.g. "output"
  bool takes_value = true;
  bool repeated = false;
  std::string short_name;  // e.g. "o" for -o; empty when none
};

class ParsedArgs {
 public:
  const std::vector<std::string>& positionals() const { return positionals_; }
  bool Has(const std::string& flag) const { return values_.count(flag) > 0; }
  // The flag's value, or `fallback` when it was not given.
  std::string Get(const std::string& flag, const std::string& fallback = "") const;
  // Every value of a repeated flag, in command-line order.
  std::vector<std::string> GetAll(const std::string& flag) const;

 private:
  friend Result<ParsedArgs> ParseArgs(const std::vector<FlagSpec>&,
                                      const std::vector<std::string>&);
  std::vector<std::string> positionals_;
  std::map<std::string, std::vector<std::string>> values_;
};

// Parses `args` (the words after the subcommand name). Errors are
// kInvalidArgument with a message fit for "mlf: error: <message>".
Result<ParsedArgs> ParseArgs(const std::vector<FlagSpec>& specs,
                             const std::vector<std::string>& args);

// Parses a non-negative integer flag value; names the flag on error.
Result<uint64_t> ParseUnsigned(const std::string& flag, const std::string& text);

}  // namespace mlf::cli

#endif  // MLFKIT_TOOLS_MLF_ARGS_H_
