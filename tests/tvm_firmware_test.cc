// TVM archives (tests/tvm_fixtures: metadata versions 5-7, AOT with the C
// interface and both entry namings, TVMBackendAllocWorkspace and USMP pools,
// two modules, a bundled runtime, the graph executor (its graph as the C
// function tvm/compat generates for every user), operator style, Arm
// DSP intrinsics) as firmware projects, generated, built with make and CMake
// and run on the host and under QEMU. Every printed output is checked against
// the fixture's known values and, where the host loader runs the archive,
// against `mlf run`'s outputs for the same input (floats within 1e-5, exact
// text on the host). Each fixture archive is written once per process; each
// case builds one project and reuses it for the heap check.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <mutex>
#include <sstream>


#include "artifact/archive/verify.h"
#include "artifact/base/subprocess.h"
#include "artifact/format/npy.h"
#include "artifact/toolchain/host_build.h"
#include "loader/firmware/project.h"
#include "loader/firmware/project_build.h"
#include "loader/firmware/testing/firmware_testing.h"
#include "tests/run_command.h"
#include "tests/test_files.h"
#include "tests/tvm_fixtures/tvm_fixtures.h"
#include "tvm/tvm.h"

namespace mlf::firmware {
namespace {

namespace tt = mlf::tvm_testing;

// A sample input, given by the input's raw name.
struct Sample {
  std::string name;
  NpyArray array;
};

struct Fixture {
  tt::Files files;
  std::vector<Sample> samples;
  std::map<std::string, std::vector<double>> expected;  // label -> values
  bool host_loader_runs = true;  // compare with `mlf run` too
  std::vector<std::string> platforms = PlatformNames();
};

template <typename T>
NpyArray Array(DType dtype, const std::vector<T>& values, std::vector<int64_t> shape) {
  NpyArray a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.data.assign(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  return a;
}

template <typename T>
std::vector<double> Doubles(const std::vector<T>& values) {
  return std::vector<double>(values.begin(), values.end());
}

Sample DenseSample() {
  return {"serving_default_input_1:0", Array(DType::kFloat32, tt::DenseInput(), {1, 4})};
}

std::vector<Sample> PairSamples() {
  return {{"a_in", Array(DType::kInt8, tt::PairA(), {4})},
          {"b_in", Array(DType::kInt8, tt::PairB(), {4})}};
}

const std::map<std::string, Fixture>& Fixtures() {
  static const auto* fixtures = [] {
    auto* f = new std::map<std::string, Fixture>;
    const std::vector<double> pair0 = Doubles(tt::PairExpected0());
    const std::vector<double> pair1 = {static_cast<double>(tt::PairExpected1())};
    (*f)["dense_v7"] = {tt::DenseV7(), {DenseSample()}, {{"output", Doubles(tt::DenseExpected())}}};
    (*f)["pair_v7"] = {tt::PairV7(), PairSamples(), {{"output0", pair0}, {"output1", pair1}}};
    std::vector<Sample> multi = PairSamples();
    multi.push_back(DenseSample());
    (*f)["multi_v7"] = {tt::MultiV7(),
                        multi,
                        {{"default.output", Doubles(tt::DenseExpected())},
                         {"second.output0", pair0},
                         {"second.output1", pair1}}};
    (*f)["scale_v5"] = {tt::ScaleV5(),
                        {{"input", Array(DType::kFloat32, tt::ScaleInput(), {2, 2})}},
                        {{"output", Doubles(tt::ScaleExpected())}}};
    (*f)["bundled_v7"] = {tt::BundledV7(), {DenseSample()}, {{"output", Doubles(tt::DenseExpected())}}};
    // clip(x W^T + b, -10, 10): the dense layer without the relu.
    (*f)["graph_v6"] = {tt::GraphV6(),
                        {{"x", Array(DType::kFloat32, tt::DenseInput(), {1, 4})}},
                        {{"output", Doubles(tt::GraphExpected())}}};
    // The same model as a system library with TVM's C metadata module (issue 16 P5).
    (*f)["graph_syslib_v7"] = {tt::GraphSysLibV7(),
                               {{"x", Array(DType::kFloat32, tt::DenseInput(), {1, 4})}},
                               {{"output", Doubles(tt::GraphExpected())}}};
    (*f)["graph_chain_v6"] = {tt::GraphChainV6(),
                              {{"x", Array(DType::kFloat32, tt::DenseInput(), {1, 4})}},
                              {{"output", Doubles(tt::GraphChainExpected())}}};
    // C = A + B; every buffer is printed.
    (*f)["operator_v5"] = {
        tt::OperatorV5(),
        {{"A", Array(DType::kFloat32, std::vector<float>{1, 2, 3, 4}, {4})},
         {"B", Array(DType::kFloat32, std::vector<float>{10, 20, 30, 40.5f}, {4})}},
        {{"A", {1, 2, 3, 4}}, {"B", {10, 20, 30, 40.5}}, {"C", {11, 22, 33, 44.5}}}};
    // dot(input, {1, -1, 2, -2}) with the DSP's __smlad: 1 - 2 + 6 - 8.
    (*f)["arm_v7"] = {tt::ArmV7(),
                      {{"input", Array(DType::kInt8, std::vector<int8_t>{1, 2, 3, 4}, {1, 4})}},
                      {{"output", {-3}}},
                      false,
                      {"mps2-an386", "mps2-an500"}};
    // y = 2x + 1 through TVM 0.8's positional run_model (issue 16): the
    // header declares a struct run the code lacks; a packed run wrapper
    // without an interface header.
    const std::vector<Sample> x = {{"x", Array(DType::kFloat32, tt::LinkedInput(), {1, 4})}};
    (*f)["mismatch_v5"] = {tt::MismatchV5(), x, {{"output", Doubles(tt::LinkedExpected())}}, true,
                           {"host", "mps2-an500"}};
    (*f)["packed_v5"] = {tt::PackedV5(), x, {{"output", Doubles(tt::LinkedExpected())}}, true,
                         {"mps2-an386"}};
    return f;
  }();
  return *fixtures;
}

// Project options as `mlf project` sets them: the TVM wing wired in.
ProjectOptions TvmProjectOptions() {
  ProjectOptions options;
  options.foreign_modules = &tvm_wing::FirmwareModules();
  return options;
}

struct Prepared {
  std::string archive;
  std::vector<SampleInputSpec> specs;
  testing::Outputs reference;  // empty when the host loader does not run it
};

// Writes each fixture's archive and samples once per process, and runs the
// host loader on them where it can.
const Prepared& Prepare(const std::string& name) {
  static std::mutex mutex;
  static auto* cache = new std::map<std::string, Prepared>;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache->find(name);
  if (it != cache->end()) return it->second;
  const Fixture& f = Fixtures().at(name);
  const std::string dir = FreshDir("tvm_" + name);
  Prepared p;
  p.archive = dir + "/" + name + ".tar";
  tt::WriteTvmArchive(p.archive, f.files);
  testing::Samples samples;
  for (size_t i = 0; i < f.samples.size(); ++i) {
    const std::string path = dir + "/sample" + std::to_string(i) + ".npy";
    Status written = WriteNpyFile(path, f.samples[i].array);
    EXPECT_TRUE(written.ok()) << written.ToString();
    p.specs.push_back({f.samples[i].name, path});
  }
  if (f.host_loader_runs) {
    // The host loader's inputs by index: find each sample's module and index.
    Result<Metadata> metadata = [&]() -> Result<Metadata> {
      VerifyOptions verify;
      verify.foreign_format = &tvm_wing::ArchiveFormat();
      MLF_ASSIGN_OR_RETURN(VerifyReport report, VerifyArchive(p.archive, verify));
      return report.metadata;
    }();
    EXPECT_TRUE(metadata.ok()) << metadata.status().ToString();
    if (metadata.ok()) {
      for (const auto& [module, m] : metadata->modules) {
        // Operator style: the host loader's inputs are every buffer (C too).
        std::vector<std::string> names;
        if (m.style == ModuleStyle::kOperator) {
          for (const TvmOperatorBuffer& b : m.tvm->operator_buffers) names.push_back(b.binding);
        } else {
          for (const TensorInfo& t : m.inputs) names.push_back(t.name);
        }
        for (size_t i = 0; i < names.size(); ++i) {
          // Zeros when no sample is given, as in the firmware.
          std::string bytes(m.style == ModuleStyle::kOperator ? m.tvm->operator_buffers[i].size_bytes : 0, '\0');
          for (const Sample& s : f.samples) {
            if (s.name == names[i]) bytes = s.array.data;
          }
          if (!bytes.empty()) samples.bytes[{module, static_cast<int>(i)}] = bytes;
        }
      }
      auto reference = testing::HostReference(p.archive, samples, dir + "/cache",
                                               &tvm_wing::HostModules());
      EXPECT_TRUE(reference.ok()) << reference.status().ToString();
      if (reference.ok()) p.reference = *reference;
    }
  }
  return cache->emplace(name, std::move(p)).first->second;
}

struct Case {
  std::string fixture;
  std::string platform;
  std::string build_system;
};

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.fixture + "_" + info.param.platform + "_" + info.param.build_system;
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

// make on every platform the fixture runs on; CMake on the host and on one
// Cortex-M board per fixture, taking the boards in turn.
std::vector<Case> Cases() {
  std::vector<Case> cases;
  size_t turn = 0;
  for (const auto& [name, f] : Fixtures()) {
    std::vector<std::string> boards;
    for (const std::string& p : f.platforms) {
      cases.push_back({name, p, "make"});
      if (p == "host") {
        cases.push_back({name, p, "cmake"});
      } else {
        boards.push_back(p);
      }
    }
    cases.push_back({name, boards[turn++ % boards.size()], "cmake"});
  }
  return cases;
}

// The outputs of integer type among the fixtures' expected values.
bool IsIntegerOutput(const std::string& fixture, const std::string& label) {
  return fixture == "pair_v7" || fixture == "arm_v7" ||
         (fixture == "multi_v7" && label.rfind("second.", 0) == 0);
}

bool IsFloat(DType d) {
  return d == DType::kFloat32 || d == DType::kFloat64 || d == DType::kFloat16 ||
         d == DType::kBFloat16;
}

void ExpectValues(const std::vector<std::string>& got, const std::vector<double>& want,
                  bool is_float, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    const double value = std::strtod(got[i].c_str(), nullptr);
    const double tolerance = is_float ? 1e-5 * std::max(1.0, std::fabs(want[i])) : 0.0;
    EXPECT_LE(std::fabs(value - want[i]), tolerance)
        << what << "[" << i << "]: firmware " << got[i] << ", expected " << want[i];
  }
}

class TvmFirmwareTest : public ::testing::TestWithParam<Case> {};

TEST_P(TvmFirmwareTest, BuildsRunsAndPrintsTheExpectedOutputs) {
  const Case& c = GetParam();
  const Fixture& fixture = Fixtures().at(c.fixture);
  const Prepared& prepared = Prepare(c.fixture);
  const std::string dir = FreshDir("tvm_fw_" + CaseName({c, 0})) + "/project";
  ProjectOptions options = TvmProjectOptions();
  options.platform = c.platform;
  options.sample_inputs = prepared.specs;
  auto project = GenerateProject(prepared.archive, dir, options);
  ASSERT_TRUE(project.ok()) << project.status().ToString();

  BuildOptions build;
  build.system = *ParseBuildSystem(c.build_system);
  auto built = BuildProject(dir, project->platform, build);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  auto run = RunFirmware(dir, project->platform);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->exit_code, 0) << run->output;
  std::istringstream text(run->output);
  for (std::string line; std::getline(text, line);) {
    EXPECT_EQ(line.rfind("output ", 0), 0u) << "unexpected output: " << line;
  }
  auto lines = testing::ParseOutputLines(run->output);
  ASSERT_TRUE(lines.ok()) << lines.status().ToString();
  ASSERT_EQ(lines->size(), fixture.expected.size()) << run->output;
  for (const auto& [label, want] : fixture.expected) {
    ASSERT_TRUE(lines->count(label)) << "no line for " << label << " in:\n" << run->output;
    ExpectValues(lines->at(label), want, !IsIntegerOutput(c.fixture, label), label);
  }
  for (const auto& [label, want] : prepared.reference) {
    ASSERT_TRUE(lines->count(label)) << label;
    ExpectValues(lines->at(label), want.values, IsFloat(want.dtype), label + " (mlf run)");
    if (!project->platform.cortex_m) {
      EXPECT_EQ(lines->at(label), want.text) << label;
    }
  }
  EXPECT_EQ(prepared.reference.empty(), !fixture.host_loader_runs);
  if (project->platform.cortex_m) {
    const Status no_heap = testing::CheckNoHeap(built->path);
    EXPECT_TRUE(no_heap.ok()) << no_heap.ToString();
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TvmFirmwareTest, ::testing::ValuesIn(Cases()), CaseName);

// ------------------------------------------------------------- contents --

TEST(TvmProjectTest, HoldsTheArchiveCodeTheCompatibilityLayerAndNoV8Header) {
  const std::string dir = FreshDir("tvm_contents");
  auto project = GenerateProject(Prepare("bundled_v7").archive, dir + "/p", TvmProjectOptions());
  ASSERT_TRUE(project.ok()) << project.status().ToString();
  for (const char* file :
       {"codegen/host/src/default_lib0.c", "codegen/host/src/default_lib1.c",
        "codegen/host/include/tvmgen_default.h", "runtime/include/tvm/runtime/c_runtime_api.h",
        "mlf_tvm/include/tvm/runtime/c_backend_api.h", "mlf_tvm/include/dlpack/dlpack.h",
        "mlf_tvm/src/mlf_tvm_runtime.c", "src/main.c", "Makefile", "CMakeLists.txt"}) {
    EXPECT_TRUE(Exists(dir + "/p/" + file)) << file;
  }
  // Not copied: TVM's runtime sources and project templates.
  EXPECT_FALSE(Exists(dir + "/p/runtime/src"));
  EXPECT_FALSE(Exists(dir + "/p/templates"));
  // The bundled headers come before mlfkit's on the include path.
  const std::string makefile = ReadFile(dir + "/p/Makefile");
  EXPECT_NE(makefile.find("-Icodegen/host/include -Iruntime/include -Imlf_tvm/include -Isrc"),
            std::string::npos)
      << makefile;
  // One static, aligned workspace of the metadata's size; no heap.
  const std::string main_c = ReadFile(dir + "/p/src/main.c");
  EXPECT_NE(main_c.find("static uint8_t mlf_workspace_default[32] __attribute__((aligned(16)));"),
            std::string::npos)
      << main_c;
  EXPECT_EQ(main_c.find("malloc"), std::string::npos);

  auto graph = GenerateProject(Prepare("graph_v6").archive, dir + "/g", TvmProjectOptions());
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  // The .params tensors as one 64-byte aligned blob; the graph as a function.
  const std::string params = ReadFile(dir + "/g/parameters/default_params.c");
  for (const char* p : {" *   p0: float32[3, 4] at offset 0 (48 bytes)\n",
                        " *   p1: float32[3] at offset 64 (12 bytes)\n",
                        " *   p2: int32[2] at offset 128 (8 bytes)\n",
                        "const uint8_t mlf_default_constants[136] __attribute__((aligned(64)))"}) {
    EXPECT_NE(params.find(p), std::string::npos) << p << " in\n" << params;
  }
  const std::string graph_c = ReadFile(dir + "/g/src/default_graph.c");
  EXPECT_NE(graph_c.find("int32_t mlf_tvm_default_graph_run(void* const* inputs"), std::string::npos)
      << graph_c;
  // x and the output are the caller's buffers: no graph storage, no allocator.
  const std::string graph_main = ReadFile(dir + "/g/src/main.c");
  EXPECT_NE(graph_main.find("status = mlf_tvm_default_graph_run(inputs, outputs, NULL, "
                            "mlf_default_constants);"),
            std::string::npos)
      << graph_main;
}

// ------------------------------------------------------------- refusals --

Status Generate(const std::string& fixture, const std::string& platform,
                std::vector<SampleInputSpec> samples = {}) {
  ProjectOptions options = TvmProjectOptions();
  options.platform = platform;
  options.sample_inputs = std::move(samples);
  const std::string dir = FreshDir("tvm_refused") + "/p";
  Status s = GenerateProject(Prepare(fixture).archive, dir, options).status();
  if (!s.ok()) {
    EXPECT_FALSE(Exists(dir)) << "nothing is written when generation fails";
  }
  return s;
}

TEST(TvmProjectTest, CodeForAnotherCoreIsRefusedNamingTheTarget) {
  const std::string start =
      "module 'default' (TVM archive, metadata version 7) needs target cortex-m4: "
      "codegen/host/src/default_lib1.c includes <arm_acle.h>; it cannot be built for platform ";
  Status host = Generate("arm_v7", "host");
  EXPECT_EQ(host.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(host.message(), start + "host (this host, " + HostTriple() +
                                "). Build it with --platform mps2-an386 or mps2-an500");
  Status m3 = Generate("arm_v7", "mps2-an385");
  EXPECT_EQ(m3.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(m3.message(),
            start + "mps2-an385 (Cortex-M3). Build it with --platform mps2-an386 or mps2-an500");
}

TEST(TvmProjectTest, SampleInputsByRawNameAreChecked) {
  const std::string dir = FreshDir("tvm_samples");
  const std::string good = dir + "/good.npy", flat = dir + "/flat.npy", ints = dir + "/ints.npy";
  ASSERT_TRUE(WriteNpyFile(good, Array(DType::kFloat32, tt::DenseInput(), {1, 4})).ok());
  ASSERT_TRUE(WriteNpyFile(flat, Array(DType::kFloat32, tt::DenseInput(), {4})).ok());
  ASSERT_TRUE(WriteNpyFile(ints, Array(DType::kInt32, std::vector<int32_t>{1, 2, 3, 4}, {1, 4})).ok());

  // The raw name and the C name both work.
  EXPECT_TRUE(Generate("dense_v7", "host", {{"serving_default_input_1:0", good}}).ok());
  EXPECT_TRUE(Generate("dense_v7", "host", {{"serving_default_input_1_0", good}}).ok());
  Status unknown = Generate("dense_v7", "host", {{"serving_default_input_1", good}});
  EXPECT_EQ(unknown.code(), StatusCode::kNotFound);
  EXPECT_EQ(unknown.message(),
            "sample input 'serving_default_input_1': no input named 'serving_default_input_1' "
            "(the inputs: serving_default_input_1:0)");
  Status shape = Generate("dense_v7", "host", {{"serving_default_input_1:0", flat}});
  EXPECT_EQ(shape.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(shape.message(), "sample input 'serving_default_input_1:0' (" + flat +
                                 "): the .npy file has shape [4], the input has shape [1, 4]");
  Status dtype = Generate("dense_v7", "host", {{"serving_default_input_1:0", ints}});
  EXPECT_EQ(dtype.message(), "sample input 'serving_default_input_1:0' (" + ints +
                                 "): the .npy file holds int32, the input is float32");
  Status multi = Generate("multi_v7", "host", {{"x", good}});
  EXPECT_EQ(multi.message(),
            "sample input 'x': no input named 'x' (the inputs: default.serving_default_input_1:0, "
            "second.b_in, second.a_in)");
  Status op = Generate("operator_v5", "host", {{"D", good}});
  EXPECT_EQ(op.message(), "sample input 'D': no input named 'D' (the inputs: A, B, C)");
}

// Operator style: the operators function mlf run compiles too, over one
// array per buffer passed as both inputs and outputs.
TEST(TvmProjectTest, OperatorStyleCallsTheSharedOperatorsFunction) {
  const std::string dir = FreshDir("tvm_operator_contents");
  auto project = GenerateProject(Prepare("operator_v5").archive, dir + "/p", TvmProjectOptions());
  ASSERT_TRUE(project.ok()) << project.status().ToString();
  const std::string ops = ReadFile(dir + "/p/src/add_operators.c");
  EXPECT_NE(ops.find("int32_t mlf_tvm_add_operators_run(void* const* inputs"), std::string::npos) << ops;
  const std::string main_c = ReadFile(dir + "/p/src/main.c");
  EXPECT_NE(main_c.find("status = mlf_tvm_add_operators_run(buffers, buffers, NULL, 0);"),
            std::string::npos)
      << main_c;
  EXPECT_NE(ReadFile(dir + "/p/Makefile").find("src/add_operators.c"), std::string::npos);
}

TEST(TvmProjectTest, ASignatureCannotBeRequired) {
  ProjectOptions options = TvmProjectOptions();
  options.verify.require_signature = true;
  auto project = GenerateProject(Prepare("dense_v7").archive, FreshDir("tvm_sig") + "/p", options);
  EXPECT_EQ(project.status().code(), StatusCode::kUnauthenticated) << project.status().ToString();
}

// ------------------------------------------------------------------ cli --

TEST(TvmProjectCliTest, RunsWithASampleByRawNameAndRefusesWithTheLoadersWords) {
  const std::string dir = FreshDir("tvm_cli");
  const std::string sample = dir + "/x.npy";
  ASSERT_TRUE(WriteNpyFile(sample, Array(DType::kFloat32, tt::DenseInput(), {1, 4})).ok());
  CommandResult run = RunCommand({MlfBinary(), "project", Prepare("dense_v7").archive, "-o",
                                  dir + "/p", "--sample-input",
                                  "serving_default_input_1:0=" + sample, "--run"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\noutput output 3 4.75 0 4\n"), std::string::npos) << run.out;

  CommandResult refused = RunCommand({MlfBinary(), "project", Prepare("arm_v7").archive, "-o",
                                      dir + "/arm", "--platform", "mps2-an385"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.err,
            "mlf: error: module 'default' (TVM archive, metadata version 7) needs target "
            "cortex-m4: codegen/host/src/default_lib1.c includes <arm_acle.h>; it cannot be built "
            "for platform mps2-an385 (Cortex-M3). Build it with --platform mps2-an386 or "
            "mps2-an500\n");
}

}  // namespace
}  // namespace mlf::firmware
