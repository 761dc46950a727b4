// Reading what a firmware image printed under QEMU (mlf project --run).
#ifndef MLFKIT_TESTS_PRINTED_OUTPUT_H_
#define MLFKIT_TESTS_PRINTED_OUTPUT_H_

#include <string>
#include <vector>

namespace mlf {

// The values of the line "output <name> <count> v0 v1 ..." in `text`; empty
// when there is no such line or its count disagrees with its values (callers
// assert the size they expect).
std::vector<double> PrintedOutput(const std::string& text, const std::string& name);

}  // namespace mlf

#endif  // MLFKIT_TESTS_PRINTED_OUTPUT_H_
