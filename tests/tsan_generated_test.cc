// ThreadSanitizer on generated code with intra-op threads (issue 13): the
// model of tests/testdata/threads_model.yaml, exported with its parameters
// linked, is compiled here with -fsanitize=thread together with the host
// loader's ThreadPool and a driver (tests/testdata/tsan_driver.cc), then run
// with 4 threads. Any report of ThreadSanitizer fails (halt_on_error); the
// outputs must be the bits of the 1-thread run. It builds its own
// instrumented binary, so it stays out of the sanitizer passes of
// scripts/test.sh (tags no-asan, no-tsan).
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

std::string SourceRoot() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir != nullptr ? srcdir : ".") + "/mlfkit";
}

TEST(TsanGeneratedTest, GeneratedCodeWithFourThreadsIsRaceFree) {
  const std::string dir = FreshDir("tsan_generated");
  const std::string model = "tests/testdata/threads_model.yaml";
  CommandResult r = RunCommand({MlfBinary(), "export", model, "--link-params", "-o", dir + "/m.tar"});
  ASSERT_EQ(r.exit_code, 0) << Describe({"export", model}, r);
  r = RunCommand({MlfBinary(), "unpack", dir + "/m.tar", "-o", dir + "/m"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string code = dir + "/m/codegen/host";
  const std::string root = SourceRoot();
  const std::string flags = "-O1 -g -fsanitize=thread -I" + code + "/include -I" + code + "/src";
  r = RunCommand({"sh", "-c",
                  "cc -std=c99 " + flags + " -c " + code + "/src/default_lib0.c -o " + dir +
                      "/model.o && c++ -std=c++17 " + flags + " -I" + root + " " + root +
                      "/tests/testdata/tsan_driver.cc " + root + "/loader/host/thread_pool.cc " + dir +
                      "/model.o -o " + dir + "/driver -lm -lpthread"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  RunOptions tsan;
  tsan.env = {{"TSAN_OPTIONS", "halt_on_error=1 exitcode=66"}};
  for (const char* threads : {"1", "4"}) {
    r = RunCommand({dir + "/driver", threads, dir + "/out" + threads}, tsan);
    EXPECT_EQ(r.exit_code, 0) << threads << " threads:\n" << r.err;
    EXPECT_EQ(r.err.find("ThreadSanitizer"), std::string::npos) << r.err;
  }
  const std::string one = ReadFile(dir + "/out1"), four = ReadFile(dir + "/out4");
  EXPECT_EQ(one.size(), (10 + 40 * 16 * 16) * sizeof(float));
  EXPECT_TRUE(one == four) << "4 threads changed the outputs";
}

}  // namespace
}  // namespace mlf
