// Kernel variants and intra-op threads end to end (issue 13, items 3 and 4;
// docs/design.md, "Generated-code ABI"): a model whose convolutions run
// through the kernel layer (tests/testdata/threads_model.yaml) is exported
// by `mlf export`, then run with every variant this CPU has, forced, and 1-4
// threads. Within a variant the outputs are the same bits for every thread
// count; across variants they are within rtol 1e-4 / atol 1e-5 of portable.
// A variant the CPU lacks is printed as skipped (and its refusal asserted),
// never counted as tested. ABI 1 code runs serially and refuses a forced
// variant; the CLI's --threads and --isa reach the executor.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <stdlib.h>

#include <cmath>
#include <cstring>
#include <iostream>

#include "loader/host/kernel_isa.h"
#include "loader/host/model_library.h"
#include "mlf/model_abi.h"
#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

constexpr char kModel[] = "tests/testdata/threads_model.yaml";
const char* const kVariants[] = {"portable", "avx2", "avx512"};

using Outputs = std::vector<std::vector<float>>;

class IntraOpThreadsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(FreshDir("intra_op_threads"));
    CommandResult r = RunCommand({MlfBinary(), "export", kModel, "-o", *dir_ + "/m.tar"});
    ASSERT_EQ(r.exit_code, 0) << Describe({"export", kModel}, r);
  }

  void SetUp() override {
    unsetenv(kKernelIsaEnv);
    LoadOptions options;
    options.use_verification_memo = false;
    Result<std::shared_ptr<ModelLibrary>> lib = ModelLibrary::Open(*dir_ + "/m.tar", options);
    ASSERT_TRUE(lib.ok()) << lib.status().ToString();
    lib_ = *lib;
  }

  void TearDown() override { unsetenv(kKernelIsaEnv); }

  // The outputs of two runs of one executor (the pool is reused) with `options`.
  Outputs Run(const ExecutorOptions& options) {
    Result<std::unique_ptr<AotExecutor>> exec = lib_->CreateExecutor("default", options);
    EXPECT_TRUE(exec.ok()) << exec.status().ToString();
    if (!exec.ok()) return {};
    EXPECT_EQ((*exec)->threads(), options.threads);
    EXPECT_EQ((*exec)->kernel_isa(), options.kernel_isa.empty() ? "auto" : options.kernel_isa);
    std::vector<float> x(16 * 32 * 32);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.37 * i) + 0.25 * std::cos(1.3 * i));
    int64_t shape[] = {1, 16, 32, 32};
    DLTensor t{};
    t.data = x.data();
    t.device = {kDLCPU, 0};
    t.ndim = 4;
    t.dtype = {kDLFloat, 32, 1};
    t.shape = shape;
    EXPECT_TRUE((*exec)->SetInput(0, t).ok());
    Outputs first;
    for (int round = 0; round < 2; ++round) {
      const Status ran = (*exec)->Run();
      EXPECT_TRUE(ran.ok()) << ran.ToString();
      Outputs outs;
      for (int o = 0; o < (*exec)->num_outputs(); ++o) {
        Result<DLTensor> out = (*exec)->GetOutput(o);
        EXPECT_TRUE(out.ok());
        if (!out.ok()) return {};
        const float* p = static_cast<const float*>(out->data);
        outs.emplace_back(p, p + (*exec)->output_info(o)->size_bytes / sizeof(float));
      }
      if (round == 0) first = outs;
      if (round == 1) {
        EXPECT_TRUE(SameBits(first, outs)) << "a second run differs";
      }
    }
    return first;
  }

  static bool SameBits(const Outputs& a, const Outputs& b) {
    if (a.size() != b.size()) return false;
    for (size_t o = 0; o < a.size(); ++o) {
      if (a[o].size() != b[o].size() ||
          std::memcmp(a[o].data(), b[o].data(), a[o].size() * sizeof(float)) != 0) {
        return false;
      }
    }
    return true;
  }

  static std::string* dir_;
  std::shared_ptr<ModelLibrary> lib_;
};

std::string* IntraOpThreadsTest::dir_ = nullptr;

TEST_F(IntraOpThreadsTest, EveryVariantAndThreadCount) {
  const Outputs portable = Run({1, "portable"});
  ASSERT_EQ(portable.size(), 2u);
  ASSERT_EQ(portable[1].size(), 40u * 16 * 16);
  // Not a degenerate result: ReLU leaves a good share of the features positive.
  size_t positive = 0;
  for (float v : portable[1]) positive += v > 0;
  EXPECT_GT(positive, portable[1].size() / 10);

  std::vector<std::string> tested;
  for (const char* variant : kVariants) {
    if (!CpuRunsKernelIsa(*ParseKernelIsa(variant))) {
      std::cout << "skipped: " << variant << " not supported by this CPU\n";
      Result<std::unique_ptr<AotExecutor>> refused = lib_->CreateExecutor("default", {2, variant});
      ASSERT_FALSE(refused.ok());
      EXPECT_EQ(refused.status().message(), "kernel variant " + std::string(variant) +
                                                " is not supported by this CPU (it runs " +
                                                CpuKernelIsas() + ")");
      continue;
    }
    SCOPED_TRACE(variant);
    const Outputs one = Run({1, variant});
    ASSERT_EQ(one.size(), 2u);
    for (int threads = 2; threads <= 4; ++threads) {
      EXPECT_TRUE(SameBits(Run({threads, variant}), one)) << variant << " with " << threads << " threads";
    }
    bool differs = false;
    for (size_t o = 0; o < one.size(); ++o) {
      for (size_t i = 0; i < one[o].size(); ++i) {
        const float got = one[o][i], want = portable[o][i];
        EXPECT_LE(std::fabs(got - want), 1e-5 + 1e-4 * std::fabs(want))
            << variant << " output " << o << " element " << i;
        differs = differs || got != want;
      }
    }
    // The FMA variants round differently from portable C somewhere in these
    // sums of 16-576 products: proof that the forced variant reached the kernels.
    if (std::string(variant) != "portable") {
      EXPECT_TRUE(differs) << variant << " gave portable's bits";
    }
    tested.push_back(variant);
  }
  std::cout << "tested:";
  for (const std::string& v : tested) std::cout << " " << v;
  std::cout << " (1-4 threads each)\n";
  ASSERT_FALSE(tested.empty());
  EXPECT_EQ(tested[0], "portable");
}

// The model's Add(c3, c4) is fused into c3 as a residual (c3 moves after
// c4, whose output it now reads) and Relu/Clip into the convolutions: the
// same bits as the unfused graph of `mlf export --no-optimize`, for every
// variant the CPU has and 1 and 3 threads. The metadata names the fused Add.
TEST_F(IntraOpThreadsTest, FusedResidualAddGivesTheUnfusedBits) {
  const std::string plain = *dir_ + "/plain.tar";
  CommandResult r = RunCommand({MlfBinary(), "export", kModel, "-o", plain, "--no-optimize"});
  ASSERT_EQ(r.exit_code, 0) << Describe({"export", kModel, "--no-optimize"}, r);
  CommandResult meta = RunCommand({MlfBinary(), "inspect", *dir_ + "/m.tar", "--json"});
  ASSERT_EQ(meta.exit_code, 0);
  const nlohmann::json ops = nlohmann::json::parse(meta.out)["metadata"]["modules"]["default"]["operators"];
  ASSERT_EQ(ops.size(), 10u);
  // c3.w (36x64) and c3.b (36) in float32: 9360 bytes.
  EXPECT_EQ(ops[4], nlohmann::json::parse(
                        R"({"macs": 2359296, "name": "c3", "ops": ["Conv", "Add"], "param_bytes": 9360})"));
  LoadOptions options;
  options.use_verification_memo = false;
  Result<std::shared_ptr<ModelLibrary>> unfused = ModelLibrary::Open(plain, options);
  ASSERT_TRUE(unfused.ok()) << unfused.status().ToString();
  std::shared_ptr<ModelLibrary> fused = lib_;
  for (const char* variant : kVariants) {
    if (!CpuRunsKernelIsa(*ParseKernelIsa(variant))) continue;
    for (int threads : {1, 3}) {
      lib_ = fused;
      const Outputs want = Run({threads, variant});
      lib_ = *unfused;
      const Outputs got = Run({threads, variant});
      EXPECT_TRUE(SameBits(got, want)) << variant << " with " << threads << " threads";
    }
  }
  lib_ = fused;
}

// The environment variable forces a variant as the option does; a bad value
// is refused naming the variable. The option wins over the variable.
TEST_F(IntraOpThreadsTest, EnvironmentVariableForcesAVariant) {
  const Outputs portable = Run({1, "portable"});
  setenv(kKernelIsaEnv, "portable", 1);
  Result<std::unique_ptr<AotExecutor>> exec = lib_->CreateExecutor("default", {3, ""});
  ASSERT_TRUE(exec.ok()) << exec.status().ToString();
  EXPECT_EQ((*exec)->kernel_isa(), "portable");
  setenv(kKernelIsaEnv, "avx9", 1);
  Result<std::unique_ptr<AotExecutor>> bad = lib_->CreateExecutor("default", {1, ""});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "MLF_KERNEL_ISA: unknown kernel variant 'avx9' (known: portable, avx2, avx512)");
  EXPECT_TRUE(SameBits(Run({2, "portable"}), portable));
}

TEST_F(IntraOpThreadsTest, ThreadCountsOutsideTheRangeAreRefused) {
  for (int threads : {0, -1, 257}) {
    Result<std::unique_ptr<AotExecutor>> exec = lib_->CreateExecutor("default", {threads, ""});
    ASSERT_FALSE(exec.ok());
    EXPECT_EQ(exec.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(exec.status().message(), "threads must be between 1 and 256, got " + std::to_string(threads));
  }
}

// examples/tiny_dense is ABI 1 code (no tvmgen_tiny_run_ctx): it loads and
// runs with any thread count, serially, and refuses a forced variant.
// examples/tiny_dense packed into `archive`, with the ABI header that
// exported archives carry and the example leaves out.
void PackTinyDense(const std::string& dir, const std::string& archive) {
  MakeDirs(dir);
  const std::string tiny = CopyExample(dir + "/tiny_dense");
  const char* srcdir = std::getenv("TEST_SRCDIR");
  MakeDirs(tiny + "/codegen/host/include/mlf");
  WriteFile(tiny + "/codegen/host/include/mlf/model_abi.h",
            ReadFile(std::string(srcdir != nullptr ? srcdir : ".") + "/mlfkit/schemas/model_abi.h"));
  CommandResult packed = RunCommand({MlfBinary(), "pack", tiny, "-o", archive});
  ASSERT_EQ(packed.exit_code, 0) << packed.err;
}

TEST_F(IntraOpThreadsTest, Abi1CodeRunsSeriallyAndRefusesAForcedVariant) {
  const std::string archive = *dir_ + "/tiny.tar";
  PackTinyDense(*dir_, archive);
  LoadOptions options;
  options.use_verification_memo = false;
  Result<std::shared_ptr<ModelLibrary>> lib = ModelLibrary::Open(archive, options);
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  EXPECT_EQ((*lib)->metadata().modules.at("tiny").abi_version, 1);
  Result<std::unique_ptr<AotExecutor>> exec = (*lib)->CreateExecutor("tiny", {4, ""});
  ASSERT_TRUE(exec.ok()) << exec.status().ToString();
  EXPECT_EQ((*exec)->threads(), 1);
  EXPECT_TRUE((*exec)->Run().ok());
  const std::string why = "cannot run a forced kernel variant (%s): its code has no tvmgen_tiny_run_ctx "
                          "(generated for ABI 1, or not by mlfkit's compiler); export it again with "
                          "this mlfkit";
  auto expected = [&](const std::string& what) {
    std::string m = "module 'tiny' " + why;
    m.replace(m.find("%s"), 2, what);
    return m;
  };
  Result<std::unique_ptr<AotExecutor>> forced = (*lib)->CreateExecutor("tiny", {1, "portable"});
  ASSERT_FALSE(forced.ok());
  EXPECT_EQ(forced.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(forced.status().message(), expected("portable"));
  setenv(kKernelIsaEnv, "portable", 1);
  forced = (*lib)->CreateExecutor("tiny", {});
  ASSERT_FALSE(forced.ok());
  EXPECT_EQ(forced.status().message(), expected("MLF_KERNEL_ISA=portable"));
}

// `mlf run` and `mlf bench` take --threads and --isa; bad values are usage
// errors naming the flag.
TEST_F(IntraOpThreadsTest, CommandLineFlags) {
  const std::string archive = *dir_ + "/m.tar";
  for (const char* threads : {"1", "3"}) {
    CommandResult r = RunCommand({MlfBinary(), "run", archive, "--random-inputs", "4", "--threads", threads,
                                  "--isa", "portable", "--output-dir", *dir_ + "/out" + threads});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  for (const char* out : {"/logits.npy", "/features.npy"}) {
    EXPECT_EQ(ReadFile(*dir_ + "/out1" + out), ReadFile(*dir_ + "/out3" + out)) << out;
  }
  CommandResult b = RunCommand({MlfBinary(), "bench", archive, "--threads", "2", "--isa", "portable",
                                "--iterations", "5", "--json"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const nlohmann::json j = nlohmann::json::parse(b.out);
  EXPECT_EQ(j["threads"], 2);
  EXPECT_EQ(j["threads_used"], 2);
  EXPECT_EQ(j["kernel_isa"], "portable");
  EXPECT_EQ(j["executors"], 1);
  EXPECT_EQ(j["runs"], 5);

  auto usage = [&](const std::string& command, std::vector<std::string> flags, const std::string& message) {
    std::vector<std::string> argv = {MlfBinary(), command, archive};
    argv.insert(argv.end(), flags.begin(), flags.end());
    CommandResult r = RunCommand(argv);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err, "mlf: error: " + message + "\nTry 'mlf " + command + " --help'.\n");
  };
  for (const std::string command : {"run", "bench"}) {
    usage(command, {"--threads", "0"}, "--threads must be between 1 and 256, got '0'");
    usage(command, {"--threads", "257"}, "--threads must be between 1 and 256, got '257'");
    usage(command, {"--threads", "two"}, "--threads must be between 1 and 256, got 'two'");
    usage(command, {"--isa", "sse2"}, "--isa: unknown kernel variant 'sse2' (known: portable, avx2, avx512)");
  }
  usage("bench", {"--executors", "0"}, "--executors must be between 1 and 256");
  for (const char* variant : kVariants) {
    if (CpuRunsKernelIsa(*ParseKernelIsa(variant))) continue;
    CommandResult r = RunCommand({MlfBinary(), "run", archive, "--random-inputs", "1", "--isa", variant});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "mlf: error: --isa: kernel variant " + std::string(variant) +
                         " is not supported by this CPU (it runs " + CpuKernelIsas() + ")\n");
  }
}

// `mlf bench --profile`: every operator of the metadata timed at the chosen
// thread count, from code compiled with the MLF_PROFILE hook; refused with
// --executors, and for code that has no hooks (examples/tiny_dense).
TEST_F(IntraOpThreadsTest, BenchProfilesEveryOperator) {
  const std::string archive = *dir_ + "/m.tar";
  CommandResult meta = RunCommand({MlfBinary(), "inspect", archive, "--json"});
  ASSERT_EQ(meta.exit_code, 0) << meta.err;
  const nlohmann::json operators = nlohmann::json::parse(meta.out)["metadata"]["modules"]["default"]["operators"];
  ASSERT_GE(operators.size(), 8u);
  for (const char* threads : {"1", "2"}) {
    CommandResult r = RunCommand({MlfBinary(), "bench", archive, "--threads", threads, "--iterations", "20",
                                  "--profile", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["threads_used"], std::stoi(threads));
    EXPECT_NE(j["code_origin"], "archive");  // compiled with the hook
    ASSERT_EQ(j["operators"].size(), operators.size());
    double sum = 0;
    for (size_t i = 0; i < operators.size(); ++i) {
      const nlohmann::json& op = j["operators"][i];
      EXPECT_EQ(op["index"], i);
      EXPECT_EQ(op["name"], operators[i]["name"]);
      const double mean = op["mean_us"];
      EXPECT_GE(mean, 0.0);
      sum += mean;
    }
    // The first convolution (16 -> 32 channels, 3x3 on 32x32) takes time.
    EXPECT_GT(static_cast<double>(j["operators"][0]["mean_us"]), 1.0) << r.out;
    EXPECT_EQ(j["operators"][0]["ops"], "Conv+Relu");
    const double mean_run = j["latency_us"]["mean"];
    EXPECT_LE(sum, mean_run);
    EXPECT_NEAR(static_cast<double>(j["outside_operators_us"]), mean_run - sum, 1e-6 * mean_run);
  }
  CommandResult text = RunCommand({MlfBinary(), "bench", archive, "--threads", "2", "--iterations", "5", "--profile"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("\noperators    mean us per run and share of the mean run, 2 threads\n  #  "),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("\noutside operators "), std::string::npos) << text.out;

  CommandResult both = RunCommand({MlfBinary(), "bench", archive, "--profile", "--executors", "2"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(both.err, "mlf: error: --profile times one executor; leave out --executors\n"
                      "Try 'mlf bench --help'.\n");

  const std::string tiny = *dir_ + "/tiny_profile.tar";
  PackTinyDense(*dir_ + "/profile", tiny);
  CommandResult hookless = RunCommand({MlfBinary(), "bench", tiny, "--profile", "--iterations", "2"});
  EXPECT_EQ(hookless.exit_code, 1);
  EXPECT_EQ(hookless.err, "mlf: error: module 'tiny' timed no operator: its code has no MLF_PROFILE hooks "
                          "(it was exported before mlfkit wrote them); export the model again with this "
                          "mlfkit\n");
}

}  // namespace
}  // namespace mlf
