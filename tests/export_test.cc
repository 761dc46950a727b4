// End-to-end tests of `mlf export`: ONNX and YAML models compiled into
// archives that verify, run on the host loader with the reference
// implementation's results, and are byte-identical when exported twice.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "artifact/archive/read_metadata.h"
#include "artifact/archive/verify.h"
#include "artifact/base/digest.h"
#include "artifact/format/npy.h"
#include "artifact/format/tensor_values.h"
#include "codegen/frontend/onnx_frontend.h"
#include "codegen/frontend/yaml_frontend.h"
#include "codegen/reference/interpreter.h"
#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

constexpr char kConvModel[] =
    "/usr/share/libonnx-testdata/data/pytorch-converted/test_Conv2d/model.onnx";
constexpr char kMlp[] = "examples/mnist_mlp/model.yaml";
constexpr char kCnn[] = "examples/tiny_cnn/model.yaml";

class ExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(std::string("export/") +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    options_.env = {{"MLF_CACHE_DIR", dir_ + "/cache"}, {"SOURCE_DATE_EPOCH", std::nullopt}};
  }

  CommandResult Mlf(std::vector<std::string> args) {
    args.insert(args.begin(), MlfBinary());
    return RunCommand(args, options_);
  }

  std::string dir_;
  RunOptions options_;
};

TEST_F(ExportTest, ExportingTwiceGivesByteIdenticalArchives) {
  for (const std::string& model : {std::string(kConvModel), std::string(kMlp), std::string(kCnn)}) {
    SCOPED_TRACE(model);
    CommandResult a = Mlf({"export", model, "-o", dir_ + "/a.tar"});
    CommandResult b = Mlf({"export", model, "-o", dir_ + "/b.tar"});
    ASSERT_EQ(a.exit_code, 0) << Describe({"export", model}, a);
    ASSERT_EQ(b.exit_code, 0) << Describe({"export", model}, b);
    EXPECT_EQ(ReadFile(dir_ + "/a.tar"), ReadFile(dir_ + "/b.tar"));
    EXPECT_TRUE(VerifyArchive(dir_ + "/a.tar", {}).ok());
  }
}

// With the examples, tests/testdata's models of the passes and plans the
// examples do not reach: a residual Add fused into a kernel Conv
// (threads_model.yaml) and a Concat done in place (concat_model.yaml).
TEST_F(ExportTest, ExportedModelsMatchTheReferenceImplementation) {
  for (const std::string& model : {std::string(kMlp), std::string(kCnn),
                                   std::string("tests/testdata/threads_model.yaml"),
                                   std::string("tests/testdata/concat_model.yaml")}) {
    SCOPED_TRACE(model);
    const std::string archive = dir_ + "/m.tar";
    ASSERT_EQ(Mlf({"export", model, "-o", archive}).exit_code, 0);
    const std::string out = dir_ + "/out";
    RemoveTree(out);
    CommandResult run = Mlf({"run", archive, "--random-inputs", "3", "--output-dir", out});
    ASSERT_EQ(run.exit_code, 0) << run.err;

    auto graph = frontend::ImportYamlFile(model);
    ASSERT_TRUE(graph.ok()) << graph.status().ToString();
    // The same inputs as `mlf run --random-inputs 3` (tools/mlf/model_io.cc).
    std::vector<ir::HostTensor> inputs;
    for (size_t i = 0; i < graph->inputs.size(); ++i) {
      const ir::Value& v = graph->value(graph->inputs[i]);
      ir::HostTensor t = ir::HostTensor::Zeros(v.dtype, v.shape);
      FillRandom(t.dtype, t.bytes.data(), t.element_count(), 3 * 1000003u + i);
      inputs.push_back(std::move(t));
    }
    auto want = reference::Interpret(*graph, inputs);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    for (size_t o = 0; o < graph->outputs.size(); ++o) {
      const std::string name = graph->value(graph->outputs[o]).name;
      auto got = ReadNpyFile(out + "/" + name + ".npy");
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      for (uint64_t i = 0; i < (*want)[o].element_count(); ++i) {
        const double g = ReadElement(got->dtype, got->data.data(), i), w = (*want)[o].GetDouble(i);
        EXPECT_NEAR(g, w, 1e-4 + 1e-4 * std::fabs(w)) << name << "[" << i << "]";
      }
    }
  }
}

TEST_F(ExportTest, SeveralModelsMakeOneArchive) {
  const std::string archive = dir_ + "/two.tar";
  CommandResult r = Mlf({"export", std::string(kMlp) + ":mlp", std::string(kCnn) + ":cnn", "-o", archive});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto head = ReadArchiveHead(archive);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->metadata.modules.size(), 2u);
  EXPECT_TRUE(head->metadata.modules.count("mlp"));
  EXPECT_TRUE(head->metadata.modules.count("cnn"));
  EXPECT_EQ(Mlf({"run", archive, "--module", "cnn", "--random-inputs", "1"}).exit_code, 0);
}

// The source model is recorded by digest; its bytes (weights included) go in
// only with --keep-source.
TEST_F(ExportTest, TheSourceModelIsKeptOnlyWhenAsked) {
  const std::string model_sha = Sha256Hex(ReadFile(kMlp));
  const std::string plain = dir_ + "/plain.tar", kept = dir_ + "/kept.tar";
  ASSERT_EQ(Mlf({"export", std::string(kMlp) + ":mlp", "-o", plain}).exit_code, 0);
  ASSERT_EQ(Mlf({"export", std::string(kMlp) + ":mlp", "-o", kept, "--keep-source"}).exit_code, 0);
  auto without = ReadArchiveHead(plain);
  auto with = ReadArchiveHead(kept);
  ASSERT_TRUE(without.ok() && with.ok());
  const SourceInfo& a = *without->metadata.modules.at("mlp").source;
  const SourceInfo& b = *with->metadata.modules.at("mlp").source;
  EXPECT_EQ(a.path, "");
  EXPECT_EQ(a.sha256, model_sha);
  EXPECT_EQ(without->metadata.files.count("src/mlp.yaml"), 0u);
  EXPECT_EQ(b.path, "src/mlp.yaml");
  EXPECT_EQ(b.sha256, model_sha);
  EXPECT_EQ(with->metadata.files.count("src/mlp.yaml"), 1u);
  CommandResult shown = Mlf({"inspect", plain});
  EXPECT_NE(shown.out.find("  source      yaml, not in the archive (sha256 " + model_sha.substr(0, 16) +
                           "...)\n"),
            std::string::npos)
      << shown.out;
  shown = Mlf({"inspect", kept});
  EXPECT_NE(shown.out.find("  source      yaml, kept as src/mlp.yaml (sha256 "), std::string::npos)
      << shown.out;
  EXPECT_EQ(Mlf({"verify", kept}).exit_code, 0);
}

TEST_F(ExportTest, JsonReportNamesTheArchiveAndEachModule) {
  const std::string archive = dir_ + "/two.tar";
  CommandResult r = Mlf({"export", std::string(kMlp) + ":mlp", std::string(kCnn) + ":cnn", "-o",
                         archive, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["archive"], archive);
  EXPECT_EQ(j["schema_version"], 1);
  ASSERT_EQ(j["modules"].size(), 2u) << r.out;
  EXPECT_EQ(j["modules"][0]["name"], "cnn");
  EXPECT_EQ(j["modules"][1]["name"], "mlp");
  for (const nlohmann::json& m : j["modules"]) {
    EXPECT_GT(m["operators"].get<int>(), 0) << r.out;
    EXPECT_GT(m["parameter_bytes"].get<int>(), 0) << r.out;
    EXPECT_EQ(m["parameters_linked"], false) << r.out;
  }
  // The same numbers as inspect's.
  nlohmann::json inspect = nlohmann::json::parse(Mlf({"inspect", archive, "--json"}).out);
  EXPECT_EQ(j["modules"][1]["workspace_bytes"],
            inspect["metadata"]["modules"]["mlp"]["memory"]["workspace_size_bytes"])
      << inspect.dump();
}

TEST_F(ExportTest, LinkedParametersLiveInTheCode) {
  const std::string archive = dir_ + "/linked.tar";
  ASSERT_EQ(Mlf({"export", kMlp, "-o", archive, "--link-params", "--no-host-lib"}).exit_code, 0);
  auto head = ReadArchiveHead(archive);
  ASSERT_TRUE(head.ok());
  const ModuleMetadata& m = head->metadata.modules.at("default");
  EXPECT_EQ(m.parameters->storage, ParamStorage::kLinked);
  EXPECT_EQ(m.memory.constants_size_bytes, 0u);
  EXPECT_FALSE(m.host_library.has_value());
  for (const auto& [path, entry] : head->metadata.files) EXPECT_NE(path.rfind("parameters/", 0), 0u) << path;
  CommandResult run = Mlf({"run", archive, "--random-inputs", "1"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

TEST_F(ExportTest, MetadataRecordsThePlanAndTheOperators) {
  const std::string archive = dir_ + "/cnn.tar";
  ASSERT_EQ(Mlf({"export", kCnn, "-o", archive}).exit_code, 0);
  auto head = ReadArchiveHead(archive);
  ASSERT_TRUE(head.ok());
  const ModuleMetadata& m = head->metadata.modules.at("default");
  ASSERT_TRUE(m.memory.workspace_lower_bound_bytes.has_value());
  EXPECT_LE(*m.memory.workspace_lower_bound_bytes, m.memory.workspace_size_bytes);
  EXPECT_EQ(m.source->format, SourceFormat::kYaml);
  // BatchNormalization and Relu are folded into the convolution.
  bool fused = false;
  for (const OperatorInfo& op : m.operators) {
    if (op.ops == std::vector<std::string>{"Conv", "BatchNormalization", "Relu"}) fused = true;
  }
  EXPECT_TRUE(fused) << head->metadata_bytes;
  CommandResult inspect = Mlf({"inspect", archive});
  EXPECT_NE(inspect.out.find("(planner lower bound "), std::string::npos) << inspect.out;
}

TEST_F(ExportTest, BadInputIsAClearError) {
  auto expect = [&](std::vector<std::string> args, int code, const std::string& error) {
    CommandResult r = Mlf(args);
    EXPECT_EQ(r.exit_code, code) << r.err;
    EXPECT_NE(r.err.find(error), std::string::npos) << r.err;
    EXPECT_FALSE(Exists(dir_ + "/x.tar"));
  };
  expect({"export", "-o", dir_ + "/x.tar"}, 2, "mlf: error: missing MODEL");
  expect({"export", kMlp}, 2, "mlf: error: missing required option '-o OUT'");
  expect({"export", dir_ + "/model.txt", "-o", dir_ + "/x.tar"}, 1,
         "unknown model format (expected .onnx, .yaml or .yml)");
  expect({"export", dir_ + "/missing.onnx", "-o", dir_ + "/x.tar"}, 1, "missing.onnx");
  expect({"export", kMlp, "--compress", "lz4", "-o", dir_ + "/x.tar"}, 2,
         "--compress must be none, gzip or zstd, not 'lz4'");
  WriteFile(dir_ + "/bad.yaml", "mlf_model: 1\nname: x\ninputs: []\nnodes: []\noutputs: []\n");
  CommandResult r = Mlf({"export", dir_ + "/bad.yaml", "-o", dir_ + "/x.tar"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("mlf: error: ", 0), 0u) << r.err;
  // An operator outside the supported set names the node and the op.
  // (Bernoulli: a random-number operator, which stays out of scope.)
  const std::string unsupported =
      "/usr/share/libonnx-testdata/data/node/test_bernoulli/model.onnx";
  CommandResult random = Mlf({"export", unsupported, "-o", dir_ + "/x.tar"});
  EXPECT_EQ(random.exit_code, 1);
  EXPECT_NE(random.err.find("(Bernoulli)"), std::string::npos) << random.err;
  EXPECT_FALSE(Exists(dir_ + "/x.tar"));
}


// Names that collide in generated C or take a reserved name are refused before
// anything is written, with or without a host library, naming both originals.
// The first case is the ASan finding: outputs `Y` and `y` gave two
// `#define TVMGEN_DEFAULT_Y_SIZE`, gcc only warned, and the firmware's static
// buffer for `Y` (64 floats) was sized for `y` (4 floats).
TEST_F(ExportTest, NamesThatCollideInGeneratedCAreRefused) {
  const std::string yaml_y =
      "mlf_model: 1\nname: m1\n"
      "inputs: [{name: x, dtype: float32, shape: [1, 4]}, {name: big, dtype: float32, shape: [1, 64]}]\n"
      "nodes:\n"
      "  - {name: r0, op: Relu, inputs: [big], outputs: [Y]}\n"
      "  - {name: r1, op: Relu, inputs: [x], outputs: [y]}\n"
      "outputs: [Y, y]\n";
  auto relu = [](const std::string& in, const std::string& out) {
    return "mlf_model: 1\nname: r\ninputs: [{name: " + in + ", dtype: float32, shape: [1, 4]}]\n"
           "nodes:\n  - {name: r0, op: Relu, inputs: [" + in + "], outputs: [" + out + "]}\n"
           "outputs: [" + out + "]\n";
  };
  WriteFile(dir_ + "/y.yaml", yaml_y);
  WriteFile(dir_ + "/workspace.yaml", relu("x", "workspace"));
  WriteFile(dir_ + "/int.yaml", relu("int", "y"));
  WriteFile(dir_ + "/restrict.yaml", relu("x", "restrict"));
  WriteFile(dir_ + "/m.yaml", relu("x", "y"));
  const std::string case_note =
      " (their C names differ only in case, so on a case-insensitive file system their files "
      "would collide too)";
  struct Case {
    std::vector<std::string> models;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{dir_ + "/y.yaml"},
       "module 'default': output 'Y' and output 'y' both give the macro TVMGEN_DEFAULT_Y_SIZE" +
           case_note},
      {{dir_ + "/workspace.yaml"},
       "module 'default': output 'workspace' gives the macro TVMGEN_DEFAULT_WORKSPACE_SIZE, which "
       "the C interface of module 'default' defines as its workspace size"},
      {{dir_ + "/int.yaml"}, "module 'default': input 'int' has the C name 'int', which is a C keyword"},
      {{dir_ + "/restrict.yaml"},
       "module 'default': output 'restrict' has the C name 'restrict', which is a C keyword"},
      {{dir_ + "/m.yaml:a", dir_ + "/m.yaml:A"},
       "modules 'A' and 'a' both give the header guard TVMGEN_A_H_" + case_note},
      // L6: not "duplicate member": the C-name clash, as docs/archive-format.md says.
      {{dir_ + "/m.yaml:a-b", dir_ + "/m.yaml:a_b"},
       "modules 'a-b' and 'a_b' both map to the C name 'a_b'"},
      // A name longer than a file name may be failed when tvmgen_<name>.h was written.
      {{dir_ + "/m.yaml:" + std::string(300, 'a')},
       "module '" + std::string(40, 'a') +
           "...' has a name of 300 bytes; module names become file names and may be at most 200 "
           "bytes"},
  };
  for (const Case& c : cases) {
    for (bool host_lib : {true, false}) {
      std::vector<std::string> args = {"export"};
      args.insert(args.end(), c.models.begin(), c.models.end());
      args.insert(args.end(), {"-o", dir_ + "/x.tar"});
      if (!host_lib) args.push_back("--no-host-lib");
      SCOPED_TRACE(c.models.back() + (host_lib ? "" : " --no-host-lib"));
      CommandResult r = Mlf(args);
      EXPECT_EQ(r.exit_code, 1) << r.err;
      EXPECT_EQ(r.out, "");
      EXPECT_EQ(r.err, "mlf: error: " + c.message + "\n");
      EXPECT_FALSE(Exists(dir_ + "/x.tar"));
    }
  }
  // Distinct names still export.
  CommandResult ok = Mlf({"export", dir_ + "/m.yaml:a", dir_ + "/m.yaml:b", "-o", dir_ + "/ok.tar",
                          "--no-host-lib"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

}  // namespace
}  // namespace mlf
