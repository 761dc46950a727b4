// One fuzz target = one function over untrusted bytes, written once and built
// two ways (fuzz/fuzz.bzl):
//
//   - as a libFuzzer binary (clang, -fsanitize=fuzzer,address,undefined):
//     MLF_FUZZ_TARGET(name) defines LLVMFuzzerTestOneInput;
//   - as a plain library for the regression test (any compiler, compiled with
//     MLF_FUZZ_REPLAY): MLF_FUZZ_TARGET(name) defines a function registered
//     under `name`, so fuzz:regression_test can replay fuzz/regressions/<name>/.
//
//   MLF_FUZZ_TARGET(npy) {
//     (void)mlf::ParseNpy(mlf::fuzz::AsView(data, size));
//     return 0;
//   }
//
// A target must never crash, leak, hang or trip a sanitizer on any input; a
// broken invariant that is not a sanitizer finding calls MLF_FUZZ_CHECK, which
// prints the message and aborts (libFuzzer then saves the input).
#ifndef MLFKIT_FUZZ_FUZZ_TARGET_H_
#define MLFKIT_FUZZ_FUZZ_TARGET_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

namespace mlf::fuzz {

using FuzzFunction = int (*)(const uint8_t* data, size_t size);

// Registry of targets built with MLF_FUZZ_REPLAY (fuzz/registry.cc).
bool RegisterTarget(const char* name, FuzzFunction function);
const std::map<std::string, FuzzFunction>& Targets();

inline std::string_view AsView(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

[[noreturn]] inline void CheckFailed(const char* file, int line, const char* cond,
                                     const std::string& message) {
  std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n  %s\n", file, line, cond,
               message.c_str());
  std::abort();
}

}  // namespace mlf::fuzz

// Aborts (a crash libFuzzer records) when `cond` is false.
#define MLF_FUZZ_CHECK(cond, message)                                          \
  do {                                                                         \
    if (!(cond)) ::mlf::fuzz::CheckFailed(__FILE__, __LINE__, #cond, message); \
  } while (0)

#ifdef MLF_FUZZ_REPLAY
#define MLF_FUZZ_TARGET(name)                                                      \
  static int MlfFuzzTarget_##name(const uint8_t* data, size_t size);               \
  [[maybe_unused]] static const bool mlf_fuzz_registered_##name =                  \
      ::mlf::fuzz::RegisterTarget(#name, &MlfFuzzTarget_##name);                   \
  static int MlfFuzzTarget_##name(const uint8_t* data, size_t size)
#else
#define MLF_FUZZ_TARGET(name) extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
#endif

#endif  // MLFKIT_FUZZ_FUZZ_TARGET_H_
