// Metadata version 9 as a user meets it (docs/archive-format.md): what
// `mlf export` records (quantization, kernels and their variants, packed
// layouts, the memory plan with a Concat done in place, operators'
// parameter bytes), what `mlf inspect` shows of it, the macros of the
// generated header, and that archives of version 8 still verify, show and
// run.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

using nlohmann::json;

class MetadataV9CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(std::string("metadata_v9/") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }

  CommandResult Mlf(std::vector<std::string> args) {
    args.insert(args.begin(), MlfBinary());
    return RunCommand(args);
  }

  // Exports `model` to DIR/a.tar and returns `mlf inspect --json`'s module.
  json ExportAndInspect(const std::string& model) {
    CommandResult r = Mlf({"export", model, "-o", dir_ + "/a.tar"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    r = Mlf({"inspect", dir_ + "/a.tar", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["metadata"]["version"], 9);
    return j["metadata"]["modules"]["default"];
  }

  std::string dir_;
};

// Convolutions large enough for the kernel layer and the Gemm head (the
// packed GEMV): their weights are packed and say so, the module lists its
// families and variants (the global pool of 40 x 16 x 16 takes pool_f32).
TEST_F(MetadataV9CliTest, KernelsAndPackedLayouts) {
  const json m = ExportAndInspect("tests/testdata/threads_model.yaml");
  EXPECT_EQ(m["kernels"]["families"], json({"conv_f32", "depthwise_f32", "gemm_f32", "pool_f32"}));
  EXPECT_EQ(m["kernels"]["variants"], json({"portable", "avx2", "avx512"}));
  std::map<std::string, std::string> layouts;
  for (const json& t : m["parameters"]["tensors"]) layouts[t["name"]] = t.value("layout", "");
  EXPECT_EQ(layouts.at("c1.w"), "gemm_f32_panels8");
  EXPECT_EQ(layouts.at("c5.w"), "gemm_f32_panels8");
  EXPECT_EQ(layouts.at("dw.w"), "");  // depthwise reads its weights as exported
  EXPECT_EQ(layouts.at("c1.b"), "");
  EXPECT_EQ(layouts.at("fc.w"), "gemv_f32_blocks16");

  CommandResult r = Mlf({"inspect", dir_ + "/a.tar"});
  EXPECT_NE(r.out.find("  kernels     conv_f32, depthwise_f32, gemm_f32, pool_f32 (variants portable, avx2, avx512: the host "
                       "library picks one by CPU at load; MLF_KERNEL_ISA or mlf run --isa forces one)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    c1.w  float32  [32,16,3,3]  0       18432  gemm_f32_panels8\n"), std::string::npos)
      << r.out;
}

// Two fire modules: the first Concat in place, the second (a graph output)
// copies.
TEST_F(MetadataV9CliTest, PlanWithAConcatInPlaceAndParameterBytes) {
  const json m = ExportAndInspect("tests/testdata/concat_model.yaml");
  // Convolutions this small take the generated loops; the unpadded ones
  // try conv_f32's AVX-512 direct path first.
  EXPECT_EQ(m["kernels"]["families"], json({"conv_f32"}));

  // b1 and b3 sit one after the other inside cat; y1 and y2, which the
  // copying Concat reads, are planned on their own.
  std::map<std::string, json> plan;
  for (const json& b : m["memory"]["plan"]) plan[b["name"]] = b;
  ASSERT_TRUE(plan.count("cat")) << m["memory"];
  EXPECT_EQ(plan.at("b1").value("inside", ""), "cat");
  EXPECT_EQ(plan.at("b3").value("inside", ""), "cat");
  EXPECT_EQ(plan.at("b1")["offset"], plan.at("cat")["offset"]);
  EXPECT_EQ(plan.at("b3")["offset"].get<uint64_t>(),
            plan.at("cat")["offset"].get<uint64_t>() + plan.at("b1")["size_bytes"].get<uint64_t>());
  EXPECT_EQ(plan.at("y1").value("inside", ""), "");
  EXPECT_EQ(plan.count("y"), 0u);  // the graph output lives in the caller's buffer
  for (const auto& [name, b] : plan) {
    EXPECT_LE(b["offset"].get<uint64_t>() + b["size_bytes"].get<uint64_t>(),
              m["memory"]["workspace_size_bytes"].get<uint64_t>())
        << name;
  }

  // Each constant is read by one operator here, so the operators' parameter
  // bytes add up to the parameters' bytes.
  uint64_t by_operators = 0, by_tensors = 0;
  for (const json& o : m["operators"]) by_operators += o["param_bytes"].get<uint64_t>();
  for (const json& t : m["parameters"]["tensors"]) by_tensors += t["size_bytes"].get<uint64_t>();
  EXPECT_EQ(by_operators, by_tensors);
}

TEST_F(MetadataV9CliTest, InspectPlanShowsBuffersAndOperators) {
  CommandResult r = Mlf({"export", "tests/testdata/concat_model.yaml", "-o", dir_ + "/a.tar"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Mlf({"inspect", dir_ + "/a.tar"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The peak: cat, y1 and y2 (6336 + 1728 + 1152 bytes) while operator 5, g, runs.
  EXPECT_NE(r.out.find("    peak       9216 B live during operator 5 g\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("memory plan ("), std::string::npos) << "only with --plan";

  r = Mlf({"inspect", dir_ + "/a.tar", "--plan"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  memory plan (6 buffers)\n    offset  bytes  operators  kind   name  inside\n"),
            std::string::npos)
      << r.out;
  // b1: 6 channels x 12 x 12 float32 = 3456 bytes, written by operator 1
  // (e1, its Relu fused) and read by the Concat done in place, operator 3.
  EXPECT_NE(r.out.find("    0       3456   1-3        value  b1    cat\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    #  name  ops        MACs   param bytes  live bytes\n"
                       "    0  s     Conv+Relu  4608   128          2304\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    3  fire  Concat     0      0            6336\n"), std::string::npos) << r.out;
}

TEST_F(MetadataV9CliTest, QuantizedInputsAndOutputs) {
  const json m = ExportAndInspect("tests/testdata/quantized_io_model.yaml");
  EXPECT_EQ(m["inputs"][0]["quantization"], json({{"scale", {0.5}}, {"zero_point", {-3}}}));
  EXPECT_EQ(m["outputs"][0]["quantization"], json({{"scale", {0.25}}, {"zero_point", {10}}}));
  // The one kernel: QuantizeLinear's (DequantizeLinear and Relu are generated loops).
  EXPECT_EQ(m["kernels"]["families"], json({"quantize_f32"}));

  CommandResult r = Mlf({"inspect", dir_ + "/a.tar"});
  EXPECT_NE(r.out.find("    0  x     x       int8   [1,8]  8      scale 0.5, zero point -3\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    0  y     y       uint8  [1,8]  8      scale 0.25, zero point 10\n"), std::string::npos)
      << r.out;

  r = Mlf({"unpack", dir_ + "/a.tar", "-o", dir_ + "/a"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string header = ReadFile(dir_ + "/a/codegen/host/include/tvmgen_default.h");
  EXPECT_NE(header.find("#define TVMGEN_DEFAULT_X_SCALE 0.5f\n#define TVMGEN_DEFAULT_X_ZERO_POINT -3\n"
                        "#define TVMGEN_DEFAULT_Y_SCALE 0.25f\n#define TVMGEN_DEFAULT_Y_ZERO_POINT 10\n"),
            std::string::npos)
      << header;
}

// An archive written before version 9 (the packed example keeps its
// version-8 metadata.json): verify, inspect and run as before; inspect says
// the plan was not recorded.
TEST_F(MetadataV9CliTest, VersionEightArchivesStillWork) {
  CopyExample(dir_ + "/model");
  CommandResult r = Mlf({"pack", dir_ + "/model", "-o", dir_ + "/v8.tar"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Mlf({"inspect", dir_ + "/v8.tar", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["metadata"]["version"], 8);
  r = Mlf({"verify", dir_ + "/v8.tar"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = Mlf({"inspect", dir_ + "/v8.tar", "--plan"});
  EXPECT_NE(r.out.find("format      Model Library Format version 8,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  memory plan not recorded (metadata written before version 9)\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("param bytes"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace mlf
