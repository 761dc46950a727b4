// Generating firmware projects (loader/firmware/project.h), without building
// them: the files and what they contain, sample inputs, the refusals, and
// that nothing is written unless the archive verified and the project is
// complete.
#include <gtest/gtest.h>

#include <set>

#include "artifact/archive/archive_reader.h"
#include "artifact/archive/sign.h"
#include "artifact/archive/signature.h"
#include "artifact/format/npy.h"
#include "loader/firmware/project.h"
#include "loader/firmware/templates.h"
#include "tests/fixtures/fixture_models.h"
#include "tests/test_files.h"

namespace mlf::firmware {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class FirmwareProjectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    project_ = dir_ + "/project";
  }

  // An archive of fixture modules (kind = module name), without host library.
  std::string Export(const std::vector<std::string>& kinds,
                     void (*edit)(ModuleArtifacts&) = nullptr) {
    std::vector<ModuleArtifacts> modules;
    for (const std::string& kind : kinds) {
      auto m = mlf::testing::MakeFixture(kind, kind);
      EXPECT_TRUE(m.ok()) << m.status().ToString();
      if (edit) edit(*m);
      modules.push_back(*m);
    }
    ExportOptions options;
    options.build_host_library = false;
    const std::string out = dir_ + "/" + kinds[0] + std::to_string(counter_++) + ".tar";
    Status s = mlf::testing::WriteFixtureArchive(modules, out, options);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }

  Result<GeneratedProject> Generate(const std::string& archive, const std::string& platform,
                                    std::vector<SampleInputSpec> samples = {}) {
    ProjectOptions options;
    options.platform = platform;
    options.sample_inputs = std::move(samples);
    return GenerateProject(archive, project_, options);
  }

  std::string File(const std::string& path) { return ReadFile(project_ + "/" + path); }

  std::string Npy(const std::string& name, DType dtype, std::vector<int64_t> shape, size_t bytes) {
    NpyArray array;
    array.dtype = dtype;
    array.shape = std::move(shape);
    array.data.assign(bytes, '\x01');
    const std::string path = dir_ + "/" + name;
    EXPECT_TRUE(WriteNpyFile(path, array).ok());
    return path;
  }

  // The parent of the project holds nothing but what the test put there.
  void ExpectNothingWritten() {
    EXPECT_FALSE(Exists(project_));
    for (const auto& [path, entry] : ListTree(dir_)) {
      EXPECT_EQ(path.find(".project."), std::string::npos) << "leftover " << path;
    }
  }

  std::string dir_;
  std::string project_;  // the project directory, inside dir_
  int counter_ = 0;
};

using ProjectFiles = FirmwareProjectTest;

TEST_F(ProjectFiles, CortexMProjectHasEverythingToBuildAndRun) {
  auto p = Generate(Export({"dense_file"}), "mps2-an385");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->platform.name, "mps2-an385");
  EXPECT_EQ(p->modules, std::vector<std::string>{"dense_file"});
  std::set<std::string> files;
  for (const auto& [path, entry] : ListTree(project_)) {
    if (entry.rfind("file", 0) == 0) files.insert(path);
  }
  EXPECT_EQ(files,
            (std::set<std::string>{
                "CMakeLists.txt", "Makefile", "model.mk", "README.md", "src/main.c",
                "src/mlf_print.c", "src/mlf_print.h", "src/model_data.h", "codegen/host/include/mlf/model_abi.h",
                "codegen/host/include/tvmgen_dense_file.h", "codegen/host/src/dense_file_lib0.c",
                "codegen/host/src/dense_file_metadata.c", "parameters/dense_file_params.c",
                "platform/mps2.ld", "platform/startup.c"}));
  EXPECT_EQ(std::set<std::string>(p->files.begin(), p->files.end()), files);
  EXPECT_EQ(FileMode(project_), 0755u);
}

// count_instructions (`mlf project --run`): the SysTick harness around each
// run and SysTick's vector, on boards QEMU runs; absent elsewhere.
TEST_F(ProjectFiles, CountingAddsTheSysTickHarnessAroundEachRun) {
  ProjectOptions options;
  options.platform = "mps2-an386";
  options.count_instructions = true;
  auto p = GenerateProject(Export({"dense_file", "pair"}), project_, options);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->counted.size(), 2u);
  EXPECT_EQ(p->counted[0].name, "dense_file");
  EXPECT_EQ(p->counted[0].c_name, "dense_file");
  EXPECT_EQ(File("src/mlf_cycles.c"), std::string(*ProjectTemplate("mlf_cycles.c")));
  EXPECT_EQ(File("src/mlf_cycles.h"), std::string(*ProjectTemplate("mlf_cycles.h")));
  const std::string main = File("src/main.c");
  EXPECT_TRUE(Contains(main, "#include \"mlf_cycles.h\"\n")) << main;
  EXPECT_TRUE(Contains(main, "int main(void) {\n  mlf_cycles_start();")) << main;
  EXPECT_TRUE(Contains(main, "  ticks = mlf_cycles_now();\n"
                             "  status = tvmgen_pair_run(&inputs, &outputs, &pools);\n"
                             "  ticks = mlf_cycles_now() - ticks;\n"))
      << main;
  EXPECT_TRUE(Contains(main, "  mlf_cycles_print(\"pair\", ticks);\n  mlf_stack_print(\"pair\", stack);\n  return 0;\n"))
      << main;
  // The stack (stack_usage.h): painted before the run, scanned after it, before any printing.
  EXPECT_EQ(File("src/mlf_stack.c"), std::string(*ProjectTemplate("mlf_stack.c")));
  EXPECT_TRUE(Contains(main, "  mlf_stack_paint();\n  ticks = mlf_cycles_now();\n")) << main;
  EXPECT_TRUE(Contains(main, "  ticks = mlf_cycles_now() - ticks;\n  stack = mlf_stack_used();\n")) << main;
  EXPECT_FALSE(Exists(project_ + "/src/mlf_profile.c"));  // only with profile
  const std::string startup = File("platform/startup.c");
  EXPECT_TRUE(Contains(startup, "vector_table[16] = {")) << startup;
  EXPECT_TRUE(Contains(startup, "    mlf_systick_handler, /* SysTick: src/mlf_cycles.c */\n};")) << startup;
  const std::string makefile = File("Makefile");
  EXPECT_TRUE(Contains(makefile, " -DMLF_SYSTICK_HZ=25000000")) << makefile;
  EXPECT_TRUE(Contains(makefile, "  src/mlf_cycles.c")) << makefile;
  EXPECT_TRUE(Contains(makefile, " -fstack-usage -fcallgraph-info=su")) << makefile;
  EXPECT_TRUE(Contains(File("CMakeLists.txt"), " -fstack-usage -fcallgraph-info=su")) << File("CMakeLists.txt");
  EXPECT_TRUE(Contains(makefile, "qemu-system-arm -M mps2-an386 -nographic -icount shift=0 ")) << makefile;
  EXPECT_TRUE(Contains(File("CMakeLists.txt"), "MLF_SYSTICK_HZ=25000000"));
  EXPECT_TRUE(Contains(File("README.md"), "src/mlf_cycles.[ch]     SysTick around each run: a \"systick "
                                          "<module> <ticks> <clock Hz>\"\n"));
}

// profile (`mlf project --run --profile`, operator_profile.h): the hook's
// harness, MLF_PROFILE and the largest operator count among the defines,
// the totals cleared before each run and printed after it; refused where
// the project cannot count.
TEST_F(ProjectFiles, ProfilingAddsTheHookHarness) {
  ProjectOptions options;
  options.platform = "mps2-an386";
  options.count_instructions = true;
  options.profile = true;
  auto p = GenerateProject(Export({"dense_file", "pair"}), project_, options);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(p->profiled);
  EXPECT_EQ(File("src/mlf_profile.c"), std::string(*ProjectTemplate("mlf_profile.c")));
  EXPECT_EQ(File("src/mlf_profile.h"), std::string(*ProjectTemplate("mlf_profile.h")));
  const std::string makefile = File("Makefile");
  EXPECT_TRUE(Contains(makefile, " -DMLF_PROFILE -DMLF_PROFILE_MAX_OPERATORS=")) << makefile;
  EXPECT_TRUE(Contains(makefile, "  src/mlf_profile.c")) << makefile;
  const std::string main = File("src/main.c");
  EXPECT_TRUE(Contains(main, "  mlf_cycles_start(); /* instructions per inference: src/mlf_cycles.h */\n"
                             "  mlf_profile_start(); /* per-operator profiles: src/mlf_profile.h */\n"))
      << main;
  EXPECT_TRUE(Contains(main, "  mlf_stack_paint();\n  mlf_profile_reset();\n  ticks = mlf_cycles_now();\n")) << main;
  EXPECT_TRUE(Contains(main, "  mlf_profile_print(\"pair\", ")) << main;

  options.platform = "host";
  Status refused = GenerateProject(Export({"dense_file"}), project_ + "_host", options).status();
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.message(),
            "--profile needs a board QEMU models and whose board file gives clock_hz (the profile is counted in "
            "SysTick ticks under QEMU), and an archive written by mlfkit; host cannot count");
  EXPECT_FALSE(Exists(project_ + "_host"));
}

TEST_F(ProjectFiles, WithoutCountingTheVectorTableStopsAtHardFault) {
  ASSERT_TRUE(Generate(Export({"dense_file"}), "mps2-an386").ok());
  EXPECT_FALSE(Exists(project_ + "/src/mlf_cycles.c"));
  EXPECT_FALSE(Contains(File("src/main.c"), "mlf_cycles"));
  const std::string startup = File("platform/startup.c");
  EXPECT_TRUE(Contains(startup, "vector_table[4] = {")) << startup;
  EXPECT_FALSE(Contains(startup, "mlf_systick_handler")) << startup;
  EXPECT_FALSE(Contains(File("Makefile"), "MLF_SYSTICK_HZ"));
  EXPECT_FALSE(Contains(File("README.md"), "mlf_cycles"));
}

TEST_F(ProjectFiles, CountingIsIgnoredWhereQemuCannotRun) {
  for (const std::string board : {"host", "stm32f405"}) {
    ProjectOptions options;
    options.target = *ResolveBoard(board);
    options.count_instructions = true;
    project_ = dir_ + "/" + board;
    auto p = GenerateProject(Export({"dense_file"}), project_, options);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_TRUE(p->counted.empty()) << board;
    EXPECT_FALSE(Exists(project_ + "/src/mlf_cycles.c")) << board;
  }
}

TEST_F(ProjectFiles, ParametersBecomeAnAlignedConstArray) {
  auto m = mlf::testing::MakeFixture("dense_file", "dense_file");
  ASSERT_TRUE(Generate(Export({"dense_file"}), "mps2-an386").ok());
  const std::string params = File("parameters/dense_file_params.c");
  EXPECT_TRUE(Contains(params,
                       "const uint8_t mlf_dense_file_constants[76] "
                       "__attribute__((aligned(MLF_WORKSPACE_ALIGNMENT))) = {"))
      << params;
  EXPECT_TRUE(Contains(params, " *   w: float32[4, 3] at offset 0 (48 bytes)\n")) << params;
  std::string bytes;
  for (size_t at = params.find("0x"); at != std::string::npos; at = params.find("0x", at + 4)) {
    bytes += static_cast<char>(std::stoi(params.substr(at + 2, 2), nullptr, 16));
  }
  EXPECT_EQ(bytes, m->parameter_blob);
  const std::string main = File("src/main.c");
  EXPECT_TRUE(Contains(main, "  pools.constants = mlf_dense_file_constants;\n")) << main;
  EXPECT_TRUE(Contains(main, "  pools.workspace = NULL;\n")) << main;
}

TEST_F(ProjectFiles, MainHasStaticBuffersAWorkspaceAndOneLinePerOutput) {
  ASSERT_TRUE(Generate(Export({"pair"}), "host").ok());
  const std::string main = File("src/main.c");
  for (const char* line :
       {"static uint8_t mlf_in_pair_a[TVMGEN_PAIR_A_SIZE] __attribute__((aligned(16)));\n",
        "static uint8_t mlf_out_pair_stats[TVMGEN_PAIR_STATS_SIZE] __attribute__((aligned(16)));\n",
        "static uint8_t mlf_workspace_pair[TVMGEN_PAIR_WORKSPACE_SIZE] "
        "__attribute__((aligned(MLF_WORKSPACE_ALIGNMENT)));\n",
        "  inputs.b_0 = mlf_in_pair_b_0; /* zeros: no sample input given */\n",
        "  mlf_print_output(\"sum\", mlf_out_pair_sum, 6u, mlf_format_f32);\n",
        "  mlf_print_output(\"stats\", mlf_out_pair_stats, 2u, mlf_format_i64);\n",
        "  if (run_pair() != 0) return 1;\n"}) {
    EXPECT_TRUE(Contains(main, line)) << line << "\nin:\n" << main;
  }
  EXPECT_FALSE(Contains(main, "malloc"));
  EXPECT_FALSE(Exists(project_ + "/platform"));  // the host needs no startup code
  EXPECT_FALSE(Exists(project_ + "/src/sample_inputs.c"));
  EXPECT_TRUE(Contains(File("Makefile"), "CC   = cc\n"));
}

TEST_F(ProjectFiles, SeveralModulesRunInOneFirmwareWithQualifiedLabels) {
  auto p = Generate(Export({"dense_file", "pair"}), "mps2-an500");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->modules, (std::vector<std::string>{"dense_file", "pair"}));
  const std::string main = File("src/main.c");
  EXPECT_TRUE(Contains(main, "mlf_print_output(\"dense_file.y\", ")) << main;
  EXPECT_TRUE(Contains(main, "mlf_print_output(\"pair.stats\", ")) << main;
  EXPECT_TRUE(
      Contains(main, "  if (run_dense_file() != 0) return 1;\n  if (run_pair() != 0) return 1;\n"));
  EXPECT_TRUE(Contains(File("README.md"), "output <module>.<name> <element count>"));
  const std::string make = File("Makefile");
  EXPECT_TRUE(Contains(make, "  codegen/host/src/dense_file_lib0.c \\\n")) << make;
  EXPECT_TRUE(Contains(make, "  codegen/host/src/pair_metadata.c\n")) << make;
  EXPECT_TRUE(Contains(make, "ARCH = -mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16\n"));
  EXPECT_TRUE(Contains(File("CMakeLists.txt"), "set(CMAKE_C_COMPILER arm-none-eabi-gcc)"));
}

TEST_F(ProjectFiles, ReadmeExplainsBuildingMemoryAndTheModelInterface) {
  auto lower_bound = [](ModuleArtifacts& m) { m.metadata.memory.workspace_lower_bound_bytes = 48; };
  ASSERT_TRUE(Generate(Export({"pair"}, lower_bound), "mps2-an385").ok());
  const std::string readme = File("README.md");
  for (const char* part :
       {"make run      # qemu-system-arm -M mps2-an385 -nographic -icount shift=0 -semihosting-config "
        "enable=on,target=native -kernel build/app.elf",
        "cmake -S . -B build", "arm-none-eabi-size build/app.elf",
        "| `pair` | `a` float32[2, 3]<br>`b_0` int32[3] | `sum` float32[2, 3]<br>`stats` int64[2] "
        "| "
        "64 bytes (planner's lower bound: 48) | none |",
        "| RAM | 0x20000000 | 4 MiB |", "static uint8_t pair_workspace[TVMGEN_PAIR_WORKSPACE_SIZE]",
        "  inputs.b_0 = pair_b_0;\n", "Not measured yet"}) {
    EXPECT_TRUE(Contains(readme, part)) << part << "\nin:\n" << readme;
  }
  RemoveTree(project_);
  ASSERT_TRUE(Generate(Export({"dense"}), "host").ok());
  EXPECT_TRUE(
      Contains(File("README.md"), "0 bytes (no lower bound recorded) | linked into the code |"));
}

TEST_F(ProjectFiles, SampleInputsAreEmbeddedAsConstData) {
  const std::string x = Npy("x.npy", DType::kFloat32, {1, 4}, 16);
  ASSERT_TRUE(Generate(Export({"dense"}), "mps2-an385", {{"x", x}}).ok());
  const std::string samples = File("src/sample_inputs.c");
  EXPECT_TRUE(Contains(samples,
                       "const uint8_t mlf_sample_dense_x[16] __attribute__((aligned(16))) = {\n"
                       "  0x01, 0x01,"))
      << samples;
  EXPECT_TRUE(Contains(
      File("src/main.c"),
      "  memcpy(mlf_in_dense_x, mlf_sample_dense_x, sizeof mlf_in_dense_x); /* from x.npy */\n"));
  EXPECT_TRUE(Contains(File("Makefile"), "  src/sample_inputs.c \\\n"));
}

TEST_F(ProjectFiles, SampleInputNamesMayBeQualifiedByModule) {
  const std::string archive = Export({"dense", "dense_file"});
  const std::string x = Npy("x.npy", DType::kFloat32, {1, 4}, 16);
  auto ambiguous = Generate(archive, "host", {{"x", x}});
  EXPECT_EQ(ambiguous.status().message(),
            "sample input 'x': input name 'x' is ambiguous: modules dense, dense_file have it; "
            "write MODULE.x");
  ExpectNothingWritten();
  ASSERT_TRUE(Generate(archive, "host", {{"dense_file.x", x}}).ok());
  EXPECT_TRUE(Contains(File("src/sample_inputs.c"), "mlf_sample_dense_file_x[16]"));
  EXPECT_FALSE(Contains(File("src/sample_inputs.c"), "mlf_sample_dense_x["));
}

TEST_F(ProjectFiles, BadSampleInputsAreRefusedBeforeAnythingIsWritten) {
  const std::string archive = Export({"pair"});
  const std::string a = Npy("a.npy", DType::kFloat32, {2, 3}, 24);
  struct Bad {
    std::vector<SampleInputSpec> samples;
    std::string message;
  };
  const std::vector<Bad> cases = {
      {{{"c", a}}, "sample input 'c': no input named 'c' (the inputs: a, b:0)"},
      {{{"a", a}, {"a", a}}, "sample input 'a': this input was given twice"},
      {{{"b:0", a}},
       "sample input 'b:0' (" + a + "): the .npy file holds float32, the input is int32"},
      {{{"a", Npy("a3.npy", DType::kFloat32, {3, 2}, 24)}},
       "sample input 'a' (" + dir_ +
           "/a3.npy): the .npy file has shape [3, 2], the input has "
           "shape [2, 3]"},
      {{{"a", dir_ + "/missing.npy"}}, ""},
  };
  for (const Bad& bad : cases) {
    auto p = Generate(archive, "host", bad.samples);
    ASSERT_FALSE(p.ok());
    if (!bad.message.empty()) {
      EXPECT_EQ(p.status().message(), bad.message);
    }
    ExpectNothingWritten();
  }
}

TEST_F(ProjectFiles, GenerationIsDeterministic) {
  const std::string archive = Export({"conv", "pair"});
  ASSERT_TRUE(Generate(archive, "mps2-an386").ok());
  const auto first = ListTree(project_);
  RemoveTree(project_);
  ASSERT_TRUE(Generate(archive, "mps2-an386").ok());
  EXPECT_EQ(ListTree(project_), first);
}

TEST_F(ProjectFiles, RefusesANonEmptyDirectoryAndLeavesItAlone) {
  MakeDirs(project_);
  WriteFile(project_ + "/mine.c", "int x;\n");
  const auto before = ListTree(dir_);
  auto p = Generate(Export({"dense"}), "host");
  EXPECT_EQ(p.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(p.status().message(),
            "'" + project_ + "' already exists and is not an empty directory: choose a new one");
  auto after = ListTree(dir_);
  after.erase(after.find("dense0.tar"));
  EXPECT_EQ(after, before);
}

TEST_F(ProjectFiles, FillsAnEmptyDirectory) {
  MakeDirs(project_);
  ASSERT_TRUE(Generate(Export({"dense"}), "host").ok());
  EXPECT_TRUE(Exists(project_ + "/src/main.c"));
}

TEST_F(ProjectFiles, NeedsTheParentDirectory) {
  project_ = dir_ + "/missing/project";
  EXPECT_EQ(Generate(Export({"dense"}), "host").status().message(),
            "the parent directory of '" + project_ + "' does not exist: create it first");
}

TEST_F(ProjectFiles, AnArchiveThatFailsVerificationWritesNothing) {
  const std::string archive = Export({"dense_file"});
  uint64_t offset = kUnknownOffset;
  auto reader = ArchiveReader::Open(archive);
  ASSERT_TRUE(reader.ok());
  for (;;) {
    auto e = (*reader)->Next();
    if (!e.ok() || !*e) break;
    if ((*e)->name == "parameters/dense_file.bin") offset = (*e)->data_offset + 3;
  }
  ASSERT_NE(offset, kUnknownOffset);
  std::string bytes = ReadFile(archive);
  bytes[offset] ^= 0x01;
  WriteFile(archive, bytes);
  auto p = Generate(archive, "mps2-an385");
  EXPECT_EQ(p.status().code(), StatusCode::kDataLoss);
  EXPECT_TRUE(
      Contains(p.status().message(), "member 'parameters/dense_file.bin': SHA-256 mismatch"))
      << p.status().message();
  ExpectNothingWritten();
}

TEST_F(ProjectFiles, SignaturePolicyIsAppliedFirst) {
  const std::string archive = Export({"dense"});
  auto keys = GenerateKeyPair();
  ASSERT_TRUE(keys.ok());
  ProjectOptions options;
  options.verify.public_key_pem = keys->public_pem;
  auto unsigned_project = GenerateProject(archive, project_, options);
  EXPECT_EQ(unsigned_project.status().code(), StatusCode::kUnauthenticated);
  ExpectNothingWritten();
  const std::string signed_archive = dir_ + "/signed.tar";
  ASSERT_TRUE(SignArchive(archive, keys->private_pem, signed_archive, {}).ok());
  auto p = GenerateProject(signed_archive, project_, options);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(p->report.signature_checked);
}

TEST_F(ProjectFiles, RefusesSourcePathsAMakefileCannotHold) {
  auto rename = [](ModuleArtifacts& m) { m.sources[0].path = "dense lib$(x).c"; };
  auto p = Generate(Export({"dense"}, rename), "host");
  EXPECT_EQ(p.status().message(),
            "module 'dense': source path 'codegen/host/src/dense lib$(x).c' has characters a "
            "Makefile cannot hold safely (allowed: letters, digits, '_', '-', '+', '.', '/')");
  ExpectNothingWritten();
}

TEST_F(ProjectFiles, RefusesParametersLargerThanTheBoardsFlash) {
  std::vector<ModuleArtifacts> modules;
  mlf::testing::FixtureOptions fixture;
  fixture.param_bytes = 5 << 20;
  modules.push_back(*mlf::testing::MakeFixture("big_params", "big", fixture));
  ExportOptions options;
  options.build_host_library = false;
  const std::string archive = dir_ + "/big.tar";
  ASSERT_TRUE(mlf::testing::WriteFixtureArchive(modules, archive, options).ok());
  auto p = Generate(archive, "mps2-an385");
  EXPECT_EQ(p.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(p.status().message(),
            "the firmware does not fit mps2-an385 (its parameters, buffers and stack alone, before "
            "building):\n"
            "  FLASH: needs 5242880 bytes, has 4194304, over by 1048576 (parameters 5242880)\n"
            "what could help:\n"
            "  - int8 parameters (a quarter of float32's flash)\n"
            "  - exporting without --link-params: the parameters become one blob "
            "(parameters/<module>_params.c) that MLF_SECTION_CONSTANTS can place in another region "
            "or external flash\n"
            "  - a bigger board (`mlf boards` lists the built-in ones)");
  ExpectNothingWritten();
}

TEST_F(ProjectFiles, UnknownPlatform) {
  EXPECT_EQ(Generate(Export({"dense"}), "stm32").status().message(),
            "unknown platform 'stm32' (choose one of: host, mps2-an385, mps2-an386, mps2-an500)");
}

}  // namespace
}  // namespace mlf::firmware
