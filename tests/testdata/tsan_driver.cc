// The driver of tests/tsan_generated_test.cc, compiled there with
// -fsanitize=thread together with the generated C of
// tests/testdata/threads_model.yaml (exported with --link-params) and
// loader/host/thread_pool.cc: runs the model through tvmgen_default_run_ctx
// with THREADS threads of mlf::ThreadPool, three times, and writes the
// outputs of the last run to OUT as raw floats.
//
//   tsan_driver THREADS OUT
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "loader/host/thread_pool.h"
#include "tvmgen_default.h"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const int threads = std::atoi(argv[1]);
  std::vector<float> x(TVMGEN_DEFAULT_X_SIZE / sizeof(float));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.37 * i));
  std::vector<float> logits(TVMGEN_DEFAULT_LOGITS_SIZE / sizeof(float));
  std::vector<float> features(TVMGEN_DEFAULT_FEATURES_SIZE / sizeof(float));
  void* workspace = std::aligned_alloc(MLF_WORKSPACE_ALIGNMENT,
                                       (TVMGEN_DEFAULT_WORKSPACE_SIZE + 63) / 64 * 64);
  struct tvmgen_default_inputs inputs = {x.data()};
  struct tvmgen_default_outputs outputs = {logits.data(), features.data()};
  struct tvmgen_default_workspace_pools pools = {workspace, nullptr};
  mlf::ThreadPool pool(threads);
  const mlf_run_context ctx = {MLF_KERNEL_ISA_AUTO, threads, &mlf::ThreadPool::Callback, &pool};
  for (int run = 0; run < 3; ++run) {
    const int32_t rc = tvmgen_default_run_ctx(&inputs, &outputs, &pools, &ctx);
    if (rc != 0) {
      std::fprintf(stderr, "run %d returned %d\n", run, static_cast<int>(rc));
      return 1;
    }
  }
  std::FILE* out = std::fopen(argv[2], "wb");
  if (out == nullptr) return 1;
  std::fwrite(logits.data(), sizeof(float), logits.size(), out);
  std::fwrite(features.data(), sizeof(float), features.size(), out);
  std::fclose(out);
  std::free(workspace);
  return 0;
}
