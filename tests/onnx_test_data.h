// Debian's libonnx-testdata (ONNX 1.12's backend test data, installed by
// scripts/setup.sh), as the conformance tests read it: the cases, and each
// case's test_data_set_*/input_N.pb and output_N.pb tensors.
#ifndef MLFKIT_TESTS_ONNX_TEST_DATA_H_
#define MLFKIT_TESTS_ONNX_TEST_DATA_H_

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "codegen/ir/host_tensor.h"

namespace mlf::testing {

constexpr const char* kOnnxTestDataRoot = "/usr/share/libonnx-testdata/data";
constexpr const char* kOnnxTestDataFolders[] = {"node", "pytorch-converted", "pytorch-operator",
                                                "simple"};

// One test_data_set_* directory: the inputs and the expected outputs, in order.
struct OnnxDataSet {
  std::vector<ir::HostTensor> inputs;
  std::vector<ir::HostTensor> outputs;
};

// A whole file's bytes.
Result<std::string> ReadWholeFile(const std::filesystem::path& path);

// The data sets of the case in `case_dir`, in name order (possibly none).
// A tensor that does not parse (strings, sequences, ...) is an error naming
// its file.
Result<std::vector<OnnxDataSet>> ReadOnnxDataSets(const std::filesystem::path& case_dir);

// The inputs alone of the case's first data set (outputs left empty), for a
// case whose expected outputs do not parse (sequences, optionals).
Result<OnnxDataSet> ReadFirstDataSetInputs(const std::filesystem::path& case_dir);

// Every case that has a model.onnx: "<folder>/<test>" -> its directory.
std::map<std::string, std::filesystem::path> OnnxCaseDirs();

}  // namespace mlf::testing

#endif  // MLFKIT_TESTS_ONNX_TEST_DATA_H_
