// Version-8 archives written by hand (tests/tar_builder.h, with correct
// digests) whose input and output names collide in generated C or take a
// reserved name. Before artifact/format/name_clash.h such archives verified; now
// `mlf verify` fails naming both names, and `mlf run` and `mlf project`
// refuse them before compiling anything (docs/archive-format.md, "Names").
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "artifact/base/digest.h"
#include "tests/run_command.h"
#include "tests/tar_builder.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

constexpr char kHeader[] = "codegen/host/include/tvmgen_tiny.h";
constexpr char kSource[] = "codegen/host/src/tiny_lib0.c";

class NameClashCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(std::string("name_clash_cli/") +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    CopyExample(dir_ + "/model");
  }

  CommandResult Mlf(std::vector<std::string> args) {
    args.insert(args.begin(), MlfBinary());
    RunOptions options;
    options.env = {{"MLF_CACHE_DIR", dir_ + "/cache"}};
    return RunCommand(args, options);
  }

  // The example (module "tiny": input x, output y) with `edit` applied to
  // its module, as a valid tar with every digest right.
  std::string Craft(const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json md = nlohmann::json::parse(ReadFile(dir_ + "/model/metadata.json"));
    edit(md["modules"]["tiny"]);
    const std::string header = ReadFile(dir_ + "/model/" + kHeader);
    const std::string source = ReadFile(dir_ + "/model/" + kSource);
    md["files"] = {{kHeader, {{"size", header.size()}, {"sha256", Sha256Hex(header)}}},
                   {kSource, {{"size", source.size()}, {"sha256", Sha256Hex(source)}}}};
    const std::string path = dir_ + "/" + name;
    WriteFile(path, BuildTar({TarFile("metadata.json", md.dump(2) + "\n"), TarFile(kHeader, header),
                              TarFile(kSource, source)}));
    return path;
  }

  std::string dir_;
};

nlohmann::json Tensor(const std::string& name) {
  return {{"name", name}, {"c_name", name}, {"dtype", "float32"}, {"shape", {1, 3}},
          {"size_bytes", 12}};
}

TEST_F(NameClashCliTest, VerifyRunAndProjectRefuseCollidingNames) {
  struct Case {
    std::string name;
    std::function<void(nlohmann::json&)> edit;
    std::string message;  // after "metadata.json: "
  };
  const std::vector<Case> cases = {
      // M1: both outputs get one TVMGEN_TINY_Y_SIZE; firmware sized Y's buffer for y.
      {"case.tar",
       [](nlohmann::json& m) {
         m["outputs"].push_back(Tensor("Y"));
         m["memory"]["io_size_bytes"] = 40;
       },
       "module 'tiny': output 'y' and output 'Y' both give the macro TVMGEN_TINY_Y_SIZE (their C "
       "names differ only in case, so on a case-insensitive file system their files would collide "
       "too)"},
      {"workspace.tar",
       [](nlohmann::json& m) {
         m["outputs"].push_back(Tensor("workspace"));
         m["memory"]["io_size_bytes"] = 40;
       },
       "module 'tiny': output 'workspace' gives the macro TVMGEN_TINY_WORKSPACE_SIZE, which the C "
       "interface of module 'tiny' defines as its workspace size"},
      {"keyword.tar",
       [](nlohmann::json& m) {
         m["outputs"].push_back(Tensor("int"));
         m["memory"]["io_size_bytes"] = 40;
       },
       "module 'tiny': output 'int' has the C name 'int', which is a C keyword"},
      {"c_name.tar",
       [](nlohmann::json& m) {
         nlohmann::json t = Tensor("y:0");
         t["c_name"] = "x";
         m["outputs"].push_back(t);
         m["memory"]["io_size_bytes"] = 40;
       },
       "module 'tiny': input 'x' and output 'y:0' both map to the C name 'x'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string archive = Craft(c.name, c.edit);
    const std::string error = "mlf: error: " + archive + ": metadata.json: " + c.message + "\n";
    CommandResult verify = Mlf({"verify", archive});
    EXPECT_EQ(verify.exit_code, 1);
    EXPECT_EQ(verify.out, "");
    EXPECT_EQ(verify.err, error);
    CommandResult run = Mlf({"run", archive, "--random-inputs", "1"});
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_EQ(run.out, "");
    EXPECT_EQ(run.err, error);
    CommandResult project = Mlf({"project", archive, "-o", dir_ + "/fw", "--platform", "host"});
    EXPECT_EQ(project.exit_code, 1);
    EXPECT_EQ(project.out, "");
    EXPECT_EQ(project.err, error);
    EXPECT_FALSE(Exists(dir_ + "/fw"));
  }
  // The same archive without the extra output verifies (the control).
  const std::string fine = Craft("fine.tar", [](nlohmann::json&) {});
  CommandResult verify = Mlf({"verify", fine});
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
}

}  // namespace
}  // namespace mlf
