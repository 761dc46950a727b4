#include "tests/test_files.h"

#include <cstdlib>

namespace mlf {

std::string ExampleRunfilesDir() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir != nullptr ? srcdir : ".") + "/mlfkit/examples/tiny_dense";
}

std::string CopyExample(const std::string& dest) {
  CopyTree(ExampleRunfilesDir(), dest);
  return dest;
}

}  // namespace mlf
