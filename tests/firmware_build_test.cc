// Generated firmware projects, built and run for real: make and CMake, the
// host and every Cortex-M board under QEMU, for an MLP-like dense layer
// (linked and file parameters), a small conv network, a model with a
// workspace and integer types, and an archive with two modules. Every printed
// output is checked against the host loader's output for the same sample
// input (floats within 1e-5; on the host, the exact text). Each project is
// built once, and the checks on its image (no heap, size report) reuse it.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

#include "artifact/base/subprocess.h"
#include "codegen/compiler.h"
#include "codegen/frontend/yaml_frontend.h"
#include "loader/firmware/project.h"
#include "loader/firmware/project_build.h"
#include "loader/firmware/testing/firmware_testing.h"
#include "tests/fixtures/fixture_models.h"
#include "tests/test_files.h"

namespace mlf::firmware {
namespace {

using testing::Outputs;
using testing::Samples;

// The models under test: a name and the kinds of its modules — hand-written
// fixtures, or the bundled YAML examples compiled by mlfkit's compiler
// ("mnist_mlp", "tiny_cnn"; "_linked" links the parameters into the code).
const std::map<std::string, std::vector<std::string>>& Models() {
  static const auto* models = new std::map<std::string, std::vector<std::string>>{
      {"dense", {"dense"}},
      {"dense_file", {"dense_file"}},
      {"pair", {"pair"}},
      {"conv", {"conv"}},
      {"two_modules", {"dense_file", "pair"}},
      {"mnist_mlp", {"mnist_mlp"}},
      {"tiny_cnn_linked", {"tiny_cnn_linked"}},
  };
  return *models;
}

Result<ModuleArtifacts> MakeModule(const std::string& kind) {
  const bool linked = kind.size() > 7 && kind.compare(kind.size() - 7, 7, "_linked") == 0;
  const std::string example = linked ? kind.substr(0, kind.size() - 7) : kind;
  if (example != "mnist_mlp" && example != "tiny_cnn") return mlf::testing::MakeFixture(kind, kind);
  MLF_ASSIGN_OR_RETURN(ir::Graph graph,
                       frontend::ImportYamlFile("examples/" + example + "/model.yaml"));
  CompileOptions options;
  options.link_params = linked;
  return CompileGraph(kind, std::move(graph), options);
}

// An exported model with its sample inputs and the host loader's outputs.
struct Model {
  std::string archive;
  Samples samples;
  Outputs reference;
};

// Exports each model once per test process.
const Model& GetModel(const std::string& name) {
  static std::mutex mutex;
  static auto* cache = new std::map<std::string, Model>;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache->find(name);
  if (it != cache->end()) return it->second;
  const std::string dir = FreshDir("model_" + name);
  std::vector<ModuleArtifacts> modules;
  for (const std::string& kind : Models().at(name)) {
    auto m = MakeModule(kind);
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    modules.push_back(*m);
  }
  Model model;
  model.archive = dir + "/" + name + ".tar";
  Status exported = mlf::testing::WriteFixtureArchive(modules, model.archive);
  EXPECT_TRUE(exported.ok()) << exported.ToString();
  Metadata metadata;
  for (const ModuleArtifacts& m : modules) metadata.modules[m.name] = m.metadata;
  auto samples = testing::WriteSamples(metadata, dir, 42);
  EXPECT_TRUE(samples.ok()) << samples.status().ToString();
  model.samples = *samples;
  auto reference = testing::HostReference(model.archive, model.samples, dir + "/cache");
  EXPECT_TRUE(reference.ok()) << reference.status().ToString();
  if (reference.ok()) model.reference = *reference;
  return cache->emplace(name, std::move(model)).first->second;
}

struct Case {
  std::string model;
  std::string platform;
  std::string build_system;
};

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.model + "_" + info.param.platform + "_" + info.param.build_system;
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

// make for every model on every platform; CMake for the conv network and the
// two-module archive on every platform.
std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (const std::string& platform : PlatformNames()) {
    for (const auto& [model, kinds] : Models()) cases.push_back({model, platform, "make"});
    cases.push_back({"conv", platform, "cmake"});
    cases.push_back({"two_modules", platform, "cmake"});
  }
  return cases;
}

void ExpectMatches(const std::string& firmware_output, const Outputs& reference, bool exact_text) {
  auto lines = testing::ParseOutputLines(firmware_output);
  ASSERT_TRUE(lines.ok()) << lines.status().ToString();
  ASSERT_EQ(lines->size(), reference.size()) << firmware_output;
  for (const auto& [label, want] : reference) {
    ASSERT_TRUE(lines->count(label)) << "no line for " << label << " in:\n" << firmware_output;
    const std::vector<std::string>& got = lines->at(label);
    ASSERT_EQ(got.size(), want.values.size()) << label;
    for (size_t i = 0; i < got.size(); ++i) {
      if (exact_text) {
        EXPECT_EQ(got[i], want.text[i]) << label << "[" << i << "]";
      }
      const double value = std::strtod(got[i].c_str(), nullptr);
      const bool is_float = want.dtype == DType::kFloat32 || want.dtype == DType::kFloat64 ||
                            want.dtype == DType::kFloat16 || want.dtype == DType::kBFloat16;
      const double tolerance = is_float ? 1e-5 * std::max(1.0, std::fabs(want.values[i])) : 0.0;
      EXPECT_LE(std::fabs(value - want.values[i]), tolerance)
          << label << "[" << i << "]: firmware " << got[i] << ", host loader " << want.text[i];
    }
  }
}

class FirmwareBuildTest : public ::testing::TestWithParam<Case> {};

TEST_P(FirmwareBuildTest, BuildsRunsAndMatchesTheHostLoader) {
  const Case& c = GetParam();
  const Model& model = GetModel(c.model);
  ASSERT_FALSE(model.reference.empty());
  const std::string dir = FreshDir(CaseName({c, 0})) + "/project";
  ProjectOptions options;
  options.platform = c.platform;
  options.sample_inputs = model.samples.specs;
  auto project = GenerateProject(model.archive, dir, options);
  ASSERT_TRUE(project.ok()) << project.status().ToString();

  BuildOptions build;
  build.system = *ParseBuildSystem(c.build_system);
  auto built = BuildProject(dir, project->platform, build);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->path, dir + "/build/" + project->platform.app_name());

  auto run = RunFirmware(dir, project->platform);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->exit_code, 0) << run->output;
  std::istringstream lines(run->output);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_EQ(line.rfind("output ", 0), 0u) << "unexpected output: " << line;
  }
  ExpectMatches(run->output, model.reference, !project->platform.cortex_m);

  if (!project->platform.cortex_m) {
    EXPECT_FALSE(built->sizes.has_value());
    return;
  }
  const Status no_heap = testing::CheckNoHeap(built->path);
  EXPECT_TRUE(no_heap.ok()) << no_heap.ToString();
  ASSERT_TRUE(built->sizes.has_value());
  const SizeReport& sizes = *built->sizes;
  EXPECT_GT(sizes.Part("model code").flash, 0u);
  EXPECT_EQ(sizes.Part("stack").ram, project->platform.stack_bytes);
  // The exact "%.9g" printer: about 725 bytes for float32 outputs, 880 with
  // int64 ones too (README: sizes).
  EXPECT_LE(sizes.Part("output formatting").flash, 900u);
  // The flash goal: at most 1 KiB beyond the model, its parameters and
  // the C library, for a module with float32 outputs (int64 printing and each
  // further module add to main and the printer: README: sizes).
  if (c.model != "pair" && c.model != "two_modules") {
    EXPECT_LE(sizes.OverheadFlash(), 1024u) << FormatSizeReport(sizes);
  }
  const std::string readme = ReadFile(dir + "/README.md");
  EXPECT_NE(readme.find(FormatSizeReport(sizes)), std::string::npos) << readme;
  std::cout << c.model << " on " << c.platform << " (" << c.build_system << "):\n"
            << FormatSizeReport(sizes) << std::endl;
}

INSTANTIATE_TEST_SUITE_P(Matrix, FirmwareBuildTest, ::testing::ValuesIn(Cases()), CaseName);

// What the parts of the size report must hold for the two-module archive:
// dense_file's parameter blob, pair's 64-byte workspace, every I/O buffer.
TEST(FirmwareSizeTest, PartsHoldTheModelsMemory) {
  const Model& model = GetModel("two_modules");
  const std::string dir = FreshDir("size_parts") + "/project";
  ProjectOptions options;
  options.platform = "mps2-an386";
  auto project = GenerateProject(model.archive, dir, options);
  ASSERT_TRUE(project.ok()) << project.status().ToString();
  auto built = BuildProject(dir, project->platform, {});
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const SizeReport& sizes = *built->sizes;
  const uint64_t blob =
      mlf::testing::MakeFixture("dense_file", "dense_file")->parameter_blob.size();
  EXPECT_EQ(sizes.Part("parameters").flash, blob);  // w at offset 0, b at 64
  EXPECT_EQ(sizes.Part("workspace").ram, 64u);
  // dense_file x, y (16 + 12) and pair a, b, sum, stats (24 + 12 + 24 + 16), each 16-aligned
  EXPECT_GE(sizes.Part("I/O buffers").ram, 104u);
  EXPECT_LE(sizes.Part("I/O buffers").ram, 104u + 6 * 15);
  EXPECT_EQ(sizes.Part("sample inputs").flash, 0u);  // none given: inputs are zeros
  // The integration glue (startup and main, here for two modules) stays
  // small; exact "%.9g" and int64 output without printf adds under 900 bytes
  // (README: sizes).
  EXPECT_LE(sizes.Part("startup").flash + sizes.Part("main").flash, 500u);
  EXPECT_LE(sizes.OverheadFlash(), 1400u);
}

// The README's "calling the model" examples are real C: each compiles
// against the project's headers for the board.
TEST(FirmwareReadmeTest, CallExamplesCompile) {
  auto conv = mlf::testing::MakeFixture("conv", "conv");
  auto pair = mlf::testing::MakeFixture("pair", "pair");
  const std::string dir = FreshDir("readme_examples");
  ExportOptions export_options;
  export_options.build_host_library = false;
  ASSERT_TRUE(
      mlf::testing::WriteFixtureArchive({*conv, *pair}, dir + "/m.tar", export_options).ok());
  ProjectOptions options;
  options.platform = "mps2-an500";
  ASSERT_TRUE(GenerateProject(dir + "/m.tar", dir + "/project", options).ok());
  const std::string readme = ReadFile(dir + "/project/README.md");
  int examples = 0;
  for (size_t at = readme.find("```c\n"); at != std::string::npos;
       at = readme.find("```c\n", at + 1)) {
    const size_t begin = at + 5, end = readme.find("```\n", begin);
    const std::string file = dir + "/example" + std::to_string(examples++) + ".c";
    WriteFile(file, readme.substr(begin, end - begin));
    auto r = RunProcess({"arm-none-eabi-gcc", "-mcpu=cortex-m7", "-mthumb", "-std=c99", "-Wall",
                         "-Werror", "-I" + dir + "/project/codegen/host/include",
                         "-I" + dir + "/project/src", "-c", file, "-o", file + ".o"});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->exit_code, 0) << r->output << "\n" << readme.substr(begin, end - begin);
  }
  EXPECT_EQ(examples, 2);
}

// The heap check the matrix relies on finds an allocator, and says so when
// its tools cannot read the image.
TEST(NoHeapCheckTest, NamesTheAllocatorItFinds) {
  const std::string dir = FreshDir("no_heap_check");
  WriteFile(dir + "/heap.c",
            "#include <stdlib.h>\nint main(void) { return malloc(4) != 0; }\n");
  auto r = RunProcess({"arm-none-eabi-gcc", "-mcpu=cortex-m3", "-mthumb", "--specs=nosys.specs",
                       dir + "/heap.c", "-o", dir + "/heap.elf"});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->exit_code, 0) << r->output;
  const Status heap = testing::CheckNoHeap(dir + "/heap.elf");
  EXPECT_EQ(heap.message().rfind(dir + "/heap.elf has a heap:\n  ", 0), 0u) << heap.ToString();
  EXPECT_NE(heap.message().find(" T malloc\n"), std::string::npos) << heap.ToString();

  const Status missing = testing::CheckNoHeap(dir + "/missing.elf");
  EXPECT_EQ(missing.message().rfind("arm-none-eabi-nm " + dir + "/missing.elf exited with 1:", 0),
            0u)
      << missing.ToString();
}

// A model whose run function fails, and one that crashes.
Model FailingModel(const std::string& name, const std::string& from, const std::string& to) {
  auto m = mlf::testing::MakeFixture("dense", "dense");
  EXPECT_TRUE(m.ok());
  std::string& source = m->sources[0].content;
  const size_t at = source.rfind(from);
  EXPECT_NE(at, std::string::npos);
  source.replace(at, from.size(), to);
  Model model;
  model.archive = FreshDir(name) + "/" + name + ".tar";
  ExportOptions export_options;
  export_options.build_host_library = false;
  Status s = mlf::testing::WriteFixtureArchive({*m}, model.archive, export_options);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return model;
}

FirmwareRun BuildAndRun(const Model& model, const std::string& platform) {
  static int runs = 0;
  const std::string dir = FreshDir("run_" + platform + "_" + std::to_string(runs++)) + "/project";
  ProjectOptions options;
  options.platform = platform;
  auto project = GenerateProject(model.archive, dir, options);
  EXPECT_TRUE(project.ok()) << project.status().ToString();
  if (!project.ok()) return {};
  auto built = BuildProject(dir, project->platform, {});
  EXPECT_TRUE(built.ok()) << built.status().ToString();
  auto run = RunFirmware(dir, project->platform, 60);
  EXPECT_TRUE(run.ok()) << run.status().ToString();
  return run.ok() ? *run : FirmwareRun{};
}

TEST(FirmwareFailureTest, AModelThatFailsExitsWithStatus1) {
  const Model model = FailingModel("fails", "return 0;", "return 7;");
  for (const char* platform : {"host", "mps2-an385"}) {
    const FirmwareRun run = BuildAndRun(model, platform);
    EXPECT_EQ(run.exit_code, 1) << platform << ": " << run.output;
    EXPECT_EQ(run.output, "error: tvmgen_dense_run returned 7\n") << platform;
  }
}

TEST(FirmwareFailureTest, AFaultExitsWithStatus1InsteadOfHanging) {
  const Model model = FailingModel("crashes", "int i, j;", "int i, j;\n  __builtin_trap();");
  const FirmwareRun run = BuildAndRun(model, "mps2-an500");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_EQ(run.output, "fault\n");
}

}  // namespace
}  // namespace mlf::firmware
