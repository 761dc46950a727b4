// Names from models and archives never become code in the C, Make, CMake and
// Markdown mlfkit generates (issue 20, H1 and H2), through the real binary:
// a node or parameter name that closes a C comment stays comment text (mlf
// run prints no INJECTED), a TVM model name with a line break is refused at
// read, and a printable but hostile TVM model name gives a Makefile and a
// CMakeLists.txt that make -n, cmake and a real build read without running
// anything.
#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/run_command.h"
#include "tests/test_files.h"
#include "tests/tvm_fixtures/tvm_fixtures.h"

namespace mlf {
namespace {

using json = nlohmann::json;

// The node name of the issue: closes the comment the name used to be written
// in, defines a constructor that runs when the host library is loaded, and
// opens a comment again to swallow the rest of the line.
constexpr char kInjection[] =
    "r */ __attribute__((constructor)) static void pwn(void){ __builtin_puts(\"INJECTED\"); } /*";
// kInjection as C comment text (artifact/base/c_text.h).
constexpr char kInjectionEscaped[] =
    "r *\\x2f __attribute__((constructor)) static void pwn(void){ __builtin_puts(\"INJECTED\"); } "
    "/\\x2a";

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

// An ONNX model of one Relu node `node`, from the float input "x" of `shape`
// to the output `output`, serialised.
std::string OneReluOnnx(const std::string& node, const std::string& output,
                        const std::vector<int64_t>& shape) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("g");
  for (onnx::ValueInfoProto* v : {g->add_input(), g->add_output()}) {
    v->set_name(v == &g->input(0) ? "x" : output);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : shape) t->mutable_shape()->add_dim()->set_dim_value(d);
  }
  onnx::NodeProto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->set_name(node);
  relu->add_input("x");
  relu->add_output(output);
  return m.SerializeAsString();
}

// x (float, `shape`) -> QuantizeLinear -> DequantizeLinear -> Sigmoid named
// `node` -> QuantizeLinear -> DequantizeLinear -> y: a QDQ chain the
// lowering turns into one QLinearLookup, with a table constant named after
// the node.
std::string QdqSigmoidOnnx(const std::string& node, const std::vector<int64_t>& shape) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("g");
  for (onnx::ValueInfoProto* v : {g->add_input(), g->add_output()}) {
    v->set_name(v == &g->input(0) ? "x" : "y");
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : shape) t->mutable_shape()->add_dim()->set_dim_value(d);
  }
  auto scalar = [&](const std::string& name, int type, double v) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    if (type == onnx::TensorProto::FLOAT) {
      t->add_float_data(static_cast<float>(v));
    } else {
      t->add_int32_data(static_cast<int32_t>(v));
    }
  };
  scalar("s_in", onnx::TensorProto::FLOAT, 0.05);
  scalar("s_out", onnx::TensorProto::FLOAT, 1.0 / 256);
  scalar("zp", onnx::TensorProto::UINT8, 0);
  auto add = [&](const std::string& op, const std::string& name, const std::vector<std::string>& in,
                 const std::string& out) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const std::string& i : in) n->add_input(i);
    n->add_output(out);
  };
  add("QuantizeLinear", "q0", {"x", "s_in", "zp"}, "xq");
  add("DequantizeLinear", "dq0", {"xq", "s_in", "zp"}, "xf");
  add("Sigmoid", node, {"xf"}, "sf");
  add("QuantizeLinear", "q1", {"sf", "s_out", "zp"}, "sq");
  add("DequantizeLinear", "dq1", {"sq", "s_out", "zp"}, "y");
  return m.SerializeAsString();
}

class HostileGeneratedTextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }

  CommandResult Mlf(const std::vector<std::string>& args, const std::string& cwd = "") {
    std::vector<std::string> argv = {MlfBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions options;
    options.env.push_back({"MLF_CACHE_DIR", dir_ + "/cache"});
    options.cwd = cwd;
    return RunCommand(argv, options);
  }

  // Exports `model` (-o dir_/NAME.tar), verifies it, runs it and unpacks it
  // into dir_/NAME; returns the generated C of module "default".
  std::string ExportRunAndUnpack(const std::string& model, const std::string& name,
                                 const std::vector<std::string>& flags = {}) {
    const std::string archive = dir_ + "/" + name + ".tar";
    std::vector<std::string> args = {"export", model, "-o", archive};
    args.insert(args.end(), flags.begin(), flags.end());
    CommandResult exported = Mlf(args);
    EXPECT_EQ(exported.exit_code, 0) << Describe(args, exported);
    CommandResult verified = Mlf({"verify", archive});
    EXPECT_EQ(verified.exit_code, 0) << verified.err;
    CommandResult run = Mlf({"run", archive, "--random-inputs", "1"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_FALSE(Contains(run.out + run.err, "INJECTED")) << run.out << run.err;
    EXPECT_TRUE(Contains(run.out, "module default\n")) << run.out;
    CommandResult unpacked = Mlf({"unpack", archive, "-o", dir_ + "/" + name});
    EXPECT_EQ(unpacked.exit_code, 0) << unpacked.err;
    return ReadFile(dir_ + "/" + name + "/codegen/host/src/default_lib0.c");
  }

  // Compiles the unpacked module's C with -Wall -Werror: the escaped names
  // are comments, not code (and not -Wcomment's "/*" within a comment).
  void ExpectCompilesCleanly(const std::string& name) {
    const std::string root = dir_ + "/" + name;
    const std::vector<std::string> argv = {
        "cc", "-std=c99", "-Wall", "-Werror", "-c", "-I", root + "/codegen/host/include",
        root + "/codegen/host/src/default_lib0.c", "-o", dir_ + "/" + name + ".o"};
    CommandResult cc = RunCommand(argv);
    EXPECT_EQ(cc.exit_code, 0) << Describe(argv, cc);
  }

  std::string dir_;
};

// ------------------------------------------------ H2: node and parameter names

TEST_F(HostileGeneratedTextTest, YamlNodeNameStaysACommentInTheGeneratedC) {
  const std::string model = dir_ + "/inj.yaml";
  WriteFile(model,
            "mlf_model: 1\n"
            "name: inj\n"
            "inputs: [{name: x, dtype: float32, shape: [1, 4]}]\n"
            "nodes:\n"
            "  - {name: \"r */ __attribute__((constructor)) static void pwn(void){ "
            "__builtin_puts(\\\"INJECTED\\\"); } /*\", op: Relu, inputs: [x], outputs: [y]}\n"
            "outputs: [y]\n");
  const std::string source = ExportRunAndUnpack(model, "yaml");
  EXPECT_TRUE(Contains(source, std::string("/* node '") + kInjectionEscaped + "' (Relu) */\n"))
      << source;
  EXPECT_FALSE(Contains(source, kInjection)) << source;
  EXPECT_FALSE(Contains(source, "*/ __attribute__")) << source;
  ExpectCompilesCleanly("yaml");
}

TEST_F(HostileGeneratedTextTest, OnnxNodeNameStaysACommentInTheGeneratedC) {
  const std::string model = dir_ + "/inj.onnx";
  WriteFile(model, OneReluOnnx(kInjection, "y", {1, 4}));
  const std::string source = ExportRunAndUnpack(model, "onnx");
  EXPECT_TRUE(Contains(source, std::string("/* node '") + kInjectionEscaped + "' (Relu) */\n"))
      << source;
  EXPECT_FALSE(Contains(source, kInjection)) << source;
  ExpectCompilesCleanly("onnx");
}

// The QDQ lowering names what it makes after the node (a QLinearLookup of
// that name, its table constant "<name>.table"): both stay comment text.
TEST_F(HostileGeneratedTextTest, LoweredInt8NodeAndItsTableNameStayComments) {
  const std::string model = dir_ + "/qdq.onnx";
  WriteFile(model, QdqSigmoidOnnx(kInjection, {1, 4}));
  const std::string source = ExportRunAndUnpack(model, "qdq", {"--link-params"});
  EXPECT_TRUE(Contains(source, std::string("/* node '") + kInjectionEscaped + "' (QLinearLookup")) << source;
  EXPECT_TRUE(Contains(source, std::string("/* ") + kInjectionEscaped + ".table */\n")) << source;
  EXPECT_FALSE(Contains(source, kInjection)) << source;
  ExpectCompilesCleanly("qdq");
}

TEST_F(HostileGeneratedTextTest, LinkedParameterNameStaysACommentInTheGeneratedC) {
  const std::string model = dir_ + "/param.yaml";
  WriteFile(model,
            "mlf_model: 1\n"
            "name: param\n"
            "inputs: [{name: x, dtype: float32, shape: [1, 4]}]\n"
            "parameters:\n"
            "  \"r */ __attribute__((constructor)) static void pwn(void){ "
            "__builtin_puts(\\\"INJECTED\\\"); } /*\": {dtype: float32, shape: [4], "
            "values: [1, 2, 3, 4]}\n"
            "nodes:\n"
            "  - {name: add, op: Add, inputs: [x, \"r */ __attribute__((constructor)) static void "
            "pwn(void){ __builtin_puts(\\\"INJECTED\\\"); } /*\"], outputs: [y]}\n"
            "outputs: [y]\n");
  const std::string source = ExportRunAndUnpack(model, "param", {"--link-params"});
  EXPECT_TRUE(Contains(source, std::string("/* ") + kInjectionEscaped +
                                   " */\nstatic const float param_0[4] MLF_ALIGNED = {"))
      << source;
  EXPECT_FALSE(Contains(source, kInjection)) << source;
  ExpectCompilesCleanly("param");
}

// Control characters cannot be shown in a name, so names holding them are
// refused where the model is read.
TEST_F(HostileGeneratedTextTest, ControlCharactersInModelNamesAreRefusedAtRead) {
  const std::string yaml = dir_ + "/nl.yaml";
  WriteFile(yaml,
            "mlf_model: 1\n"
            "name: nl\n"
            "inputs: [{name: x, dtype: float32, shape: [1, 4]}]\n"
            "nodes:\n"
            "  - {name: \"r\\n$(shell echo X > PWNED)\\n#\", op: Relu, inputs: [x], outputs: [y]}\n"
            "outputs: [y]\n");
  CommandResult y = Mlf({"export", yaml, "-o", dir_ + "/nl.tar"});
  EXPECT_EQ(y.exit_code, 1);
  EXPECT_EQ(y.err, "mlf: error: " + yaml +
                       ":5: node 0: name 'r\\x0a$(shell echo X > PWNED)\\x0a#' contains a control "
                       "character (U+000A); names must be printable\n");

  const std::string onnx_path = dir_ + "/esc.onnx";
  WriteFile(onnx_path, OneReluOnnx("relu", "y\x1b[2K", {4}));
  CommandResult o = Mlf({"export", onnx_path, "-o", dir_ + "/esc.tar"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.err, "mlf: error: " + onnx_path +
                       ": graph output 0: name 'y\\x1b[2K' contains a control character "
                       "(U+001B); names must be printable\n");
  EXPECT_FALSE(Exists(dir_ + "/nl.tar"));
  EXPECT_FALSE(Exists(dir_ + "/esc.tar"));
}

// ------------------------------------------------------ H1: TVM model names

// OperatorV5 (module "add") with another model_name.
std::string OperatorArchive(const std::string& path, const std::string& model_name) {
  tvm_testing::Files files = tvm_testing::OperatorV5();
  json metadata = json::parse(files.at("metadata.json"));
  metadata["model_name"] = model_name;
  files["metadata.json"] = metadata.dump(2);
  tvm_testing::WriteTvmArchive(path, files);
  return path;
}

TEST_F(HostileGeneratedTextTest, TvmModelNameWithALineBreakIsRefused) {
  const std::string archive = OperatorArchive(dir_ + "/op.tar", "add\n$(shell echo X > PWNED)\n#");
  const std::string message =
      "metadata.json: model_name 'add\\x0a$(shell echo X > PWNED)\\x0a#' contains a control "
      "character (U+000A); names must be printable\n";
  CommandResult verify = Mlf({"verify", archive});
  EXPECT_EQ(verify.exit_code, 1);
  EXPECT_EQ(verify.err, "mlf: error: " + archive + ": " + message);
  CommandResult project =
      Mlf({"project", archive, "-o", dir_ + "/fw", "--platform", "mps2-an385"});
  EXPECT_EQ(project.exit_code, 1);
  EXPECT_EQ(project.err, "mlf: error: " + archive + ": " + message);
  EXPECT_FALSE(Exists(dir_ + "/fw"));
  EXPECT_FALSE(Exists(dir_ + "/PWNED"));
}

TEST_F(HostileGeneratedTextTest, TvmModuleKeyWithAControlCharacterIsRefused) {
  tvm_testing::Files files = tvm_testing::DenseV7();
  json metadata = json::parse(files.at("metadata.json"));
  metadata["modules"]["def\x07" "ault"] = metadata["modules"]["default"];
  metadata["modules"].erase("default");
  files["metadata.json"] = metadata.dump(2);
  const std::string archive = dir_ + "/dense.tar";
  tvm_testing::WriteTvmArchive(archive, files);
  CommandResult verify = Mlf({"verify", archive});
  EXPECT_EQ(verify.exit_code, 1);
  EXPECT_EQ(verify.err, "mlf: error: " + archive +
                            ": metadata.json: module name 'def\\x07ault' contains a control "
                            "character (U+0007); names must be printable\n");
}

// A printable model name that is shell and make syntax: make -n, a CMake
// configure, model.mk's library and a real build of the project run none of it.
TEST_F(HostileGeneratedTextTest, PrintableHostileTvmModelNameRunsNothingInMakeOrCMake) {
  const std::string name = "add $(shell touch PWNED) ; `touch PWNED` #[[ \\";
  const std::string archive = OperatorArchive(dir_ + "/op.tar", name);
  CommandResult verify = Mlf({"verify", archive});
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
  const std::string fw = dir_ + "/fw";
  CommandResult project = Mlf({"project", archive, "-o", fw, "--platform", "host"});
  ASSERT_EQ(project.exit_code, 0) << project.err;

  EXPECT_EQ(FirstLine(ReadFile(fw + "/Makefile")),
            "# Makefile - builds the firmware of add $(shell touch PWNED) ; `touch PWNED` #[[ "
            "\\x5c for this host, built with the system C compiler (cc).");
  EXPECT_EQ(FirstLine(ReadFile(fw + "/CMakeLists.txt")),
            "# CMakeLists.txt - builds the firmware of add $(shell touch PWNED) ; `touch PWNED` "
            "#[[ \\x5c for this host, built with the system C compiler (cc).");
  EXPECT_EQ(FirstLine(ReadFile(fw + "/model.mk")),
            "# model.mk - the model of add $(shell touch PWNED) ; `touch PWNED` #[[ \\x5c as a "
            "static library, libmodel.a, for a");
  EXPECT_EQ(FirstLine(ReadFile(fw + "/README.md")),
            "# add \\$\\(shell touch PWNED\\) \\; \\`touch PWNED\\` \\#\\[\\[ \\\\: firmware project");
  EXPECT_TRUE(Contains(ReadFile(fw + "/src/main.c"),
                       " * main.c - runs add $(shell touch PWNED) ; `touch PWNED` #[[ \\x5c (a TVM "
                       "archive) once"))
      << ReadFile(fw + "/src/main.c");

  const std::vector<std::string> make = {"make", "-n"};
  RunOptions in_fw;
  in_fw.cwd = fw;
  CommandResult dry = RunCommand(make, in_fw);
  EXPECT_EQ(dry.exit_code, 0) << Describe(make, dry);
  // model.mk, on its own: the library built for real.
  const std::vector<std::string> library = {"make", "-f", "model.mk"};
  CommandResult lib = RunCommand(library, in_fw);
  EXPECT_EQ(lib.exit_code, 0) << Describe(library, lib);
  EXPECT_TRUE(Exists(fw + "/build/model/libmodel.a"));
  const std::vector<std::string> cmake = {"cmake", "-S", fw, "-B", fw + "/cmake-build"};
  CommandResult configured = RunCommand(cmake, in_fw);
  EXPECT_EQ(configured.exit_code, 0) << Describe(cmake, configured);
  CommandResult built = Mlf({"project", archive, "-o", dir_ + "/fw-built", "--platform", "host",
                             "--build", "--run"},
                            dir_);
  EXPECT_EQ(built.exit_code, 0) << built.out << built.err;
  for (const std::string& where : {dir_, fw, fw + "/cmake-build", dir_ + "/fw-built"}) {
    EXPECT_FALSE(Exists(where + "/PWNED")) << where;
  }
}

}  // namespace
}  // namespace mlf
