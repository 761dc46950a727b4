// `mlf export --input-shape` and `--constant` through the command line, on
// ONNX models built here: a dynamic-batch layer (dim_param "batch") and a
// Reshape whose shape is a graph input. Exact messages for each bad input.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>

#include <nlohmann/json.hpp>

#include "artifact/base/digest.h"
#include "artifact/format/npy.h"
#include "codegen/frontend/tensor_proto.h"
#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

void SetType(onnx::ValueInfoProto* v, const std::string& name, int32_t type,
             const std::vector<std::string>& dims) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(type);
  for (const std::string& d : dims) {
    auto* dim = tt->mutable_shape()->add_dim();
    if (d.find_first_not_of("0123456789") == std::string::npos) {
      dim->set_dim_value(std::stoll(d));
    } else {
      dim->set_dim_param(d);
    }
  }
}

onnx::ModelProto NewModel(int64_t opset) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  m.mutable_graph()->set_name("g");
  return m;
}

// y[batch, 3] = relu(x[batch, 4] @ W), W[k][j] = k - j.
onnx::ModelProto DynamicBatchModel(int64_t opset = 13) {
  onnx::ModelProto m = NewModel(opset);
  auto* g = m.mutable_graph();
  SetType(g->add_input(), "x", onnx::TensorProto::FLOAT, {"batch", "4"});
  SetType(g->add_output(), "y", onnx::TensorProto::FLOAT, {"batch", "3"});
  ir::HostTensor w = ir::HostTensor::Zeros(DType::kFloat32, {4, 3});
  for (int k = 0; k < 4; ++k) {
    for (int j = 0; j < 3; ++j) {
      const float v = static_cast<float>(k - j);
      std::memcpy(&w.bytes[(k * 3 + j) * 4], &v, 4);
    }
  }
  *g->add_initializer() = frontend::ToTensorProto(w, "W");
  auto* mm = g->add_node();
  mm->set_op_type("MatMul");
  mm->add_input("x");
  mm->add_input("W");
  mm->add_output("xw");
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->add_input("xw");
  relu->add_output("y");
  return m;
}

// y = Reshape(x[2, 6], shape) with `shape` an int64[2] graph input.
onnx::ModelProto ReshapeModel() {
  onnx::ModelProto m = NewModel(13);
  auto* g = m.mutable_graph();
  SetType(g->add_input(), "x", onnx::TensorProto::FLOAT, {"2", "6"});
  SetType(g->add_input(), "shape", onnx::TensorProto::INT64, {"2"});
  SetType(g->add_output(), "y", onnx::TensorProto::FLOAT, {"rows", "columns"});
  auto* n = g->add_node();
  n->set_op_type("Reshape");
  n->set_name("reshape");
  n->add_input("x");
  n->add_input("shape");
  n->add_output("y");
  return m;
}

NpyArray Floats(std::vector<int64_t> shape, const std::vector<float>& values) {
  NpyArray a;
  a.dtype = DType::kFloat32;
  a.shape = std::move(shape);
  a.data.assign(reinterpret_cast<const char*>(values.data()), values.size() * 4);
  return a;
}

NpyArray Int64s(const std::vector<int64_t>& values) {
  NpyArray a;
  a.dtype = DType::kInt64;
  a.shape = {static_cast<int64_t>(values.size())};
  a.data.assign(reinterpret_cast<const char*>(values.data()), values.size() * 8);
  return a;
}

std::vector<float> ReadFloats(const std::string& path) {
  Result<NpyArray> a = ReadNpyFile(path);
  EXPECT_TRUE(a.ok()) << a.status().message();
  if (!a.ok()) return {};
  std::vector<float> v(a->data.size() / 4);
  std::memcpy(v.data(), a->data.data(), a->data.size());
  return v;
}

class ExportShapesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(std::string("export_shapes/") +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    options_.env = {{"MLF_CACHE_DIR", dir_ + "/cache"}};
    WriteFile(dir_ + "/dyn.onnx", DynamicBatchModel().SerializeAsString());
    WriteFile(dir_ + "/reshape.onnx", ReshapeModel().SerializeAsString());
  }

  CommandResult Mlf(std::vector<std::string> args) {
    args.insert(args.begin(), MlfBinary());
    return RunCommand(args, options_);
  }

  void WriteNpy(const std::string& name, const NpyArray& a) {
    ASSERT_TRUE(WriteNpyFile(dir_ + "/" + name, a).ok());
  }

  // One bad flag set: the exit status and how stderr starts ("DIR" stands for
  // the test's directory).
  struct Case {
    std::vector<std::string> flags;
    int exit_code;
    std::string err;
  };

  // Exports `model` with each case's flags: each fails as the case says and
  // writes no archive.
  void ExpectRefused(const std::string& model, const std::vector<Case>& cases) {
    for (const Case& c : cases) {
      std::vector<std::string> args = {"export", dir_ + "/" + model, "-o", dir_ + "/a.tar"};
      args.insert(args.end(), c.flags.begin(), c.flags.end());
      CommandResult r = Mlf(args);
      SCOPED_TRACE(c.flags[1]);
      EXPECT_EQ(r.exit_code, c.exit_code);
      const std::string want = WithDir(c.err);
      EXPECT_EQ(r.err.substr(0, want.size()), want);
      EXPECT_FALSE(Exists(dir_ + "/a.tar"));
    }
  }

  // `text` with "DIR" replaced by the test's directory.
  std::string WithDir(std::string text) const {
    const size_t at = text.find("DIR");
    if (at != std::string::npos) text.replace(at, 3, dir_);
    return text;
  }

  std::string dir_;
  RunOptions options_;
};

TEST_F(ExportShapesTest, ASymbolicDimensionIsRefusedNamingTheFlagAndASuggestion) {
  CommandResult r = Mlf({"export", dir_ + "/dyn.onnx", "-o", dir_ + "/a.tar"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, WithDir("mlf: error: DIR/dyn.onnx: input 'x': dimension 0 ('batch') is "
                            "symbolic; fix it with --input-shape x=1,4\n"));
  EXPECT_FALSE(Exists(dir_ + "/a.tar"));
}

TEST_F(ExportShapesTest, InputShapeFixesTheBatchAndTheModelRuns) {
  CommandResult r = Mlf({"export", dir_ + "/dyn.onnx", "-o", dir_ + "/a.tar", "--input-shape",
                         "x=2,4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Metadata records what was fixed (version 9), and inspect shows it.
  CommandResult inspect = Mlf({"inspect", dir_ + "/a.tar", "--json"});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  const nlohmann::json source = nlohmann::json::parse(inspect.out)["metadata"]["modules"]["default"]["source"];
  EXPECT_EQ(source["input_shapes"], nlohmann::json::parse(R"([{"name": "x", "shape": [2, 4]}])"));
  EXPECT_EQ(source.count("constants"), 0u);
  EXPECT_NE(Mlf({"inspect", dir_ + "/a.tar"}).out.find("  fixed       input x shape [2,4] (--input-shape)\n"),
            std::string::npos);
  WriteNpy("x.npy", Floats({2, 4}, {1, 2, 3, 4, -1, 0, 1, 0}));
  r = Mlf({"run", dir_ + "/a.tar", "--input", "x=" + dir_ + "/x.npy", "--output-dir",
           dir_ + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Row 0: sum_k x[k] (k - j) = 20 - 10 j; row 1: 0 - j * 0 ... = 2 - 0 j, relu'd.
  EXPECT_EQ(ReadFloats(dir_ + "/out/y.npy"), (std::vector<float>{20, 10, 0, 2, 2, 2}));
}

TEST_F(ExportShapesTest, BadInputShapesAreUsageErrorsOrNameTheInput) {
  const std::vector<Case> cases = {
      {{"--input-shape", "x=1,a"}, 2,
       "mlf: error: --input-shape 'x=1,a': 'a' is not a dimension (a whole number)\n"
       "Try 'mlf export --help'.\n"},
      {{"--input-shape", "x=1,-4"}, 2,
       "mlf: error: --input-shape 'x=1,-4': '-4' is not a dimension (a whole number)\n"
       "Try 'mlf export --help'.\n"},
      {{"--input-shape", "x"}, 2,
       "mlf: error: --input-shape needs NAME=D0,D1,..., got 'x'\nTry 'mlf export --help'.\n"},
      {{"--input-shape", "x=1,4", "--input-shape", "x=2,4"}, 2,
       "mlf: error: --input-shape names 'x' more than once\nTry 'mlf export --help'.\n"},
      {{"--input-shape", "z=1,4"}, 1,
       "mlf: error: DIR/dyn.onnx: --input-shape names 'z', which is not an input of the model\n"},
      {{"--input-shape", "x=1,4,1"}, 1,
       "mlf: error: DIR/dyn.onnx: --input-shape gives input 'x' the shape [1, 4, 1], but the "
       "model says it has rank 2\n"},
  };
  ExpectRefused("dyn.onnx", cases);
}

TEST_F(ExportShapesTest, AShapeInputAsksForConstantAndConstantMakesItOne) {
  CommandResult r = Mlf({"export", dir_ + "/reshape.onnx", "-o", dir_ + "/a.tar"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("(it is graph input 'shape': give its value with --constant "
                       "shape=FILE.npy)\n"),
            std::string::npos)
      << r.err;
  WriteNpy("shape.npy", Int64s({3, 4}));
  r = Mlf({"export", dir_ + "/reshape.onnx", "-o", dir_ + "/a.tar", "--constant",
           "shape=" + dir_ + "/shape.npy"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The constant is recorded by dtype, shape and the SHA-256 of its bytes:
  // two little-endian int64, 3 and 4.
  CommandResult inspect = Mlf({"inspect", dir_ + "/a.tar", "--json"});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  const nlohmann::json constants =
      nlohmann::json::parse(inspect.out)["metadata"]["modules"]["default"]["source"]["constants"];
  ASSERT_EQ(constants.size(), 1u);
  EXPECT_EQ(constants[0]["name"], "shape");
  EXPECT_EQ(constants[0]["dtype"], "int64");
  EXPECT_EQ(constants[0]["shape"], nlohmann::json({2}));
  EXPECT_EQ(constants[0]["sha256"], Sha256Hex(std::string("\x03\0\0\0\0\0\0\0\x04\0\0\0\0\0\0\0", 16)));
  std::vector<float> x(12);
  for (int i = 0; i < 12; ++i) x[i] = static_cast<float>(i) * 0.5f;
  WriteNpy("x.npy", Floats({2, 6}, x));
  r = Mlf({"run", dir_ + "/a.tar", "--input", "x=" + dir_ + "/x.npy", "--output-dir",
           dir_ + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Result<NpyArray> y = ReadNpyFile(dir_ + "/out/y.npy");
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(ReadFloats(dir_ + "/out/y.npy"), x);
}

TEST_F(ExportShapesTest, BadConstantsNameTheInputAndTheFlag) {
  WriteNpy("int32.npy", [] {
    NpyArray a;
    a.dtype = DType::kInt32;
    a.shape = {2};
    a.data = std::string(8, '\0');
    return a;
  }());
  WriteNpy("three.npy", Int64s({1, 3, 4}));
  const std::vector<Case> cases = {
      {{"--constant", "shape=" + dir_ + "/int32.npy"}, 1,
       "mlf: error: DIR/reshape.onnx: --constant 'shape' is int32 [2], but the model declares "
       "INT64 [2]\n"},
      {{"--constant", "shape=" + dir_ + "/three.npy"}, 1,
       "mlf: error: DIR/reshape.onnx: --constant 'shape' is int64 [3], but the model declares "
       "INT64 [2]\n"},
      {{"--constant", "nope=" + dir_ + "/three.npy"}, 1,
       "mlf: error: DIR/reshape.onnx: --constant names 'nope', which is not an input of the "
       "model\n"},
      {{"--constant", "shape=" + dir_ + "/missing.npy"}, 1, "mlf: error: --constant 'shape': "},
      {{"--constant", "shape"}, 2,
       "mlf: error: --constant needs NAME=FILE.npy, got 'shape'\nTry 'mlf export --help'.\n"},
  };
  ExpectRefused("reshape.onnx", cases);
}

TEST_F(ExportShapesTest, TheFlagsApplyToOneOnnxModel) {
  CommandResult r = Mlf({"export", "examples/tiny_cnn/model.yaml", "-o", dir_ + "/a.tar",
                         "--input-shape", "image=1,1,8,8"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "mlf: error: --input-shape applies to ONNX models only: the YAML model "
            "'examples/tiny_cnn/model.yaml' states every shape and value itself\n");
  r = Mlf({"export", dir_ + "/dyn.onnx:a", dir_ + "/reshape.onnx:b", "-o", dir_ + "/a.tar",
           "--input-shape", "x=1,4"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "mlf: error: --input-shape applies to one model, and this export has 2: "
            "export the model it is for on its own\nTry 'mlf export --help'.\n");
}

TEST_F(ExportShapesTest, ANewerOpsetSaysToReExport) {
  WriteFile(dir_ + "/opset18.onnx", DynamicBatchModel(18).SerializeAsString());
  CommandResult r = Mlf({"export", dir_ + "/opset18.onnx", "-o", dir_ + "/a.tar"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            WithDir("mlf: error: DIR/opset18.onnx: ") + "the ONNX model uses opset 18; mlfkit supports opsets up to 17: "
            "re-export it with opset 17 or lower (torch.onnx.export(..., opset_version=17))\n");
}

}  // namespace
}  // namespace mlf
