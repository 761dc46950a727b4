// The layering of docs/design.md ("Layers"), checked over every #include line of the source
// tree: Bazel sees target dependencies, but a header can be included without a dependency
// (through a target that re-exports it) and a folder's BUILD can be bent; the include lines are
// what the code really uses.
//
// The test reads the real source tree: it finds the workspace by resolving its own data file
// (a symlink into the workspace) and walks the project folders. It is tagged "external" so
// Bazel never caches its result.
#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// A folder and the project folders its code may include from (itself always).
struct LayerRule {
  const char* folder;
  std::vector<std::string> may_include;
};

const std::vector<std::string> kArtifact = {"artifact/", "schemas/"};

// Most specific folder first: the first rule whose folder prefixes a file applies.
const std::vector<LayerRule>& Rules() {
  static const std::vector<LayerRule> rules = {
      {"artifact/base/", {}},
      {"artifact/jsonschema/", {"artifact/base/"}},
      {"artifact/format/", {"artifact/base/", "artifact/jsonschema/", "schemas/"}},
      {"artifact/archive/",
       {"artifact/base/", "artifact/jsonschema/", "artifact/format/", "schemas/"}},
      {"artifact/toolchain/",
       {"artifact/base/", "artifact/jsonschema/", "artifact/format/", "artifact/archive/",
        "schemas/"}},
      {"schemas/", {}},
      {"embed/", {}},
      {"codegen/", {"artifact/", "schemas/", "embed/"}},
      {"loader/host/", {"artifact/", "schemas/", "embed/"}},
      {"loader/firmware/", {"artifact/", "schemas/", "embed/"}},
      {"tvm/", {"artifact/", "loader/", "schemas/", "embed/"}},
      {"tools/", {"artifact/", "codegen/", "loader/", "schemas/", "embed/", "tvm/"}},
      {"python/", {"artifact/", "codegen/", "loader/", "schemas/", "embed/", "tvm/"}},
      {"sdk/", {"artifact/", "codegen/", "loader/", "schemas/", "embed/", "tvm/"}},
  };
  return rules;
}

// Outside tvm/ (and outside test code), only the wing's top-level headers (tvm/<name>.h)
// are its interface; everything in tvm/<sub>/ is internal.
bool IsTvmInternal(const std::string& include) {
  if (include.rfind("tvm/", 0) != 0) return false;
  return include.find('/', 4) != std::string::npos;
}

// Tests, their helpers (testing/ folders), fuzzers and benchmarks check the layers from above:
// they may include anything (the firmware tests compare with the host loader, for instance).
bool IsTestCode(const std::string& file) {
  for (const char* prefix : {"tests/", "fuzz/", "bench/", "examples/"}) {
    if (file.rfind(prefix, 0) == 0) return true;
  }
  const size_t n = file.size();
  const bool unit_test = n > 8 && file.compare(n - 8, 8, "_test.cc") == 0;
  return unit_test || file.find("/testing/") != std::string::npos;
}

const LayerRule* RuleFor(const std::string& file) {
  for (const LayerRule& rule : Rules()) {
    if (file.rfind(rule.folder, 0) == 0) return &rule;
  }
  return nullptr;
}

// Why `file` may not include `include` (a workspace-relative path of a file that exists), or
// "" when it may.
std::string Violation(const std::string& file, const std::string& include) {
  const LayerRule* rule = RuleFor(file);
  if (rule == nullptr) return "";  // third_party/ and the like: not ours to layer
  if (IsTestCode(file)) return "";
  if (include.rfind(rule->folder, 0) == 0) return "";  // its own folder
  if (IsTvmInternal(include) && file.rfind("tvm/", 0) != 0) {
    return "includes an internal header of the TVM wing (use a tvm/<name>.h interface)";
  }
  for (const std::string& allowed : rule->may_include) {
    if (include.rfind(allowed, 0) == 0) return "";
  }
  return std::string("points up or sideways: ") + rule->folder + " may include only " +
         [&] {
           std::string list;
           for (const std::string& a : rule->may_include) list += (list.empty() ? "" : ", ") + a;
           return list.empty() ? std::string("itself") : list;
         }();
}

std::string WorkspaceRoot() {
  char resolved[PATH_MAX];
  if (realpath("tests/layering_test.cc", resolved) == nullptr) return "";
  return fs::path(resolved).parent_path().parent_path().string();
}

std::vector<std::string> QuotedIncludes(const fs::path& path) {
  static const std::regex kInclude(R"(^\s*#\s*include\s+"([^"]+)\")");
  std::vector<std::string> out;
  std::ifstream in(path);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, kInclude)) out.push_back(m[1]);
  }
  return out;
}

bool IsSource(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".h" || ext == ".cc" || ext == ".c";
}

TEST(LayeringRule, UpwardAndSidewaysIncludesAreViolations) {
  EXPECT_NE(Violation("artifact/base/status.cc", "artifact/format/metadata.h"), "");
  EXPECT_NE(Violation("artifact/format/metadata.cc", "artifact/archive/verify.h"), "");
  EXPECT_NE(Violation("artifact/archive/verify.cc", "tvm/format/tvm_archive.h"), "");
  EXPECT_NE(Violation("loader/host/model_library.cc", "loader/firmware/project.h"), "");
  EXPECT_NE(Violation("loader/host/model_library.cc", "codegen/compiler.h"), "");
  EXPECT_NE(Violation("codegen/compiler.cc", "loader/host/model_library.h"), "");
  EXPECT_NE(Violation("tvm/host/tvm_module.cc", "tools/mlf/command.h"), "");
  EXPECT_EQ(Violation("tools/mlf/cmd_run.cc", "tvm/format/tvm_archive.h"),
            "includes an internal header of the TVM wing (use a tvm/<name>.h interface)");
}

TEST(LayeringRule, DownwardIncludesAreAllowed) {
  EXPECT_EQ(Violation("artifact/format/metadata.cc", "artifact/base/status.h"), "");
  EXPECT_EQ(Violation("artifact/archive/verify.cc", "artifact/format/metadata.h"), "");
  EXPECT_EQ(Violation("loader/host/model_library.cc", "artifact/archive/verify.h"), "");
  EXPECT_EQ(Violation("tvm/host/tvm_module.cc", "loader/host/aot_executor.h"), "");
  EXPECT_EQ(Violation("tools/mlf/cmd_run.cc", "tvm/tvm.h"), "");
  EXPECT_EQ(Violation("tests/tvm_archive_test.cc", "tvm/format/tvm_archive.h"), "");
  EXPECT_EQ(Violation("loader/firmware/testing/firmware_testing.cc", "loader/host/model_library.h"),
            "");
  EXPECT_EQ(Violation("artifact/base/c_text_test.cc", "artifact/format/c_name.h"), "");
}

TEST(Layering, NoIncludeInTheTreeBreaksTheLayers) {
  const std::string root = WorkspaceRoot();
  ASSERT_NE(root, "") << "cannot resolve the workspace from tests/layering_test.cc";
  size_t checked = 0;
  std::vector<std::string> violations;
  for (const char* top : {"artifact", "codegen", "loader", "tvm", "tools", "python", "sdk",
                          "schemas", "embed", "tests", "fuzz", "bench"}) {
    const fs::path dir = fs::path(root) / top;
    if (!fs::exists(dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file() || !IsSource(entry.path())) continue;
      const std::string file = fs::relative(entry.path(), root).string();
      for (const std::string& include : QuotedIncludes(entry.path())) {
        if (!fs::exists(fs::path(root) / include)) continue;  // not a project path
        ++checked;
        const std::string why = Violation(file, include);
        if (why.empty()) continue;
        violations.push_back(file + ": #include \"" + include + "\" " + why);
      }
    }
  }
  EXPECT_GT(checked, 1000u) << "the walk found too few includes: is the tree where expected?";
  for (const std::string& v : violations) ADD_FAILURE() << v;
}

}  // namespace
