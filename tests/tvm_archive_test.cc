// TVM-layout archives (metadata versions 5, 6, 7; built by the fixtures in
// tests/tvm_fixtures) through the readers, verify and the host loader:
// normalisation, what verify proves and refuses, and runs on this host
// checked against hand-computed values.
#include <algorithm>
#include <cstring>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "artifact/archive/archive_source.h"
#include "artifact/archive/read_metadata.h"
#include "artifact/archive/verify.h"
#include "loader/host/model_library.h"
#include "tests/tar_builder.h"
#include "tests/test_files.h"
#include "tests/test_tensors.h"
#include "tests/tvm_fixtures/tvm_fixtures.h"
#include "tvm/tvm.h"

namespace mlf {
namespace {

using testing::DlView;

using tvm_testing::Files;
using tvm_testing::TarLayout;
using tvm_testing::TarMember;

std::string Write(const std::string& name, const Files& files, const TarLayout& layout = {}) {
  const std::string path = FreshDir("tvm_" + name) + "/" + name + ".tar";
  tvm_testing::WriteTvmArchive(path, files, layout);
  return path;
}

Result<VerifyReport> Verify(const std::string& path, MemberConsumer* consumer = nullptr) {
  VerifyOptions options;
  options.foreign_format = &tvm_wing::ArchiveFormat();
  return VerifyArchive(path, options, consumer);
}

// Reads an archive's head as `mlf inspect` does, TVM's format wired in.
Result<ArchiveHead> Head(const std::string& path) {
  return ReadArchiveHead(path, {}, &tvm_wing::ArchiveFormat());
}

LoadOptions Load() {
  LoadOptions options;
  options.foreign_modules = &tvm_wing::HostModules();
  options.cache_dir = std::string(std::getenv("TEST_TMPDIR")) + "/cache";
  return options;
}

TarMember Appended(const std::string& name, const std::string& data) {
  TarMember m;
  m.name = name;
  m.data = data;
  m.uid = m.gid = 1000;
  m.uname = m.gname = "builder";
  m.gnu = true;
  m.mtime = 1700000000;
  return m;
}

// The layouts every fixture is read in: as Python's tarfile wrote it ("./"
// names, directory members, uid 0) and with later members appended by another
// user and tool; with plain names owned by a user.
std::vector<std::pair<std::string, TarLayout>> Layouts() {
  TarLayout tarfile;
  TarLayout appended;
  appended.appended = {Appended("README.txt", "notes added after export\n"),
                       Appended("./extra/checksums.txt", "none\n")};
  TarLayout plain;
  plain.tarfile_style = false;
  plain.uid = 1000;
  plain.uname = "alice";
  return {{"tarfile", tarfile}, {"appended", appended}, {"plain", plain}};
}

std::vector<std::pair<std::string, Files>> AllFixtures() {
  return {{"dense_v7", tvm_testing::DenseV7()},   {"pair_v7", tvm_testing::PairV7()},
          {"multi_v7", tvm_testing::MultiV7()},   {"scale_v5", tvm_testing::ScaleV5()},
          {"graph_v6", tvm_testing::GraphV6()},   {"operator_v5", tvm_testing::OperatorV5()},
          {"arm_v7", tvm_testing::ArmV7()},       {"bundled_v7", tvm_testing::BundledV7()}};
}

TEST(TvmArchiveTest, EveryFixtureInEveryLayoutIsReadAndVerified) {
  for (const auto& [name, files] : AllFixtures()) {
    for (const auto& [layout_name, layout] : Layouts()) {
      SCOPED_TRACE(name + " / " + layout_name);
      const std::string path = Write(name + "_" + layout_name, files, layout);
      Result<ArchiveHead> head = Head(path);
      ASSERT_TRUE(head.ok()) << head.status().ToString();
      ASSERT_TRUE(head->foreign.has_value());
      EXPECT_TRUE(head->foreign->problems.empty()) << JoinForeignProblems(head->foreign->problems).ToString();
      Result<VerifyReport> report = Verify(path);
      ASSERT_TRUE(report.ok()) << report.status().ToString();
      ASSERT_TRUE(report->foreign.has_value());
      EXPECT_TRUE(report->metadata.is_tvm());
      EXPECT_FALSE(report->is_signed);
      // `files`: every member but metadata.json, with computed digests.
      std::set<std::string> expected;
      for (const auto& [path_in, data] : files) {
        if (path_in != "metadata.json") expected.insert(path_in);
      }
      for (const TarMember& m : layout.appended) {
        expected.insert(m.name.rfind("./", 0) == 0 ? m.name.substr(2) : m.name);
      }
      std::set<std::string> listed;
      for (const auto& [member, entry] : report->metadata.files) {
        listed.insert(member);
        EXPECT_EQ(entry.sha256.size(), 64u);
      }
      EXPECT_EQ(listed, expected);
      EXPECT_EQ(report->member_count, expected.size() + 1);
      std::vector<std::string> unreferenced = report->foreign->unreferenced;
      if (layout_name == "appended") {
        EXPECT_EQ(unreferenced, (std::vector<std::string>{"README.txt", "extra/checksums.txt"}));
      } else {
        EXPECT_TRUE(unreferenced.empty()) << ::testing::PrintToString(unreferenced);
      }
    }
  }
}

// gzip and zstd, and metadata.json first (a TVM archive repacked by hand):
// read, verified and run the same.
TEST(TvmArchiveTest, CompressedAndReorderedArchivesAreReadToo) {
  const std::string dir = FreshDir("tvm_compressed");
  std::vector<TarMember> members = tvm_testing::LayoutMembers(tvm_testing::DenseV7(), TarLayout{});
  const std::string tar = tvm_testing::BuildTar(members);
  WriteFile(dir + "/dense.tar.gz", GzipCompress(tar));
  WriteFile(dir + "/dense.tar.zst", ZstdCompress(tar));
  std::stable_partition(members.begin(), members.end(),
                        [](const TarMember& m) { return m.name == "./metadata.json"; });
  WriteFile(dir + "/first.tar", tvm_testing::BuildTar(members));
  for (const char* name : {"dense.tar.gz", "dense.tar.zst", "first.tar"}) {
    SCOPED_TRACE(name);
    Result<VerifyReport> report = Verify(dir + "/" + name);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->metadata.modules.at("default").inputs[0].shape, (std::vector<int64_t>{1, 4}));
    Result<std::shared_ptr<ModelLibrary>> lib = ModelLibrary::Open(dir + "/" + name, Load());
    ASSERT_TRUE(lib.ok()) << lib.status().ToString();
    Result<std::unique_ptr<AotExecutor>> exec = (*lib)->CreateExecutor("default");
    ASSERT_TRUE(exec.ok()) << exec.status().ToString();
    std::vector<float> x = tvm_testing::DenseInput();
    const float* in = x.data();
    Result<DLTensor> slot = (*exec)->GetInput(0);
    ASSERT_TRUE(slot.ok());
    std::memcpy(slot->data, in, 16);
    ASSERT_TRUE((*exec)->Run().ok());
    Result<DLTensor> out = (*exec)->GetOutput(0);
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(std::vector<float>(static_cast<float*>(out->data), static_cast<float*>(out->data) + 3),
              tvm_testing::DenseExpected());
  }
  EXPECT_EQ(Verify(dir + "/dense.tar.gz")->compression, Compression::kGzip);
}

TEST(TvmArchiveTest, DenseIsNormalised) {
  Result<ArchiveHead> head = Head(Write("dense", tvm_testing::DenseV7()));
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  const Metadata& md = head->metadata;
  EXPECT_EQ(md.version, 7);
  const ModuleMetadata& m = md.modules.at("default");
  EXPECT_EQ(m.style, ModuleStyle::kFullModel);
  EXPECT_EQ(ExecutorNames(m.executors), std::vector<std::string>{"aot"});
  EXPECT_EQ(m.interface_api, InterfaceApi::kC);
  ASSERT_EQ(m.inputs.size(), 1u);
  EXPECT_EQ(m.inputs[0].name, "serving_default_input_1:0");
  EXPECT_EQ(m.inputs[0].c_name, "serving_default_input_1_0");
  EXPECT_TRUE(m.inputs[0].dtype == DType::kFloat32);
  EXPECT_EQ(m.inputs[0].shape, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(m.inputs[0].size_bytes, 16u);
  ASSERT_EQ(m.outputs.size(), 1u);
  EXPECT_EQ(m.outputs[0].name, "output");
  EXPECT_EQ(m.outputs[0].shape, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(m.memory.workspace_size_bytes, 32u);
  EXPECT_EQ(m.memory.constants_size_bytes, 60u);
  const TvmModuleInfo& tvm = *m.tvm;
  EXPECT_EQ(tvm.executor, Executor::kAot);
  EXPECT_EQ(tvm.run_function, "tvmgen_default_run");
  EXPECT_EQ(tvm.main_function, "tvmgen_default___tvm_main__");
  EXPECT_EQ(tvm.shapes_from, ShapesFrom::kRelay);
  EXPECT_EQ(tvm.relay_path, "src/default.relay");
  EXPECT_EQ(tvm.header_path, "codegen/host/include/tvmgen_default.h");
  EXPECT_EQ(tvm.operator_functions.size(), 2u);
  EXPECT_TRUE(tvm.foreign_target.empty());
  ASSERT_TRUE(m.parameters.has_value());
  EXPECT_EQ(m.parameters->storage, ParamStorage::kTvmParams);
  EXPECT_EQ(m.parameters->path, "parameters/default.params");
  ASSERT_EQ(m.parameters->tensors.size(), 2u);
  EXPECT_EQ(m.parameters->tensors[0].name, "_param_1");
  EXPECT_EQ(m.parameters->tensors[0].shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(m.parameters->tensors[1].name, "_param_2");
  EXPECT_EQ(m.sources, (std::vector<std::string>{"codegen/host/src/default_lib0.c",
                                                 "codegen/host/src/default_lib1.c"}));
}

TEST(TvmArchiveTest, GraphExecutorAndOperatorStyleAreNormalised) {
  Result<ArchiveHead> graph = Head(Write("graph", tvm_testing::GraphV6()));
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  const ModuleMetadata& g = graph->metadata.modules.at("default");
  EXPECT_EQ(g.tvm->executor, Executor::kGraph);
  EXPECT_EQ(g.interface_api, InterfaceApi::kPacked);
  EXPECT_EQ(g.tvm->shapes_from, ShapesFrom::kGraph);
  EXPECT_EQ(g.tvm->graph_path, "executor-config/graph/graph.json");
  ASSERT_EQ(g.inputs.size(), 1u);  // p0, p1, p2 are parameters
  EXPECT_EQ(g.inputs[0].name, "x");
  EXPECT_EQ(g.inputs[0].shape, (std::vector<int64_t>{1, 4}));
  ASSERT_EQ(g.outputs.size(), 1u);
  EXPECT_EQ(g.outputs[0].name, "output");
  EXPECT_EQ(g.outputs[0].shape, (std::vector<int64_t>{1, 3}));
  ASSERT_EQ(g.parameters->tensors.size(), 3u);
  EXPECT_EQ(g.parameters->tensors[2].name, "p2");
  EXPECT_TRUE(g.parameters->tensors[2].dtype == DType::kInt32);
  EXPECT_EQ(g.tvm->sids.size(), 5u);
  EXPECT_EQ(g.tvm->sids[1].input_binding, "p0");

  Result<ArchiveHead> op = Head(Write("operator", tvm_testing::OperatorV5()));
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  const ModuleMetadata& o = op->metadata.modules.at("add");
  EXPECT_EQ(o.style, ModuleStyle::kOperator);
  EXPECT_TRUE(o.inputs.empty());
  EXPECT_EQ(o.sources, std::vector<std::string>{"codegen/host/src/lib0.c"});
  ASSERT_EQ(o.tvm->operator_buffers.size(), 3u);
  EXPECT_EQ(o.tvm->operator_buffers[2].binding, "C");
}

TEST(TvmArchiveTest, ForeignCodeIsRecognised) {
  Result<ArchiveHead> head = Head(Write("arm", tvm_testing::ArmV7()));
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  const ModuleMetadata& m = head->metadata.modules.at("default");
  EXPECT_EQ(m.target.mcpu, "cortex-m4");
  EXPECT_EQ(m.tvm->foreign_target, "cortex-m4");
  EXPECT_EQ(m.tvm->foreign_evidence, "codegen/host/src/default_lib1.c includes <arm_acle.h>");
  EXPECT_EQ(m.tvm->external_headers, std::vector<std::string>{"arm_acle.h"});
}

// ------------------------------------------------------------ verify fails --

Status VerifyStatus(const std::string& name, const Files& files, VerifyOptions options = {}) {
  if (!options.require_signature) options.foreign_format = &tvm_wing::ArchiveFormat();
  Result<VerifyReport> r = VerifyArchive(Write(name, files), options);
  return r.ok() ? Status::Ok() : r.status();
}

TEST(TvmVerifyTest, MissingReferencedFilesAreRefused) {
  Files no_header = tvm_testing::DenseV7();
  no_header.erase("codegen/host/include/tvmgen_default.h");
  Status s = VerifyStatus("no_header", no_header);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(),
            "module 'default': codegen/host/src/default_lib0.c includes <tvmgen_default.h>, which "
            "is not in the archive");

  Files no_params = tvm_testing::GraphV6();
  no_params.erase("parameters/default.params");
  s = VerifyStatus("no_params", no_params);
  EXPECT_EQ(s.message(),
            "module 'default': it runs on TVM's graph executor, which needs "
            "parameters/default.params, and the archive has none");

  Files no_graph = tvm_testing::GraphV6();
  no_graph.erase("executor-config/graph/graph.json");
  s = VerifyStatus("no_graph", no_graph);
  EXPECT_NE(s.message().find("needs executor-config/graph/default.graph, and the archive has none"),
            std::string::npos)
      << s.message();

  Files no_code = tvm_testing::ScaleV5();
  no_code.erase("codegen/host/src/default_lib0.c");
  no_code.erase("codegen/host/src/default_lib1.c");
  s = VerifyStatus("no_code", no_code);
  EXPECT_EQ(s.message(),
            "module 'default': the archive has no generated code for it (no "
            "codegen/host/src/default_lib<N>.c)");

  Files bad_params = tvm_testing::GraphV6();
  bad_params["parameters/default.params"].resize(40);
  s = VerifyStatus("bad_params", bad_params);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("module 'default': parameters/default.params: .params: "),
            std::string::npos)
      << s.message();
}

TEST(TvmVerifyTest, SchemaAndSignatureRefusals) {
  Files bad = tvm_testing::ScaleV5();
  bad["metadata.json"].replace(bad["metadata.json"].find("\"version\": 5"), 12, "\"version\": 6");
  Status s = VerifyStatus("v6_with_dict_target", bad);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().rfind("metadata.json does not match the TVM version 6 schema: /target", 0), 0u)
      << s.message();

  VerifyOptions signed_only;
  signed_only.foreign_format = &tvm_wing::ArchiveFormat();
  signed_only.require_signature = true;
  s = VerifyStatus("require_signature", tvm_testing::DenseV7(), signed_only);
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(s.message(),
            "TVM Model Library Format archive (metadata version 7): TVM archives carry no digests "
            "and no signature, but a signature is required");

  VerifyOptions v8_only;  // no foreign_format: callers that only read mlfkit archives
  Result<VerifyReport> r = VerifyArchive(Write("v8_only", tvm_testing::DenseV7()), v8_only);
  EXPECT_EQ(r.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(r.status().message(),
            "TVM Model Library Format archive (metadata version 7): this operation reads mlfkit "
            "archives only (mlf inspect, mlf verify and mlf run read TVM archives)");

  // An archive whose metadata.json is not first and not TVM's keeps the
  // mlfkit error.
  Files v8ish = tvm_testing::DenseV7();
  v8ish["metadata.json"] = "{\"version\": 8}";
  s = VerifyStatus("v8_not_first", v8ish);
  EXPECT_EQ(s.message(), "first member is 'codegen/host/include/tvmgen_default.h', expected "
                         "metadata.json (is this a Model Library Format archive?)");
}

// A consumer sees OnMetadata (the completed model) first, then every member
// once, metadata.json included, at its place.
class Recorder : public MemberConsumer {
 public:
  Status OnMetadata(const Metadata& md) override {
    events.push_back("metadata:" + std::to_string(md.modules.at("default").inputs.size()));
    return Status::Ok();
  }
  Status Begin(const EntryInfo& e) override {
    events.push_back(e.name);
    bytes[e.name];
    current = e.name;
    return Status::Ok();
  }
  Status Data(const void* d, size_t n) override {
    bytes[current].append(static_cast<const char*>(d), n);
    return Status::Ok();
  }
  Status End() override { return Status::Ok(); }
  std::vector<std::string> events;
  std::map<std::string, std::string> bytes;
  std::string current;
};

TEST(TvmVerifyTest, ConsumersSeeTheCompletedModelThenEveryMember) {
  const Files files = tvm_testing::DenseV7();
  Recorder recorder;
  Result<VerifyReport> r = Verify(Write("consumer", files), &recorder);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(recorder.events.empty());
  EXPECT_EQ(recorder.events[0], "metadata:1");
  EXPECT_EQ(recorder.events.size(), files.size() + 1);
  for (const auto& [path, data] : files) EXPECT_EQ(recorder.bytes[path], data) << path;
}

// ------------------------------------------------------------- host runs --

template <typename T>
std::vector<T> Output(const AotExecutor& exec, int index, size_t count) {
  Result<DLTensor> out = exec.GetOutput(index);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  const T* p = static_cast<const T*>(out->data);
  return std::vector<T>(p, p + count);
}

TEST(TvmRunTest, DenseRunsWithTheWorkspaceAllocator) {
  for (const auto& [layout_name, layout] : Layouts()) {
    SCOPED_TRACE(layout_name);
    Result<std::shared_ptr<ModelLibrary>> lib =
        ModelLibrary::Open(Write("run_dense_" + layout_name, tvm_testing::DenseV7(), layout), Load());
    ASSERT_TRUE(lib.ok()) << lib.status().ToString();
    Result<std::unique_ptr<AotExecutor>> exec = (*lib)->CreateExecutor("default");
    ASSERT_TRUE(exec.ok()) << exec.status().ToString();
    EXPECT_EQ((*exec)->workspace_bytes(), 32u);
    std::vector<float> x = tvm_testing::DenseInput();
    std::vector<int64_t> shape = {1, 4};
    ASSERT_TRUE((*exec)->SetInput("serving_default_input_1:0", DlView(x.data(), {kDLFloat, 32, 1}, shape)).ok());
    Status run = (*exec)->Run();
    ASSERT_TRUE(run.ok()) << run.ToString();
    EXPECT_EQ(Output<float>(**exec, 0, 3), tvm_testing::DenseExpected());
    // Runs again, same result: every workspace allocation was freed.
    ASSERT_TRUE((*exec)->Run().ok());
    EXPECT_EQ(Output<float>(**exec, 0, 3), tvm_testing::DenseExpected());
  }
}

TEST(TvmRunTest, CompiledOnceThroughTheCache) {
  const std::string path = Write("cache", tvm_testing::ScaleV5());
  LoadOptions options = Load();
  options.cache_dir = FreshDir("tvm_cache_dir") + "/cache";  // created private by the loader
  Result<std::shared_ptr<ModelLibrary>> first = ModelLibrary::Open(path, options);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ((*first)->code_origin("default"), "compiled");
  Result<std::shared_ptr<ModelLibrary>> second = ModelLibrary::Open(path, options);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ((*second)->code_origin("default"), "cache");
}

TEST(TvmRunTest, OlderRunModelNamingRuns) {
  Result<std::shared_ptr<ModelLibrary>> lib = ModelLibrary::Open(Write("run_scale", tvm_testing::ScaleV5()), Load());
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  EXPECT_EQ((*lib)->metadata().modules.at("default").tvm->main_function, "tvmgen_default_run_model");
  Result<std::unique_ptr<AotExecutor>> exec = (*lib)->CreateExecutor("default");
  ASSERT_TRUE(exec.ok()) << exec.status().ToString();
  std::vector<float> x = tvm_testing::ScaleInput();
  std::vector<int64_t> shape = {2, 2};
  ASSERT_TRUE((*exec)->SetInput(0, DlView(x.data(), {kDLFloat, 32, 1}, shape)).ok());
  ASSERT_TRUE((*exec)->Run().ok());
  EXPECT_EQ(Output<float>(**exec, 0, 4), tvm_testing::ScaleExpected());
}

TEST(TvmRunTest, TwoModulesInOneArchiveWithUsmpPools) {
  Result<std::shared_ptr<ModelLibrary>> lib = ModelLibrary::Open(Write("run_multi", tvm_testing::MultiV7()), Load());
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  EXPECT_EQ((*lib)->module_names(), (std::vector<std::string>{"default", "second"}));
  Result<std::unique_ptr<AotExecutor>> pair = (*lib)->CreateExecutor("second");
  ASSERT_TRUE(pair.ok()) << pair.status().ToString();
  // Calling order is the header's (b_in, a_in), not metadata's alphabetical one.
  EXPECT_EQ((*pair)->input_info(0)->name, "b_in");
  EXPECT_EQ((*pair)->input_info(1)->name, "a_in");
  std::vector<int8_t> a = tvm_testing::PairA(), b = tvm_testing::PairB();
  std::vector<int64_t> shape = {4};
  ASSERT_TRUE((*pair)->SetInput("a_in", DlView(a.data(), {kDLInt, 8, 1}, shape)).ok());
  ASSERT_TRUE((*pair)->SetInput("b_in", DlView(b.data(), {kDLInt, 8, 1}, shape)).ok());
  Status run = (*pair)->Run();
  ASSERT_TRUE(run.ok()) << run.ToString();
  EXPECT_EQ(Output<int8_t>(**pair, 0, 4), tvm_testing::PairExpected0());
  EXPECT_EQ(Output<int32_t>(**pair, 1, 1), std::vector<int32_t>{tvm_testing::PairExpected1()});
  EXPECT_EQ((*pair)->output_info(1)->shape, std::vector<int64_t>{1});

  Result<std::unique_ptr<AotExecutor>> dense = (*lib)->CreateExecutor("default");
  ASSERT_TRUE(dense.ok()) << dense.status().ToString();
  std::vector<float> x = tvm_testing::DenseInput();
  std::vector<int64_t> dshape = {1, 4};
  ASSERT_TRUE((*dense)->SetInput(0, DlView(x.data(), {kDLFloat, 32, 1}, dshape)).ok());
  ASSERT_TRUE((*dense)->Run().ok());
  EXPECT_EQ(Output<float>(**dense, 0, 3), tvm_testing::DenseExpected());
}

TEST(TvmRunTest, BundledRuntimeHeadersAreUsed) {
  Result<std::shared_ptr<ModelLibrary>> lib = ModelLibrary::Open(Write("run_bundled", tvm_testing::BundledV7()), Load());
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();  // the code #errors without them
  EXPECT_TRUE((*lib)->metadata().modules.at("default").tvm->bundled_runtime);
  Result<std::unique_ptr<AotExecutor>> exec = (*lib)->CreateExecutor("default");
  ASSERT_TRUE(exec.ok()) << exec.status().ToString();
  std::vector<float> x = tvm_testing::DenseInput();
  std::vector<int64_t> shape = {1, 4};
  ASSERT_TRUE((*exec)->SetInput(0, DlView(x.data(), {kDLFloat, 32, 1}, shape)).ok());
  ASSERT_TRUE((*exec)->Run().ok());
  EXPECT_EQ(Output<float>(**exec, 0, 3), tvm_testing::DenseExpected());
}

TEST(TvmRunTest, TooSmallAWorkspaceFailsTheRunWithTheReason) {
  Files files = tvm_testing::DenseV7();
  std::string& md = files["metadata.json"];
  md.replace(md.find("\"workspace_size_bytes\": 32"), 26, "\"workspace_size_bytes\": 31");
  Result<std::shared_ptr<ModelLibrary>> lib = ModelLibrary::Open(Write("small_ws", files), Load());
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  Result<std::unique_ptr<AotExecutor>> exec = (*lib)->CreateExecutor("default");
  ASSERT_TRUE(exec.ok()) << exec.status().ToString();
  Status run = (*exec)->Run();
  EXPECT_EQ(run.code(), StatusCode::kInternal);
  EXPECT_EQ(run.message(),
            "module 'default': tvmgen_default_run returned -1: TVMBackendAllocWorkspace: workspace "
            "exhausted: 12 bytes requested, 16 of 31 bytes in use (metadata "
            "memory.functions.main[0].workspace_size_bytes)");
}

TEST(TvmRunTest, ConcurrentExecutorsGetTheirOwnResults) {
  Result<std::shared_ptr<ModelLibrary>> lib = ModelLibrary::Open(Write("concurrent", tvm_testing::MultiV7()), Load());
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  std::vector<std::thread> threads;
  std::vector<int> failures(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      const bool dense = t % 2 == 0;
      auto exec = (*lib)->CreateExecutor(dense ? "default" : "second");
      if (!exec.ok()) {
        ++failures[t];
        return;
      }
      for (int i = 0; i < 300; ++i) {
        if (dense) {
          std::vector<float> x = {static_cast<float>(i), 0, 0, static_cast<float>(t)};
          std::vector<int64_t> shape = {1, 4};
          (*exec)->SetInput(0, DlView(x.data(), {kDLFloat, 32, 1}, shape)).ok();
          // W row 1 is all ones: output[1] = relu(i + t - 3).
          const float want = std::max(0.0f, static_cast<float>(i + t) - 3.0f);
          if (!(*exec)->Run().ok() || Output<float>(**exec, 0, 3)[1] != want) ++failures[t];
        } else {
          std::vector<int8_t> a = {static_cast<int8_t>(i % 100), 0, 0, static_cast<int8_t>(t)};
          std::vector<int8_t> b = {0, 0, 0, 0};
          std::vector<int64_t> shape = {4};
          (*exec)->SetInput("a_in", DlView(a.data(), {kDLInt, 8, 1}, shape)).ok();
          (*exec)->SetInput("b_in", DlView(b.data(), {kDLInt, 8, 1}, shape)).ok();
          if (!(*exec)->Run().ok() || Output<int32_t>(**exec, 1, 1)[0] != i % 100 + t) ++failures[t];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures, std::vector<int>(8, 0));
}

// The graph executor: the graph JSON becomes one C function when the
// archive is opened (tvm/compat/graph_source.h).
TEST(TvmRunTest, GraphExecutorModulesRunAsGeneratedCode) {
  const std::vector<std::pair<Files, std::vector<float>>> cases = {
      {tvm_testing::GraphV6(), tvm_testing::GraphExpected()},
      {tvm_testing::GraphSysLibV7(), tvm_testing::GraphExpected()},
      {tvm_testing::GraphChainV6(), tvm_testing::GraphChainExpected()}};
  int n = 0;
  for (const auto& [files, expected] : cases) {
    Result<std::shared_ptr<ModelLibrary>> lib =
        ModelLibrary::Open(Write("graph_run" + std::to_string(n++), files), Load());
    ASSERT_TRUE(lib.ok()) << lib.status().ToString();
    Result<std::unique_ptr<AotExecutor>> exec = (*lib)->CreateExecutor("default");
    ASSERT_TRUE(exec.ok()) << exec.status().ToString();
    ASSERT_EQ((*exec)->num_inputs(), 1);  // p0, p1, p2 are parameters
    EXPECT_EQ((*exec)->input_info(0)->name, "x");
    EXPECT_EQ((*exec)->output_info(0)->shape, (std::vector<int64_t>{1, 3}));
    std::vector<float> x = tvm_testing::DenseInput();
    std::vector<int64_t> shape = {1, 4};
    ASSERT_TRUE((*exec)->SetInput(0, DlView(x.data(), {kDLFloat, 32, 1}, shape)).ok());
    ASSERT_TRUE((*exec)->Run().ok());
    EXPECT_EQ(Output<float>(**exec, 0, 3), expected);
  }
}

TEST(TvmRunTest, GraphExecutorsRunConcurrently) {
  // The chain allocates scratch from TVMBackendAllocWorkspace in each run.
  Result<std::shared_ptr<ModelLibrary>> lib =
      ModelLibrary::Open(Write("graph_concurrent", tvm_testing::GraphChainV6()), Load());
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto exec = (*lib)->CreateExecutor("default");
      if (!exec.ok()) {
        ++failures[t];
        return;
      }
      for (int i = 0; i < 300; ++i) {
        // W row 1 is all ones, b[1] = -3: output[1] = -clip(i % 7 + t - 3, -10, 10).
        std::vector<float> x = {static_cast<float>(i % 7), 0, 0, static_cast<float>(t)};
        std::vector<int64_t> shape = {1, 4};
        (*exec)->SetInput(0, DlView(x.data(), {kDLFloat, 32, 1}, shape)).ok();
        const float want = -std::min(10.0f, static_cast<float>(i % 7 + t) - 3.0f);
        if (!(*exec)->Run().ok() || Output<float>(**exec, 0, 3)[1] != want) ++failures[t];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

TEST(TvmRunTest, AGraphTheGeneratedCodeCannotRunIsRefusedWithTheReason) {
  Files files = tvm_testing::GraphV6();
  nlohmann::json graph = nlohmann::json::parse(files.at("executor-config/graph/graph.json"));
  graph["attrs"]["storage_id"][1][4] = 1;  // the output in p0's storage
  files["executor-config/graph/graph.json"] = graph.dump();
  Result<std::shared_ptr<ModelLibrary>> lib = ModelLibrary::Open(Write("graph_shared", files), Load());
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  Result<std::unique_ptr<AotExecutor>> exec = (*lib)->CreateExecutor("default");
  EXPECT_EQ(exec.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(exec.status().message(),
            "module 'default': executor-config/graph/graph.json: storage 1 holds a parameter and "
            "other tensors; parameters are read only, so their storage cannot be shared");
}

// Operator style: every buffer is an input and an output of the same name;
// a run copies the inputs into the outputs, then calls the operator.
TEST(TvmRunTest, OperatorStyleTakesAndGivesEveryBuffer) {
  Result<std::shared_ptr<ModelLibrary>> lib =
      ModelLibrary::Open(Write("operator_run", tvm_testing::OperatorV5()), Load());
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  Result<std::unique_ptr<AotExecutor>> made = (*lib)->CreateExecutor("add");
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  AotExecutor& exec = **made;
  ASSERT_EQ(exec.num_inputs(), 3);
  ASSERT_EQ(exec.num_outputs(), 3);
  for (int i = 0; i < 3; ++i) {
    const std::string name(1, static_cast<char>('A' + i));
    EXPECT_EQ(exec.input_info(i)->name, name);
    EXPECT_EQ(exec.output_info(i)->c_name, name);
    EXPECT_EQ(exec.output_info(i)->shape, std::vector<int64_t>{4});
  }
  std::vector<float> a = {1, 2, 3, 4}, b = {10, 20, 30, 40.5f}, c = {7, 7, 7, 7};
  std::vector<int64_t> shape = {4};
  ASSERT_TRUE(exec.SetInput("A", DlView(a.data(), {kDLFloat, 32, 1}, shape)).ok());
  ASSERT_TRUE(exec.SetInput("B", DlView(b.data(), {kDLFloat, 32, 1}, shape)).ok());
  ASSERT_TRUE(exec.SetInput("C", DlView(c.data(), {kDLFloat, 32, 1}, shape)).ok());
  Status run = exec.Run();
  ASSERT_TRUE(run.ok()) << run.ToString();
  EXPECT_EQ(Output<float>(exec, 0, 4), a);
  EXPECT_EQ(Output<float>(exec, 1, 4), b);
  EXPECT_EQ(Output<float>(exec, 2, 4), (std::vector<float>{11, 22, 33, 44.5f}));
  // The inputs are not written: C is still what was set.
  const float* input_c = static_cast<const float*>(exec.GetInput(2)->data);
  EXPECT_EQ(std::vector<float>(input_c, input_c + 4), c);

  // Zero-copy with one buffer as both input and output of C: nothing to copy.
  std::vector<float> shared = {0, 0, 0, 0};
  ASSERT_TRUE(exec.SetInputZeroCopy(2, DlView(shared.data(), {kDLFloat, 32, 1}, shape)).ok());
  ASSERT_TRUE(exec.SetOutputZeroCopy(2, DlView(shared.data(), {kDLFloat, 32, 1}, shape)).ok());
  ASSERT_TRUE(exec.Run().ok());
  EXPECT_EQ(shared, (std::vector<float>{11, 22, 33, 44.5f}));
}

TEST(TvmRunTest, OperatorStyleExecutorsRunConcurrently) {
  Result<std::shared_ptr<ModelLibrary>> lib =
      ModelLibrary::Open(Write("operator_concurrent", tvm_testing::OperatorV5()), Load());
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto exec = (*lib)->CreateExecutor("add");
      if (!exec.ok()) {
        ++failures[t];
        return;
      }
      std::vector<int64_t> shape = {4};
      for (int i = 0; i < 300; ++i) {
        std::vector<float> a = {static_cast<float>(i), 1, 2, 3}, b = {static_cast<float>(t), 0, 0, 0};
        (*exec)->SetInput(0, DlView(a.data(), {kDLFloat, 32, 1}, shape)).ok();
        (*exec)->SetInput(1, DlView(b.data(), {kDLFloat, 32, 1}, shape)).ok();
        if (!(*exec)->Run().ok() || Output<float>(**exec, 2, 4)[0] != static_cast<float>(i + t)) {
          ++failures[t];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

TEST(TvmRunTest, OperatorStyleBuffersThatContradictThemselvesAreRefused) {
  Files files = tvm_testing::OperatorV5();
  nlohmann::json metadata = nlohmann::json::parse(files.at("metadata.json"));
  metadata["memory"]["add"][2]["size_bytes"] = 12;
  files["metadata.json"] = metadata.dump();
  Result<std::shared_ptr<ModelLibrary>> lib = ModelLibrary::Open(Write("operator_bad", files), Load());
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  Result<std::unique_ptr<AotExecutor>> exec = (*lib)->CreateExecutor("add");
  EXPECT_EQ(exec.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(exec.status().message(),
            "module 'add' (TVM archive, metadata version 5): buffer 'C' of add is 12 bytes, which "
            "its dtype float32 and shape [4] contradict");
}

TEST(TvmRunTest, WhatCannotRunOnThisHostIsRefusedWithTheReason) {
  struct Case {
    const char* name;
    Files files;
    const char* module;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"arm", tvm_testing::ArmV7(), "default",
       "module 'default' (TVM archive, metadata version 7) needs target cortex-m4: "
       "codegen/host/src/default_lib1.c includes <arm_acle.h>; it cannot run on this host (" +
           std::string(HostTriple()) +
           "). Build a firmware project for it: mlf project ARCHIVE -o DIR --platform mps2-an386"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Result<std::shared_ptr<ModelLibrary>> lib = ModelLibrary::Open(Write(std::string("refuse_") + c.name, c.files), Load());
    ASSERT_TRUE(lib.ok()) << lib.status().ToString();  // verified; refused when asked to run
    Result<std::unique_ptr<AotExecutor>> exec = (*lib)->CreateExecutor(c.module);
    EXPECT_EQ(exec.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(exec.status().message(), c.message);
  }

  Files no_relay = tvm_testing::ScaleV5();  // no memory inputs either: dtype unknown
  no_relay.erase("src/relay.txt");
  Result<std::shared_ptr<ModelLibrary>> lib = ModelLibrary::Open(Write("refuse_no_dtype", no_relay), Load());
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  EXPECT_EQ((*lib)->CreateExecutor("default").status().message(),
            "module 'default' (TVM archive, metadata version 5): the archive does not say the "
            "dtype of input 'input' (neither metadata.json, the Relay text nor the C types of "
            "the code's entry point say it)");

  LoadOptions keyed = Load();
  keyed.require_signature = true;
  EXPECT_EQ(ModelLibrary::Open(Write("refuse_unsigned", tvm_testing::DenseV7()), keyed).status().code(),
            StatusCode::kUnauthenticated);
}

TEST(TvmRunTest, UnknownShapesRunFlat) {
  Files files = tvm_testing::DenseV7();  // metadata has dtype and size; no Relay text
  files.erase("src/default.relay");
  Result<std::shared_ptr<ModelLibrary>> lib = ModelLibrary::Open(Write("flat", files), Load());
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  Result<std::unique_ptr<AotExecutor>> exec = (*lib)->CreateExecutor("default");
  ASSERT_TRUE(exec.ok()) << exec.status().ToString();
  EXPECT_EQ((*exec)->input_info(0)->shape, std::vector<int64_t>{4});
  EXPECT_EQ((*exec)->output_info(0)->shape, std::vector<int64_t>{3});
  std::vector<float> x = tvm_testing::DenseInput();
  std::vector<int64_t> shape = {4};
  ASSERT_TRUE((*exec)->SetInput(0, DlView(x.data(), {kDLFloat, 32, 1}, shape)).ok());
  ASSERT_TRUE((*exec)->Run().ok());
  EXPECT_EQ(Output<float>(**exec, 0, 3), tvm_testing::DenseExpected());
}

// A TVM archive is read from its start more than once (scanned, then
// checked); from memory that works as from a file, through read_metadata,
// verify and the loader.
TEST(TvmRunTest, DenseRunsFromMemory) {
  const std::string bytes = ReadFile(Write("memory_dense", tvm_testing::DenseV7()));
  ASSERT_FALSE(bytes.empty());
  std::unique_ptr<ArchiveSource> source = ArchiveSource::Memory(bytes, "dense (memory)");
  Result<ArchiveHead> head = ReadArchiveHead(*source, {}, &tvm_wing::ArchiveFormat());
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_TRUE(head->foreign.has_value());
  VerifyOptions options;
  options.foreign_format = &tvm_wing::ArchiveFormat();
  Result<VerifyReport> report = VerifyArchive(*source, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->metadata.version, 7);
  Result<std::shared_ptr<ModelLibrary>> lib = ModelLibrary::Open(*source, Load());
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  Result<std::unique_ptr<AotExecutor>> exec = (*lib)->CreateExecutor("default");
  ASSERT_TRUE(exec.ok()) << exec.status().ToString();
  std::vector<float> x = tvm_testing::DenseInput();
  std::vector<int64_t> shape = {1, 4};
  ASSERT_TRUE((*exec)->SetInput("serving_default_input_1:0", DlView(x.data(), {kDLFloat, 32, 1}, shape)).ok());
  ASSERT_TRUE((*exec)->Run().ok());
  EXPECT_EQ(Output<float>(**exec, 0, 3), tvm_testing::DenseExpected());
}

}  // namespace
}  // namespace mlf
