// Imports every model of Debian's libonnx-testdata: the front end must never
// crash or throw, whatever the model; refusals are fine, but must be clean
// errors (no kInternal, which means a bug on our side).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include "codegen/frontend/onnx_frontend.h"

namespace mlf::frontend {
namespace {

namespace fs = std::filesystem;

constexpr const char* kRoot = "/usr/share/libonnx-testdata/data";

TEST(OnnxTestdataImport, EveryModelImportsOrFailsCleanly) {
  ASSERT_TRUE(fs::is_directory(kRoot))
      << kRoot << " is missing (scripts/setup.sh installs libonnx-testdata)";
  std::vector<fs::path> models;
  for (const char* folder : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    for (const auto& entry : fs::directory_iterator(fs::path(kRoot) / folder)) {
      if (fs::exists(entry.path() / "model.onnx")) models.push_back(entry.path() / "model.onnx");
    }
  }
  std::sort(models.begin(), models.end());
  ASSERT_GT(models.size(), 1000u);
  int imported = 0;
  std::map<std::string, int> by_code;
  for (const fs::path& model : models) {
    Result<ir::Graph> g = ImportOnnxFile(model.string());
    if (g.ok()) {
      ++imported;
      EXPECT_TRUE(g->Validate().ok()) << model;
      continue;
    }
    ++by_code[StatusCodeName(g.status().code())];
    if (g.status().code() != StatusCode::kUnimplemented) {
      std::cout << "refused: " << g.status().ToString().substr(0, 400) << "\n";
    }
    EXPECT_NE(g.status().code(), StatusCode::kInternal) << g.status().ToString();
    EXPECT_FALSE(g.status().message().empty()) << model;
  }
  std::cout << models.size() << " models: " << imported << " imported";
  for (const auto& [code, n] : by_code) std::cout << ", " << n << " " << code;
  std::cout << "\n";
}

}  // namespace
}  // namespace mlf::frontend
