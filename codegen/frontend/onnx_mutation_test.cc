// Robustness: corrupted models (bytes flipped, truncated, fields cut) must be
// refused with an error, never crash or throw. Deterministic (fixed seeds).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
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

// One random structural edit of a valid model: what byte flips rarely reach
// (the checker, shape inference, the version converter, lowering).
void MutateStructure(onnx::ModelProto* m, uint64_t* state) {
  auto pick = [&](int n) { return n <= 0 ? 0 : static_cast<int>(Next(state) % static_cast<uint64_t>(n)); };
  onnx::GraphProto* g = m->mutable_graph();
  static const char* kOps[] = {"Relu", "Reshape", "Conv", "Gemm", "Softmax", "Split", "Resize",
                               "Slice", "Pad", "Squeeze", "Unsqueeze", "MaxPool", "Concat",
                               "Transpose", "BatchNormalization", "Upsample", "Clip", "Gather"};
  switch (Next(state) % 10) {
    case 0:
      m->mutable_opset_import(0)->set_version(1 + pick(17));
      break;
    case 1:
      if (g->node_size() > 0) g->mutable_node(pick(g->node_size()))->set_op_type(kOps[pick(18)]);
      break;
    case 2:
      if (g->node_size() > 0) {
        onnx::NodeProto* n = g->mutable_node(pick(g->node_size()));
        if (n->attribute_size() > 0) {
          auto* a = n->mutable_attribute(pick(n->attribute_size()));
          a->set_type(static_cast<onnx::AttributeProto::AttributeType>(1 + pick(14)));
        }
      }
      break;
    case 3:
      if (g->node_size() > 0) {
        onnx::NodeProto* n = g->mutable_node(pick(g->node_size()));
        if (n->attribute_size() > 0) {
          auto* a = n->mutable_attribute(pick(n->attribute_size()));
          a->clear_ints();
          for (int k = pick(5); k > 0; --k) a->add_ints(static_cast<int64_t>(Next(state) % 7) - 3);
          if (pick(2)) a->set_i(static_cast<int64_t>(Next(state)));
        }
      }
      break;
    case 4:
      if (g->node_size() > 0) {
        onnx::NodeProto* n = g->mutable_node(pick(g->node_size()));
        if (pick(2) && n->input_size() > 0) {
          n->mutable_input()->RemoveLast();
        } else {
          n->add_input(pick(2) ? "" : g->input(0).name());
        }
      }
      break;
    case 5:
      if (g->input_size() > 0) {
        auto* tt = g->mutable_input(pick(g->input_size()))->mutable_type()->mutable_tensor_type();
        if (tt->shape().dim_size() > 0) {
          auto* d = tt->mutable_shape()->mutable_dim(pick(tt->shape().dim_size()));
          const int64_t values[] = {0, -1, 1, 3, int64_t{1} << 40};
          d->set_dim_value(values[pick(5)]);
        } else {
          tt->mutable_shape()->add_dim()->set_dim_value(pick(4));
        }
      }
      break;
    case 6:
      if (g->input_size() > 0) {
        g->mutable_input(pick(g->input_size()))->mutable_type()->mutable_tensor_type()
            ->set_elem_type(pick(21));
      }
      break;
    case 7:
      if (g->initializer_size() > 0) {
        auto* t = g->mutable_initializer(pick(g->initializer_size()));
        if (t->dims_size() > 0) t->set_dims(pick(t->dims_size()), pick(6) - 1);
        else t->add_dims(pick(3));
      } else if (g->input_size() > 0) {
        onnx::TensorProto* t = g->add_initializer();
        t->set_name(g->input(pick(g->input_size())).name());
        t->set_data_type(1 + pick(13));
        t->add_dims(pick(3));
        t->add_int64_data(2);
      }
      break;
    case 8:
      if (g->node_size() > 0) {
        onnx::NodeProto* n = g->mutable_node(pick(g->node_size()));
        if (n->output_size() > 0) n->set_output(pick(n->output_size()), pick(2) ? "" : "y2");
      }
      break;
    default:
      if (g->node_size() > 1) {
        g->mutable_node()->SwapElements(0, g->node_size() - 1);
      } else if (g->node_size() == 1) {
        *g->add_node() = g->node(0);
      }
      break;
  }
}

TEST(OnnxMutation, CorruptedModelsAreRefusedCleanly) {
  // Debian's libonnx-testdata, which scripts/setup.sh installs: without it
  // nothing would be mutated, so its absence is a failure.
  const fs::path root = "/usr/share/libonnx-testdata/data";
  ASSERT_TRUE(fs::is_directory(root)) << root << " is missing (scripts/setup.sh installs libonnx-testdata)";
  const char* picks[] = {"node/test_conv_with_strides_padding", "node/test_reshape_reduced_dims",
                         "node/test_slice", "pytorch-converted/test_Conv2d",
                         "pytorch-operator/test_operator_view", "simple/test_single_relu_model",
                         "node/test_resize_upsample_scales_linear", "node/test_gemm_all_attributes",
                         "node/test_softmax_axis_0", "node/test_batchnorm_example"};
  // MLF_MUTATION_ROUNDS / MLF_MUTATION_SEED run longer campaigns by hand.
  const char* env_rounds = std::getenv("MLF_MUTATION_ROUNDS");
  const char* env_seed = std::getenv("MLF_MUTATION_SEED");
  const int rounds = env_rounds ? std::atoi(env_rounds) : 300;
  ASSERT_GT(rounds, 0) << "MLF_MUTATION_ROUNDS must be a positive number";
  uint64_t state = env_seed ? std::strtoull(env_seed, nullptr, 10) : 42;
  int refused = 0, total = 0;
  for (const char* pick : picks) {
    const fs::path model = root / pick / "model.onnx";
    ASSERT_TRUE(fs::is_regular_file(model)) << model << " is missing";
    const std::string original = Read(model);
    onnx::ModelProto parsed;
    ASSERT_TRUE(parsed.ParseFromString(original)) << model;
    for (int round = 0; round < rounds; ++round) {
      std::string bytes = original;
      const uint64_t kind = Next(&state) % 5;
      if (kind >= 3) {  // structural edits, one or two
        onnx::ModelProto m = parsed;
        const uint64_t edits = 1 + Next(&state) % 2;
        for (uint64_t k = 0; k < edits; ++k) MutateStructure(&m, &state);
        bytes = m.SerializeAsString();
      } else if (kind == 0 || bytes.size() < 4) {  // flip a few bytes
        for (int k = 0; k < 1 + static_cast<int>(Next(&state) % 4); ++k) {
          bytes[Next(&state) % bytes.size()] ^= static_cast<char>(1 + Next(&state) % 255);
        }
      } else if (kind == 1) {  // truncate
        bytes.resize(Next(&state) % bytes.size());
      } else {  // set a byte to a small or large varint-ish value
        bytes[Next(&state) % bytes.size()] = static_cast<char>(Next(&state) % 2 ? 0x7f : 0x01);
      }
      if (std::getenv("MLF_MUTATION_DUMP")) {
        std::ofstream(std::getenv("MLF_MUTATION_DUMP"), std::ios::binary) << bytes;
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
  // Every pick was mutated and imported `rounds` times, and the mutations
  // are not all trivially rejected nor all harmless.
  EXPECT_EQ(total, rounds * static_cast<int>(std::size(picks)));
  EXPECT_GT(refused, 0);
  EXPECT_LT(refused, total);
}

}  // namespace
}  // namespace mlf::frontend
