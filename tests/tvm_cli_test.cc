// `mlf inspect`, `mlf verify` and `mlf run` on TVM-layout archives (metadata
// versions 5, 6, 7; tests/tvm_fixtures): what each command shows and says
// about TVM archives, outputs checked against hand-computed values, and the
// exact errors for what cannot be proven or run.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "artifact/format/npy.h"
#include "artifact/toolchain/host_build.h"
#include "tests/run_command.h"
#include "tests/tvm_cli_harness.h"
#include "tests/test_files.h"
#include "tests/test_tensors.h"
#include "tests/tvm_fixtures/tvm_fixtures.h"

namespace mlf {
namespace {

using testing::NpyOf;

using tvm_testing::Files;
using tvm_testing::TarLayout;

std::string Archive(const std::string& name, const Files& files, TarLayout layout = {}) {
  return testing::WriteTvmFixtureArchive("cli_", name, files, layout);
}

TarLayout WithReadme() {
  TarLayout layout;
  tvm_testing::TarMember readme;
  readme.name = "README.txt";
  readme.data = "added later\n";
  readme.uid = readme.gid = 1000;
  readme.uname = readme.gname = "builder";
  readme.gnu = true;
  layout.appended.push_back(readme);
  return layout;
}


CommandResult Mlf(const std::vector<std::string>& args) { return testing::MlfWithTestCache(args); }
using testing::Contains;


// ---------------------------------------------------------------- inspect --

TEST(TvmCliTest, InspectShowsTheNormalisedModule) {
  const std::string path = Archive("inspect_dense", tvm_testing::DenseV7(), WithReadme());
  CommandResult r = Mlf({"inspect", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "format      Apache TVM Model Library Format, metadata version 7 "
                         "(normalised by mlfkit's TVM reader), exported 2022-11-30 12:00:00Z\n");
  EXPECT_CONTAINS(r.out, "signature   none (TVM archives carry no digests and no signature)\n");
  EXPECT_CONTAINS(r.out, "  model       default (full-model, executors aot, c interface, TVM "
                         "metadata version 7)\n");
  EXPECT_CONTAINS(r.out, "serving_default_input_1:0  serving_default_input_1_0  float32  [1,4]  16");
  EXPECT_CONTAINS(r.out, "    0  output  output  float32  [1,3]  12\n");
  EXPECT_CONTAINS(r.out, "  parameters  tvm-params parameters/default.params, 2 tensors\n");
  EXPECT_CONTAINS(r.out, "  tvm target  c -keys=cpu -link-params=1\n");
  EXPECT_CONTAINS(r.out, "  entry       tvmgen_default_run(inputs, outputs) -> "
                         "tvmgen_default___tvm_main__\n");
  EXPECT_CONTAINS(r.out, "  shapes      from src/default.relay (@main signature)\n");
  EXPECT_CONTAINS(r.out, "  main memory device 1: workspace 32 B, constants 60 B, I/O 28 B\n");
  EXPECT_CONTAINS(r.out, "  operators   2 functions, largest own workspace 16 B\n");
  EXPECT_CONTAINS(r.out, "  this host   runs with mlf run\n");
  EXPECT_CONTAINS(r.out, "files (SHA-256 computed now: TVM records none)\n");
  EXPECT_CONTAINS(r.out, "not referenced by any module: README.txt\n");
  EXPECT_FALSE(Contains(r.out, "problems"));

  CommandResult j = Mlf({"inspect", path, "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["format"], "tvm");
  EXPECT_EQ(doc["signed"], false);
  EXPECT_EQ(doc["metadata"]["version"], 7);  // TVM's metadata.json as stored
  const nlohmann::json& m = doc["normalised"]["modules"]["default"];
  EXPECT_EQ(m["inputs"][0]["name"], "serving_default_input_1:0");
  EXPECT_EQ(m["inputs"][0]["shape"], nlohmann::json({1, 4}));
  EXPECT_EQ(m["parameters"]["tensors"].size(), 2u);
  EXPECT_EQ(m["host"], "runs");
  EXPECT_EQ(doc["normalised"]["unreferenced"], nlohmann::json({"README.txt"}));
  EXPECT_EQ(doc["normalised"]["files"].size(), 6u);
}

TEST(TvmCliTest, InspectShowsWhatEachKindOfArchiveHas) {
  CommandResult graph = Mlf({"inspect", Archive("inspect_graph", tvm_testing::GraphV6())});
  ASSERT_EQ(graph.exit_code, 0) << graph.err;
  EXPECT_CONTAINS(graph.out, "metadata version 6");
  EXPECT_CONTAINS(graph.out, "  model       default (full-model, executors graph, packed interface");
  EXPECT_CONTAINS(graph.out, "  shapes      from executor-config/graph/graph.json\n");
  EXPECT_CONTAINS(graph.out, "  storage     5 graph executor storage ids\n");
  EXPECT_CONTAINS(graph.out, "  parameters  tvm-params parameters/default.params, 3 tensors\n");
  EXPECT_CONTAINS(graph.out, "  this host   runs with mlf run\n");

  CommandResult op = Mlf({"inspect", Archive("inspect_operator", tvm_testing::OperatorV5())});
  ASSERT_EQ(op.exit_code, 0) << op.err;
  EXPECT_CONTAINS(op.out, "  model       add (operator, executors none, packed interface, TVM "
                          "metadata version 5)\n");
  EXPECT_CONTAINS(op.out, "  buffers     (operator style: TVM does not say which are inputs, so mlf "
                          "run and mlf project take every buffer as an input and give it as an "
                          "output)\n");
  EXPECT_CONTAINS(op.out, "  this host   runs with mlf run\n");
  EXPECT_CONTAINS(op.out, "add       C        float32  [4]    16");

  CommandResult arm = Mlf({"inspect", Archive("inspect_arm", tvm_testing::ArmV7())});
  ASSERT_EQ(arm.exit_code, 0) << arm.err;
  EXPECT_CONTAINS(arm.out, "  target      c -mcpu=cortex-m4\n");
  EXPECT_CONTAINS(arm.out, "  toolchain   headers from outside the archive: arm_acle.h\n");
  EXPECT_CONTAINS(arm.out, "  needs       cortex-m4 (codegen/host/src/default_lib1.c includes "
                           "<arm_acle.h>)\n");

  Files no_relay = tvm_testing::ScaleV5();
  no_relay.erase("src/relay.txt");
  CommandResult unknown = Mlf({"inspect", Archive("inspect_unknown", no_relay)});
  ASSERT_EQ(unknown.exit_code, 0) << unknown.err;
  EXPECT_CONTAINS(unknown.out, "    0  input  input   ?      ?      ?\n");
  EXPECT_CONTAINS(unknown.out, "  note        shapes are unknown: the archive has no Relay text "
                               "(src/default.relay)\n");
}

TEST(TvmCliTest, InspectListsWhatVerifyWouldRefuse) {
  Files files = tvm_testing::DenseV7();
  files.erase("codegen/host/include/tvmgen_default.h");
  CommandResult r = Mlf({"inspect", Archive("inspect_problems", files)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "problems (mlf verify refuses this archive)\n  module 'default': "
                         "codegen/host/src/default_lib0.c includes <tvmgen_default.h>, which is "
                         "not in the archive\n");
}

// ----------------------------------------------------------------- verify --

TEST(TvmCliTest, VerifySaysWhatItProvesAndWhatNot) {
  const std::string path = Archive("verify_multi", tvm_testing::MultiV7(), WithReadme());
  CommandResult r = Mlf({"verify", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("verified " + path + ": 12 members, ", 0), 0u) << r.out;
  EXPECT_CONTAINS(r.out.substr(0, r.out.find('\n') + 1), ", 2 modules\n");
  EXPECT_CONTAINS(r.out, "format: Apache TVM Model Library Format, metadata version 7\n");
  EXPECT_CONTAINS(r.out, "proven: a safe tar within bounds; metadata.json matches the TVM version 7 "
                         "schema; every file that metadata, the interface header and the sources "
                         "reference is present; .params files parse; sizes in metadata, Relay text "
                         "and header agree\n");
  EXPECT_CONTAINS(r.out, "not proven: TVM archives carry no digests and no signature, so nothing "
                         "shows who made this archive or that its members are the ones TVM wrote\n");
  EXPECT_CONTAINS(r.out, "module default: full-model, aot executor, c interface; runs on this host "
                         "(mlf run)\n");
  EXPECT_CONTAINS(r.out, "module second: full-model, aot executor, c interface; runs on this host "
                         "(mlf run)\n");
  EXPECT_CONTAINS(r.out, "not referenced by any module: README.txt\n");
  EXPECT_CONTAINS(r.out, "signature: none (TVM archives cannot carry one)\n");

  CommandResult j = Mlf({"verify", path, "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["ok"], true);
  EXPECT_EQ(doc["format"], "tvm");
  EXPECT_EQ(doc["tvm"]["digests"], false);
  EXPECT_EQ(doc["tvm"]["signature"], false);
  EXPECT_EQ(doc["tvm"]["modules"]["second"]["host"], "runs");

  for (const auto& [name, files] : std::vector<std::pair<std::string, Files>>{
           {"v5", tvm_testing::ScaleV5()}, {"v6", tvm_testing::GraphV6()},
           {"op", tvm_testing::OperatorV5()}, {"arm", tvm_testing::ArmV7()},
           {"bundled", tvm_testing::BundledV7()}}) {
    CommandResult v = Mlf({"verify", Archive("verify_" + name, files)});
    EXPECT_EQ(v.exit_code, 0) << name << ": " << v.err;
  }
}

TEST(TvmCliTest, VerifyRefusals) {
  Files files = tvm_testing::GraphV6();
  files.erase("parameters/default.params");
  const std::string path = Archive("verify_no_params", files);
  CommandResult r = Mlf({"verify", path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "mlf: error: " + path +
                       ": module 'default': it runs on TVM's graph executor, which needs "
                       "parameters/default.params, and the archive has none\n");

  const std::string dense = Archive("verify_signed", tvm_testing::DenseV7());
  r = Mlf({"verify", dense, "--require-signature"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "mlf: error: " + dense +
                       ": TVM Model Library Format archive (metadata version 7): TVM archives carry "
                       "no digests and no signature, but a signature is required\n");
}

// An executor or interface API this mlfkit does not know (issue 17, point 7)
// is read as unknown, kept as written, and shown by inspect and verify with a
// note; only running the module is refused.
Files WithMetadata(Files files, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json metadata = nlohmann::json::parse(files.at("metadata.json"));
  edit(metadata);
  files["metadata.json"] = metadata.dump(2);
  return files;
}

TEST(TvmCliTest, UnknownExecutorIsShownNotRefused) {
  const std::string path =
      Archive("unknown_executor", WithMetadata(tvm_testing::DenseV7(), [](nlohmann::json& j) {
                j["modules"]["default"]["executors"] = {"vm"};
              }));
  CommandResult v = Mlf({"verify", path});
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_EQ(v.out, "verified " + path + ": 6 members, 5.8 KiB, 1 module\n"
            "format: Apache TVM Model Library Format, metadata version 7\n"
            "proven: a safe tar within bounds; metadata.json matches the TVM version 7 schema; every file that metadata, the interface header and the sources reference is present; .params files parse; sizes in metadata, Relay text and header agree\n"
            "not proven: TVM archives carry no digests and no signature, so nothing shows who made this archive or that its members are the ones TVM wrote\n"
            "module default: full-model, vm executor, c interface; does not run on this host: module 'default' (TVM archive, metadata version 7) uses executor 'vm'; mlf run runs TVM's aot and graph executors\n"
            "  runs: nowhere here\n"
            "  note: executor 'vm' is unknown to mlfkit (it knows aot and graph)\n"
            "signature: none (TVM archives cannot carry one)\n");
  CommandResult i = Mlf({"inspect", path});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  EXPECT_EQ(i.out, "archive     " + path + " (none, 15.0 KiB)\n"
            "format      Apache TVM Model Library Format, metadata version 7 (normalised by mlfkit's TVM reader), exported 2022-11-30 12:00:00Z\n"
            "signature   none (TVM archives carry no digests and no signature)\n"
            "\n"
            "module default\n"
            "  model       default (full-model, executors vm, c interface, TVM metadata version 7)\n"
            "  target      c\n"
            "  source      tvm, kept as src/default.relay\n"
            "  inputs\n"
            "    #  name                       c name                     dtype    shape  bytes\n"
            "    0  serving_default_input_1:0  serving_default_input_1_0  float32  [1,4]  16\n"
            "  outputs\n"
            "    #  name    c name  dtype    shape  bytes\n"
            "    0  output  output  float32  [1,3]  12\n"
            "  memory\n"
            "    workspace  32 B\n"
            "    constants  60 B\n"
            "    I/O        28 B\n"
            "    alignment  16 B\n"
            "  parameters  tvm-params parameters/default.params, 2 tensors\n"
            "    name      dtype    shape  offset  bytes\n"
            "    _param_1  float32  [3,4]  120     48\n"
            "    _param_2  float32  [3]    216     12\n"
            "  sources     codegen/host/src/default_lib0.c, codegen/host/src/default_lib1.c\n"
            "  tvm target  c -keys=cpu -link-params=1\n"
            "  entry       tvmgen_default_run(inputs, outputs) -> tvmgen_default___tvm_main__\n"
            "  shapes      from src/default.relay (@main signature)\n"
            "  header      codegen/host/include/tvmgen_default.h\n"
            "  main memory device 1: workspace 32 B, constants 60 B, I/O 28 B\n"
            "  operators   2 functions, largest own workspace 16 B\n"
            "  this host   cannot run: module 'default' (TVM archive, metadata version 7) uses executor 'vm'; mlf run runs TVM's aot and graph executors\n"
            "  runs        nowhere here\n"
            "  note        executor 'vm' is unknown to mlfkit (it knows aot and graph)\n"
            "\n"
            "files (SHA-256 computed now: TVM records none)\n"
            "  bytes  sha256            path\n"
            "  1065   5af50bd9b729a367  codegen/host/include/tvmgen_default.h\n"
            "  421    acc4e63dedfd32ec  codegen/host/src/default_lib0.c\n"
            "  2217   33d9aa5a58672223  codegen/host/src/default_lib1.c\n"
            "  228    365df9433ee15dbf  parameters/default.params\n"
            "  557    b27c0ffb37d1b391  src/default.relay\n");
  CommandResult r = Mlf({"run", path, "--random-inputs", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "mlf: error: module 'default' (TVM archive, metadata version 7) uses executor 'vm'; mlf run runs TVM's aot and graph executors\n");
}

TEST(TvmCliTest, UnknownInterfaceApiIsShownNotRefused) {
  const std::string path =
      Archive("unknown_interface", WithMetadata(tvm_testing::GraphV6(), [](nlohmann::json& j) {
                j["target"] = {"c -keys=cpu -link-params=0 -interface-api=wasm"};
              }));
  CommandResult v = Mlf({"verify", path});
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_EQ(v.out, "verified " + path + ": 5 members, 3.7 KiB, 1 module\n"
            "format: Apache TVM Model Library Format, metadata version 6\n"
            "proven: a safe tar within bounds; metadata.json matches the TVM version 6 schema; every file that metadata, the interface header and the sources reference is present; .params files parse; sizes in metadata, Relay text and header agree\n"
            "not proven: TVM archives carry no digests and no signature, so nothing shows who made this archive or that its members are the ones TVM wrote\n"
            "module default: full-model, graph executor, wasm interface; runs on this host (mlf run)\n"
            "  runs: host\n"
            "  note: interface API 'wasm' (target option -interface-api) is unknown to mlfkit (it knows c and packed)\n"
            "signature: none (TVM archives cannot carry one)\n");
  CommandResult i = Mlf({"inspect", path});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  EXPECT_EQ(i.out, "archive     " + path + " (none, 12.5 KiB)\n"
            "format      Apache TVM Model Library Format, metadata version 6 (normalised by mlfkit's TVM reader), exported 2022-03-01 09:00:00Z\n"
            "signature   none (TVM archives carry no digests and no signature)\n"
            "\n"
            "module default\n"
            "  model       default (full-model, executors graph, wasm interface, TVM metadata version 6)\n"
            "  target      c\n"
            "  source      tvm, kept as src/relay.txt\n"
            "  inputs\n"
            "    #  name  c name  dtype    shape  bytes\n"
            "    0  x     x       float32  [1,4]  16\n"
            "  outputs\n"
            "    #  name    c name  dtype    shape  bytes\n"
            "    0  output  output  float32  [1,3]  12\n"
            "  memory\n"
            "    workspace  0 B\n"
            "    constants  0 B\n"
            "    I/O        28 B\n"
            "    alignment  16 B\n"
            "  parameters  tvm-params parameters/default.params, 3 tensors\n"
            "    name  dtype    shape  offset  bytes\n"
            "    p0    float32  [3,4]  118     48\n"
            "    p1    float32  [3]    214     12\n"
            "    p2    int32    [2]    274     8\n"
            "  sources     codegen/host/src/default_lib0.c\n"
            "  tvm target  c -keys=cpu -link-params=0 -interface-api=wasm\n"
            "  shapes      from executor-config/graph/graph.json\n"
            "  graph       executor-config/graph/graph.json\n"
            "  main memory device 1: workspace 0 B, constants 0 B, I/O 28 B\n"
            "  operators   1 functions, largest own workspace 0 B\n"
            "  storage     5 graph executor storage ids\n"
            "    sid  bytes  binding\n"
            "    0    16     x\n"
            "    1    48     p0\n"
            "    2    12     p1\n"
            "    3    8      p2\n"
            "    4    12     \n"
            "  this host   runs with mlf run\n"
            "  runs        host\n"
            "  note        interface API 'wasm' (target option -interface-api) is unknown to mlfkit (it knows c and packed)\n"
            "\n"
            "files (SHA-256 computed now: TVM records none)\n"
            "  bytes  sha256            path\n"
            "  1298   35ab74462eca3b7c  codegen/host/src/default_lib0.c\n"
            "  626    72489d663dfc14fe  executor-config/graph/graph.json\n"
            "  282    73ae1ba949efe8cb  parameters/default.params\n"
            "  362    5f339ef69ba7781a  src/relay.txt\n");
  CommandResult j = Mlf({"verify", path, "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_EQ(nlohmann::json::parse(j.out)["tvm"]["modules"]["default"].dump(), "{\"executor\":\"graph\",\"host\":\"runs\",\"interface_api\":\"wasm\",\"needs_vendor_library\":[],\"notes\":[\"interface API 'wasm' (target option -interface-api) is unknown to mlfkit (it knows c and packed)\"],\"runs\":\"host\",\"style\":\"full-model\"}");
}

// A dtype this mlfkit does not know (issue 17, point 7) is kept as the archive
// wrote it: inspect and verify show the archive and name the tensor and the
// dtype; run refuses the tensor.
TEST(TvmCliTest, UnknownDtypeIsShownNotRefused) {
  Files files = WithMetadata(tvm_testing::DenseV7(), [](nlohmann::json& j) {
    j["modules"]["default"]["memory"]["functions"]["main"][0]["inputs"]["serving_default_input_1:0"]
     ["dtype"] = "float32x4";
  });
  std::string& relay = files.at("src/default.relay");
  const std::string declared = "%serving_default_input_1:0: Tensor[(1, 4), float32] /* ty=Tensor[(1, 4), float32]";
  ASSERT_NE(relay.find(declared), std::string::npos);
  relay.replace(relay.find(declared), declared.size(),
                "%serving_default_input_1:0: Tensor[(1, 1), float32x4] /* ty=Tensor[(1, 1), float32x4]");
  const std::string path = Archive("unknown_dtype", files);
  CommandResult v = Mlf({"verify", path});
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_EQ(v.out, "verified " + path + ": 6 members, 5.8 KiB, 1 module\n"
            "format: Apache TVM Model Library Format, metadata version 7\n"
            "proven: a safe tar within bounds; metadata.json matches the TVM version 7 schema; every file that metadata, the interface header and the sources reference is present; .params files parse; sizes in metadata, Relay text and header agree\n"
            "not proven: TVM archives carry no digests and no signature, so nothing shows who made this archive or that its members are the ones TVM wrote\n"
            "module default: full-model, aot executor, c interface; does not run on this host: module 'default' (TVM archive, metadata version 7): input 'serving_default_input_1:0': dtype 'float32x4' is not supported by mlfkit\n"
            "  runs: nowhere here\n"
            "  note: input 'serving_default_input_1:0': dtype 'float32x4' is unknown to mlfkit\n"
            "  note: parameters/default.params is not used: the code links its parameters (codegen/host/src/default_lib1.c keeps constants in section .rodata.tvm)\n"
            "signature: none (TVM archives cannot carry one)\n");
  CommandResult i = Mlf({"inspect", path});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  EXPECT_EQ(i.out, "archive     " + path + " (none, 15.0 KiB)\n"
            "format      Apache TVM Model Library Format, metadata version 7 (normalised by mlfkit's TVM reader), exported 2022-11-30 12:00:00Z\n"
            "signature   none (TVM archives carry no digests and no signature)\n"
            "\n"
            "module default\n"
            "  model       default (full-model, executors aot, c interface, TVM metadata version 7)\n"
            "  target      c\n"
            "  source      tvm, kept as src/default.relay\n"
            "  inputs\n"
            "    #  name                       c name                     dtype      shape  bytes\n"
            "    0  serving_default_input_1:0  serving_default_input_1_0  float32x4  [1,1]  16\n"
            "  outputs\n"
            "    #  name    c name  dtype    shape  bytes\n"
            "    0  output  output  float32  [1,3]  12\n"
            "  memory\n"
            "    workspace  32 B\n"
            "    constants  60 B\n"
            "    I/O        28 B\n"
            "    alignment  16 B\n"
            "  parameters  tvm-params parameters/default.params, 2 tensors\n"
            "    name      dtype    shape  offset  bytes\n"
            "    _param_1  float32  [3,4]  120     48\n"
            "    _param_2  float32  [3]    216     12\n"
            "  sources     codegen/host/src/default_lib0.c, codegen/host/src/default_lib1.c\n"
            "  tvm target  c -keys=cpu -link-params=1\n"
            "  entry       tvmgen_default_run(inputs, outputs) -> tvmgen_default___tvm_main__\n"
            "  shapes      from src/default.relay (@main signature)\n"
            "  header      codegen/host/include/tvmgen_default.h\n"
            "  main memory device 1: workspace 32 B, constants 60 B, I/O 28 B\n"
            "  operators   2 functions, largest own workspace 16 B\n"
            "  this host   cannot run: module 'default' (TVM archive, metadata version 7): input 'serving_default_input_1:0': dtype 'float32x4' is not supported by mlfkit\n"
            "  runs        nowhere here\n"
            "  note        input 'serving_default_input_1:0': dtype 'float32x4' is unknown to mlfkit\n"
            "  note        parameters/default.params is not used: the code links its parameters (codegen/host/src/default_lib1.c keeps constants in section .rodata.tvm)\n"
            "\n"
            "files (SHA-256 computed now: TVM records none)\n"
            "  bytes  sha256            path\n"
            "  1065   5af50bd9b729a367  codegen/host/include/tvmgen_default.h\n"
            "  421    acc4e63dedfd32ec  codegen/host/src/default_lib0.c\n"
            "  2217   33d9aa5a58672223  codegen/host/src/default_lib1.c\n"
            "  228    365df9433ee15dbf  parameters/default.params\n"
            "  561    4eca2ab7bd3ed98f  src/default.relay\n");
  CommandResult r = Mlf({"run", path, "--random-inputs", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "mlf: error: module 'default' (TVM archive, metadata version 7): input 'serving_default_input_1:0': dtype 'float32x4' is not supported by mlfkit\n");
}

// -------------------------------------------------------------------- run --

TEST(TvmCliTest, RunWritesHandComputedOutputs) {
  const std::string dir = FreshDir("cli_run_dense");
  const std::string path = Archive("run_dense", tvm_testing::DenseV7(), WithReadme());
  ASSERT_TRUE(WriteNpyFile(dir + "/x.npy", NpyOf(DType::kFloat32, {1, 4}, tvm_testing::DenseInput())).ok());
  CommandResult r = Mlf({"run", path, "--input", "serving_default_input_1:0=" + dir + "/x.npy",
                         "--output-dir", dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "output output float32[1, 3]");
  EXPECT_EQ(testing::NpyValues<float>(dir + "/out/output.npy"), tvm_testing::DenseExpected());
  // The expected values as a file: --expect-dir agrees.
  FreshDir("cli_run_dense_expect");
  const std::string expect = std::string(std::getenv("TEST_TMPDIR")) + "/cli_run_dense_expect";
  ASSERT_TRUE(WriteNpyFile(expect + "/output.npy",
                           NpyOf(DType::kFloat32, {1, 3}, tvm_testing::DenseExpected())).ok());
  r = Mlf({"run", path, "--input", "serving_default_input_1_0=" + dir + "/x.npy", "--expect-dir", expect});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
}

TEST(TvmCliTest, RunTwoModuleArchiveAndOlderNaming) {
  const std::string dir = FreshDir("cli_run_multi");
  const std::string multi = Archive("run_multi", tvm_testing::MultiV7());
  ASSERT_TRUE(WriteNpyFile(dir + "/a.npy", NpyOf(DType::kInt8, {4}, tvm_testing::PairA())).ok());
  ASSERT_TRUE(WriteNpyFile(dir + "/b.npy", NpyOf(DType::kInt8, {4}, tvm_testing::PairB())).ok());
  CommandResult r = Mlf({"run", multi, "--module", "second", "--input", "a_in=" + dir + "/a.npy",
                         "--input", "b_in=" + dir + "/b.npy", "--output-dir", dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::NpyValues<int8_t>(dir + "/out/output0.npy"), tvm_testing::PairExpected0());
  EXPECT_EQ(testing::NpyValues<int32_t>(dir + "/out/output1.npy"), std::vector<int32_t>{tvm_testing::PairExpected1()});

  const std::string v5 = Archive("run_v5", tvm_testing::ScaleV5());
  ASSERT_TRUE(WriteNpyFile(dir + "/s.npy", NpyOf(DType::kFloat32, {2, 2}, tvm_testing::ScaleInput())).ok());
  r = Mlf({"run", v5, "--input", "input=" + dir + "/s.npy", "--output-dir", dir + "/v5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::NpyValues<float>(dir + "/v5/output.npy"), tvm_testing::ScaleExpected());
}

TEST(TvmCliTest, RunRefusesWhatCannotRunHere) {
  const std::string arm = Archive("run_arm", tvm_testing::ArmV7());
  CommandResult r = Mlf({"run", arm, "--random-inputs", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "mlf: error: module 'default' (TVM archive, metadata version 7) needs target "
                   "cortex-m4: codegen/host/src/default_lib1.c includes <arm_acle.h>; it cannot run "
                   "on this host (" + std::string(HostTriple()) +
                   "). Build a firmware project for it: mlf project ARCHIVE -o DIR --platform "
                   "mps2-an386\n");
}

// What inspect and verify say about this host is what run does, also for a
// graph whose memory plan the generated code cannot follow.
TEST(TvmCliTest, InspectAndVerifySayWhatRunDoes) {
  Files files = tvm_testing::GraphV6();
  nlohmann::json graph = nlohmann::json::parse(files.at("executor-config/graph/graph.json"));
  graph["attrs"]["storage_id"][1][4] = 1;  // the output in p0's storage
  files["executor-config/graph/graph.json"] = graph.dump();
  const std::string path = Archive("graph_refused", files);
  const std::string why =
      "module 'default': executor-config/graph/graph.json: storage 1 holds a parameter and other "
      "tensors; parameters are read only, so their storage cannot be shared";
  CommandResult run = Mlf({"run", path, "--random-inputs", "1"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err, "mlf: error: " + why + "\n");
  CommandResult inspect = Mlf({"inspect", path});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_CONTAINS(inspect.out, "  this host   cannot run: " + why + "\n");
  CommandResult j = Mlf({"inspect", path, "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_EQ(nlohmann::json::parse(j.out)["normalised"]["modules"]["default"]["host"], why);
  CommandResult verify = Mlf({"verify", path});
  ASSERT_EQ(verify.exit_code, 0) << verify.err;  // the archive itself is sound
  EXPECT_CONTAINS(verify.out, "module default: full-model, graph executor, packed interface; does "
                              "not run on this host: " + why + "\n");
  CommandResult vj = Mlf({"verify", path, "--json"});
  EXPECT_EQ(nlohmann::json::parse(vj.out)["tvm"]["modules"]["default"]["host"], why);
  // The intact graph runs, and both say so.
  const std::string good = Archive("graph_runs", tvm_testing::GraphV6());
  EXPECT_CONTAINS(Mlf({"inspect", good}).out, "  this host   runs with mlf run\n");
  EXPECT_CONTAINS(Mlf({"verify", good}).out, "; runs on this host (mlf run)\n");
}

// Operator style: every buffer is an input and an output (by binding name);
// buffers not given are zeros, as in the firmware.
TEST(TvmCliTest, RunAndBenchOperatorStyle) {
  const std::string dir = FreshDir("cli_run_operator");
  const std::string op = Archive("run_operator", tvm_testing::OperatorV5());
  ASSERT_TRUE(WriteNpyFile(dir + "/a.npy", NpyOf(DType::kFloat32, {4}, std::vector<float>{1, 2, 3, 4})).ok());
  ASSERT_TRUE(WriteNpyFile(dir + "/b.npy", NpyOf(DType::kFloat32, {4}, std::vector<float>{10, 20, 30, 40.5f})).ok());
  CommandResult r = Mlf({"run", op, "--input", "A=" + dir + "/a.npy", "--input", "B=" + dir + "/b.npy",
                         "--output-dir", dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "output C float32[4]");
  EXPECT_EQ(testing::NpyValues<float>(dir + "/out/A.npy"), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(testing::NpyValues<float>(dir + "/out/B.npy"), (std::vector<float>{10, 20, 30, 40.5f}));
  EXPECT_EQ(testing::NpyValues<float>(dir + "/out/C.npy"), (std::vector<float>{11, 22, 33, 44.5f}));
  // Only A: B is zeros, so C = A; --expect-dir agrees with the written files.
  r = Mlf({"run", op, "--input", "A=" + dir + "/a.npy", "--output-dir", dir + "/only_a"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::NpyValues<float>(dir + "/only_a/B.npy"), (std::vector<float>{0, 0, 0, 0}));
  EXPECT_EQ(testing::NpyValues<float>(dir + "/only_a/C.npy"), (std::vector<float>{1, 2, 3, 4}));
  r = Mlf({"run", op, "--input", "A=" + dir + "/a.npy", "--input", "B=" + dir + "/b.npy",
           "--expect-dir", dir + "/out"});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  r = Mlf({"run", op, "--input", "A=" + dir + "/a.npy", "--expect-dir", dir + "/out"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "mlf: error: outputs differ from " + dir + "/out\n");
  r = Mlf({"run", op, "--input", "D=" + dir + "/a.npy"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_CONTAINS(r.err, "'D'");

  CommandResult b = Mlf({"bench", op, "--threads", "2", "--iterations", "50", "--json"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(nlohmann::json::parse(b.out)["threads"], 2) << b.out;
}

TEST(TvmCliTest, RunAndBenchGraphExecutorArchives) {
  const std::string dir = FreshDir("cli_run_graph");
  ASSERT_TRUE(WriteNpyFile(dir + "/x.npy", NpyOf(DType::kFloat32, {1, 4}, tvm_testing::DenseInput())).ok());
  const std::vector<std::pair<Files, std::vector<float>>> cases = {
      {tvm_testing::GraphV6(), tvm_testing::GraphExpected()},
      {tvm_testing::GraphChainV6(), tvm_testing::GraphChainExpected()}};
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string path = Archive("run_graph" + std::to_string(i), cases[i].first);
    const std::string out = dir + "/out" + std::to_string(i);
    CommandResult r = Mlf({"run", path, "--input", "x=" + dir + "/x.npy", "--output-dir", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_CONTAINS(r.out, "output output float32[1, 3]");
    EXPECT_EQ(testing::NpyValues<float>(out + "/output.npy"), cases[i].second);
    CommandResult b = Mlf({"bench", path, "--threads", "2", "--iterations", "50", "--json"});
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(nlohmann::json::parse(b.out)["threads"], 2) << b.out;
  }
}

}  // namespace
}  // namespace mlf
