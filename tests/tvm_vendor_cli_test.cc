// Vendor headers refused early (issue 16, point 4): `mlf inspect` and `mlf
// verify` say which vendor libraries a TVM module needs and where it runs;
// `mlf run`, `mlf project` and `mlf upgrade` exit 1 before compiling with the
// header named. Arm intrinsics (arm_acle.h) are a compiler's, not a vendor's:
// firmware only. Fixtures: tests/tvm_fixtures (EspDlV7, HeapCapsV7, ArmV7).
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "artifact/format/npy.h"
#include "tests/run_command.h"
#include "tests/test_files.h"
#include "tests/tvm_cli_harness.h"
#include "tests/tvm_fixtures/tvm_fixtures.h"

namespace mlf {
namespace {

using tvm_testing::Files;

std::string Archive(const std::string& name, const Files& files) {
  return testing::WriteTvmFixtureArchive("vendor_", name, files);
}


CommandResult Mlf(const std::vector<std::string>& args) { return testing::MlfWithTestCache(args); }
using testing::Contains;

constexpr char kWho[] = "module 'default' (TVM archive, metadata version 7)";

std::string HostWhy(const std::string& headers) {
  return std::string(kWho) + " needs vendor library: " + headers +
         "; it runs nowhere here: mlf run cannot build it (mlf project --vendor-source NAME=DIR "
         "adds the library to a firmware project)";
}

TEST(TvmVendorCliTest, InspectAndVerifyNameTheVendorLibraryAndWhereItRuns) {
  const std::string path = Archive("espdl", tvm_testing::EspDlV7());
  CommandResult inspect = Mlf({"inspect", path});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_CONTAINS(inspect.out, "  needs       vendor library: esp_kernel.h\n"
                               "  this host   cannot run: " + HostWhy("esp_kernel.h") + "\n"
                               "  runs        nowhere here\n");
  CommandResult verify = Mlf({"verify", path});
  ASSERT_EQ(verify.exit_code, 0) << verify.err;  // the archive itself is sound
  EXPECT_CONTAINS(verify.out, "module default: full-model, aot executor, c interface; does not run "
                              "on this host: " + HostWhy("esp_kernel.h") + "\n"
                              "  needs vendor library: esp_kernel.h\n"
                              "  runs: nowhere here\n");
  const nlohmann::json ij = nlohmann::json::parse(Mlf({"inspect", path, "--json"}).out);
  const nlohmann::json& im = ij["normalised"]["modules"]["default"];
  EXPECT_EQ(im["needs_vendor_library"], nlohmann::json({"esp_kernel.h"}));
  EXPECT_EQ(im["runs"], "nowhere here");
  EXPECT_EQ(im["host"], HostWhy("esp_kernel.h"));
  const nlohmann::json vj = nlohmann::json::parse(Mlf({"verify", path, "--json"}).out);
  const nlohmann::json& vm = vj["tvm"]["modules"]["default"];
  EXPECT_EQ(vm["needs_vendor_library"], nlohmann::json({"esp_kernel.h"}));
  EXPECT_EQ(vm["runs"], "nowhere here");
}

TEST(TvmVendorCliTest, HandEditedIncludeIsAVendorLibraryToo) {
  const std::string path = Archive("heapcaps", tvm_testing::HeapCapsV7());
  CommandResult inspect = Mlf({"inspect", path});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  // All of them, sorted.
  EXPECT_CONTAINS(inspect.out, "  needs       vendor library: esp_heap_caps.h, esp_kernel.h\n");
  EXPECT_CONTAINS(inspect.out, "  runs        nowhere here\n");
}

TEST(TvmVendorCliTest, RunProjectAndUpgradeRefuseBeforeCompiling) {
  const std::string path = Archive("refused", tvm_testing::EspDlV7());
  CommandResult run = Mlf({"run", path, "--random-inputs", "1"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err, "mlf: error: " + HostWhy("esp_kernel.h") + "\n");
  const std::string dir = FreshDir("vendor_project");
  CommandResult project = Mlf({"project", path, "-o", dir + "/p", "--platform", "mps2-an386"});
  EXPECT_EQ(project.exit_code, 1);
  EXPECT_EQ(project.err, "mlf: error: " + std::string(kWho) +
                             " needs vendor library: esp_kernel.h; give the library's sources with "
                             "--vendor-source NAME=DIR\n");
  CommandResult upgrade = Mlf({"upgrade", path, "-o", dir + "/u.tar"});
  EXPECT_EQ(upgrade.exit_code, 1);
  EXPECT_EQ(upgrade.err, "mlf: error: cannot upgrade '" + path +
                             "': module 'default' (TVM metadata version 7) needs vendor "
                         "library: esp_kernel.h; an mlfkit archive cannot carry it, so upgrade "
                         "refuses the module\n");
  for (const CommandResult* r : {&run, &project, &upgrade}) {
    EXPECT_FALSE(Contains(r->err, "error:") && Contains(r->err, ".c:")) << r->err;  // no compiler log
  }
}

// Arm intrinsics are the compiler's: firmware only, on the boards whose core has DSP.
TEST(TvmVendorCliTest, ArmIntrinsicsAreFirmwareOnlyNotVendor) {
  const std::string path = Archive("acle", tvm_testing::ArmV7());
  CommandResult inspect = Mlf({"inspect", path});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_FALSE(Contains(inspect.out, "vendor library")) << inspect.out;
  EXPECT_CONTAINS(inspect.out,
                  "  runs        firmware only (mlf project --platform mps2-an386 or mps2-an500)\n");
  const nlohmann::json vj = nlohmann::json::parse(Mlf({"verify", path, "--json"}).out);
  EXPECT_EQ(vj["tvm"]["modules"]["default"]["needs_vendor_library"], nlohmann::json::array());
  EXPECT_EQ(vj["tvm"]["modules"]["default"]["runs"],
            "firmware only (mlf project --platform mps2-an386 or mps2-an500)");
}

TEST(TvmVendorCliTest, PlainCodeRunsOnTheHost) {
  const std::string path = Archive("plain", tvm_testing::DenseV7());
  CommandResult inspect = Mlf({"inspect", path});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_CONTAINS(inspect.out, "  this host   runs with mlf run\n  runs        host\n");
  EXPECT_CONTAINS(Mlf({"verify", path}).out, "; runs on this host (mlf run)\n  runs: host\n");
}

// ------------------------------------------------------- --vendor-source --

std::string ToyVendorDir() { return std::filesystem::absolute("tests/testdata/toy_vendor").string(); }

// DenseInput() as an .npy file in `dir`.
std::string DenseSample(const std::string& dir) {
  NpyArray a;
  a.dtype = DType::kFloat32;
  a.shape = {1, 4};
  const std::vector<float> x = tvm_testing::DenseInput();
  a.data.assign(reinterpret_cast<const char*>(x.data()), x.size() * sizeof(float));
  const std::string path = dir + "/x.npy";
  EXPECT_TRUE(WriteNpyFile(path, a).ok());
  return path;
}

// The toy library's sources and include path reach the project; the model
// calls toy_vendor_add (outputs + 100).
TEST(TvmVendorCliTest, VendorSourceAddsTheLibraryToTheProject) {
  const std::string path = Archive("toy", tvm_testing::ToyVendorV7());
  const std::string dir = FreshDir("vendor_toy_project");
  const std::string sample = DenseSample(dir);
  CommandResult host = Mlf({"project", path, "-o", dir + "/host", "--vendor-source",
                            "toy=" + ToyVendorDir(), "--sample-input",
                            "serving_default_input_1:0=" + sample, "--run"});
  ASSERT_EQ(host.exit_code, 0) << host.err << host.out;
  EXPECT_CONTAINS(host.out, "\noutput output 3 104.75 100 104\n");
  const std::string makefile = ReadFile(dir + "/host/Makefile");
  EXPECT_CONTAINS(makefile, "  vendor/toy/src/toy_vendor.c");
  EXPECT_CONTAINS(makefile, "-Imlf_tvm/include -Ivendor/toy -Ivendor/toy/include -Isrc");
  const std::string cmake = ReadFile(dir + "/host/CMakeLists.txt");
  EXPECT_CONTAINS(cmake, "  vendor/toy/src/toy_vendor.c");
  EXPECT_CONTAINS(cmake, "vendor/toy vendor/toy/include src");
  EXPECT_EQ(ReadFile(dir + "/host/vendor/toy/include/toy_vendor.h"),
            ReadFile(ToyVendorDir() + "/include/toy_vendor.h"));
  // Cortex-M3 under QEMU, built with arm-none-eabi-gcc.
  CommandResult m3 = Mlf({"project", path, "-o", dir + "/m3", "--platform", "mps2-an385",
                          "--vendor-source", "toy=" + ToyVendorDir(), "--sample-input",
                          "serving_default_input_1:0=" + sample, "--run"});
  ASSERT_EQ(m3.exit_code, 0) << m3.err << m3.out;
  EXPECT_CONTAINS(m3.out, "\noutput output 3 104.75 100 104\n");
}

TEST(TvmVendorCliTest, VendorSourceErrors) {
  const std::string toy = Archive("toy_errors", tvm_testing::ToyVendorV7());
  const std::string dir = FreshDir("vendor_errors");
  auto project = [&](const std::string& archive, const std::vector<std::string>& flags) {
    std::vector<std::string> args = {"project", archive, "-o", dir + "/p"};
    for (const std::string& f : flags) {
      args.push_back("--vendor-source");
      args.push_back(f);
    }
    return Mlf(args);
  };
  const std::string vendor = ToyVendorDir();
  const std::string file = vendor + "/src/toy_vendor.c";
  struct Case {
    std::vector<std::string> flags;
    std::string error;
  };
  const Case cases[] = {
      {{"toy"}, "--vendor-source 'toy': expected NAME=DIR"},
      {{"=" + vendor}, "--vendor-source =" + vendor + ": the library's NAME (before '=') is empty"},
      {{"toy=" + vendor, "toy=" + vendor},
       "--vendor-source toy=" + vendor + ": library 'toy' is given twice"},
      {{"t y=" + vendor},
       "--vendor-source t y=" + vendor + ": NAME may hold letters, digits, '_', '-' and '.' only"},
      {{"toy=" + dir + "/missing"},
       "--vendor-source toy=" + dir + "/missing: directory '" + dir + "/missing' does not exist"},
      {{"toy=" + file}, "--vendor-source toy=" + file + ": '" + file + "' is not a directory"},
  };
  for (const Case& c : cases) {
    CommandResult r = project(toy, c.flags);
    EXPECT_EQ(r.exit_code, 1) << c.error;
    EXPECT_EQ(r.err, "mlf: error: " + c.error + "\n");
  }
  // A vendor header the given libraries do not have.
  CommandResult esp = project(Archive("esp_missing", tvm_testing::EspDlV7()), {"esp=" + vendor});
  EXPECT_EQ(esp.exit_code, 1);
  EXPECT_EQ(esp.err, "mlf: error: " + std::string(kWho) + ": esp_kernel.h is not in --vendor-source esp=" +
                         vendor + "\n");
}

}  // namespace
}  // namespace mlf
