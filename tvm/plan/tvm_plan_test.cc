#include "tvm/plan/tvm_plan.h"

#include <gtest/gtest.h>

#include "artifact/archive/archive_source.h"
#include "artifact/toolchain/host_build.h"
#include "loader/firmware/platform.h"
#include "tests/tvm_fixtures/tvm_fixtures.h"
#include "tvm/format/tvm_archive.h"

namespace mlf {
namespace {

using Names = std::vector<std::string>;
using tvm_testing::Files;

const Names kAllPlatforms = {"host", "mps2-an385", "mps2-an386", "mps2-an500"};
// What TVM's C sources include (the fixtures write lib0 or the operators first).
const Names kRuntime = {"tvm/runtime/c_runtime_api.h", "tvm/runtime/c_backend_api.h"};

// The fixture read the way every command reads a TVM archive.
Metadata Scan(const Files& files) {
  const std::string tar = tvm_testing::BuildTar(tvm_testing::LayoutMembers(files, {}));
  std::unique_ptr<ArchiveSource> source = ArchiveSource::Memory(tar, "fixture.tar");
  Result<std::optional<TvmArchiveScan>> scan = ScanTvmArchive(*source, ReaderLimits{});
  EXPECT_TRUE(scan.ok()) << scan.status().message();
  EXPECT_TRUE(scan.ok() && scan->has_value());
  return scan.ok() && scan->has_value() ? (*scan)->metadata : Metadata{};
}

TvmModulePlan Plan(const Metadata& metadata, const std::string& module) {
  return PlanTvmModule(module, metadata.modules.at(module));
}

firmware::Platform Board(const std::string& name) { return *firmware::FindPlatform(name); }

// The verdicts of a module that runs everywhere a platform can build it.
void ExpectRunsEverywhere(const TvmModulePlan& p) {
  EXPECT_EQ(p.host.message(), "");
  EXPECT_TRUE(p.host.ok());
  EXPECT_TRUE(p.firmware.ok()) << p.firmware.message();
  EXPECT_EQ(p.firmware_platforms, kAllPlatforms);
  for (const std::string& name : kAllPlatforms) {
    EXPECT_TRUE(FirmwareVerdict(p, Board(name)).ok()) << name;
  }
}

TEST(TvmPlanTest, AotStructRunCallingTvmMain) {
  const TvmModulePlan p = Plan(Scan(tvm_testing::DenseV7()), "default");
  EXPECT_EQ(p.module, "default");
  EXPECT_EQ(p.c_name, "default");
  EXPECT_EQ(p.metadata_version, 7);
  EXPECT_EQ(p.run_kind, TvmRunKind::kAot);
  EXPECT_EQ(p.executor_text, "aot");
  EXPECT_EQ(p.interface_api, InterfaceApi::kC);
  EXPECT_EQ(p.entry, TvmEntryStyle::kStructRun);
  EXPECT_EQ(p.run_function, "tvmgen_default_run");
  EXPECT_EQ(p.inner, TvmInnerEntry::kTvmMain);
  EXPECT_EQ(p.inner_function, "tvmgen_default___tvm_main__");
  EXPECT_EQ(p.caller_pools, Names{});
  EXPECT_EQ(p.params_member, "parameters/default.params");
  EXPECT_EQ(p.graph_member, "");
  EXPECT_FALSE(p.bundled_runtime);
  EXPECT_FALSE(p.system_lib_registry);
  EXPECT_FALSE(p.c_metadata_module);
  EXPECT_EQ(p.runtime_headers, kRuntime);
  EXPECT_EQ(p.non_tvm_headers, Names{});
  EXPECT_EQ(p.c_sources, (Names{"codegen/host/src/default_lib0.c", "codegen/host/src/default_lib1.c"}));
  EXPECT_EQ(p.other_sources, Names{});
  EXPECT_EQ(p.object_files, Names{});
  EXPECT_EQ(p.target_cpu, "");
  EXPECT_EQ(p.foreign_target, "");
  ExpectRunsEverywhere(p);
  EXPECT_TRUE(p.upgrade.ok()) << p.upgrade.message();
}

// Issue 16: TVM 0.8's positional run_model, its packed wrapper, linked
// parameters.
TEST(TvmPlanTest, RunModelOnlyWhereTheHeaderDeclaresAStructRun) {
  const TvmModulePlan p = Plan(Scan(tvm_testing::MismatchV5()), "default");
  EXPECT_EQ(p.entry, TvmEntryStyle::kRunModel);
  EXPECT_EQ(p.interface_api, InterfaceApi::kC);  // what the header says
  EXPECT_EQ(p.run_function, "");                 // no source defines it
  EXPECT_EQ(p.inner, TvmInnerEntry::kRunModel);
  EXPECT_EQ(p.inner_function, "tvmgen_default_run_model");
  EXPECT_EQ(p.inner_parameters, (Names{"void* input", "void* output"}));
  EXPECT_EQ(p.packed_run_parameters, Names{});
  EXPECT_EQ(p.linked_params, "codegen/host/src/default_lib0.c defines __tvm_param__p0");
  EXPECT_EQ(p.params_member, "parameters/default.params");
  EXPECT_TRUE(p.params_member_unused);
  ExpectRunsEverywhere(p);
  EXPECT_TRUE(p.upgrade.ok()) << p.upgrade.message();
}

TEST(TvmPlanTest, StructRunOverRunModel) {
  const TvmModulePlan p = Plan(Scan(tvm_testing::LinkedV5()), "default");
  EXPECT_EQ(p.entry, TvmEntryStyle::kStructRun);
  EXPECT_EQ(p.run_function, "tvmgen_default_run");
  EXPECT_EQ(p.inner, TvmInnerEntry::kRunModel);
  EXPECT_EQ(p.packed_run_parameters, Names{});
  EXPECT_TRUE(p.params_member_unused);
  ExpectRunsEverywhere(p);
}

TEST(TvmPlanTest, PackedWrapperOverRunModelWithoutHeader) {
  const Metadata metadata = Scan(tvm_testing::PackedV5());
  const TvmModulePlan p = Plan(metadata, "default");
  EXPECT_EQ(p.entry, TvmEntryStyle::kRunModel);
  EXPECT_EQ(p.interface_api, InterfaceApi::kPacked);
  EXPECT_EQ(p.inner_parameters, (Names{"void* arg0", "void* arg1"}));
  EXPECT_EQ(p.packed_run_parameters,
            (Names{"void*", "void*", "int", "void*", "void*", "void*"}));
  EXPECT_EQ(p.linked_params, "codegen/host/src/default_lib1.c defines __tvm_param__p0");
  ExpectRunsEverywhere(p);
  EXPECT_TRUE(p.upgrade.ok()) << p.upgrade.message();
  // Relay's %v_param_1 and %v_param_2 are the linked parameters, not inputs.
  const ModuleMetadata& m = metadata.modules.at("default");
  ASSERT_EQ(m.inputs.size(), 1u);
  EXPECT_EQ(m.inputs[0].name, "x");
  ASSERT_EQ(m.outputs.size(), 1u);
  EXPECT_EQ(ToString(m.outputs[0].dtype), "float32");
  EXPECT_EQ(m.outputs[0].size_bytes, 16u);
}

TEST(TvmPlanTest, RunModelArityMustMatchTheTensors) {
  Metadata metadata = Scan(tvm_testing::MismatchV5());
  ModuleMetadata& m = metadata.modules.at("default");
  m.outputs.push_back(m.outputs[0]);
  m.outputs[1].name = m.outputs[1].c_name = "second";
  const TvmModulePlan p = PlanTvmModule("default", m);
  EXPECT_EQ(p.host.message(),
            "module 'default' (TVM archive, metadata version 5): its entry point "
            "tvmgen_default_run_model takes 2 tensors but the archive names 1 input(s) and 2 "
            "output(s)");
  EXPECT_EQ(p.firmware.message(), p.host.message());
  EXPECT_EQ(p.upgrade.message(),
            "module 'default' (TVM metadata version 5): its entry point tvmgen_default_run_model "
            "takes 2 tensors but the archive names 1 input(s) and 2 output(s)");
}

TEST(TvmPlanTest, ConstantsInRodataAreLinkedParameters) {
  const TvmModulePlan p = Plan(Scan(tvm_testing::LinkedV6()), "default");
  EXPECT_EQ(p.entry, TvmEntryStyle::kStructRun);
  EXPECT_EQ(p.inner, TvmInnerEntry::kTvmMain);
  EXPECT_EQ(p.inner_parameters, (Names{"float* x_buffer_var", "float* output_buffer_var"}));
  EXPECT_EQ(p.linked_params, "codegen/host/src/default_lib1.c keeps constants in section .rodata.tvm");
  EXPECT_TRUE(p.params_member_unused);  // the (empty) .params is not what the code reads
  ExpectRunsEverywhere(p);
}

TEST(TvmPlanTest, AotWithStaticUsmpPools) {
  // The pools are static arrays in second_lib0.c: nothing the caller
  // provides (the plan does not record static pools yet).
  const TvmModulePlan p = Plan(Scan(tvm_testing::PairV7()), "second");
  EXPECT_EQ(p.run_kind, TvmRunKind::kAot);
  EXPECT_EQ(p.entry, TvmEntryStyle::kStructRun);
  EXPECT_EQ(p.run_function, "tvmgen_second_run");
  EXPECT_EQ(p.inner_function, "tvmgen_second___tvm_main__");
  EXPECT_EQ(p.caller_pools, Names{});
  EXPECT_EQ(p.params_member, "parameters/second.params");
  EXPECT_EQ(p.c_sources, (Names{"codegen/host/src/second_lib0.c", "codegen/host/src/second_lib1.c"}));
  EXPECT_EQ(p.runtime_headers, kRuntime);
  ExpectRunsEverywhere(p);
  EXPECT_TRUE(p.upgrade.ok()) << p.upgrade.message();
}

TEST(TvmPlanTest, TwoModulesArePlannedApart) {
  const Metadata metadata = Scan(tvm_testing::MultiV7());
  const TvmModulePlan a = Plan(metadata, "default");
  const TvmModulePlan b = Plan(metadata, "second");
  EXPECT_EQ(a.c_sources, (Names{"codegen/host/src/default_lib0.c", "codegen/host/src/default_lib1.c"}));
  EXPECT_EQ(b.c_sources, (Names{"codegen/host/src/second_lib0.c", "codegen/host/src/second_lib1.c"}));
  EXPECT_EQ(a.inner_function, "tvmgen_default___tvm_main__");
  EXPECT_EQ(b.inner_function, "tvmgen_second___tvm_main__");
  ExpectRunsEverywhere(a);
  ExpectRunsEverywhere(b);
}

TEST(TvmPlanTest, V5AotCallingRunModel) {
  const TvmModulePlan p = Plan(Scan(tvm_testing::ScaleV5()), "default");
  EXPECT_EQ(p.metadata_version, 5);
  EXPECT_EQ(p.run_kind, TvmRunKind::kAot);
  EXPECT_EQ(p.entry, TvmEntryStyle::kStructRun);
  EXPECT_EQ(p.run_function, "tvmgen_default_run");
  EXPECT_EQ(p.inner, TvmInnerEntry::kRunModel);
  EXPECT_EQ(p.inner_function, "tvmgen_default_run_model");
  EXPECT_EQ(p.params_member, "parameters/default.params");
  ExpectRunsEverywhere(p);
  EXPECT_TRUE(p.upgrade.ok()) << p.upgrade.message();
}

TEST(TvmPlanTest, GraphExecutor) {
  for (const Files& files : {tvm_testing::GraphV6(), tvm_testing::GraphChainV6()}) {
    const TvmModulePlan p = Plan(Scan(files), "default");
    EXPECT_EQ(p.metadata_version, 6);
    EXPECT_EQ(p.run_kind, TvmRunKind::kGraph);
    EXPECT_EQ(p.executor_text, "graph");
    EXPECT_EQ(p.entry, TvmEntryStyle::kNone);
    EXPECT_EQ(p.run_function, "");
    EXPECT_EQ(p.inner, TvmInnerEntry::kNone);
    EXPECT_EQ(p.graph_member, "executor-config/graph/graph.json");
    EXPECT_EQ(p.params_member, "parameters/default.params");
    EXPECT_EQ(p.runtime_headers, kRuntime);
    EXPECT_FALSE(p.system_lib_registry);
    ExpectRunsEverywhere(p);
    EXPECT_TRUE(p.upgrade.ok()) << p.upgrade.message();
  }
}

TEST(TvmPlanTest, OperatorStyle) {
  const TvmModulePlan p = Plan(Scan(tvm_testing::OperatorV5()), "add");
  EXPECT_EQ(p.module, "add");
  EXPECT_EQ(p.run_kind, TvmRunKind::kOperators);
  EXPECT_EQ(p.executor_text, "");
  EXPECT_EQ(p.entry, TvmEntryStyle::kNone);
  EXPECT_EQ(p.params_member, "");
  EXPECT_EQ(p.c_sources, Names{"codegen/host/src/lib0.c"});
  EXPECT_EQ(p.runtime_headers, kRuntime);
  ExpectRunsEverywhere(p);
  EXPECT_EQ(p.upgrade.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(p.upgrade.message(),
            "module 'add' (TVM metadata version 5) is operator style: TVM operators over named "
            "buffers, without a model entry point, and TVM's metadata does not say which buffers "
            "they write; an mlfkit module is a full model whose inputs and outputs are distinct "
            "tensors, so upgrade would have to guess. mlf run and mlf project take the original "
            "archive (every buffer is an input and an output there)");
}

TEST(TvmPlanTest, BundledRuntime) {
  const TvmModulePlan p = Plan(Scan(tvm_testing::BundledV7()), "default");
  EXPECT_TRUE(p.bundled_runtime);
  EXPECT_EQ(p.runtime_headers, kRuntime);
  ExpectRunsEverywhere(p);
}

TEST(TvmPlanTest, CortexMCodeRunsOnlyOnItsBoards) {
  const TvmModulePlan p = Plan(Scan(tvm_testing::ArmV7()), "default");
  EXPECT_EQ(p.run_kind, TvmRunKind::kAot);
  EXPECT_EQ(p.entry, TvmEntryStyle::kStructRun);
  EXPECT_EQ(p.target_cpu, "cortex-m4");
  EXPECT_EQ(p.foreign_target, "cortex-m4");
  EXPECT_EQ(p.foreign_evidence, "codegen/host/src/default_lib1.c includes <arm_acle.h>");
  EXPECT_EQ(p.non_tvm_headers, Names{"arm_acle.h"});
  EXPECT_EQ(p.firmware_platforms, (Names{"mps2-an386", "mps2-an500"}));
  EXPECT_EQ(p.host.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(p.host.message(),
            "module 'default' (TVM archive, metadata version 7) needs target cortex-m4: "
            "codegen/host/src/default_lib1.c includes <arm_acle.h>; it cannot run on this host (" +
                std::string(HostTriple()) +
                "). Build a firmware project for it: mlf project ARCHIVE -o DIR --platform mps2-an386");
  EXPECT_TRUE(p.firmware.ok()) << p.firmware.message();
  EXPECT_TRUE(FirmwareVerdict(p, Board("mps2-an386")).ok());
  EXPECT_TRUE(FirmwareVerdict(p, Board("mps2-an500")).ok());
  const Status m3 = FirmwareVerdict(p, Board("mps2-an385"));
  EXPECT_EQ(m3.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(m3.message(),
            "module 'default' (TVM archive, metadata version 7) needs target cortex-m4: "
            "codegen/host/src/default_lib1.c includes <arm_acle.h>; it cannot be built for platform "
            "mps2-an385 (Cortex-M3). Build it with --platform mps2-an386 or mps2-an500");
  EXPECT_EQ(FirmwareVerdict(p, Board("host")).message(),
            "module 'default' (TVM archive, metadata version 7) needs target cortex-m4: "
            "codegen/host/src/default_lib1.c includes <arm_acle.h>; it cannot be built for platform "
            "host (this host, " + std::string(HostTriple()) +
                "). Build it with --platform mps2-an386 or mps2-an500");
  // upgrade makes an mlfkit module of it (for firmware only).
  EXPECT_TRUE(p.upgrade.ok()) << p.upgrade.message();
}

// The host and the firmware read one map: the board the host suggests is the
// first the firmware accepts (they disagreed for Cortex-M0 and M1 targets).
TEST(TvmPlanTest, HostSuggestsTheFirstBoardTheFirmwareAccepts) {
  Metadata metadata = Scan(tvm_testing::ArmV7());
  ModuleMetadata& m = metadata.modules.at("default");
  for (const std::string cpu : {"cortex-m0", "cortex-m0plus", "cortex-m1", "cortex-m3", "cortex-m4",
                                "cortex-m7"}) {
    m.target.mcpu = cpu;
    m.tvm->foreign_target = cpu;
    const TvmModulePlan p = PlanTvmModule("default", m);
    ASSERT_FALSE(p.firmware_platforms.empty()) << cpu;
    const std::string suggestion = "--platform " + p.firmware_platforms.front();
    EXPECT_EQ(p.host.message().substr(p.host.message().size() - suggestion.size()), suggestion) << cpu;
    EXPECT_TRUE(FirmwareVerdict(p, Board(p.firmware_platforms.front())).ok()) << cpu;
  }
  m.tvm->foreign_target = "cortex-m0";
  EXPECT_EQ(PlanTvmModule("default", m).firmware_platforms,
            (Names{"mps2-an385", "mps2-an386", "mps2-an500"}));
  // No board: the host says so in a placeholder, the firmware refuses all.
  m.tvm->foreign_target = "RISC-V";
  const TvmModulePlan none = PlanTvmModule("default", m);
  EXPECT_EQ(none.firmware_platforms, Names{});
  EXPECT_EQ(none.host.message().substr(none.host.message().size() - 18), "--platform <board>");
  EXPECT_EQ(FirmwareVerdict(none, Board("mps2-an500")).message(),
            "module 'default' (TVM archive, metadata version 7) needs target RISC-V: "
            "codegen/host/src/default_lib1.c includes <arm_acle.h>; it cannot be built for platform "
            "mps2-an500 (Cortex-M7F), nor for any other platform of mlf project");
}

// A source with the system-lib registry, the C metadata module and a vendor
// header, scanned as the reader scans it.
TEST(TvmPlanTest, RuntimePiecesAndVendorHeadersFromIncludes) {
  Files files = tvm_testing::DenseV7();
  files["codegen/host/src/default_lib2.c"] =
      "#include <tvm/runtime/crt/module.h>\n"
      "#include <tvm/runtime/metadata_types.h>\n"
      "#include <esp_kernel.h>\n"
      "#include <stdint.h>\n";
  const TvmModulePlan p = Plan(Scan(files), "default");
  EXPECT_TRUE(p.system_lib_registry);
  EXPECT_TRUE(p.c_metadata_module);
  EXPECT_EQ(p.runtime_headers,
            (Names{"tvm/runtime/c_runtime_api.h", "tvm/runtime/c_backend_api.h",
                   "tvm/runtime/crt/module.h", "tvm/runtime/metadata_types.h"}));
  EXPECT_EQ(p.non_tvm_headers, Names{"esp_kernel.h"});
  EXPECT_EQ(p.c_sources.size(), 3u);
}

// The headers by class (header_class.h): vendor ones sorted, intrinsics with
// their architecture, TVM runtime headers mlfkit lacks; the verdicts refuse
// vendor libraries before anything else, the firmware unless the user gives them.
TEST(TvmPlanTest, HeadersByClassAndTheVendorVerdicts) {
  Files files = tvm_testing::DenseV7();
  files["codegen/host/src/default_lib2.c"] =
      "#include <zz_vendor.h>\n#include <esp_kernel.h>\n#include <arm_acle.h>\n"
      "#include <tvm/runtime/crt/graph_executor.h>\n#include <stdint.h>\n#include <tvm/runtime/crt/module.h>\n";
  const TvmModulePlan p = Plan(Scan(files), "default");
  EXPECT_EQ(p.vendor_headers, (Names{"esp_kernel.h", "zz_vendor.h"}));
  ASSERT_EQ(p.intrinsics_headers.size(), 1u);
  EXPECT_EQ(p.intrinsics_headers[0].header, "arm_acle.h");
  EXPECT_EQ(p.intrinsics_headers[0].architecture, "Arm Cortex-M with the DSP extension");
  EXPECT_EQ(p.unsupplied_runtime_headers, Names{"tvm/runtime/crt/graph_executor.h"});
  const std::string who = "module 'default' (TVM archive, metadata version 7)";
  EXPECT_EQ(p.host.message(),
            who + " needs vendor library: esp_kernel.h, zz_vendor.h; it runs nowhere here: mlf run "
                  "cannot build it (mlf project --vendor-source NAME=DIR adds the library to a "
                  "firmware project)");
  EXPECT_EQ(p.upgrade.message(),
            "module 'default' (TVM metadata version 7) needs vendor library: esp_kernel.h, "
            "zz_vendor.h; an mlfkit archive cannot carry it, so upgrade refuses the module");
  EXPECT_EQ(FirmwareVerdict(p, Board("mps2-an386")).message(),
            who + " needs vendor library: esp_kernel.h, zz_vendor.h; give the library's sources "
                  "with --vendor-source NAME=DIR");
  EXPECT_EQ(FirmwareVerdict(p, Board("mps2-an386"), {"esp_kernel.h"}).message(),
            who + " needs vendor library: zz_vendor.h; give the library's sources with "
                  "--vendor-source NAME=DIR");
  // With the vendor headers given, the TVM runtime header mlfkit lacks is next.
  const Status runtime = FirmwareVerdict(p, Board("mps2-an386"), {"esp_kernel.h", "zz_vendor.h"});
  EXPECT_EQ(runtime.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(runtime.message(), who + " includes TVM runtime header tvm/runtime/crt/graph_executor.h, "
                                     "which mlfkit does not supply (tvm/compat)");
  EXPECT_EQ(RunsWhere(p, p.host), "nowhere here");
}

TEST(TvmPlanTest, RunsWhere) {
  const TvmModulePlan dense = Plan(Scan(tvm_testing::DenseV7()), "default");
  EXPECT_EQ(RunsWhere(dense, dense.host), "host");
  // A check of member bytes that only mlf run makes: the firmware still builds it.
  EXPECT_EQ(RunsWhere(dense, FailedPrecondition("a graph check")),
            "firmware only (mlf project --platform host or mps2-an385 or mps2-an386 or mps2-an500)");
  const TvmModulePlan arm = Plan(Scan(tvm_testing::ArmV7()), "default");
  EXPECT_EQ(arm.vendor_headers, Names{});
  EXPECT_EQ(RunsWhere(arm, arm.host), "firmware only (mlf project --platform mps2-an386 or mps2-an500)");
  // The header names are shown through the display guard.
  Files files = tvm_testing::DenseV7();
  files["codegen/host/src/default_lib2.c"] = "#include <esp\x1b[31m.h>\n";
  const TvmModulePlan escaped = Plan(Scan(files), "default");
  EXPECT_EQ(escaped.vendor_headers, Names{"esp\x1b[31m.h"});
  EXPECT_NE(escaped.host.message().find("needs vendor library: esp\\x1b[31m.h;"), std::string::npos)
      << escaped.host.message();
}

// Modules the metadata already rules out, each verdict in its consumer's words.
class RefusedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    metadata_ = Scan(tvm_testing::DenseV7());
    m_ = &metadata_.modules.at("default");
  }
  TvmModulePlan Plan() const { return PlanTvmModule("default", *m_); }
  // The three verdicts, each after its consumer's name for the module: "module
  // 'default' (TVM archive, metadata version 7)" in mlf run's and mlf project's,
  // "module 'default' (TVM metadata version 7)" in upgrade's.
  static void ExpectVerdicts(const TvmModulePlan& p, const std::string& host,
                             const std::string& firmware, const std::string& upgrade) {
    const std::string archive = "module 'default' (TVM archive, metadata version 7)";
    EXPECT_EQ(p.host.message(), archive + host);
    EXPECT_EQ(p.firmware.message(), archive + firmware);
    EXPECT_EQ(p.upgrade.message(), "module 'default' (TVM metadata version 7)" + upgrade);
  }
  Metadata metadata_;
  ModuleMetadata* m_ = nullptr;
};

TEST_F(RefusedTest, PackedApi) {
  m_->interface_api = InterfaceApi::kPacked;
  m_->tvm->run_function.clear();
  const TvmModulePlan p = Plan();
  EXPECT_EQ(p.entry, TvmEntryStyle::kPackedApi);
  const std::string packed = " has no C interface (no tvmgen_default_run in "
                             "codegen/host/include/tvmgen_default.h): it was built for TVM's "
                             "packed API; ";
  ExpectVerdicts(p,
                 packed + "mlf run runs AOT modules built with interface-api=c and graph executor "
                          "modules",
                 packed + "mlf project builds AOT modules built with interface-api=c",
                 " has no C interface (no tvmgen_default_run in its interface header): it was "
                 "built for TVM's packed API; an mlfkit archive runs TVM AOT modules with the C "
                 "interface and graph executor modules only, so upgrade cannot make it runnable "
                 "(mlf inspect and mlf verify read the original)");
  for (const Status* s : {&p.host, &p.firmware, &p.upgrade}) {
    EXPECT_EQ(s->code(), StatusCode::kFailedPrecondition);
  }
}

TEST_F(RefusedTest, CallerPools) {
  m_->tvm->extra_run_arguments = {"workspace_pools"};
  const TvmModulePlan p = Plan();
  EXPECT_EQ(p.caller_pools, Names{"workspace_pools"});
  EXPECT_EQ(p.host.code(), StatusCode::kUnimplemented);
  const std::string pools = ": its entry point tvmgen_default_run also takes workspace_pools "
                            "(workspace pools or devices the caller provides), which ";
  ExpectVerdicts(p, pools + "mlf run does not provide", pools + "the generated main.c does not provide",
                 pools + "ABI version 1 has no place for");
}

TEST_F(RefusedTest, UnknownExecutor) {
  m_->tvm->executor = ReadExecutor("vm");
  const TvmModulePlan p = Plan();
  EXPECT_EQ(p.run_kind, TvmRunKind::kUnknown);
  EXPECT_EQ(p.executor_text, "vm");
  EXPECT_EQ(p.entry, TvmEntryStyle::kNone);
  ExpectVerdicts(p, " uses executor 'vm'; mlf run runs TVM's aot and graph executors",
                 " uses executor 'vm'; mlf project builds TVM's aot and graph executors",
                 " uses executor 'vm'; upgrade converts TVM's aot and graph executors");
  for (const Status* s : {&p.host, &p.firmware, &p.upgrade}) {
    EXPECT_EQ(s->code(), StatusCode::kUnimplemented);
  }
}

TEST_F(RefusedTest, ObjectFilesOnly) {
  m_->sources.clear();
  m_->tvm->object_files = {"codegen/host/lib/default_lib0.o"};
  const TvmModulePlan p = Plan();
  EXPECT_EQ(p.object_files, Names{"codegen/host/lib/default_lib0.o"});
  const std::string objects = " has no C sources, only object files of TVM's llvm target "
                              "(codegen/host/lib/default_lib0.o); ";
  ExpectVerdicts(p, objects + "mlf run compiles C sources",
                 objects + "a firmware project compiles C sources",
                 objects + "mlfkit archives carry C sources");
}

TEST_F(RefusedTest, CppSource) {
  m_->sources.push_back("codegen/host/src/default_lib2.cc");
  const TvmModulePlan p = Plan();
  EXPECT_EQ(p.other_sources, Names{"codegen/host/src/default_lib2.cc"});
  EXPECT_EQ(p.host.code(), StatusCode::kUnimplemented);
  ExpectVerdicts(p, ": codegen/host/src/default_lib2.cc is C++; mlf run compiles C sources only",
                 ": codegen/host/src/default_lib2.cc is not C; a firmware project compiles C "
                 "sources only",
                 ": codegen/host/src/default_lib2.cc is C++; upgrade carries C sources only");
}

TEST_F(RefusedTest, UnknownDtypeAndShape) {
  m_->inputs[0].dtype = DTypeValue();
  TvmModulePlan p = Plan();
  const std::string input = "input 'serving_default_input_1:0'";
  EXPECT_EQ(p.host.message(),
            "module 'default' (TVM archive, metadata version 7): the archive does not say the dtype "
            "of " + input + " (neither metadata.json, the Relay text nor the C types of the code's entry point "
            "say it)");
  EXPECT_EQ(p.firmware.message(), p.host.message());
  EXPECT_EQ(p.upgrade.message(),
            "module 'default' (TVM metadata version 7): the archive does not say the dtype of " +
                input + "; mlfkit's metadata records every dtype");
  m_->inputs[0].dtype = DType::kFloat32;
  m_->inputs[0].shape_known = false;
  p = Plan();
  // run and project show it flat, and upgrade writes it flat.
  EXPECT_TRUE(p.host.ok()) << p.host.message();
  EXPECT_TRUE(p.firmware.ok()) << p.firmware.message();
  EXPECT_TRUE(p.upgrade.ok()) << p.upgrade.message();
  m_->inputs[0].size_bytes = 0;
  p = Plan();
  EXPECT_EQ(p.upgrade.message(),
            "module 'default' (TVM metadata version 7): the shape and size of " + input +
                " are unknown; mlfkit's metadata records every shape");
}

// A dtype the archive names but mlfkit does not know (kept as written):
// every consumer refuses the tensor, naming it and the dtype.
TEST_F(RefusedTest, DtypeUnknownToMlfkit) {
  m_->outputs[0].dtype = DTypeValue::Read("float32x4");
  const TvmModulePlan p = Plan();
  EXPECT_EQ(p.host.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(p.host.message(), "module 'default' (TVM archive, metadata version 7): output 'output': "
                              "dtype 'float32x4' is not supported by mlfkit");
  EXPECT_EQ(p.firmware.message(), p.host.message());
  EXPECT_EQ(p.upgrade.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(p.upgrade.message(), "module 'default' (TVM metadata version 7): output 'output': "
                                 "dtype 'float32x4' is not supported by mlfkit");
}

TEST(TvmPlanGraphTest, GraphWithoutGraphJson) {
  Metadata metadata = Scan(tvm_testing::GraphV6());
  ModuleMetadata& m = metadata.modules.at("default");
  m.tvm->graph_path.clear();
  const TvmModulePlan p = PlanTvmModule("default", m);
  EXPECT_EQ(p.host.message(),
            "module 'default' (TVM archive, metadata version 6) uses TVM's graph executor but the "
            "archive has no graph JSON (executor-config/graph/)");
  EXPECT_EQ(p.firmware.message(),
            "module 'default' (TVM archive, metadata version 6) uses the graph executor but the "
            "archive has no graph JSON (executor-config/graph/)");
  EXPECT_EQ(p.upgrade.message(),
            "module 'default' (TVM metadata version 6) uses TVM's graph executor but the archive has "
            "no graph JSON (executor-config/graph/); an mlfkit archive runs TVM AOT modules with "
            "the C interface and graph executor modules only, so upgrade cannot make it runnable "
            "(mlf inspect and mlf verify read the original)");
}

}  // namespace
}  // namespace mlf
