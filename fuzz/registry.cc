#include "fuzz/fuzz_target.h"

namespace mlf::fuzz {
namespace {

std::map<std::string, FuzzFunction>& Registry() {
  static auto* registry = new std::map<std::string, FuzzFunction>();
  return *registry;
}

}  // namespace

bool RegisterTarget(const char* name, FuzzFunction function) {
  Registry()[name] = function;
  return true;
}

const std::map<std::string, FuzzFunction>& Targets() { return Registry(); }

}  // namespace mlf::fuzz
