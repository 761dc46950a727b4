// `mlf upgrade` (tvm/upgrade): every TVM fixture that a version-8
// archive can run is upgraded, verified, inspected and run with the
// mlfkit host loader, whose outputs must equal both the fixture's known
// values and those of the original TVM archive run through the TVM host
// path (AOT and graph executor modules); upgrades are byte-identical; the
// Cortex-M archive is built and run as firmware in QEMU, an upgraded graph
// archive on the host; every refusal has its exact message.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "artifact/archive/read_metadata.h"
#include "artifact/archive/verify.h"
#include "artifact/format/npy.h"
#include "loader/host/model_library.h"
#include "tests/run_command.h"
#include "tests/test_files.h"
#include "tests/tvm_fixtures/tvm_fixtures.h"
#include "tvm/tvm.h"

namespace mlf {
namespace {

using tvm_testing::Files;

std::string Tmp() { return std::getenv("TEST_TMPDIR"); }

std::string WriteTvm(const std::string& name, const Files& files, tvm_testing::TarLayout layout = {}) {
  const std::string path = FreshDir("up_" + name) + "/" + name + ".tar";
  tvm_testing::WriteTvmArchive(path, files, layout);
  return path;
}

// Upgrades `in` to <dir of in>/<name>; fails the test on error.
std::string Upgrade(const std::string& in, const std::string& name, UpgradeOptions options = {}) {
  const std::string out = in.substr(0, in.rfind('/') + 1) + name;
  Result<UpgradeResult> r = UpgradeTvmArchive(in, out, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return out;
}

LoadOptions Load() {
  LoadOptions options;
  options.foreign_modules = &tvm_wing::HostModules();  // the TVM archives run too
  options.cache_dir = Tmp() + "/cache";
  return options;
}

CommandResult Mlf(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {MlfBinary()};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions options;
  options.env.push_back({"MLF_CACHE_DIR", Tmp() + "/mlf-cache"});
  return RunCommand(argv, options);
}

// One input or output buffer: raw bytes.
using Buffers = std::vector<std::string>;

template <typename T>
std::string Raw(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// Runs `module` of `archive` once with the host loader on `inputs` (in
// metadata order); returns the outputs' bytes and the code's origin.
Buffers RunHost(const std::string& archive, const std::string& module, const Buffers& inputs,
                std::string* origin = nullptr) {
  Result<std::shared_ptr<ModelLibrary>> lib = ModelLibrary::Open(archive, Load());
  EXPECT_TRUE(lib.ok()) << lib.status().ToString();
  if (!lib.ok()) return {};
  if (origin) *origin = (*lib)->code_origin(module);
  Result<std::unique_ptr<AotExecutor>> exec = (*lib)->CreateExecutor(module);
  EXPECT_TRUE(exec.ok()) << exec.status().ToString();
  if (!exec.ok()) return {};
  for (size_t i = 0; i < inputs.size(); ++i) {
    Result<DLTensor> in = (*exec)->GetInput(static_cast<int>(i));
    EXPECT_TRUE(in.ok());
    std::memcpy(in->data, inputs[i].data(), inputs[i].size());
  }
  Status run = (*exec)->Run();
  EXPECT_TRUE(run.ok()) << run.ToString();
  Buffers out;
  for (int i = 0; i < (*exec)->num_outputs(); ++i) {
    Result<DLTensor> o = (*exec)->GetOutput(i);
    EXPECT_TRUE(o.ok());
    out.emplace_back(static_cast<const char*>(o->data), (*exec)->output_info(i)->size_bytes);
  }
  return out;
}

struct Case {
  std::string name;
  Files files;
  std::string module;
  Buffers inputs;    // metadata (= TVM calling) order
  Buffers expected;  // the fixture's hand-computed values
};

std::vector<Case> RunnableCases() {
  using namespace tvm_testing;
  const Buffers dense_in = {Raw(DenseInput())}, dense_out = {Raw(DenseExpected())};
  const Buffers pair_in = {Raw(PairB()), Raw(PairA())};  // b_in, a_in: the header's order
  const Buffers pair_out = {Raw(PairExpected0()), Raw(std::vector<int32_t>{PairExpected1()})};
  return {{"dense_v7", DenseV7(), "default", dense_in, dense_out},
          {"pair_v7", PairV7(), "second", pair_in, pair_out},
          {"multi_v7_default", MultiV7(), "default", dense_in, dense_out},
          {"multi_v7_second", MultiV7(), "second", pair_in, pair_out},
          {"scale_v5", ScaleV5(), "default", {Raw(ScaleInput())}, {Raw(ScaleExpected())}},
          {"bundled_v7", BundledV7(), "default", dense_in, dense_out},
          {"graph_v6", GraphV6(), "default", dense_in, {Raw(GraphExpected())}},
          {"graph_syslib_v7", GraphSysLibV7(), "default", dense_in, {Raw(GraphExpected())}},
          {"graph_chain_v6", GraphChainV6(), "default", dense_in, {Raw(GraphChainExpected())}}};
}

// ------------------------------------------------------------ runnable --

TEST(TvmUpgradeTest, UpgradedArchivesVerifyAndRunLikeTheOriginal) {
  for (const Case& c : RunnableCases()) {
    SCOPED_TRACE(c.name);
    const std::string tvm = WriteTvm(c.name, c.files);
    const std::string v8 = Upgrade(tvm, "v8.tar");
    VerifyOptions verify;
    Result<VerifyReport> report = VerifyArchive(v8, verify);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->metadata.version, kMetadataVersion);
    const ModuleMetadata& m = report->metadata.modules.at(c.module);
    EXPECT_FALSE(m.tvm.has_value());
    ASSERT_TRUE(m.host_library.has_value());

    std::string origin;
    const Buffers upgraded = RunHost(v8, c.module, c.inputs, &origin);
    EXPECT_EQ(origin, "archive");  // the prebuilt library, through the v8 path
    EXPECT_EQ(upgraded, c.expected);
    EXPECT_EQ(RunHost(tvm, c.module, c.inputs), upgraded);  // the TVM host path agrees
  }
}

TEST(TvmUpgradeTest, WithoutHostLibraryTheLoaderCompilesTheSources) {
  for (const Case& c : RunnableCases()) {
    SCOPED_TRACE(c.name);
    UpgradeOptions options;
    options.build_host_library = false;
    const std::string v8 = Upgrade(WriteTvm(c.name + "_nolib", c.files), "v8.tar", options);
    Result<ArchiveHead> head = ReadArchiveHead(v8);
    ASSERT_TRUE(head.ok()) << head.status().ToString();
    EXPECT_FALSE(head->metadata.modules.at(c.module).host_library.has_value());
    std::string origin;
    EXPECT_EQ(RunHost(v8, c.module, c.inputs, &origin), c.expected);
    EXPECT_NE(origin, "archive");
  }
}

TEST(TvmUpgradeTest, MetadataRecordsShapesNamesWorkspaceAndProvenance) {
  const std::string v8 = Upgrade(WriteTvm("meta_multi", tvm_testing::MultiV7()), "v8.tar");
  Result<ArchiveHead> head = ReadArchiveHead(v8);
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  const Metadata& md = head->metadata;
  EXPECT_EQ(md.generator_name, "mlfkit");
  EXPECT_EQ(md.export_datetime, "2022-11-30 12:00:00Z");
  const ModuleMetadata& d = md.modules.at("default");
  ASSERT_EQ(d.inputs.size(), 1u);
  EXPECT_EQ(d.inputs[0].name, "serving_default_input_1:0");
  EXPECT_EQ(d.inputs[0].c_name, "serving_default_input_1_0");
  EXPECT_EQ(d.inputs[0].shape, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(d.outputs[0].shape, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(d.memory.workspace_size_bytes, 32u);  // TVM's, no pools
  EXPECT_EQ(d.memory.io_size_bytes, 28u);
  ASSERT_TRUE(d.parameters.has_value());
  EXPECT_EQ(d.parameters->storage, ParamStorage::kLinked);
  ASSERT_EQ(d.parameters->tensors.size(), 2u);
  EXPECT_EQ(d.parameters->tensors[1].offset, 64u);
  ASSERT_TRUE(d.source.has_value());
  EXPECT_EQ(d.source->format, SourceFormat::kTvm);
  EXPECT_EQ(d.source->path, "src/tvm/metadata.json");
  EXPECT_EQ(d.source->sha256, md.files.at("src/tvm/metadata.json").sha256);
  EXPECT_EQ(d.description,
            "Upgraded by mlfkit from a TVM Model Library Format archive: metadata version 7, "
            "model_name \"default\", target \"c -keys=cpu -link-params=1\". The original members "
            "are under src/tvm/.");
  EXPECT_EQ(d.sources, (std::vector<std::string>{
                           "codegen/host/src/default_lib0.c", "codegen/host/src/default_lib1.c",
                           "codegen/host/src/default_mlf_adapter.c",
                           "codegen/host/src/mlf_tvm_runtime.c"}));
  const ModuleMetadata& s = md.modules.at("second");
  EXPECT_EQ(s.inputs[0].name, "b_in");  // TVM's calling order
  EXPECT_EQ(s.inputs[1].name, "a_in");
  EXPECT_EQ(s.outputs[1].shape, (std::vector<int64_t>{1}));
  EXPECT_EQ(s.memory.workspace_size_bytes, 64u);  // the 32-byte USMP pool, 64-aligned
  EXPECT_FALSE(s.parameters.has_value());         // an empty .params
  // Every member of the original, byte for byte, under src/tvm/.
  for (const auto& [path, data] : tvm_testing::MultiV7()) {
    auto it = md.files.find("src/tvm/" + path);
    ASSERT_NE(it, md.files.end()) << path;
    EXPECT_EQ(it->second.size, data.size()) << path;
  }
  for (const char* member : {"codegen/host/include/tvmgen_default.h", "codegen/host/include/mlf/model_abi.h",
                             "codegen/host/include/tvm/runtime/c_runtime_api.h",
                             "codegen/host/include/dlpack/dlpack.h", "codegen/host/lib/default.so",
                             "codegen/host/lib/second.so"}) {
    EXPECT_TRUE(md.files.count(member)) << member;
  }
}

// A graph executor module: TVM's sources unchanged, the graph as C, the
// .params tensors as a mlfkit parameter blob; the result also builds and
// runs as a firmware project through the mlfkit path.
TEST(TvmUpgradeTest, GraphModulesBecomeAGraphFunctionAndAParameterBlob) {
  const std::string dir = FreshDir("up_graph");
  const std::string v8 = Upgrade(WriteTvm("graph_meta", tvm_testing::GraphChainV6()), "v8.tar");
  Result<ArchiveHead> head = ReadArchiveHead(v8);
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  const ModuleMetadata& m = head->metadata.modules.at("default");
  EXPECT_EQ(m.sources, (std::vector<std::string>{
                           "codegen/host/src/default_lib0.c", "codegen/host/src/default_lib1.c",
                           "codegen/host/src/default_mlf_graph.c",
                           "codegen/host/src/default_mlf_adapter.c",
                           "codegen/host/src/mlf_tvm_runtime.c"}));
  ASSERT_TRUE(m.parameters.has_value());
  EXPECT_EQ(m.parameters->storage, ParamStorage::kFile);
  EXPECT_EQ(m.parameters->path, "parameters/default.bin");
  ASSERT_EQ(m.parameters->tensors.size(), 3u);
  EXPECT_EQ(m.parameters->tensors[2].name, "p2");
  EXPECT_EQ(m.parameters->tensors[2].offset, 128u);
  EXPECT_EQ(m.memory.constants_size_bytes, 136u);
  // Storage 4 (shared by two entries) and 5: 64 + 64; the negative's 16 bytes of scratch: 64.
  EXPECT_EQ(m.memory.workspace_size_bytes, 192u);
  EXPECT_EQ(m.inputs[0].name, "x");
  EXPECT_EQ(m.outputs[0].shape, (std::vector<int64_t>{1, 3}));

  CommandResult unpack = Mlf({"unpack", v8, "-o", dir + "/x"});
  ASSERT_EQ(unpack.exit_code, 0) << unpack.err;
  EXPECT_EQ(ReadFile(dir + "/x/codegen/host/src/default_lib0.c"),
            tvm_testing::GraphChainV6().at("codegen/host/src/default_lib0.c"));
  EXPECT_NE(ReadFile(dir + "/x/codegen/host/src/default_mlf_adapter.c")
                .find("return mlf_tvm_default_graph_run((void* const*)inputs"),
            std::string::npos);

  NpyArray x;
  x.dtype = DType::kFloat32;
  x.shape = {1, 4};
  x.data = Raw(tvm_testing::DenseInput());
  WriteFile(dir + "/x.npy", SerializeNpy(x));
  CommandResult fw = Mlf({"project", v8, "-o", dir + "/fw", "--sample-input", "x=" + dir + "/x.npy",
                          "--run"});
  ASSERT_EQ(fw.exit_code, 0) << fw.out << fw.err;
  EXPECT_NE(fw.out.find("\noutput output 3 -4.75 0.5 -4\n"), std::string::npos) << fw.out;
}

TEST(TvmUpgradeTest, TheRunWrapperIsRenamedAndPoolsMoveIntoTheWorkspace) {
  const std::string dir = FreshDir("up_sources");
  const std::string v8 = Upgrade(WriteTvm("sources_pair", tvm_testing::PairV7()), "v8.tar");
  CommandResult unpack = Mlf({"unpack", v8, "-o", dir + "/x"});
  ASSERT_EQ(unpack.exit_code, 0) << unpack.err;
  const std::string lib0 = ReadFile(dir + "/x/codegen/host/src/second_lib0.c");
  EXPECT_NE(lib0.find("int32_t tvmgen_second_tvm_run(struct tvmgen_second_inputs* inputs"), std::string::npos);
  EXPECT_EQ(lib0.find("static uint8_t global_workspace[32];"), std::string::npos);
  EXPECT_NE(lib0.find("((uint8_t*)&(*(uint8_t (*)[32])(mlf_tvm_second_pools() + 0)))"), std::string::npos);
  // lib1 has neither: it is carried unchanged.
  EXPECT_EQ(ReadFile(dir + "/x/codegen/host/src/second_lib1.c"), tvm_testing::PairV7().at("codegen/host/src/second_lib1.c"));
  EXPECT_EQ(ReadFile(dir + "/x/src/tvm/codegen/host/src/second_lib0.c"),
            tvm_testing::PairV7().at("codegen/host/src/second_lib0.c"));
}

// Pools moved into each caller's workspace make the module reentrant: many
// threads run their own executors of one library at once.
TEST(TvmUpgradeTest, UpgradedUsmpModuleIsReentrant) {
  const std::string v8 = Upgrade(WriteTvm("reentrant_pair", tvm_testing::PairV7()), "v8.tar");
  Result<std::shared_ptr<ModelLibrary>> lib = ModelLibrary::Open(v8, Load());
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Result<std::unique_ptr<AotExecutor>> exec = (*lib)->CreateExecutor("second");
      if (!exec.ok()) { failures[t] = -1; return; }
      for (int i = 0; i < 2000; ++i) {
        const int8_t a = static_cast<int8_t>(t * 10 + i % 7), b = static_cast<int8_t>(i % 5);
        std::memset((*exec)->GetInput(0)->data, b, 4);
        std::memset((*exec)->GetInput(1)->data, a, 4);
        if (!(*exec)->Run().ok()) { ++failures[t]; continue; }
        const int8_t* o0 = static_cast<const int8_t*>((*exec)->GetOutput(0)->data);
        const int32_t* o1 = static_cast<const int32_t*>((*exec)->GetOutput(1)->data);
        for (int k = 0; k < 4; ++k) failures[t] += o0[k] != static_cast<int8_t>(a + b + k + 1);
        failures[t] += *o1 != 4 * (a - b);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

TEST(TvmUpgradeTest, UpgradingTwiceGivesIdenticalBytes) {
  for (const auto& [name, files] : std::vector<std::pair<std::string, Files>>{
           {"twice_multi", tvm_testing::MultiV7()}, {"twice_arm", tvm_testing::ArmV7()},
           {"twice_graph", tvm_testing::GraphChainV6()}}) {
    const std::string tvm = WriteTvm(name, files);
    const std::string a = Upgrade(tvm, "a.tar"), b = Upgrade(tvm, "b.tar");
    EXPECT_EQ(ReadFile(a), ReadFile(b)) << name;
    UpgradeOptions gz;
    gz.compression = Compression::kGzip;
    EXPECT_EQ(ReadFile(Upgrade(tvm, "a.tar.gz", gz)), ReadFile(Upgrade(tvm, "b.tar.gz", gz))) << name;
  }
}

TEST(TvmUpgradeTest, PrefixesAndAppendedMembersAreKept) {
  tvm_testing::TarLayout layout;
  tvm_testing::TarMember readme;
  readme.name = "README.txt";
  readme.data = "added later\n";
  readme.uid = 1000;
  layout.appended.push_back(readme);
  const std::string tvm = WriteTvm("appended", tvm_testing::DenseV7(), layout);
  const std::string v8 = Upgrade(tvm, "v8.tar");
  Result<VerifyReport> report = VerifyArchive(v8, VerifyOptions{});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->metadata.files.at("src/tvm/README.txt").size, 12u);
  EXPECT_EQ(RunHost(v8, "default", {Raw(tvm_testing::DenseInput())}),
            Buffers{Raw(tvm_testing::DenseExpected())});
}

// ------------------------------------------------------------- refusals --

std::string UpgradeError(const std::string& in, const std::string& out) {
  Result<UpgradeResult> r = UpgradeTvmArchive(in, out, UpgradeOptions{});
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

TEST(TvmUpgradeTest, RefusesWhatAVersion8ArchiveCannotRun) {
  Files shared = tvm_testing::GraphV6();
  nlohmann::json g = nlohmann::json::parse(shared.at("executor-config/graph/graph.json"));
  g["attrs"]["storage_id"][1][4] = 1;  // the output in p0's storage
  shared["executor-config/graph/graph.json"] = g.dump();
  const std::string graph = WriteTvm("refuse_graph", shared);
  EXPECT_EQ(UpgradeError(graph, graph + ".v8"),
            "module 'default': executor-config/graph/graph.json: storage 1 holds a parameter and "
            "other tensors; parameters are read only, so their storage cannot be shared");
  const std::string op = WriteTvm("refuse_operator", tvm_testing::OperatorV5());
  EXPECT_EQ(UpgradeError(op, op + ".v8"),
            "cannot upgrade '" + op + "': module 'add' (TVM metadata version 5) is operator style: "
            "TVM operators over named buffers, without a model entry point, and TVM's metadata "
            "does not say which buffers they write; an mlfkit module is a full model whose "
            "inputs and outputs are distinct tensors, so upgrade would have to guess. mlf run and "
            "mlf project take the original archive (every buffer is an input and an output "
            "there)");
  Files no_relay = tvm_testing::DenseV7();
  no_relay.erase("src/default.relay");
  for (const std::string& in : {graph, op}) EXPECT_FALSE(Exists(in + ".v8"));
  // Shapes the archive does not say are written flat (issue 16), as mlf run shows them.
  const std::string unknown = WriteTvm("flat_unknown_shape", no_relay);
  EXPECT_TRUE(Exists(Upgrade(unknown, "flat_unknown_shape.v8.tar")));
}

TEST(TvmUpgradeTest, RefusesVersion8AndNonTvmInput) {
  const std::string v8 = Upgrade(WriteTvm("refuse_v8", tvm_testing::ScaleV5()), "v8.tar");
  EXPECT_EQ(UpgradeError(v8, v8 + ".again"),
            "'" + v8 + "' is already an mlfkit archive: there is nothing to upgrade");
  const std::string garbage = FreshDir("up_garbage") + "/garbage.tar";
  WriteFile(garbage, std::string(2048, 'x'));
  EXPECT_EQ(UpgradeError(garbage, garbage + ".v8"),
            "'" + garbage + "' is not a TVM Model Library Format archive (metadata version 5, 6 or "
            "7): '" + garbage + "' is not recognised, not a tar archive (accepted: tar, optionally "
            "gzip- or zstd-compressed)");
  EXPECT_FALSE(Exists(v8 + ".again"));
  EXPECT_FALSE(Exists(garbage + ".v8"));
}

TEST(TvmUpgradeTest, FailureLeavesAnExistingOutputIntact) {
  const std::string graph = WriteTvm("intact", tvm_testing::OperatorV5());
  const std::string out = graph + ".v8";
  WriteFile(out, "previous contents");
  UpgradeError(graph, out);
  EXPECT_EQ(ReadFile(out), "previous contents");
}

// --------------------------------------------------------------- Arm / CLI --

TEST(TvmUpgradeCliTest, HelpUsageAndExitCodes) {
  CommandResult help = Mlf({"upgrade", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out.rfind("usage: mlf upgrade ARCHIVE -o OUT [--no-host-lib] [--compress none|gzip|zstd]\n", 0), 0u);
  CommandResult overview = Mlf({"help"});
  EXPECT_NE(overview.out.find("  upgrade   rewrite a TVM archive (metadata 5-7) as an mlfkit archive\n"),
            std::string::npos);
  CommandResult no_out = Mlf({"upgrade", "x.tar"});
  EXPECT_EQ(no_out.exit_code, 2);
  EXPECT_EQ(no_out.err.rfind("mlf: error: missing required option '-o OUT'\n", 0), 0u);
  CommandResult bad = Mlf({"upgrade", "x.tar", "-o", "y.tar", "--compress", "bz2"});
  EXPECT_EQ(bad.exit_code, 2);
  const std::string op = WriteTvm("cli_operator", tvm_testing::OperatorV5());
  CommandResult refused = Mlf({"upgrade", op, "-o", op + ".v8"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.err.rfind("mlf: error: cannot upgrade '" + op + "': module 'add'", 0), 0u);
}

TEST(TvmUpgradeCliTest, UpgradeVerifyInspectRun) {
  const std::string dir = FreshDir("up_cli");
  const std::string tvm = WriteTvm("cli_dense", tvm_testing::DenseV7());
  CommandResult up = Mlf({"upgrade", tvm, "-o", dir + "/v8.tar"});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  EXPECT_EQ(up.out,
            "note: module 'default': codegen/host/src/default_lib0.c: tvmgen_default_run renamed "
            "tvmgen_default_tvm_run\nupgraded 1 module(s) to version 9: " + dir + "/v8.tar\n");
  CommandResult verify = Mlf({"verify", dir + "/v8.tar"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  CommandResult inspect = Mlf({"inspect", dir + "/v8.tar", "--json"});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  const nlohmann::json doc = nlohmann::json::parse(inspect.out);
  const nlohmann::json& m = doc["metadata"]["modules"]["default"];
  EXPECT_EQ(m["inputs"][0]["shape"], nlohmann::json({1, 4}));
  EXPECT_EQ(m["outputs"][0]["shape"], nlohmann::json({1, 3}));

  NpyArray x;
  x.dtype = DType::kFloat32;
  x.shape = {1, 4};
  x.data = Raw(tvm_testing::DenseInput());
  WriteFile(dir + "/x.npy", SerializeNpy(x));
  CommandResult run = Mlf({"run", dir + "/v8.tar", "--input", "serving_default_input_1:0=" + dir + "/x.npy",
                           "--output-dir", dir + "/out"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Result<NpyArray> y = ParseNpy(ReadFile(dir + "/out/output.npy"));
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->shape, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(y->data, Raw(tvm_testing::DenseExpected()));
}

TEST(TvmUpgradeCliTest, ArmArchiveHasNoHostLibraryAndRunsAsFirmware) {
  const std::string dir = FreshDir("up_arm");
  const std::string tvm = WriteTvm("cli_arm", tvm_testing::ArmV7());
  CommandResult up = Mlf({"upgrade", tvm, "-o", dir + "/v8.tar"});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  EXPECT_NE(up.out.find("note: module 'default': no host library: its code needs target cortex-m4 "
                        "(codegen/host/src/default_lib1.c includes <arm_acle.h>); build it for that "
                        "target with mlf project\n"),
            std::string::npos)
      << up.out;
  CommandResult verify = Mlf({"verify", dir + "/v8.tar"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;

  NpyArray x;
  x.dtype = DType::kInt8;
  x.shape = {1, 4};
  x.data = Raw(std::vector<int8_t>{3, 5, -7, 2});
  WriteFile(dir + "/x.npy", SerializeNpy(x));
  CommandResult fw = Mlf({"project", dir + "/v8.tar", "-o", dir + "/fw", "--platform", "mps2-an386",
                          "--sample-input", "input=" + dir + "/x.npy", "--run"});
  ASSERT_EQ(fw.exit_code, 0) << fw.out << fw.err;
  // 3*1 + 5*-1 + -7*2 + 2*-2 = -20
  EXPECT_NE(fw.out.find("output output 1 -20\n"), std::string::npos) << fw.out;
}

}  // namespace
}  // namespace mlf
