// One ModelLibrary, one executor per thread, many threads: results must be
// bit-identical to a serial run (generated code is reentrant and executors
// share only read-only parameters). Also run under ThreadSanitizer
// (scripts/test.sh: bazel test --config=tsan).
#include <dlpack/dlpack.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "loader/host/model_library.h"
#include "tests/fixtures/fixture_models.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

constexpr int kThreads = 8;
constexpr int kRunsPerThread = 1000;

// Inputs for run `i`: different every run, so a race shows up as a mismatch.
std::vector<float> InputFor(int i) {
  return {0.25f * i, -0.5f * (i % 7), 1.0f + i % 3, 0.125f * (i % 11)};
}

// The output's bit patterns, or nothing when the run failed (never equal to
// a result, so a failing run cannot match a failing reference).
std::optional<std::vector<uint32_t>> RunOnce(AotExecutor& e, int i) {
  std::vector<float> x = InputFor(i);
  std::vector<int64_t> shape = {1, 4};
  DLTensor t{};
  t.data = x.data();
  t.device = {kDLCPU, 0};
  t.ndim = 2;
  t.dtype = {kDLFloat, 32, 1};
  t.shape = shape.data();
  if (!e.SetInput(0, t).ok() || !e.Run().ok()) return std::nullopt;
  std::vector<uint32_t> bits(3);
  std::memcpy(bits.data(), e.GetOutput(0)->data, 12);
  return bits;
}

TEST(HostLoaderConcurrencyTest, ThreadsMatchASerialRunBitForBit) {
  const std::string dir = FreshDir("concurrency");
  auto module = testing::MakeFixture("dense_file", "dense");
  ASSERT_TRUE(module.ok());
  ASSERT_TRUE(testing::WriteFixtureArchive({*module}, dir + "/dense.tar").ok());
  LoadOptions options;
  options.cache_dir = dir + "/cache";
  auto lib = ModelLibrary::Open(dir + "/dense.tar", options);
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();

  auto serial_exec = (*lib)->CreateExecutor("dense");
  ASSERT_TRUE(serial_exec.ok());
  std::vector<std::vector<uint32_t>> expected(kThreads * kRunsPerThread);
  for (int i = 0; i < kThreads * kRunsPerThread; ++i) {
    std::optional<std::vector<uint32_t>> bits = RunOnce(**serial_exec, i);
    ASSERT_TRUE(bits.has_value()) << "serial run " << i << " failed";
    expected[i] = *bits;
  }
  // The serial run itself computes relu(x W + b) (the fixture's C reference).
  for (int i = 0; i < kThreads * kRunsPerThread; ++i) {
    const std::vector<float> want = testing::DenseReference(InputFor(i));
    for (int j = 0; j < 3; ++j) {
      float value;
      std::memcpy(&value, &expected[i][j], sizeof value);
      ASSERT_NEAR(value, want[j], 1e-5f * (1.0f + std::abs(want[j]))) << "run " << i << " y[" << j << "]";
    }
  }

  std::vector<std::vector<std::optional<std::vector<uint32_t>>>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto exec = (*lib)->CreateExecutor("dense");  // concurrent creation, too
      if (!exec.ok()) return;
      for (int r = 0; r < kRunsPerThread; ++r) {
        got[t].push_back(RunOnce(**exec, t * kRunsPerThread + r));
      }
    });
  }
  for (std::thread& th : threads) th.join();
  int mismatches = 0;
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(got[t].size(), static_cast<size_t>(kRunsPerThread)) << "thread " << t;
    for (int r = 0; r < kRunsPerThread; ++r) {
      if (got[t][r] != std::optional<std::vector<uint32_t>>(expected[t * kRunsPerThread + r])) {
        ++mismatches;
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace mlf
