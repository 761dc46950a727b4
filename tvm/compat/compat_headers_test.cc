// The one list of CRT compatibility headers against what real archives
// include: every TVM runtime header the archives studied for issue 16
// include (docs/tvm-in-the-wild.md) is supplied by tvm/compat, and each
// compiles on its own, with the host C compiler and with arm-none-eabi-gcc,
// as do the registry and metadata module of a graph executor archive built
// with -system-lib (pattern P5, written here in TVM's form).
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "artifact/base/scratch_dir.h"
#include "artifact/base/subprocess.h"
#include "tvm/compat/compat.h"

namespace mlf::tvm_compat {
namespace {

// Every TVM runtime header a real archive includes, and what those include.
const std::vector<std::string> kIncludedByRealArchives = {
    "dlpack/dlpack.h",
    "tvm/runtime/c_backend_api.h",
    "tvm/runtime/c_runtime_api.h",
    "tvm/runtime/crt/error_codes.h",
    "tvm/runtime/crt/func_registry.h",
    "tvm/runtime/crt/module.h",
    "tvm/runtime/crt/platform.h",
    "tvm/runtime/metadata_types.h",
};

// A system-lib registry and a C metadata module as TVM generates them.
constexpr char kGraphSystemLib[] = R"(#include <inttypes.h>
#include <tvm/runtime/crt/module.h>
#include <tvm/runtime/metadata_types.h>
#include <tvm/runtime/c_runtime_api.h>
TVM_DLL int32_t tvmgen_m_fused_add(TVMValue* args, int* type_code, int num_args, TVMValue* out_value, int* out_type_code, void* resource_handle);
TVM_DLL int32_t tvmgen_m_get_c_metadata(TVMValue* args, int* type_code, int num_args, TVMValue* out_value, int* out_type_code, void* resource_handle);
static TVMBackendPackedCFunc _tvm_func_array[] = {
    (TVMBackendPackedCFunc)tvmgen_m_fused_add,
    (TVMBackendPackedCFunc)tvmgen_m_get_c_metadata,
};
static const TVMFuncRegistry _tvm_func_registry = {
    "\002\000tvmgen_m_fused_add\000tvmgen_m_get_c_metadata\000", _tvm_func_array,
};
static const TVMModule _tvm_system_lib = {
    &_tvm_func_registry,
};
const TVMModule* TVMSystemLibEntryPoint(void) { return &_tvm_system_lib; }
static const int64_t kShape[2] = {1, 4};
static const struct TVMTensorInfo kInputs[1] = {{"x", kShape, 2L, {kDLFloat, 32, 1}}};
static const struct TVMConstantInfo kConstants[1] = {{"c", 0L, 16L, kShape}};
static const struct TVMMetadata kMetadata[1] = {
{
1L /* version*/,
kInputs,
1L /* num_inputs*/,
kInputs,
1L /* num_outputs*/,
kInputs,
0L /* num_workspace_pools*/,
kConstants,
1L /* num_constant_pools*/,
"tvmgen_m" /* mod_name*/}
};
TVM_DLL int32_t tvmgen_m_get_c_metadata(TVMValue* arg_values, int* arg_tcodes, int num_args, TVMValue* ret_values, int* ret_tcodes, void* resource_handle) {
  (void)arg_values; (void)arg_tcodes; (void)num_args; (void)resource_handle;
  ret_values[0].v_handle = (void*) &kMetadata;
  ret_tcodes[0] = kTVMOpaqueHandle;
  return 0;
}
)";

class CompatHeadersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<ScratchDir> dir = ScratchDir::CreateInTemp("mlf-compat-headers-");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_.emplace(std::move(*dir));
    for (const File& f : Files()) {
      const std::string path = dir_->path() + "/" + std::string(f.path);
      ASSERT_EQ(RunProcess({"mkdir", "-p", path.substr(0, path.rfind('/'))})->exit_code, 0);
      std::ofstream(path, std::ios::binary) << f.content;
    }
  }

  // Compiles `source` with `compiler` (and its flags) against the compat
  // include directory; the compiler's output when it fails.
  std::string Compile(const std::vector<std::string>& compiler, const std::string& source) {
    const std::string file = dir_->path() + "/t.c";
    std::ofstream(file) << source;
    std::vector<std::string> argv = compiler;
    for (const char* a : {"-std=gnu11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I"}) argv.push_back(a);
    argv.push_back(dir_->path() + "/" + kIncludeDir);
    argv.push_back(file);
    Result<ProcessResult> r = RunProcess(argv);
    if (!r.ok()) return r.status().ToString();
    return r->exit_code == 0 ? "" : r->output;
  }

  std::optional<ScratchDir> dir_;
};

const std::vector<std::vector<std::string>> kCompilers = {
    {"cc"}, {"arm-none-eabi-gcc", "-mcpu=cortex-m4", "-mthumb"}};

TEST_F(CompatHeadersTest, EveryHeaderRealArchivesIncludeIsSupplied) {
  EXPECT_EQ(HeaderPaths(), kIncludedByRealArchives);
}

TEST_F(CompatHeadersTest, EachHeaderCompilesAloneWithBothCompilers) {
  for (const std::vector<std::string>& cc : kCompilers) {
    for (const std::string& h : HeaderPaths()) {
      EXPECT_EQ(Compile(cc, "#include <" + h + ">\n"), "") << cc[0] << " " << h;
      EXPECT_EQ(Compile(cc, "#include \"" + h + "\"\n#include \"" + h + "\"\n"), "") << cc[0] << " " << h;
    }
  }
}

TEST_F(CompatHeadersTest, GraphSystemLibRegistryAndMetadataModuleCompile) {
  for (const std::vector<std::string>& cc : kCompilers) {
    EXPECT_EQ(Compile(cc, kGraphSystemLib), "") << cc[0];
  }
}

// The registry is two pointers, as generated code initialises it.
TEST_F(CompatHeadersTest, ARegistryWithTheWrongShapeDoesNotCompile) {
  EXPECT_NE(Compile({"cc"}, "#include <tvm/runtime/crt/module.h>\n"
                            "static const TVMFuncRegistry r = {1, 2, 3};\n"
                            "const void* f(void) { return &r; }\n"),
            "");
}

}  // namespace
}  // namespace mlf::tvm_compat
