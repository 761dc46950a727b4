// Operator-style modules: their buffers as tensors (names, refusals) and the
// operators function, compiled here with the compatibility runtime and run:
// functions in metadata order, inputs copied into the outputs and never
// written, a failing status stops the calls, workspace from the runtime.
#include "tvm/compat/operator_source.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <functional>
#include <sstream>

#include "artifact/toolchain/host_build.h"
#include "tvm/compat/compat.h"
#include "tvm/compat/testing/generated_run.h"

namespace mlf::tvm_compat {
namespace {

TvmOperatorBuffer Buffer(const std::string& function, const std::string& binding) {
  return TvmOperatorBuffer{function, binding, DType::kFloat32, {4}, 16};
}

// k_scale(X, Y): Y = 2 X, with TVMBackendAllocWorkspace scratch; k_add(Y, Z):
// Z += Y. Listed so that k_scale runs first.
TvmModuleInfo TwoFunctions() {
  TvmModuleInfo tvm;
  tvm.operator_buffers = {Buffer("k_scale", "X"), Buffer("k_scale", "Y"), Buffer("k_add", "Y"),
                          Buffer("k_add", "Z")};
  return tvm;
}

TEST(OperatorBuffersTest, NamesBindingsQualifiedWhenThereAreSeveralFunctions) {
  Result<std::vector<TensorInfo>> two = OperatorBuffers("m", TwoFunctions());
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  std::vector<std::string> names, c_names;
  for (const TensorInfo& t : *two) {
    names.push_back(t.name);
    c_names.push_back(t.c_name);
    EXPECT_TRUE(t.shape_known);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"k_scale.X", "k_scale.Y", "k_add.Y", "k_add.Z"}));
  EXPECT_EQ(c_names, (std::vector<std::string>{"k_scale_X", "k_scale_Y", "k_add_Y", "k_add_Z"}));
  TvmModuleInfo one;
  one.operator_buffers = {Buffer("add", "A:0"), Buffer("add", "B")};
  Result<std::vector<TensorInfo>> single = OperatorBuffers("m", one);
  ASSERT_TRUE(single.ok()) << single.status().ToString();
  EXPECT_EQ((*single)[0].name, "A:0");
  EXPECT_EQ((*single)[0].c_name, "A_0");
}

TEST(OperatorBuffersTest, Refusals) {
  struct Case {
    std::function<void(TvmModuleInfo&)> change;
    StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](TvmModuleInfo& t) { t.operator_buffers.clear(); }, StatusCode::kFailedPrecondition,
       "m is operator style but its metadata lists no buffers"},
      {[](TvmModuleInfo& t) { t.operator_buffers[3].size_bytes = 8; }, StatusCode::kFailedPrecondition,
       "m: buffer 'k_add.Z' of k_add is 8 bytes, which its dtype float32 and shape [4] contradict"},
      {[](TvmModuleInfo& t) { t.operator_buffers[1].binding = "X"; }, StatusCode::kFailedPrecondition,
       "m: two buffers are both called 'k_scale_X' in C"},
      {[](TvmModuleInfo& t) { t.operator_buffers[0].dtype = DTypeValue::Read("float7"); }, StatusCode::kInvalidArgument,
       "m: buffer 'k_scale.X': unknown dtype 'float7' (expected one of: bool, int8, int16, int32, "
       "int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64)"},
      {[](TvmModuleInfo& t) { t.operator_buffers[2].function = "mlf_add"; },
       StatusCode::kInvalidArgument,
       "m: function 'mlf_add' is not a C identifier the generated code can call (names starting "
       "with mlf_ are mlfkit's)"},
  };
  for (const Case& c : cases) {
    TvmModuleInfo tvm = TwoFunctions();
    c.change(tvm);
    Result<std::vector<TensorInfo>> buffers = OperatorBuffers("m", tvm);
    EXPECT_EQ(buffers.status().code(), c.code) << buffers.status().ToString();
    EXPECT_EQ(buffers.status().message(), c.message);
  }
}

constexpr char kKernels[] = R"(#include "tvm/runtime/c_runtime_api.h"
#include "tvm/runtime/c_backend_api.h"
static float* data(void* args, int i) { return (float*)((DLTensor*)((TVMValue*)args)[i].v_handle)->data; }
int32_t k_scale(void* args, int32_t* codes, int32_t n, void* r, int32_t* rc, void* h) {
  float* scratch = (float*)TVMBackendAllocWorkspace(1, 0, 16, 2, 32);
  if (scratch == 0 || n != 2 || codes[1] != kTVMDLTensorHandle) return -9;
  if (((DLTensor*)((TVMValue*)args)[0].v_handle)->shape[0] != 4) return -8;
  for (int i = 0; i < 4; ++i) scratch[i] = 2 * data(args, 0)[i];
  for (int i = 0; i < 4; ++i) data(args, 1)[i] = scratch[i];
  return TVMBackendFreeWorkspace(1, 0, scratch);
}
int32_t k_add(void* args, int32_t* codes, int32_t n, void* r, int32_t* rc, void* h) {
  if (n != 2) return -7;
  if (data(args, 1)[0] < 0) return 5;
  for (int i = 0; i < 4; ++i) data(args, 1)[i] += data(args, 0)[i];
  return 0;
}
)";

TEST(OperatorSourceTest, TheGeneratedFunctionCallsEachOperatorOverTheOutputs) {
  const TvmModuleInfo tvm = TwoFunctions();
  Result<std::vector<TensorInfo>> buffers = OperatorBuffers("m", tvm);
  ASSERT_TRUE(buffers.ok()) << buffers.status().ToString();
  const std::string source = OperatorRunSource("m", "m", tvm, *buffers);
  EXPECT_EQ(testing::MutableStaticLines(source), std::vector<std::string>{});
  testing::LoadedRun lib;
  Status loaded = testing::BuildAndLoad("operator_source_test", kKernels, "operators.c", source, OperatorEntryWrapperSource("m"), &lib);
  ASSERT_TRUE(loaded.ok()) << loaded.ToString() << "\n" << source;
  const testing::RunFn run = lib.run;

  alignas(16) uint8_t workspace[16];
  struct { void* workspace; const void* constants; uint64_t size; } pools = {workspace, nullptr, 16};
  // Inputs: X, Y (k_scale's), Y (k_add's, a separate buffer), Z.
  float in[4][4] = {{1, 2, 3, 4}, {9, 9, 9, 9}, {100, 100, 100, 100}, {0.5f, 0.5f, 0.5f, 0.5f}};
  float out[4][4] = {};
  void* inputs[4] = {in[0], in[1], in[2], in[3]};
  void* outputs[4] = {out[0], out[1], out[2], out[3]};
  ASSERT_EQ(run(inputs, outputs, &pools), 0);
  EXPECT_EQ(std::vector<float>(out[0], out[0] + 4), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(std::vector<float>(out[1], out[1] + 4), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(std::vector<float>(out[2], out[2] + 4), (std::vector<float>{100, 100, 100, 100}));
  EXPECT_EQ(std::vector<float>(out[3], out[3] + 4), (std::vector<float>{100.5f, 100.5f, 100.5f, 100.5f}));
  EXPECT_EQ(in[1][0], 9);  // inputs are never written
  EXPECT_EQ(in[3][0], 0.5f);
  // The same buffers as inputs and outputs (as the firmware calls it): in place.
  ASSERT_EQ(run(inputs, inputs, &pools), 0);
  EXPECT_EQ(in[1][3], 8);
  EXPECT_EQ(in[3][3], 100.5f);
  // A failing operator's status comes back.
  in[3][0] = -1;
  EXPECT_EQ(run(inputs, outputs, &pools), 5);
  // k_scale's scratch does not fit an empty workspace: the allocator fails it.
  struct { void* workspace; const void* constants; uint64_t size; } none = {nullptr, nullptr, 0};
  EXPECT_EQ(run(inputs, outputs, &none), -9);
}

}  // namespace
}  // namespace mlf::tvm_compat
