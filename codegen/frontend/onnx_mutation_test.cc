// Robustness: corrupted models (bytes flipped, truncated, fields cut) must be
// refused with an error, never crash or throw. Deterministic (fixed seeds).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/frontend/onnx_frontend.h"

namespace mlf::frontend {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

uint64_t Next(uint64_t* state) {  // splitmix64
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

TEST(OnnxMutation, CorruptedModelsAreRefusedCleanly) {
  const fs::path root = "/usr/share/libonnx-testdata/data";
  if (!fs::exists(root)) GTEST_SKIP() << "libonnx-testdata is not installed";
  const char* picks[] = {"node/test_conv_with_strides_padding", "node/test_reshape_reduced_dims",
                         "node/test_slice", "pytorch-converted/test_Conv2d",
                         "pytorch-operator/test_operator_view", "simple/test_single_relu_model",
                         "node/test_resize_upsample_scales_linear", "node/test_gemm_all_attributes",
                         "node/test_softmax_axis_0", "node/test_batchnorm_example"};
  uint64_t state = 42;
  int refused = 0, total = 0;
  for (const char* pick : picks) {
    const fs::path model = root / pick / "model.onnx";
    if (!fs::exists(model)) continue;
    const std::string original = Read(model);
    for (int round = 0; round < 300; ++round) {
      std::string bytes = original;
      const uint64_t kind = Next(&state) % 3;
      if (kind == 0 || bytes.size() < 4) {  // flip a few bytes
        for (int k = 0; k < 1 + static_cast<int>(Next(&state) % 4); ++k) {
          bytes[Next(&state) % bytes.size()] ^= static_cast<char>(1 + Next(&state) % 255);
        }
      } else if (kind == 1) {  // truncate
        bytes.resize(Next(&state) % bytes.size());
      } else {  // set a byte to a small or large varint-ish value
        bytes[Next(&state) % bytes.size()] = static_cast<char>(Next(&state) % 2 ? 0x7f : 0x01);
      }
      Result<ir::Graph> g = ImportOnnx(bytes);
      ++total;
      if (!g.ok()) {
        ++refused;
        EXPECT_NE(g.status().code(), StatusCode::kInternal) << pick << ": " << g.status().ToString();
      } else {
        EXPECT_TRUE(g->Validate().ok());
      }
    }
  }
  std::cout << total << " corrupted models, " << refused << " refused\n";
}

}  // namespace
}  // namespace mlf::frontend
