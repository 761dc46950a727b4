// Writes every TVM fixture archive (tvm_fixtures.h) into a directory, so a
// script can run two mlf binaries on the same inputs and compare their
// outputs byte for byte (scripts/upgrade_ref.sh).
//
// Usage: write_tvm_fixtures DIR
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "tests/tvm_fixtures/tvm_fixtures.h"

int main(int argc, char** argv) {
  using namespace mlf::tvm_testing;
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_tvm_fixtures DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  const std::vector<std::pair<std::string, Files>> fixtures = {
      {"dense_v7", DenseV7()},   {"pair_v7", PairV7()},
      {"multi_v7", MultiV7()},   {"scale_v5", ScaleV5()},
      {"graph_v6", GraphV6()},   {"graph_chain_v6", GraphChainV6()},
      {"graph_syslib_v7", GraphSysLibV7()},
      {"operator_v5", OperatorV5()}, {"arm_v7", ArmV7()},
      {"bundled_v7", BundledV7()},
      {"mismatch_v5", MismatchV5()}, {"linked_v5", LinkedV5()},
      {"packed_v5", PackedV5()},     {"linked_v6", LinkedV6()},
  };
  for (const auto& [name, files] : fixtures) WriteTvmArchive(dir + "/" + name + ".tar", files);
  // The same model laid out by other tools: plain names, a member appended later.
  TarLayout plain;
  plain.tarfile_style = false;
  TarMember readme;
  readme.name = "README.txt";
  readme.data = "added later\n";
  plain.appended.push_back(readme);
  WriteTvmArchive(dir + "/dense_v7_plain.tar", DenseV7(), plain);
  return 0;
}
