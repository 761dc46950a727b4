// Real models on the boards QEMU models (issue 19's must-show, the table of
// loader/firmware/README.md "Models on the boards"): LeNet-5, mnist_mlp and
// the DS-CNN keyword spotter (float, and int8) on netduinoplus2 (Cortex-M4F)
// and mps3-an547 (Cortex-M55), mnist_mlp on mps2-an505 (Cortex-M33), each
// through `mlf project --board B --sample-input ... --run --json` as a user
// runs it. Every run must print the host's outputs (`mlf run` on the same
// input: float within rounding, int8 exactly) and report instructions per
// inference and a painted stack within its static bound; each case prints its
// row of the README's table. ResNet18 for the micro:bit is refused at
// generation with the numbers, and nothing is written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "artifact/format/npy.h"
#include "tests/printed_output.h"
#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

struct Model {
  std::string name;    // the archive's and the table's name
  std::string source;  // runfiles path of the model
  std::string input;   // input name
  std::string output;  // output C name
  bool int8 = false;   // exact match with the host
};

const std::vector<Model>& Models() {
  static const std::vector<Model> models = {
      {"lenet5", "bench/models/lenet5.onnx", "input", "output", false},
      {"mnist_mlp", "examples/mnist_mlp/model.yaml", "image", "probabilities", false},
      {"ds_cnn_float", "tests/int8_fixtures/ds_cnn_float.onnx", "input", "output", false},
      {"ds_cnn_int8", "tests/int8_fixtures/ds_cnn_int8.onnx", "input", "output", true},
  };
  return models;
}

std::string RunfilesPath(const std::string& path) {
  return std::string(std::getenv("TEST_SRCDIR")) + "/mlfkit/" + path;
}

// A deterministic float32 input of `shape`, values in [-0.8, 0.8].
NpyArray WaveInput(const std::vector<int64_t>& shape) {
  NpyArray input;
  input.dtype = DType::kFloat32;
  input.shape = shape;
  size_t count = 1;
  for (int64_t d : shape) count *= static_cast<size_t>(d);
  std::vector<float> x(count);
  for (size_t i = 0; i < count; ++i) x[i] = static_cast<float>(std::sin(0.11 * i) * 0.8);
  input.data.assign(reinterpret_cast<const char*>(x.data()), x.size() * sizeof(float));
  return input;
}

class FirmwareBoardModelsTest : public ::testing::TestWithParam<std::pair<std::string, std::string>> {
 protected:
  struct Prepared {
    std::string archive, input;
    std::vector<float> host;  // `mlf run`'s output
  };

  static void SetUpTestSuite() {
    dir_ = new std::string(FreshDir("firmware_board_models"));
    prepared_ = new std::map<std::string, Prepared>();
    for (const Model& m : Models()) {
      Prepared p;
      p.archive = *dir_ + "/" + m.name + ".tar";
      CommandResult r = RunCommand({MlfBinary(), "export", RunfilesPath(m.source), "-o", p.archive});
      ASSERT_EQ(r.exit_code, 0) << m.name << ": " << r.err;
      if (m.name.rfind("ds_cnn", 0) == 0) {
        p.input = RunfilesPath("tests/int8_fixtures/ds_cnn_input.npy");  // an MFCC-like input
      } else {
        p.input = *dir_ + "/" + m.name + "_input.npy";
        const std::vector<int64_t> shape =
            m.name == "lenet5" ? std::vector<int64_t>{1, 1, 32, 32} : std::vector<int64_t>{1, 784};
        ASSERT_TRUE(WriteNpyFile(p.input, WaveInput(shape)).ok());
      }
      const std::string out = *dir_ + "/" + m.name + "_host";
      r = RunCommand({MlfBinary(), "run", p.archive, "--input", m.input + "=" + p.input, "--output-dir", out});
      ASSERT_EQ(r.exit_code, 0) << m.name << ": " << r.err;
      Result<NpyArray> host = ReadNpyFile(out + "/" + m.output + ".npy");
      ASSERT_TRUE(host.ok()) << host.status().ToString();
      ASSERT_EQ(host->dtype, DType::kFloat32);
      p.host.resize(host->data.size() / sizeof(float));
      std::copy_n(reinterpret_cast<const float*>(host->data.data()), p.host.size(), p.host.data());
      (*prepared_)[m.name] = std::move(p);
    }
  }

  static const Model& Find(const std::string& name) {
    for (const Model& m : Models()) {
      if (m.name == name) return m;
    }
    static const Model none;
    ADD_FAILURE() << "no model " << name;
    return none;
  }

  static std::string* dir_;
  static std::map<std::string, Prepared>* prepared_;
};

std::string* FirmwareBoardModelsTest::dir_ = nullptr;
std::map<std::string, FirmwareBoardModelsTest::Prepared>* FirmwareBoardModelsTest::prepared_ = nullptr;

TEST_P(FirmwareBoardModelsTest, RunsUnderQemuAndMatchesTheHost) {
  const auto& [board, name] = GetParam();
  const Model& model = Find(name);
  const Prepared& p = prepared_->at(name);
  const std::string project = *dir_ + "/" + board + "_" + name;
  CommandResult r = RunCommand({MlfBinary(), "project", p.archive, "-o", project, "--board", board,
                                "--sample-input", model.input + "=" + p.input, "--run", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  const nlohmann::json& run = report.at("run");
  ASSERT_EQ(run.at("exit_status"), 0);

  const std::vector<double> got = PrintedOutput(run.at("output").get<std::string>(), model.output);
  ASSERT_EQ(got.size(), p.host.size()) << run.at("output");
  bool nonzero = false;
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = p.host[i];
    if (model.int8) {
      EXPECT_EQ(static_cast<float>(got[i]), p.host[i]) << board << " " << name << " output[" << i << "]";
    } else {
      EXPECT_LE(std::fabs(got[i] - want), 1e-5 * std::max(1.0, std::fabs(want)))
          << board << " " << name << " output[" << i << "]: firmware " << got[i] << ", host " << want;
    }
    nonzero = nonzero || want != 0.0;
  }
  EXPECT_TRUE(nonzero) << "a degenerate output: every value is 0";

  const nlohmann::json& count = run.at("instructions").at(0);
  const uint64_t instructions = count.at("instructions");
  const uint64_t macs = count.at("macs");
  EXPECT_GT(macs, 0u);
  // A plausibility floor for the counter: no instruction does more than 16
  // MACs (Helium's VMLADAVA.S8 on 16 bytes, the widest this code uses), so
  // an int8 model on the Cortex-M55 may well take fewer instructions than
  // MACs (the DS-CNN: 0.998 an MAC), never fewer than MACs / 16.
  EXPECT_GT(instructions * 16, macs) << "fewer instructions than a sixteenth of the MACs";
  const uint64_t measured = run.at("stack").at("measured").at(0).at("bytes");
  const nlohmann::json& bound = run.at("stack").at("bounds").at(0);
  ASSERT_TRUE(bound.at("bounded").get<bool>()) << bound;
  const uint64_t bound_bytes = bound.at("bytes");
  EXPECT_GT(measured, 0u);
  EXPECT_LE(measured, bound_bytes);
  const uint64_t flash = report.at("built").at("sizes").at("flash");
  const uint64_t ram = report.at("built").at("sizes").at("ram");
  // The README's row: board, model, flash, RAM, stack measured / bound,
  // instructions, per MAC.
  std::printf("row | %s | %s | %llu | %llu | %llu / %llu | %llu | %.2f |\n", board.c_str(), name.c_str(),
              static_cast<unsigned long long>(flash), static_cast<unsigned long long>(ram),
              static_cast<unsigned long long>(measured), static_cast<unsigned long long>(bound_bytes),
              static_cast<unsigned long long>(instructions), count.at("instructions_per_mac").get<double>());
}

INSTANTIATE_TEST_SUITE_P(
    Boards, FirmwareBoardModelsTest,
    ::testing::Values(std::make_pair("netduinoplus2", "lenet5"), std::make_pair("netduinoplus2", "mnist_mlp"),
                      std::make_pair("netduinoplus2", "ds_cnn_float"),
                      std::make_pair("netduinoplus2", "ds_cnn_int8"), std::make_pair("mps3-an547", "lenet5"),
                      std::make_pair("mps3-an547", "mnist_mlp"), std::make_pair("mps3-an547", "ds_cnn_float"),
                      std::make_pair("mps3-an547", "ds_cnn_int8"), std::make_pair("mps2-an505", "mnist_mlp")),
    [](const ::testing::TestParamInfo<std::pair<std::string, std::string>>& info) {
      std::string name = info.param.first + "_" + info.param.second;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

// ResNet18 (float, 46.7 MB of parameters, 4 MB of workspace) on the
// micro:bit's 256 KiB of flash and 16 KiB of RAM: refused before anything is
// built or written, with what is needed, what the board has and what could
// help. (tiny_cnn fitting and running there is firmware_boards_test's.)
TEST(FirmwareResNet18Test, IsRefusedForTheMicrobitWithTheNumbers) {
  const std::string dir = FreshDir("firmware_resnet18");
  const std::string archive = dir + "/resnet18.tar";
  CommandResult r = RunCommand({MlfBinary(), "export", RunfilesPath("bench/models/resnet18.onnx"), "-o", archive,
                                "--no-host-lib"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string out = dir + "/project";
  r = RunCommand({MlfBinary(), "project", archive, "-o", out, "--board", "microbit"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  const std::string head =
      "mlf: error: the firmware does not fit microbit (its parameters, buffers and stack alone, before "
      "building):\n"
      "  FLASH: needs 46738848 bytes, has 262144, over by 46476704 (parameters 46738848)\n"
      "  RAM: needs ";
  ASSERT_EQ(r.err.rfind(head, 0), 0u) << r.err;
  unsigned long needs = 0, has = 0, over = 0, stack = 0, workspace = 0, io = 0;
  ASSERT_EQ(std::sscanf(r.err.c_str() + head.size(),
                        "%lu bytes, has %lu, over by %lu (stack %lu, workspaces %lu, I/O buffers %lu)\n", &needs,
                        &has, &over, &stack, &workspace, &io),
            6)
      << r.err;
  EXPECT_EQ(has, 16384u);
  EXPECT_EQ(stack, 4096u);
  EXPECT_EQ(needs, stack + workspace + io);
  EXPECT_EQ(over, needs - has);
  EXPECT_GE(io, (3u * 224 * 224 + 1000) * 4);  // the input image and the logits, float32
  EXPECT_NE(r.err.find("what could help:\n  - int8 parameters (a quarter of float32's flash)\n"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("  - a bigger board (`mlf boards` lists the built-in ones)\n"), std::string::npos) << r.err;
  EXPECT_FALSE(Exists(out));
}

}  // namespace
}  // namespace mlf
