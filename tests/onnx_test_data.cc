#include "tests/onnx_test_data.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "codegen/frontend/tensor_proto.h"

namespace mlf::testing {
namespace {

namespace fs = std::filesystem;

// input_0.pb, input_1.pb, ... (or output_N.pb) until one is missing.
Result<std::vector<ir::HostTensor>> ReadTensors(const fs::path& dir, const std::string& prefix) {
  std::vector<ir::HostTensor> out;
  for (int i = 0;; ++i) {
    const fs::path p = dir / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    MLF_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(p));
    Result<ir::HostTensor> t = frontend::ParseTensorProto(bytes);
    if (!t.ok()) return t.status().WithContext(p.filename().string());
    out.push_back(std::move(*t));
  }
  return out;
}

}  // namespace

Result<std::string> ReadWholeFile(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return IoError("cannot read " + path.string());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

Result<std::vector<OnnxDataSet>> ReadOnnxDataSets(const fs::path& case_dir) {
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(case_dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) {
      dirs.push_back(e.path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  std::vector<OnnxDataSet> sets;
  for (const fs::path& d : dirs) {
    OnnxDataSet s;
    MLF_ASSIGN_OR_RETURN(s.inputs, ReadTensors(d, "input_"));
    MLF_ASSIGN_OR_RETURN(s.outputs, ReadTensors(d, "output_"));
    sets.push_back(std::move(s));
  }
  return sets;
}

Result<OnnxDataSet> ReadFirstDataSetInputs(const fs::path& case_dir) {
  const fs::path first = case_dir / "test_data_set_0";
  if (!fs::is_directory(first)) return NotFound("no " + first.string());
  OnnxDataSet s;
  MLF_ASSIGN_OR_RETURN(s.inputs, ReadTensors(first, "input_"));
  return s;
}

std::map<std::string, fs::path> OnnxCaseDirs() {
  std::map<std::string, fs::path> dirs;
  for (const char* folder : kOnnxTestDataFolders) {
    for (const auto& e : fs::directory_iterator(fs::path(kOnnxTestDataRoot) / folder)) {
      if (fs::exists(e.path() / "model.onnx")) {
        dirs[std::string(folder) + "/" + e.path().filename().string()] = e.path();
      }
    }
  }
  return dirs;
}

}  // namespace mlf::testing
