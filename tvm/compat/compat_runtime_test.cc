// The compatibility runtime's allocator and abort handling, called from C++
// the way TVM-generated code calls it, and the embedded files.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tvm/compat/compat.h"

extern "C" {
void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                               int dtype_code_hint, int dtype_bits_hint);
int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr);
void TVMAPISetLastError(const char* msg);
const char* TVMGetLastError(void);
void TVMPlatformAbort(int error_code);
int32_t mlf_tvm_run_with_workspace(void* workspace, uint64_t workspace_size,
                                   int32_t (*entry)(void*, void*), void* inputs, void* outputs);
}

namespace {

struct alignas(64) Workspace {
  uint8_t bytes[256];
};

// What an entry point saw, for the assertions.
struct Probe {
  std::vector<uintptr_t> pointers;
  std::vector<int> free_results;
  std::string error;
};

int32_t RunWith(Workspace* ws, uint64_t size, int32_t (*entry)(void*, void*), Probe* probe) {
  return mlf_tvm_run_with_workspace(ws, size, entry, probe, nullptr);
}

TEST(CompatRuntimeTest, AllocatesLifoAlignedInsideTheWorkspace) {
  Workspace ws;
  Probe probe;
  const int32_t rc = RunWith(&ws, sizeof ws.bytes, [](void* in, void*) -> int32_t {
    Probe* p = static_cast<Probe*>(in);
    void* a = TVMBackendAllocWorkspace(1, 0, 40, 2, 32);  // rounds to 48
    void* b = TVMBackendAllocWorkspace(1, 0, 1, 0, 8);    // rounds to 16
    void* c = TVMBackendAllocWorkspace(1, 0, 0, 0, 8);    // zero bytes: valid pointer
    p->pointers = {reinterpret_cast<uintptr_t>(a), reinterpret_cast<uintptr_t>(b),
                   reinterpret_cast<uintptr_t>(c)};
    p->free_results.push_back(TVMBackendFreeWorkspace(1, 0, c));
    p->free_results.push_back(TVMBackendFreeWorkspace(1, 0, b));
    void* d = TVMBackendAllocWorkspace(1, 0, 16, 0, 8);  // reuses b's place
    p->pointers.push_back(reinterpret_cast<uintptr_t>(d));
    p->free_results.push_back(TVMBackendFreeWorkspace(1, 0, d));
    p->free_results.push_back(TVMBackendFreeWorkspace(1, 0, a));
    return 0;
  }, &probe);
  EXPECT_EQ(rc, 0) << TVMGetLastError();
  const uintptr_t base = reinterpret_cast<uintptr_t>(ws.bytes);
  ASSERT_EQ(probe.pointers.size(), 4u);
  EXPECT_EQ(probe.pointers[0], base);
  EXPECT_EQ(probe.pointers[1], base + 48);
  EXPECT_EQ(probe.pointers[2], base + 64);
  EXPECT_EQ(probe.pointers[3], base + 48);
  EXPECT_EQ(probe.free_results, (std::vector<int>{0, 0, 0, 0}));
}

TEST(CompatRuntimeTest, ExhaustionReturnsNullWithAMessage) {
  Workspace ws;
  Probe probe;
  const int32_t rc = RunWith(&ws, 64, [](void* in, void*) -> int32_t {
    Probe* p = static_cast<Probe*>(in);
    void* a = TVMBackendAllocWorkspace(1, 0, 48, 0, 8);
    void* b = TVMBackendAllocWorkspace(1, 0, 17, 0, 8);  // 32 > the 16 left
    p->pointers = {reinterpret_cast<uintptr_t>(a), reinterpret_cast<uintptr_t>(b)};
    p->error = TVMGetLastError();
    TVMBackendFreeWorkspace(1, 0, a);
    return b == nullptr ? -1 : 0;
  }, &probe);
  EXPECT_EQ(rc, -1);
  EXPECT_NE(probe.pointers[0], 0u);
  EXPECT_EQ(probe.pointers[1], 0u);
  EXPECT_EQ(probe.error,
            "TVMBackendAllocWorkspace: workspace exhausted: 17 bytes requested, 48 of 64 bytes in "
            "use (metadata memory.functions.main[0].workspace_size_bytes)");
}

TEST(CompatRuntimeTest, OutsideARunNothingIsAllocated) {
  EXPECT_EQ(TVMBackendAllocWorkspace(1, 0, 16, 0, 8), nullptr);
  EXPECT_STREQ(TVMGetLastError(),
               "TVMBackendAllocWorkspace called outside a run (no workspace is installed)");
  int x = 0;
  EXPECT_EQ(TVMBackendFreeWorkspace(1, 0, &x), -1);
}

TEST(CompatRuntimeTest, RefusesOtherDevicesAndOutOfOrderFrees) {
  Workspace ws;
  Probe probe;
  const int32_t rc = RunWith(&ws, sizeof ws.bytes, [](void* in, void*) -> int32_t {
    Probe* p = static_cast<Probe*>(in);
    if (TVMBackendAllocWorkspace(2, 0, 16, 0, 8) != nullptr) return 1;
    p->error = TVMGetLastError();
    void* a = TVMBackendAllocWorkspace(1, 0, 16, 0, 8);
    void* b = TVMBackendAllocWorkspace(1, 0, 16, 0, 8);
    p->free_results.push_back(TVMBackendFreeWorkspace(1, 0, a));  // not the last one
    p->error += "|" + std::string(TVMGetLastError());
    p->free_results.push_back(TVMBackendFreeWorkspace(1, 0, b));
    p->free_results.push_back(TVMBackendFreeWorkspace(1, 0, a));
    return 0;
  }, &probe);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(probe.error,
            "TVMBackendAllocWorkspace: device type 2 is not the CPU (1)|TVMBackendFreeWorkspace: "
            "pointer is not the most recent allocation (frees must be in LIFO order)");
  EXPECT_EQ(probe.free_results, (std::vector<int>{-1, 0, 0}));
}

TEST(CompatRuntimeTest, UnfreedAllocationsFailTheRun) {
  Workspace ws;
  const int32_t rc = RunWith(&ws, sizeof ws.bytes, [](void*, void*) -> int32_t {
    return TVMBackendAllocWorkspace(1, 0, 16, 0, 8) == nullptr ? -1 : 0;
  }, nullptr);
  EXPECT_EQ(rc, -101);
  EXPECT_STREQ(TVMGetLastError(),
               "the generated code returned with 1 workspace allocation(s) not freed");
}

TEST(CompatRuntimeTest, PlatformAbortEndsTheRunNotTheProcess) {
  Workspace ws;
  const int32_t rc = RunWith(&ws, sizeof ws.bytes, [](void*, void*) -> int32_t {
    TVMBackendAllocWorkspace(1, 0, 16, 0, 8);
    TVMPlatformAbort(0x0204);
    return 0;  // not reached
  }, nullptr);
  EXPECT_EQ(rc, -100);
  EXPECT_STREQ(TVMGetLastError(), "TVMPlatformAbort(0x204) called by the generated code");
  // The next run starts clean: the aborted run's state did not leak.
  const int32_t again = RunWith(&ws, 16, [](void*, void*) -> int32_t {
    void* a = TVMBackendAllocWorkspace(1, 0, 16, 0, 8);
    return a != nullptr && TVMBackendFreeWorkspace(1, 0, a) == 0 ? 0 : -1;
  }, nullptr);
  EXPECT_EQ(again, 0) << TVMGetLastError();
}

TEST(CompatRuntimeTest, LastErrorIsSetAndClearedPerRun) {
  TVMAPISetLastError("Assert fail: x == 1");
  EXPECT_STREQ(TVMGetLastError(), "Assert fail: x == 1");
  Workspace ws;
  EXPECT_EQ(RunWith(&ws, 0, [](void*, void*) -> int32_t { return 0; }, nullptr), 0);
  EXPECT_STREQ(TVMGetLastError(), "");
}

// A run nested in another on the same thread has its own workspace; the
// outer one is back in place afterwards.
Workspace g_inner;

TEST(CompatRuntimeTest, NestedRunsRestoreTheOuterWorkspace) {
  Workspace outer;
  Probe probe;
  const int32_t rc = RunWith(&outer, sizeof outer.bytes, [](void* in, void*) -> int32_t {
    Probe* p = static_cast<Probe*>(in);
    void* a = TVMBackendAllocWorkspace(1, 0, 32, 0, 8);
    const int32_t inner = mlf_tvm_run_with_workspace(&g_inner, sizeof g_inner.bytes,
        [](void* in2, void*) -> int32_t {
          Probe* q = static_cast<Probe*>(in2);
          void* x = TVMBackendAllocWorkspace(1, 0, 16, 0, 8);
          q->pointers.push_back(reinterpret_cast<uintptr_t>(x));
          return TVMBackendFreeWorkspace(1, 0, x);
        }, p, nullptr);
    void* b = TVMBackendAllocWorkspace(1, 0, 16, 0, 8);
    p->pointers.push_back(reinterpret_cast<uintptr_t>(a));
    p->pointers.push_back(reinterpret_cast<uintptr_t>(b));
    TVMBackendFreeWorkspace(1, 0, b);
    TVMBackendFreeWorkspace(1, 0, a);
    return inner;
  }, &probe);
  EXPECT_EQ(rc, 0) << TVMGetLastError();
  ASSERT_EQ(probe.pointers.size(), 3u);
  EXPECT_EQ(probe.pointers[0], reinterpret_cast<uintptr_t>(g_inner.bytes));
  EXPECT_EQ(probe.pointers[1], reinterpret_cast<uintptr_t>(outer.bytes));
  EXPECT_EQ(probe.pointers[2], reinterpret_cast<uintptr_t>(outer.bytes) + 32);
}

// Reentrancy: threads run at the same time, each with its own workspace;
// every allocation lands in the caller's workspace and data never mixes.
TEST(CompatRuntimeTest, ConcurrentRunsUseTheirOwnWorkspaces) {
  constexpr int kThreads = 8;
  constexpr int kRuns = 2000;
  std::vector<Workspace> workspaces(kThreads);
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  struct Job {
    Workspace* ws;
    int id;
    int* failures;
  };
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Job job{&workspaces[t], t, &failures[t]};
      for (int r = 0; r < kRuns; ++r) {
        const int32_t rc = mlf_tvm_run_with_workspace(job.ws, sizeof job.ws->bytes,
            [](void* in, void*) -> int32_t {
              Job* j = static_cast<Job*>(in);
              uint8_t* lo = j->ws->bytes;
              uint8_t* a = static_cast<uint8_t*>(TVMBackendAllocWorkspace(1, 0, 100, 0, 8));
              uint8_t* b = static_cast<uint8_t*>(TVMBackendAllocWorkspace(1, 0, 100, 0, 8));
              if (a != lo || b != lo + 112) return -1;
              std::memset(a, j->id, 100);
              std::memset(b, j->id + 100, 100);
              std::this_thread::yield();
              for (int i = 0; i < 100; ++i) {
                if (a[i] != j->id || b[i] != j->id + 100) return -2;
              }
              if (TVMBackendFreeWorkspace(1, 0, b) != 0) return -3;
              return TVMBackendFreeWorkspace(1, 0, a);
            }, &job, nullptr);
        if (rc != 0) ++*job.failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures, std::vector<int>(kThreads, 0));
}

// ---------------------------------------------------------- embedded files --

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CompatFilesTest, HeadersAndRuntimeAreEmbedded) {
  EXPECT_EQ(mlf::tvm_compat::HeaderPaths(),
            (std::vector<std::string>{"dlpack/dlpack.h", "tvm/runtime/c_backend_api.h",
                                      "tvm/runtime/c_runtime_api.h",
                                      "tvm/runtime/crt/error_codes.h",
                                      "tvm/runtime/crt/func_registry.h",
                                      "tvm/runtime/crt/module.h",
                                      "tvm/runtime/crt/platform.h",
                                      "tvm/runtime/metadata_types.h"}));
  bool runtime = false;
  for (const mlf::tvm_compat::File& f : mlf::tvm_compat::Files()) {
    if (f.path == mlf::tvm_compat::kRuntimeSource) {
      runtime = f.content.find("mlf_tvm_run_with_workspace") != std::string_view::npos;
    }
    if (f.path == "include/dlpack/dlpack.h") {
      EXPECT_EQ(std::string(f.content), ReadText("/usr/include/dlpack/dlpack.h"))
          << "the embedded DLPack is Debian's libdlpack-dev header";
    }
  }
  EXPECT_TRUE(runtime);
}

TEST(CompatFilesTest, WrapperNamesTheModuleFunctions) {
  const std::string src = mlf::tvm_compat::EntryWrapperSource("my_model");
  EXPECT_NE(src.find("int32_t tvmgen_my_model_run(struct tvmgen_my_model_inputs* inputs"),
            std::string::npos);
  EXPECT_NE(src.find("int32_t mlf_tvm_my_model_run(void* const* inputs, void* const* outputs, "
                     "void* pools)"),
            std::string::npos);
  EXPECT_EQ(mlf::tvm_compat::EntrySymbol("my_model"), "mlf_tvm_my_model_run");
}

// The headers are standalone C99 (and C++): every one compiles on its own,
// warnings as errors.
TEST(CompatFilesTest, HeadersCompileStandalone) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp ? tmp : "/tmp") + "/compat_headers";
  for (const mlf::tvm_compat::File& f : mlf::tvm_compat::Files()) {
    const std::string path = dir + "/" + std::string(f.path);
    std::string parent = path.substr(0, path.rfind('/'));
    std::string partial;
    for (size_t i = 0; i <= parent.size(); ++i) {
      if (i == parent.size() || (parent[i] == '/' && i > 0)) mkdir(parent.substr(0, i).c_str(), 0755);
    }
    std::ofstream(path, std::ios::binary) << f.content;
  }
  for (const std::string& header : mlf::tvm_compat::HeaderPaths()) {
    for (const char* lang : {"-x c -std=c99 -pedantic", "-x c++ -std=c++17"}) {
      const std::string cmd = std::string("cc -fsyntax-only -Wall -Wextra -Werror ") + lang +
                              " -I" + dir + "/include -include " + header + " /dev/null 2>&1";
      EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }
  }
  const std::string runtime = "cc -fsyntax-only -Wall -Wextra -Werror -std=c99 " + dir + "/" +
                              mlf::tvm_compat::kRuntimeSource + " 2>&1";
  EXPECT_EQ(std::system(runtime.c_str()), 0) << runtime;
}

}  // namespace
