// Float data in and out of a quantized model, as a user meets it
// (issue 14, point 6): `mlf run --quantize-inputs / --dequantize-outputs`
// and `mlf project --sample-input ... --quantize-inputs`, with the scale and
// zero point each input and output records in the metadata (version 9), and
// the exact errors when float data reaches an integer input without them.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "artifact/format/npy.h"
#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

// x int8 (scale 0.5, zero point -3) -> dequantize -> Relu -> quantize -> y
// uint8 (scale 0.25, zero point 10).
constexpr char kModel[] = "tests/testdata/quantized_io_model.yaml";

// Quantized with x's parameters: -7 -5 -3 -3 -1 -1 1 127 (0.25 / 0.5 and
// 0.75 / 0.5 are ties, rounded to even; 100 saturates). Through the model:
const std::vector<float> kFloatInput = {-2, -1, 0, 0.25f, 0.75f, 1, 2, 100};
const std::vector<uint8_t> kQuantizedOutput = {10, 10, 10, 10, 14, 14, 18, 255};
const std::vector<float> kDequantizedOutput = {0, 0, 0, 0, 1, 1, 2, 61.25f};

class QuantizedIoCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(std::string("quantized_io/") +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    archive_ = dir_ + "/q.tar";
    CommandResult r = Mlf({"export", kModel, "-o", archive_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    floats_ = dir_ + "/x_float.npy";
    WriteArray(floats_, DType::kFloat32, kFloatInput.data(), kFloatInput.size() * sizeof(float));
  }

  CommandResult Mlf(std::vector<std::string> args) {
    args.insert(args.begin(), MlfBinary());
    return RunCommand(args);
  }

  static void WriteArray(const std::string& path, DType dtype, const void* data, size_t bytes) {
    NpyArray a;
    a.dtype = dtype;
    a.shape = {1, 8};
    a.data.assign(static_cast<const char*>(data), bytes);
    ASSERT_TRUE(WriteNpyFile(path, a).ok());
  }

  static NpyArray Read(const std::string& path) {
    Result<NpyArray> a = ReadNpyFile(path);
    EXPECT_TRUE(a.ok()) << path;
    return a.ok() ? *a : NpyArray{};
  }

  std::string dir_, archive_, floats_;
};

TEST_F(QuantizedIoCliTest, FloatDataForAnInt8InputNamesTheFlag) {
  CommandResult r = Mlf({"run", archive_, "--input", "x=" + floats_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "mlf: error: " + floats_ +
                       ": input 'x': the .npy file holds float32, the model expects int8 (scale "
                       "0.5, zero point -3): pass --quantize-inputs to quantize float data with "
                       "them\n");
}

TEST_F(QuantizedIoCliTest, RunQuantizesInputsAndWritesIntegerOutputs) {
  CommandResult r = Mlf({"run", archive_, "--input", "x=" + floats_, "--quantize-inputs",
                         "--output-dir", dir_ + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const NpyArray y = Read(dir_ + "/out/y.npy");
  EXPECT_EQ(y.dtype, DType::kUInt8);
  EXPECT_EQ(std::vector<uint8_t>(y.data.begin(), y.data.end()), kQuantizedOutput);
  EXPECT_NE(r.out.find("output y uint8[1, 8]  min 10  max 255"), std::string::npos) << r.out;
}

TEST_F(QuantizedIoCliTest, RunDequantizesOutputs) {
  CommandResult r = Mlf({"run", archive_, "--input", "x=" + floats_, "--quantize-inputs",
                         "--dequantize-outputs", "--output-dir", dir_ + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const NpyArray y = Read(dir_ + "/out/y.npy");
  ASSERT_EQ(y.dtype, DType::kFloat32);
  std::vector<float> values(8);
  ASSERT_EQ(y.data.size(), sizeof(float) * 8);
  std::memcpy(values.data(), y.data.data(), y.data.size());
  EXPECT_EQ(values, kDequantizedOutput);
  EXPECT_NE(r.out.find("output y float32[1, 8] (dequantized from uint8)  min 0  max 61.25"),
            std::string::npos)
      << r.out;

  // Float expectations compare against the dequantized values.
  const std::string expect = dir_ + "/y_expected.npy";
  WriteArray(expect, DType::kFloat32, kDequantizedOutput.data(), 8 * sizeof(float));
  r = Mlf({"run", archive_, "--input", "x=" + floats_, "--quantize-inputs", "--dequantize-outputs",
           "--expect", "y=" + expect, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["outputs"][0]["dtype"], "float32");
  EXPECT_EQ(report["outputs"][0]["dequantized_from"], "uint8");
  EXPECT_EQ(report["outputs"][0]["max"], 61.25);
  r = Mlf({"run", archive_, "--input", "x=" + floats_, "--quantize-inputs", "--expect",
           "y=" + expect});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "mlf: error: " + expect +
                       ": output 'y': the .npy file holds float32, the model expects uint8\n");
}

TEST_F(QuantizedIoCliTest, IntegerDataPassesAsItIs) {
  const std::vector<int8_t> q = {-7, -5, -3, -3, -1, -1, 1, 127};
  const std::string ints = dir_ + "/x_int8.npy";
  WriteArray(ints, DType::kInt8, q.data(), q.size());
  CommandResult r = Mlf({"run", archive_, "--input", "x=" + ints, "--quantize-inputs",
                         "--output-dir", dir_ + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const NpyArray y = Read(dir_ + "/out/y.npy");
  EXPECT_EQ(std::vector<uint8_t>(y.data.begin(), y.data.end()), kQuantizedOutput);
}

TEST_F(QuantizedIoCliTest, AnInputWithoutParametersCannotBeQuantized) {
  const std::string model = dir_ + "/plain.yaml";
  WriteFile(model,
            "mlf_model: 1\nname: plain\ninputs:\n  - {name: x, dtype: int8, shape: [1, 8]}\n"
            "nodes:\n  - {name: c, op: Cast, inputs: [x], outputs: [y], attrs: {to: 1}}\n"
            "outputs: [y]\n");
  CommandResult r = Mlf({"export", model, "-o", dir_ + "/plain.tar"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Mlf({"run", dir_ + "/plain.tar", "--input", "x=" + floats_, "--quantize-inputs"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "mlf: error: " + floats_ +
                       ": input 'x': the .npy file holds float32, the model expects int8 and the "
                       "archive records no scale and zero point for it, so --quantize-inputs "
                       "cannot quantize it\n");
}

TEST_F(QuantizedIoCliTest, ProjectQuantizesItsSampleInput) {
  CommandResult r = Mlf({"project", archive_, "-o", dir_ + "/p", "--sample-input", "x=" + floats_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "mlf: error: sample input 'x' (" + floats_ +
                       "): the .npy file holds float32, the input is int8 (scale 0.5, zero point "
                       "-3): pass --quantize-inputs to quantize float data with them\n");
  EXPECT_FALSE(Exists(dir_ + "/p"));

  r = Mlf({"project", archive_, "-o", dir_ + "/p", "--sample-input", "x=" + floats_,
           "--quantize-inputs", "--run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("output y 8 10 10 10 10 14 14 18 255\n"), std::string::npos) << r.out;
}

// Issue 14's bad input, through `mlf export`: each error names the node (or
// parameter) and the field. (Element types newer than ONNX 1.12, codes
// 17-22, are refused the same way: codegen/frontend/onnx_frontend_test.cc.)
TEST_F(QuantizedIoCliTest, BadQuantizationParametersAreRefused) {
  const std::string head =
      "mlf_model: 1\nname: q\ninputs:\n  - {name: x, dtype: float32, shape: [1, 8]}\n"
      "parameters:\n";
  const std::string node =
      "nodes:\n  - {name: quantize, op: QuantizeLinear, inputs: [x, s, zp], outputs: [y]%s}\n"
      "outputs: [y]\n";
  struct Case {
    std::string params, attrs, error;
  } cases[] = {
      {"  s: {dtype: float32, shape: [], values: 0.0}\n"
       "  zp: {dtype: int8, shape: [], values: 3}\n",
       "", ":9: node 'quantize' (QuantizeLinear): input 1 (y_scale) element 0 is 0; a scale must "
           "be finite and non-zero\n"},
      {"  s: {dtype: float32, shape: [], values: 0.5}\n"
       "  zp: {dtype: int8, shape: [], values: 300}\n",
       "", ":7: parameter 'zp': /parameters/zp/values: value 300 is out of range (dtype int8)\n"},
      {"  s: {dtype: float32, shape: [3], values: [1, 1, 1]}\n"
       "  zp: {dtype: int8, shape: [3], values: [1, 2, 3]}\n",
       ", attrs: {axis: 1}", ":9: node 'quantize' (QuantizeLinear): input 1 (y_scale) has 3 "
                             "elements, but axis 1 of input 0 (x) [1, 8] has 8\n"},
  };
  int n = 0;
  for (const Case& c : cases) {
    const std::string model = dir_ + "/bad" + std::to_string(n++) + ".yaml";
    std::string nodes = node;
    nodes.replace(nodes.find("%s"), 2, c.attrs);
    WriteFile(model, head + c.params + nodes);
    CommandResult r = Mlf({"export", model, "-o", dir_ + "/bad.tar"});
    EXPECT_EQ(r.exit_code, 1) << model;
    EXPECT_EQ(r.err, "mlf: error: " + model + c.error);
    EXPECT_FALSE(Exists(dir_ + "/bad.tar"));
  }
}

}  // namespace
}  // namespace mlf
