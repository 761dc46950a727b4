// The graph plan (where each storage id lives, the parameter blob, the
// refusals) and the C it becomes, compiled here with the compatibility
// runtime and run from several threads at once.
#include "tvm/compat/graph_plan.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "artifact/toolchain/host_build.h"
#include "tvm/compat/compat.h"
#include "tvm/compat/testing/generated_run.h"
#include "tvm/compat/graph_source.h"
#include "tvm/format/tvm_params.h"

namespace mlf::tvm_compat {
namespace {

using nlohmann::json;

// x, p -> add(x, p) -> neg (in x's storage, TVMBackendAllocWorkspace
// scratch) -> __copy -> output.
json Graph() {
  json nodes = json::array();
  nodes.push_back({{"op", "null"}, {"name", "x"}, {"inputs", json::array()}});
  nodes.push_back({{"op", "null"}, {"name", "p"}, {"inputs", json::array()}});
  nodes.push_back({{"op", "tvm_op"}, {"name", "add"}, {"attrs", {{"func_name", "k_add"}}},
                   {"inputs", {{0, 0, 0}, {1, 0, 0}}}});
  nodes.push_back({{"op", "tvm_op"}, {"name", "neg"}, {"attrs", {{"func_name", "k_neg"}}},
                   {"inputs", {{2, 0, 0}}}});
  nodes.push_back({{"op", "tvm_op"}, {"name", "copy"}, {"attrs", {{"func_name", "__copy"}}},
                   {"inputs", {{3, 0, 0}}}});
  return {{"nodes", nodes},
          {"arg_nodes", {0, 1}},
          {"heads", {{4, 0, 0}}},
          {"attrs",
           {{"dltype", {"list_str", {"float32", "float32", "float32", "float32", "float32"}}},
            {"shape", {"list_shape", {{4}, {4}, {4}, {4}, {4}}}},
            {"storage_id", {"list_int", {0, 1, 2, 0, 3}}}}}};
}

TensorInfo Tensor(const std::string& name, DType dtype = DType::kFloat32,
                  uint64_t bytes = 16) {
  return TensorInfo{name, name, dtype, {static_cast<int64_t>(bytes / 4)}, bytes, true, std::nullopt};
}

ModuleMetadata Module() {
  ModuleMetadata m;
  m.inputs = {Tensor("x")};
  m.outputs = {Tensor("output")};
  m.tvm = TvmModuleInfo{};
  m.tvm->operator_functions = {{"k_neg", 16}};
  return m;
}

std::string Params(std::vector<int64_t> shape = {4}) {
  const float p[4] = {10, 20, 30, 40};
  return WriteTvmParams({{"p", DType::kFloat32, shape,
                          std::string(reinterpret_cast<const char*>(p), shape[0] * 4)}});
}

TEST(GraphPlanTest, PlacesStorageParametersAndWorkspace) {
  Result<GraphPlan> plan = PlanGraph(Module(), Graph().dump(), Params());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->input_entries, std::vector<int>{0});
  // x's storage is shared with neg's output: a workspace region; add's too.
  EXPECT_EQ(plan->storage.at(0).kind, StorageHome::kWorkspace);
  EXPECT_EQ(plan->storage.at(0).at, 0u);
  EXPECT_EQ(plan->storage.at(2).kind, StorageHome::kWorkspace);
  EXPECT_EQ(plan->storage.at(2).at, 64u);
  EXPECT_EQ(plan->storage.at(1).kind, StorageHome::kConstant);
  EXPECT_EQ(plan->storage.at(3).kind, StorageHome::kOutput);  // the copy lands in the output
  EXPECT_EQ(plan->storage_bytes, 128u);
  EXPECT_EQ(plan->allocator_bytes, 64u);
  EXPECT_EQ(plan->workspace_bytes(), 192u);
  ASSERT_EQ(plan->constants_index.size(), 1u);
  EXPECT_EQ(plan->constants_index[0].name, "p");
  EXPECT_EQ(plan->constants.size(), 16u);

  // Storage used by the input alone: the caller's buffer, no workspace.
  json graph = Graph();
  graph["attrs"]["storage_id"][1][3] = 4;
  plan = PlanGraph(Module(), graph.dump(), Params());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->storage.at(0).kind, StorageHome::kInput);
  EXPECT_EQ(plan->storage_bytes, 128u);  // add's and neg's
}

TEST(GraphPlanTest, InconsistentGraphsAreRefusedSayingWhatIsWrong) {
  struct Case {
    std::function<void(json&, ModuleMetadata&, std::string&)> change;
    StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](json&, ModuleMetadata& m, std::string&) { m.inputs[0] = Tensor("y"); },
       StatusCode::kNotFound, "graph argument 'x' is neither an input of the module nor a "
                              "parameter in the .params file"},
      {[](json&, ModuleMetadata& m, std::string&) { m.inputs.push_back(Tensor("y")); },
       StatusCode::kNotFound, "input 'y' is not an argument of the graph"},
      {[](json&, ModuleMetadata&, std::string& p) { p.clear(); }, StatusCode::kNotFound,
       "graph argument 'p' is neither an input of the module nor a parameter in the .params "
       "file"},
      {[](json&, ModuleMetadata&, std::string& p) { p = Params({2}); },
       StatusCode::kInvalidArgument,
       "parameter 'p' is float32[2] in the .params file but float32[4] in the graph"},
      {[](json& g, ModuleMetadata&, std::string&) { g["attrs"]["storage_id"][1][2] = 1; },
       StatusCode::kUnimplemented,
       "storage 1 holds a parameter and other tensors; parameters are read only, so their "
       "storage cannot be shared"},
      {[](json&, ModuleMetadata& m, std::string&) { m.outputs.push_back(Tensor("o2")); },
       StatusCode::kInvalidArgument, "the graph has 1 outputs, the metadata 2"},
      {[](json&, ModuleMetadata& m, std::string&) { m.outputs[0] = Tensor("output", DType::kFloat32, 12); },
       StatusCode::kInvalidArgument, "output 'output' is 12 bytes, its graph entry 16"},
      {[](json&, ModuleMetadata& m, std::string&) { m.inputs[0] = Tensor("x", DType::kInt32); },
       StatusCode::kInvalidArgument, "input 'x' is int32, its graph entry float32"},
      {[](json& g, ModuleMetadata&, std::string&) { g["nodes"][2]["attrs"]["func_name"] = "mlf_add"; },
       StatusCode::kInvalidArgument,
       "function 'mlf_add' is not a C identifier the generated code can call (names starting "
       "with mlf_ are mlfkit's)"},
      {[](json& g, ModuleMetadata&, std::string&) { g["nodes"][3]["attrs"]["func_name"] = "k-neg"; },
       StatusCode::kInvalidArgument,
       "function 'k-neg' is not a C identifier the generated code can call (names starting "
       "with mlf_ are mlfkit's)"},
      {[](json& g, ModuleMetadata&, std::string&) { g["nodes"][4]["inputs"] = {{3, 0, 0}, {0, 0, 0}}; },
       StatusCode::kInvalidArgument,
       "__copy node 'copy' does not have one input and one output of the same size"},
      {[](json&, ModuleMetadata&, std::string& p) { p = "not params"; },
       StatusCode::kInvalidArgument,
       ".params: bad file magic 0x6172617020746F6E at offset 0 (expected 0xF7E58D4F05049CB7); "
       "not a TVM .params file"},
      {[](json& g, ModuleMetadata&, std::string&) { g.erase("heads"); },
       StatusCode::kInvalidArgument, "graph executor JSON: no \"heads\" list"},
  };
  for (const Case& c : cases) {
    json graph = Graph();
    ModuleMetadata m = Module();
    std::string params = Params();
    c.change(graph, m, params);
    Result<GraphPlan> plan = PlanGraph(m, graph.dump(), params);
    EXPECT_EQ(plan.status().code(), c.code) << c.message << " / " << plan.status().ToString();
    EXPECT_EQ(plan.status().message(), c.message);
  }
}

constexpr char kKernels[] = R"(#include "tvm/runtime/c_runtime_api.h"
#include "tvm/runtime/c_backend_api.h"
static float* data(void* args, int i) { return (float*)((DLTensor*)((TVMValue*)args)[i].v_handle)->data; }
int32_t k_add(void* args, int32_t* codes, int32_t n, void* r, int32_t* rc, void* h) {
  if (n != 3 || codes[2] != kTVMDLTensorHandle) return -7;
  if (((DLTensor*)((TVMValue*)args)[0].v_handle)->shape[0] != 4) return -8;
  for (int i = 0; i < 4; ++i) data(args, 2)[i] = data(args, 0)[i] + data(args, 1)[i];
  return 0;
}
int32_t k_neg(void* args, int32_t* codes, int32_t n, void* r, int32_t* rc, void* h) {
  float* scratch = (float*)TVMBackendAllocWorkspace(1, 0, 16, 2, 32);
  if (scratch == 0 || n != 2) return -9;
  for (int i = 0; i < 4; ++i) scratch[i] = -data(args, 0)[i];
  for (int i = 0; i < 4; ++i) data(args, 1)[i] = scratch[i];
  return TVMBackendFreeWorkspace(1, 0, scratch);
}
)";

TEST(GraphSourceTest, TheGeneratedFunctionRunsReentrantlyWithTheRuntime) {
  Result<GraphPlan> plan = PlanGraph(Module(), Graph().dump(), Params());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const std::string source = GraphRunSource("m", "m", "graph.json", *plan);
  EXPECT_EQ(testing::MutableStaticLines(source), std::vector<std::string>{});
  testing::LoadedRun lib;
  Status loaded = testing::BuildAndLoad("graph_plan_test", kKernels, "graph.c", source, GraphEntryWrapperSource("m"), &lib);
  ASSERT_TRUE(loaded.ok()) << loaded.ToString() << "\n" << source;
  const testing::RunFn run = lib.run;

  auto once = [&](float base, float* out) {
    alignas(64) uint8_t workspace[192];
    float x[4] = {base, base + 1, base + 2, base + 3};
    void* inputs[1] = {x};
    void* outputs[1] = {out};
    struct { void* workspace; const void* constants; uint64_t size; } pools = {
        workspace, plan->constants.data(), sizeof workspace};
    return run(inputs, outputs, &pools);
  };
  float out[4];
  ASSERT_EQ(once(1, out), 0);
  EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{-11, -22, -33, -44}));
  // Four threads at once, each with its own buffers.
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        float o[4];
        if (once(static_cast<float>(t), o) != 0 || o[3] != -(t + 3 + 40)) ++wrong[t];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace mlf::tvm_compat
