// End to end: bench/run_model_bench.sh (mlfkit against ONNX Runtime) on the
// small models, LeNet-5 and the MLP, with few runs: every figure is there,
// the outputs match ONNX Runtime's, and a run whose outputs differ or whose
// `mlf bench` prints no p50 fails. Times are not asserted (a benchmark, not
// a timing test).
//
// Needs ONNX Runtime for Node installed beforehand by scripts/setup.sh
// (bench/ort/install_ort.sh, which needs the npm registry once): the test
// itself never installs (MLF_ORT_NO_INSTALL=1) and runs offline. It looks in
// $MLF_ORT_DIR (passed through by .bazelrc) or else in the user's home
// directory's .cache/mlfkit-ort, as the install script does.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

std::string Runfile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir != nullptr ? srcdir : ".") + "/mlfkit/" + path;
}

// Where scripts/setup.sh installed ONNX Runtime: Bazel gives tests their own
// HOME, so the home directory comes from the password database.
std::string OrtDir() {
  const char* dir = std::getenv("MLF_ORT_DIR");
  if (dir != nullptr && *dir != '\0') return dir;
  const passwd* user = getpwuid(getuid());
  return std::string(user != nullptr ? user->pw_dir : "/root") + "/.cache/mlfkit-ort";
}

// The harness's last line of output is its JSON report.
nlohmann::json LastLineJson(const std::string& out) {
  std::string line, last;
  std::istringstream lines(out);
  while (std::getline(lines, line)) {
    if (!line.empty()) last = line;
  }
  return nlohmann::json::parse(last, nullptr, /*allow_exceptions=*/false);
}

class ModelBenchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(std::string("model_bench/") +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    options_.env = {{"MLF_ORT_DIR", OrtDir()},
                    {"MLF_ORT_NO_INSTALL", "1"},
                    {"MLF_CACHE_DIR", dir_ + "/cache"}};
  }

  // The harness with a given mlf binary on the runfiles' small models.
  CommandResult Bench(const std::string& mlf, std::vector<std::string> args) {
    std::vector<std::string> argv = {Runfile("bench/run_model_bench.sh"), "--mlf", mlf,
                                     "--models-dir", Runfile("bench/models"),
                                     "--work-dir", dir_ + "/work"};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, options_);
  }

  // An mlf that runs the real one after `script` (bash) had its say.
  std::string WrappedMlf(const std::string& script) {
    const std::string path = dir_ + "/mlf";
    WriteFile(path, "#!/bin/bash\nreal='" + MlfBinary() + "'\n" + script + "exec \"$real\" \"$@\"\n");
    chmod(path.c_str(), 0755);
    return path;
  }

  std::string dir_;
  RunOptions options_;
};

TEST_F(ModelBenchTest, SmallModelsHaveEveryFigureAndMatchOnnxRuntime) {
  const CommandResult r = Bench(MlfBinary(), {"--models", "lenet5,mlp", "--iterations", "5",
                                              "--warmup", "2", "--rounds", "2"});
  ASSERT_EQ(r.exit_code, 0) << Describe({"run_model_bench.sh"}, r);
  EXPECT_NE(r.out.find("| model | threads | mlfkit p50 ms | ORT p50 ms | ratio (mlfkit/ORT) |"),
            std::string::npos)
      << r.out;
  const nlohmann::json report = LastLineJson(r.out);
  ASSERT_TRUE(report.is_object()) << r.out;
  EXPECT_EQ(report["ok"], true);
  EXPECT_EQ(report["machine"]["ort_version"], "1.30.0");
  EXPECT_FALSE(report["machine"]["cpu_model"].get<std::string>().empty());
  EXPECT_EQ(report["load_before"].size(), 3u);
  EXPECT_EQ(report["load_after"].size(), 3u);
  EXPECT_EQ(report["settings"]["rounds"], 2);
  EXPECT_EQ(report["settings"]["iterations"], 5);
  ASSERT_EQ(report["models"].size(), 2u);
  // MACs per run, from the exported metadata: LeNet-5's convolutions
  // (6*28*28*25 + 16*10*10*150) and dense layers (400*120 + 120*84 + 84*10);
  // the MLP's 784*256 + 256*128 + 128*10.
  const std::vector<std::pair<std::string, int>> expected = {{"lenet5", 416520},
                                                             {"mlp", 234752}};
  for (size_t i = 0; i < expected.size(); ++i) {
    const nlohmann::json& m = report["models"][i];
    SCOPED_TRACE(expected[i].first);
    EXPECT_EQ(m["model"], expected[i].first);
    EXPECT_EQ(m["ok"], true);
    EXPECT_TRUE(m["error"].is_null()) << m["error"];
    EXPECT_EQ(m["outputs_match"], true);
    EXPECT_LE(m["max_abs_error"].get<double>(), 1e-4);
    EXPECT_EQ(m["macs"], expected[i].second);
    EXPECT_GT(m["export_seconds"].get<double>(), 0);
    EXPECT_GT(m["archive_bytes"].get<int64_t>(), 0);
    ASSERT_EQ(m["runs"].size(), 1u);
    const nlohmann::json& run = m["runs"][0];
    EXPECT_EQ(run["threads"], 1);
    EXPECT_EQ(run["mlfkit_round_p50_ms"].size(), 2u);
    EXPECT_EQ(run["ort_round_p50_ms"].size(), 2u);
    const double mlfkit = run["mlfkit_p50_ms"], ort = run["ort_p50_ms"];
    EXPECT_GT(mlfkit, 0);
    EXPECT_GT(ort, 0);
    EXPECT_DOUBLE_EQ(run["ratio"].get<double>(), mlfkit / ort);
    EXPECT_GT(run["mlfkit_gmacs"].get<double>(), 0);
    EXPECT_GT(run["ort_gmacs"].get<double>(), 0);
    EXPECT_NE(r.out.find("| " + expected[i].first + " | 1 | "), std::string::npos) << r.out;
  }
  EXPECT_EQ(r.out.find("DIFFER"), std::string::npos) << r.out;
}

TEST_F(ModelBenchTest, OutputsThatDifferFromOnnxRuntimeFailTheRun) {
  // An mlf whose `run` ignores the check input and computes on another one.
  const std::string mlf = WrappedMlf(
      "if [ \"$1\" = run ]; then\n"
      "  args=()\n"
      "  while [ $# -gt 0 ]; do\n"
      "    if [ \"$1\" = --input ]; then shift 2; continue; fi\n"
      "    args+=(\"$1\"); shift\n"
      "  done\n"
      "  exec \"$real\" \"${args[@]}\" --random-inputs 7\n"
      "fi\n");
  const CommandResult r =
      Bench(mlf, {"--models", "mlp", "--iterations", "2", "--warmup", "1", "--rounds", "1"});
  EXPECT_EQ(r.exit_code, 1) << Describe({"run_model_bench.sh"}, r);
  const nlohmann::json report = LastLineJson(r.out);
  ASSERT_TRUE(report.is_object()) << r.out;
  EXPECT_EQ(report["ok"], false);
  ASSERT_EQ(report["models"].size(), 1u);
  const nlohmann::json& m = report["models"][0];
  EXPECT_EQ(m["outputs_match"], false);
  EXPECT_EQ(m["ok"], false);
  EXPECT_EQ(m["error"].get<std::string>().rfind(
                "outputs differ from ONNX Runtime's (worst absolute error ", 0),
            0u)
      << m["error"];
  EXPECT_NE(r.out.find("| mlp | 1 | "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| DIFFER (max abs error "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAILED mlp: outputs differ from ONNX Runtime's"), std::string::npos)
      << r.out;
}

TEST_F(ModelBenchTest, AMissingFigureFailsTheRun) {
  // An mlf whose `bench` reports no p50.
  const std::string mlf = WrappedMlf(
      "if [ \"$1\" = bench ] && [ \"$3\" = --json ]; then\n"
      "  echo '{\"latency_us\": {\"p90\": 12.5}}'\n"
      "  exit 0\n"
      "fi\n");
  const CommandResult r =
      Bench(mlf, {"--models", "mlp", "--iterations", "2", "--warmup", "1", "--rounds", "1"});
  EXPECT_EQ(r.exit_code, 1) << Describe({"run_model_bench.sh"}, r);
  const nlohmann::json report = LastLineJson(r.out);
  ASSERT_TRUE(report.is_object()) << r.out;
  EXPECT_EQ(report["ok"], false);
  ASSERT_EQ(report["models"].size(), 1u);
  EXPECT_EQ(report["models"][0]["error"], "mlf bench printed no latency_us.p50");
  EXPECT_TRUE(report["models"][0]["runs"].empty());
  EXPECT_NE(r.out.find("| mlp | - | - | - | - | - | - | FAILED: mlf bench printed no "
                       "latency_us.p50 |"),
            std::string::npos)
      << r.out;
}

TEST_F(ModelBenchTest, BadUsageExitsTwoNamingTheFlag) {
  const CommandResult r = Bench(MlfBinary(), {"--models", "alexnet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("run_model_bench.sh: error: argument --models: unknown model 'alexnet' "
                       "(known: resnet18,mobilenet_v2,squeezenet1_1,mobilenet_v2_int8,lenet5,mlp)"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace mlf
