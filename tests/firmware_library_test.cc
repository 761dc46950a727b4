// The model as a library in a firmware of the user's own (issue 19, point 6):
// `mlf project` for mps2-an386, then an application written here as a user
// writes one (its own main.c calling tvmgen_default_run, its own startup code
// and linker script) that takes the model through `add_subdirectory` +
// `target_link_libraries(app PRIVATE mlfkit::model)` with a CMake toolchain
// file, and through `include model.mk` in its own Makefile. Both images are
// cross-compiled with arm-none-eabi-gcc, run under QEMU and must print the
// host's results; libmodel.a must hold the model and nothing of the
// project's startup, console or measuring harness. A host project's model.mk
// builds the same user program with cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "artifact/format/npy.h"
#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

constexpr int kPixels = 784;
constexpr int kClasses = 10;

// The user's program: fills the image the same way InputArray() does, runs
// the model with its own buffers and prints each probability.
constexpr char kUserMain[] = R"(#include <stdint.h>
#include <stdio.h>

#include "model_data.h"
#include "tvmgen_default.h"

static float image[784];
static float probabilities[10];
static uint8_t workspace[TVMGEN_DEFAULT_WORKSPACE_SIZE]
    __attribute__((aligned(MLF_WORKSPACE_ALIGNMENT)));

int main(void) {
  for (int i = 0; i < 784; ++i) image[i] = (float)(i % 17) / 16.0f - 0.5f;
  struct tvmgen_default_inputs inputs = {0};
  struct tvmgen_default_outputs outputs = {0};
  struct tvmgen_default_workspace_pools pools = {0};
  inputs.image = image;
  outputs.probabilities = probabilities;
  pools.workspace = workspace;
  pools.constants = mlf_default_constants;
  int32_t status = tvmgen_default_run(&inputs, &outputs, &pools);
  if (status != 0) {
    printf("run failed: %ld\n", (long)status);
    return 1;
  }
  for (int i = 0; i < 10; ++i) printf("p %.9g\n", (double)probabilities[i]);
  return 0;
}
)";

// The user's own start-up for AN386: vector table, FPU on, .data and .bss,
// semihosting I/O (librdimon) and exit through it.
constexpr char kUserStartup[] = R"(#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start__[], __bss_end__[], __stack_top[];
void initialise_monitor_handles(void);
int main(void);

void _init(void) {}
void _fini(void) {}

static void on_reset(void) {
  *(volatile uint32_t*)0xE000ED88u |= 0xFu << 20; /* CPACR: CP10, CP11 */
  __asm volatile("dsb\n\tisb");
  memcpy(__data_start, __data_load, (size_t)((char*)__data_end - (char*)__data_start));
  memset(__bss_start__, 0, (size_t)((char*)__bss_end__ - (char*)__bss_start__));
  initialise_monitor_handles();
  exit(main());
}

static void on_fault(void) { _exit(3); }

__attribute__((section(".vectors"), used)) static void (*const vectors[4])(void) = {
    (void (*)(void))__stack_top, on_reset, on_fault, on_fault};
)";

constexpr char kUserLinkerScript[] = R"(MEMORY
{
  FLASH (rx) : ORIGIN = 0x00000000, LENGTH = 4M
  RAM (rwx)  : ORIGIN = 0x20000000, LENGTH = 4M
}
SECTIONS
{
  .text : { KEEP(*(.vectors)) *(.text .text.*) *(.rodata .rodata.*) . = ALIGN(4); } > FLASH
  .ARM.exidx : { *(.ARM.exidx*) } > FLASH
  .data : { __data_start = .; *(.data .data.*) . = ALIGN(4); __data_end = .; } > RAM AT > FLASH
  __data_load = LOADADDR(.data);
  .bss (NOLOAD) : { __bss_start__ = .; *(.bss .bss.*) *(COMMON) . = ALIGN(4); __bss_end__ = .; } > RAM
  end = .;
  __end__ = .;
  __stack_top = ORIGIN(RAM) + LENGTH(RAM);
}
)";

constexpr char kToolchainFile[] = R"(set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=rdimon.specs -nostartfiles")
)";

// The user's target is called `app` like the project's own firmware: the
// project must define nothing but the library as a subdirectory.
constexpr char kUserCMakeLists[] = R"(cmake_minimum_required(VERSION 3.13)
project(user_firmware C)
add_subdirectory(${MODEL_PROJECT} model)
add_executable(app main.c startup.c)
set_target_properties(app PROPERTIES SUFFIX ".elf")
target_link_options(app PRIVATE -T${CMAKE_CURRENT_SOURCE_DIR}/app.ld)
target_link_libraries(app PRIVATE mlfkit::model)
)";

// Includes model.mk before its own first rule: `make` must still build app.
constexpr char kUserMakefile[] = R"(CC = arm-none-eabi-gcc
ARCH = -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16
include ../project/model.mk
CFLAGS = $(ARCH) -O1 -Wall $(MODEL_INCLUDES)

app.elf: main.c startup.c app.ld $(MODEL_LIB)
	$(CC) $(CFLAGS) -T app.ld --specs=rdimon.specs -nostartfiles main.c startup.c $(MODEL_LIB) -lm -o $@
)";

constexpr char kHostMakefile[] = R"(include ../host-project/model.mk
CFLAGS = -O1 -Wall $(MODEL_INCLUDES)

app: main.c $(MODEL_LIB)
	cc $(CFLAGS) main.c $(MODEL_LIB) -lm -o $@
)";

std::string RunfilesPath(const std::string& path) {
  return std::string(std::getenv("TEST_SRCDIR")) + "/mlfkit/" + path;
}

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

NpyArray InputArray() {
  NpyArray input;
  input.dtype = DType::kFloat32;
  input.shape = {1, kPixels};
  std::vector<float> x(kPixels);
  for (int i = 0; i < kPixels; ++i) x[i] = static_cast<float>(i % 17) / 16.0f - 0.5f;
  input.data.assign(reinterpret_cast<const char*>(x.data()), x.size() * sizeof(float));
  return input;
}

// The values of the user program's "p <value>" lines.
std::vector<double> Printed(const std::string& out) {
  std::vector<double> values;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("p ", 0) == 0) values.push_back(std::strtod(line.c_str() + 2, nullptr));
  }
  return values;
}

// Global symbols of an archive: defined ("T name") and undefined ("U name").
std::vector<std::string> Symbols(const std::string& nm, const std::string& archive) {
  CommandResult r = RunCommand({nm, "-g", "--format=posix", archive});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> symbols;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string name, kind;
    if (words >> name >> kind && kind.size() == 1) symbols.push_back(kind + " " + name);
  }
  return symbols;
}

class FirmwareLibraryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(FreshDir("firmware_library"));
    const std::string archive = *dir_ + "/mnist_mlp.tar";
    CommandResult r =
        RunCommand({MlfBinary(), "export", RunfilesPath("examples/mnist_mlp/model.yaml"), "-o", archive});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_TRUE(WriteNpyFile(*dir_ + "/x.npy", InputArray()).ok());
    r = RunCommand({MlfBinary(), "run", archive, "--input", "image=" + *dir_ + "/x.npy",
                    "--output-dir", *dir_ + "/host"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    Result<NpyArray> host = ReadNpyFile(*dir_ + "/host/probabilities.npy");
    ASSERT_TRUE(host.ok()) << host.status().ToString();
    ASSERT_EQ(host->data.size(), kClasses * sizeof(float));
    expected_ = new std::vector<float>(kClasses);
    std::copy_n(reinterpret_cast<const float*>(host->data.data()), kClasses, expected_->data());
    // Generated with the measuring harness and profiling hooks, which the
    // library must leave out.
    r = RunCommand({MlfBinary(), "project", archive, "-o", *dir_ + "/project", "--board", "mps2-an386",
                    "--run", "--profile"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    r = RunCommand({MlfBinary(), "project", archive, "-o", *dir_ + "/host-project"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }

  // A fresh directory with the user's sources.
  static std::string UserDir(const std::string& name) {
    const std::string user = *dir_ + "/" + name;
    EXPECT_EQ(RunCommand({"mkdir", "-p", user}).exit_code, 0);
    Write(user + "/main.c", kUserMain);
    Write(user + "/startup.c", kUserStartup);
    Write(user + "/app.ld", kUserLinkerScript);
    return user;
  }

  static void ExpectHostResults(const std::string& out, const std::string& how) {
    const std::vector<double> got = Printed(out);
    ASSERT_EQ(got.size(), static_cast<size_t>(kClasses)) << how << ":\n" << out;
    double sum = 0;
    for (int i = 0; i < kClasses; ++i) {
      const double want = (*expected_)[i];
      EXPECT_NEAR(got[i], want, 1e-6 * std::max(1.0, std::fabs(want))) << how << " class " << i;
      sum += got[i];
    }
    EXPECT_NEAR(sum, 1.0, 1e-5) << how << ": not a softmax";
  }

  static void RunUnderQemu(const std::string& elf, const std::string& how) {
    CommandResult r = RunCommand({"qemu-system-arm", "-M", "mps2-an386", "-nographic", "-semihosting-config",
                                  "enable=on,target=native", "-kernel", elf});
    ASSERT_EQ(r.exit_code, 0) << how << ": " << r.out << r.err;
    ExpectHostResults(r.out, how);
  }

  // libmodel.a: the model's run function, its kernels and its parameters,
  // and nothing of main(), the startup code, the console or the harness.
  static void ExpectOnlyTheModel(const std::string& library) {
    const std::vector<std::string> symbols = Symbols("arm-none-eabi-nm", library);
    auto has = [&](const std::string& s) { return std::count(symbols.begin(), symbols.end(), s) > 0; };
    EXPECT_TRUE(has("T tvmgen_default_run")) << library;
    EXPECT_TRUE(has("R mlf_default_constants")) << library;
    for (const std::string& s : symbols) {
      const std::string name = s.substr(2);
      const bool harness = name == "main" || name == "reset_handler" || name == "fault_handler" ||
                           name == "_init" || name == "__sinit" ||
                           (name.rfind("mlf_", 0) == 0 && name != "mlf_default_constants");
      EXPECT_FALSE(harness) << library << " has " << s;
    }
  }

  static std::string* dir_;
  static std::vector<float>* expected_;
};

std::string* FirmwareLibraryTest::dir_ = nullptr;
std::vector<float>* FirmwareLibraryTest::expected_ = nullptr;

TEST_F(FirmwareLibraryTest, CMakeAddSubdirectoryLinksMlfkitModel) {
  const std::string user = UserDir("user-cmake");
  Write(user + "/CMakeLists.txt", kUserCMakeLists);
  Write(user + "/arm-gcc.cmake", kToolchainFile);
  CommandResult r = RunCommand({"cmake", "-S", user, "-B", user + "/build",
                                "-DCMAKE_TOOLCHAIN_FILE=" + user + "/arm-gcc.cmake",
                                "-DMODEL_PROJECT=" + *dir_ + "/project"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  r = RunCommand({"cmake", "--build", user + "/build"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ExpectOnlyTheModel(user + "/build/model/libmodel.a");
  RunUnderQemu(user + "/build/app.elf", "cmake");
}

TEST_F(FirmwareLibraryTest, MakefileIncludesModelMk) {
  const std::string user = UserDir("user-make");
  Write(user + "/Makefile", kUserMakefile);
  RunOptions in_user;
  in_user.cwd = user;
  CommandResult r = RunCommand({"make"}, in_user);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ExpectOnlyTheModel(user + "/build/model/libmodel.a");
  RunUnderQemu(user + "/app.elf", "make");
}

// The project's own targets build the same library on their own.
TEST_F(FirmwareLibraryTest, ProjectBuildsTheLibraryAlone) {
  RunOptions in_project;
  in_project.cwd = *dir_ + "/project";
  CommandResult r = RunCommand({"make", "lib"}, in_project);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ExpectOnlyTheModel(*dir_ + "/project/build/model/libmodel.a");
  const std::string build = *dir_ + "/project-cmake";
  r = RunCommand({"cmake", "-S", *dir_ + "/project", "-B", build});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  r = RunCommand({"cmake", "--build", build, "--target", "mlfkit_model"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ExpectOnlyTheModel(build + "/libmodel.a");
  EXPECT_FALSE(Exists(build + "/app.elf"));
}

// A host project's model.mk compiles the same user program with cc.
TEST_F(FirmwareLibraryTest, HostProjectModelMkBuildsWithCc) {
  const std::string user = UserDir("user-host");
  Write(user + "/Makefile", kHostMakefile);
  RunOptions in_user;
  in_user.cwd = user;
  CommandResult r = RunCommand({"make"}, in_user);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  r = RunCommand({user + "/app"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ExpectHostResults(r.out, "host");
}

}  // namespace
}  // namespace mlf
