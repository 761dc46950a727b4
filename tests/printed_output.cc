#include "tests/printed_output.h"

#include <cstdlib>
#include <sstream>

namespace mlf {

std::vector<double> PrintedOutput(const std::string& text, const std::string& name) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string tag, got_name;
    size_t count = 0;
    if (!(words >> tag >> got_name >> count) || tag != "output" || got_name != name) continue;
    std::vector<double> values;
    for (std::string v; words >> v;) values.push_back(std::strtod(v.c_str(), nullptr));
    return values.size() == count ? values : std::vector<double>{};
  }
  return {};
}

}  // namespace mlf
