// Test helpers for the data-movement operator tests (shape_ops_test.cc,
// slice_pad_test.cc, gather_test.cc, cast_test.cc, resize_test.cc). Header-only,
// test code only.
#ifndef MLFKIT_CODEGEN_OPS_SHAPE_TEST_UTIL_H_
#define MLFKIT_CODEGEN_OPS_SHAPE_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "artifact/format/dtype.h"
#include "codegen/emit/node_function.h"
#include "codegen/kernels/kernels.h"
#include "codegen/ir/host_tensor.h"
#include "codegen/ops/testing/op_harness.h"

namespace mlf::ops::testing {

// A 1-D int64 tensor (exact, unlike MakeTensor's doubles).
inline ir::HostTensor Int64s(const std::vector<int64_t>& v) {
  ir::HostTensor t = ir::HostTensor::Zeros(DType::kInt64, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data<int64_t>()[i] = v[i];
  return t;
}

// 0, 1, 2, ... as `dtype`.
inline ir::HostTensor Iota(DType dtype, std::vector<int64_t> shape) {
  ir::HostTensor t = ir::HostTensor::Zeros(dtype, std::move(shape));
  for (uint64_t i = 0; i < t.element_count(); ++i) t.SetDouble(i, static_cast<double>(i % 100));
  return t;
}

// Compiles the test graph's generated C with arm-none-eabi-gcc (Cortex-M4,
// -Wall -Wextra -Werror); ok when that compiler is not installed.
inline Status CrossCompile(OpTest& t) {
  if (std::system("command -v arm-none-eabi-gcc >/dev/null 2>&1") != 0) return Status::Ok();
  std::string source;
  std::set<std::string> families;
  for (size_t n = 0; n < t.graph().nodes.size(); ++n) {
    MLF_ASSIGN_OR_RETURN(emit::NodeFunction f, emit::EmitNodeFunction(t.graph(), n));
    families.insert(f.kernels.begin(), f.kernels.end());
    // Keep the static function referenced.
    source += f.definition + "void* keep_" + std::to_string(n) + "(void);\nvoid* keep_" + std::to_string(n) +
              "(void) { return (void*)&" + f.name + "; }\n";
  }
  source = emit::GeneratedSourcePreamble() + emit::KernelIncludes(families) + source;
  MLF_ASSIGN_OR_RETURN(std::vector<StagedFile> kernel_files, kernels::KernelFiles(families));
  const char* tmp = std::getenv("TEST_TMPDIR");
  static int counter = 0;
  const std::string base = std::string(tmp ? tmp : "/tmp") + "/arm_" + std::to_string(getpid()) + "_" +
                           std::to_string(counter++);
  std::ofstream(base + ".c") << source;
  // Kernel headers are found beside the source, as in an archive.
  for (const StagedFile& k : kernel_files) std::ofstream(std::string(tmp ? tmp : "/tmp") + "/" + k.path) << k.content;
  const std::string cmd = "arm-none-eabi-gcc -std=c99 -O2 -mcpu=cortex-m4 -mthumb -Wall -Wextra -Werror -c " +
                          base + ".c -o " + base + ".o > " + base + ".log 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream log(base + ".log");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  std::remove((base + ".c").c_str());
  std::remove((base + ".o").c_str());
  std::remove((base + ".log").c_str());
  if (rc != 0) return Internal("arm-none-eabi-gcc failed:\n" + text + "\n" + source);
  return Status::Ok();
}

// Runs infer, evaluate and the generated C (host and, when `cross`, the
// Cortex-M compiler) on `inputs`; the generated outputs must equal the
// reference bit for bit (tolerance 0) or be AllClose.
inline void ExpectGeneratedMatches(OpTest& t, const std::vector<ir::HostTensor>& inputs, double tolerance = 0,
                                   bool cross = false) {
  const Status inferred = t.Infer();
  ASSERT_TRUE(inferred.ok()) << inferred.ToString();
  auto want = t.Evaluate(inputs);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  auto got = t.RunGenerated(inputs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), want->size());
  for (size_t i = 0; i < got->size(); ++i) {
    const ir::Value& v = t.graph().value(t.node().outputs[i]);
    EXPECT_EQ((*want)[i].shape, v.shape) << "output " << i << ": evaluate and infer disagree";
    EXPECT_EQ((*want)[i].dtype, v.dtype) << "output " << i;
    if (tolerance == 0) {
      EXPECT_EQ((*got)[i].bytes, (*want)[i].bytes) << "output " << i << " differs";
    }
  }
  if (tolerance != 0) {
    const Status close = AllClose(*got, *want, tolerance, tolerance);
    EXPECT_TRUE(close.ok()) << close.ToString();
  }
  if (std::getenv("MLF_PRINT_GENERATED") != nullptr) {  // for reading the code while debugging
    auto f = emit::EmitNodeFunction(t.graph(), 0);
    if (f.ok()) std::cout << f->definition << "\n";
  }
  if (cross) {
    const Status compiled = CrossCompile(t);
    EXPECT_TRUE(compiled.ok()) << compiled.ToString();
  }
}

// The error of infer(), "" when it succeeds.
inline std::string InferError(OpTest& t) {
  const Status s = t.Infer();
  return s.ok() ? "" : s.message();
}

}  // namespace mlf::ops::testing

#endif  // MLFKIT_CODEGEN_OPS_SHAPE_TEST_UTIL_H_
