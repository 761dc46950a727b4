// The hostile-name test of issue 20 ("Must show"): one corpus of names —
// comment closers, quotes, backslashes, shell and make syntax that would
// create a MARKER file, '#', ';', the trigraph "??/", U+202E, very long
// names, control characters (newline, an ESC sequence, BEL), C keywords and
// names differing only in case — driven through every name-bearing field
// through the `mlf` command line only:
//
//   YAML model name, node, input, output and parameter names;
//   ONNX graph name and strings, node, input, output and initializer names;
//   TVM model_name (v5) and module keys (v7);
//   mlfkit metadata strings (description, model and operator names;
//   tensor and operator names for the refusals) written by hand and packed
//   with `mlf pack`;
//   tar member names.
//
// For each field one archive carries every printable name at once; each
// name that must be refused (control characters, keywords, case clashes,
// over-long names) is refused with its exact message. Every accepted
// archive goes through export, inspect, verify (both also --json), run and
// `project` with make and CMake for the host and with make for a Cortex-M4
// board, all built; the project's C is compiled once more with -Werror for
// the host and for Arm. Throughout: no MARKER file appears, human-readable
// output carries no control byte (other than \n and \t), DEL, C1 control or
// bidi override/isolate, and --json output is valid, ASCII-only JSON.
#include <onnx/onnx_pb.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "artifact/base/digest.h"
#include "tests/run_command.h"
#include "tests/tar_builder.h"
#include "tests/test_files.h"
#include "tests/tvm_fixtures/tvm_fixtures.h"

namespace mlf {
namespace {

using json = nlohmann::json;

constexpr char kRlo[] = "\xe2\x80\xae";  // U+202E RIGHT-TO-LEFT OVERRIDE

// Names that are allowed everywhere a name may hold printable text. As
// tensor names they get a prefix "i<k> " (YamlModel, OnnxModel), which keeps
// their C names distinct.
std::vector<std::string> PrintableCorpus(size_t long_length) {
  // Out of its comment, the first would stop every build.
  return {"c */ _Static_assert(0, \"name left its comment\"); /* d",
          "q\"uote",
          "back\\slash",
          "$(touch MARKER)",
          "`touch MARKER`",
          "# hash",
          "semi; touch MARKER",
          "tri?" "?/graph",  // the trigraph for a backslash, in C99 mode
          std::string("rlo") + kRlo + "gpj.exe",
          std::string(long_length, 'L')};
}

// Names with control characters: refused wherever a name is read.
struct ControlName {
  std::string name;
  std::string quoted;     // as error messages quote it
  std::string codepoint;  // the first control character, as messages give it
  std::string shown;      // as human-readable output shows it
};
std::vector<ControlName> ControlCorpus() {
  return {{"nl\n$(touch MARKER)", "'nl\\x0a$(touch MARKER)'", "U+000A", "nl\\x0a$(touch MARKER)"},
          {"esc\x1b[2K\rverified OK", "'esc\\x1b[2K\\x0dverified OK'", "U+001B",
           "esc\\x1b[2K\\x0dverified OK"},
          {"bel\x07", "'bel\\x07'", "U+0007", "bel\\x07"}};
}

std::string Join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i > 0 ? separator : "") + parts[i];
  return out;
}

// `name` as human-readable output shows it (docs/archive-format.md, "Names
// on the terminal"), for the printable corpus: a backslash doubled, U+202E
// as \u{202E}.
std::string Shown(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '\\') {
      out += "\\\\";
    } else if (name.compare(i, 3, kRlo) == 0) {
      out += "\\u{202E}";
      i += 2;
    } else {
      out += name[i];
    }
  }
  return out;
}

// A YAML double-quoted scalar holding exactly `text`.
std::string YamlQuote(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// Where `text` would act on a terminal: the first byte other than \n and \t
// below 0x20, DEL, a C1 control (UTF-8 C2 80-9F), a bidi embedding or
// override (U+202A-U+202E) or isolate (U+2066-U+2069); "" when there is none.
std::string TerminalHazard(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = [&](size_t k) {
      return k < text.size() ? static_cast<unsigned char>(text[k]) : 0;
    };
    const unsigned char c = byte(i);
    std::string what;
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) what = "control byte";
    if (c == 0xc2 && byte(i + 1) >= 0x80 && byte(i + 1) <= 0x9f) what = "C1 control";
    if (c == 0xe2 && byte(i + 1) == 0x80 && byte(i + 2) >= 0xaa && byte(i + 2) <= 0xae) {
      what = "bidi override";
    }
    if (c == 0xe2 && byte(i + 1) == 0x81 && byte(i + 2) >= 0xa6 && byte(i + 2) <= 0xa9) {
      what = "bidi isolate";
    }
    if (!what.empty()) {
      const size_t from = i < 40 ? 0 : i - 40;
      return what + " at offset " + std::to_string(i) + " after: " + text.substr(from, i - from);
    }
  }
  return "";
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Every string in `j` (keys and values), each followed by '\0'.
void CollectStrings(const json& j, std::string* out) {
  if (j.is_string()) {
    *out += j.get<std::string>() + '\0';
  } else if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      *out += key + '\0';
      CollectStrings(value, out);
    }
  } else if (j.is_array()) {
    for (const json& value : j) CollectStrings(value, out);
  }
}

class HostileNamesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(std::string("hostile_names/") +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }

  void TearDown() override { ExpectNoMarker(); }

  // mlf with `args`, in dir_ (a command injected into a name would create
  // MARKER there), with a private cache.
  CommandResult Mlf(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {MlfBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions options;
    options.env.push_back({"MLF_CACHE_DIR", dir_ + "/cache"});
    options.cwd = dir_;
    CommandResult r = RunCommand(argv, options);
    EXPECT_FALSE(r.signaled) << Describe(argv, r);
    return r;
  }

  // Runs `args`, which must succeed with terminal-safe output.
  CommandResult MlfOk(const std::vector<std::string>& args) {
    CommandResult r = Mlf(args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err.substr(0, 4000);
    ExpectTerminalSafe(args[0], r);
    return r;
  }

  // Runs `args`, which must fail with exactly `message` after "mlf: error: ".
  void ExpectRefused(const std::vector<std::string>& args, const std::string& message) {
    CommandResult r = Mlf(args);
    EXPECT_EQ(r.exit_code, 1) << args[0];
    EXPECT_EQ(r.out, "") << args[0];
    EXPECT_EQ(r.err, "mlf: error: " + message + "\n") << args[0];
    ExpectTerminalSafe(args[0], r);
  }

  static void ExpectTerminalSafe(const std::string& what, const CommandResult& r) {
    EXPECT_EQ(TerminalHazard(r.out), "") << what << " (stdout)";
    EXPECT_EQ(TerminalHazard(r.err), "") << what << " (stderr)";
  }

  // `r.out` as JSON: it must parse and be ASCII-only (control and non-ASCII
  // characters escaped) apart from the line breaks of its layout.
  static json ExpectJson(const std::string& what, const CommandResult& r) {
    for (size_t i = 0; i < r.out.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(r.out[i]);
      if ((c < 0x20 && c != '\n') || c >= 0x7f) {
        ADD_FAILURE() << what << ": raw byte 0x" << std::hex << int(c) << " in --json output";
        break;
      }
    }
    json j = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(j.is_discarded()) << what << ": not JSON: " << r.out.substr(0, 2000);
    return j;
  }

  // No file named MARKER anywhere below dir_ (projects, their build
  // directories, the cache) nor in the test's working directory.
  void ExpectNoMarker() {
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir_, ec);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      EXPECT_NE(it->path().filename(), "MARKER") << it->path();
    }
    EXPECT_FALSE(Exists("MARKER"));
  }

  // Everything a user does with an accepted archive. `inspect` must show
  // each of `names` (printable corpus names, escaped as Shown() does) and
  // `shown` (as given); `inspect --json` must hold each of `names` and
  // `json_names` as the original strings.
  void ExerciseArchive(const std::string& archive, const std::vector<std::string>& names,
                       const std::vector<std::string>& shown = {},
                       const std::vector<std::string>& json_names = {}) {
    SCOPED_TRACE(archive);
    // --plan adds the memory plan's buffers and the operators' table, names
    // in both shown escaped.
    CommandResult inspect = MlfOk({"inspect", archive, "--plan"});
    for (const std::string& name : names) {
      EXPECT_TRUE(Contains(inspect.out, Shown(name))) << "inspect does not show " << Shown(name);
    }
    for (const std::string& text : shown) {
      EXPECT_TRUE(Contains(inspect.out, text)) << "inspect does not show " << text;
    }
    std::string strings;
    CollectStrings(ExpectJson("inspect --json", MlfOk({"inspect", archive, "--json"})), &strings);
    for (const std::vector<std::string>* list : {&names, &json_names}) {
      for (const std::string& name : *list) {
        EXPECT_TRUE(Contains(strings, name)) << "inspect --json lacks " << Shown(name);
      }
    }
    CommandResult verify = MlfOk({"verify", archive});
    EXPECT_EQ(verify.out.rfind("verified ", 0), 0u) << verify.out;
    json verified = ExpectJson("verify --json", MlfOk({"verify", archive, "--json"}));
    EXPECT_EQ(verified.value("ok", false), true) << verified.dump();
    MlfOk({"run", archive, "--random-inputs", "1"});

    const std::string host_make = dir_ + "/fw-make";
    const std::string host_cmake = dir_ + "/fw-cmake";
    const std::string arm = dir_ + "/fw-arm";
    MlfOk({"project", archive, "-o", host_make, "--platform", "host", "--build-system", "make",
           "--build"});
    MlfOk({"project", archive, "-o", host_cmake, "--platform", "host", "--build-system", "cmake",
           "--build"});
    MlfOk({"project", archive, "-o", arm, "--platform", "mps2-an386", "--build"});
    // The projects build with -Wall; build them again with -Werror on top.
    ExpectWerrorBuild(host_make, "cc -Werror");
    ExpectWerrorBuild(arm, "arm-none-eabi-gcc -Werror");
  }

  // `make -B` in `project` with CC=`cc`: every C file of the project
  // compiled again (and linked) without a single warning.
  static void ExpectWerrorBuild(const std::string& project, const std::string& cc) {
    const std::vector<std::string> make = {"make", "-B", "CC=" + cc};
    RunOptions in_project;
    in_project.cwd = project;
    CommandResult r = RunCommand(make, in_project);
    EXPECT_EQ(r.exit_code, 0) << Describe(make, r);
  }

  std::string dir_;
};

// ------------------------------------------------------------------- YAML

// A YAML model of one Add per name: input "i<k> <name>" plus parameter
// "p<k> <name>" gives output "o<k> <name>", node named `name` itself; the
// model's description carries every name.
std::string YamlModel(const std::vector<std::string>& names) {
  std::string inputs, parameters, nodes, outputs;
  for (size_t k = 0; k < names.size(); ++k) {
    const std::string i = YamlQuote("i" + std::to_string(k) + " " + names[k]);
    const std::string p = YamlQuote("p" + std::to_string(k) + " " + names[k]);
    const std::string o = YamlQuote("o" + std::to_string(k) + " " + names[k]);
    inputs += "  - {name: " + i + ", dtype: float32, shape: [1, 4]}\n";
    parameters += "  " + p + ": {dtype: float32, shape: [1, 4], values: [1, 2, 3, 4]}\n";
    nodes += "  - {name: " + YamlQuote(names[k]) + ", op: Add, inputs: [" + i + ", " + p +
             "], outputs: [" + o + "]}\n";
    outputs += "  - " + o + "\n";
  }
  return "mlf_model: 1\nname: hostile\ndescription: " + YamlQuote(Join(names, " | ")) +
         "\ninputs:\n" + inputs + "parameters:\n" + parameters + "nodes:\n" + nodes +
         "outputs:\n" + outputs;
}

TEST_F(HostileNamesTest, YamlNamesInEveryFieldAtOnce) {
  // Names are at most 256 characters in a YAML model: the long one with its
  // "i<k> " prefix fits.
  const std::vector<std::string> corpus = PrintableCorpus(250);
  const std::string model = dir_ + "/hostile.yaml";
  WriteFile(model, YamlModel(corpus));
  const std::string archive = dir_ + "/yaml.tar";
  MlfOk({"export", model, "-o", archive, "--link-params"});
  std::vector<std::string> names;
  for (size_t k = 0; k < corpus.size(); ++k) {
    for (const char* prefix : {"i", "o", "p"}) {
      names.push_back(prefix + std::to_string(k) + " " + corpus[k]);
    }
  }
  ExerciseArchive(archive, names);
}

// One model per refused name: a name in `field` of a small YAML model
// (input IN plus parameter PARAM gives OUT through node NODE; line 2 is the
// model name, 4 the input, 6 the parameter, 8 the node, 10 the output).
std::string SmallYaml(const std::string& field, const std::string& name) {
  const auto pick = [&](const std::string& f, const std::string& fallback) {
    return YamlQuote(f == field ? name : fallback);
  };
  return "mlf_model: 1\n"
         "name: " + pick("model", "small") + "\n"
         "inputs:\n"
         "  - {name: " + pick("input", "in") + ", dtype: float32, shape: [1, 4]}\n"
         "parameters:\n"
         "  " + pick("parameter", "param") + ": {dtype: float32, shape: [1, 4], values: [1, 2, 3, 4]}\n"
         "nodes:\n"
         "  - {name: " + pick("node", "add") + ", op: Add, inputs: [" + pick("input", "in") + ", " +
         pick("parameter", "param") + "], outputs: [" + pick("output", "out") + "]}\n"
         "outputs:\n"
         "  - " + pick("output", "out") + "\n";
}

TEST_F(HostileNamesTest, YamlRefusesControlCharactersKeywordsCaseClashesAndLongNames) {
  struct Field {
    std::string field;
    std::string message;  // "<line>: <subject>", as after "model.yaml:"
  };
  const std::vector<Field> fields = {{"input", "4: input 0: name"},
                                     {"parameter", "6: parameter name"},
                                     {"node", "8: node 0: name"},
                                     {"output", "8: node 0: output 0"}};
  int n = 0;
  for (const Field& f : fields) {
    for (const ControlName& c : ControlCorpus()) {
      SCOPED_TRACE(f.field + " " + c.quoted);
      const std::string model = dir_ + "/m" + std::to_string(n++) + ".yaml";
      WriteFile(model, SmallYaml(f.field, c.name));
      ExpectRefused({"export", model, "-o", dir_ + "/out.tar"},
                    model + ":" + f.message + " " + c.quoted + " contains a control character (" +
                        c.codepoint + "); names must be printable");
    }
  }
  // Control characters in the model name have their own message; the
  // printable names break its pattern [A-Za-z0-9_][A-Za-z0-9_.-]* or its
  // 128 characters.
  for (const ControlName& c : ControlCorpus()) {
    SCOPED_TRACE("model " + c.quoted);
    const std::string model = dir_ + "/m" + std::to_string(n++) + ".yaml";
    WriteFile(model, SmallYaml("model", c.name));
    ExpectRefused({"export", model, "-o", dir_ + "/out.tar"},
                  model + ":2: model name " + c.quoted + " contains a control character (" +
                      c.codepoint + "); names must be printable");
  }
  for (const std::string& name : PrintableCorpus(250)) {
    SCOPED_TRACE(Shown(name));
    const std::string model = dir_ + "/m" + std::to_string(n++) + ".yaml";
    WriteFile(model, SmallYaml("model", name));
    CommandResult r = Mlf({"export", model, "-o", dir_ + "/out.tar"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err.rfind("mlf: error: " + model + ":2: not a valid mlf_model 1 description: /name: value \"", 0), 0u)
        << r.err;
    const std::string why = name[0] == 'L' ? "has 250 characters, more than the maximum 128 (maxLength)\n"
                                           : "does not match pattern \"^[A-Za-z0-9_][A-Za-z0-9_.-]*$\" (pattern)\n";
    EXPECT_TRUE(r.err.size() > why.size() && r.err.compare(r.err.size() - why.size(), why.size(), why) == 0) << r.err;
    ExpectTerminalSafe("export", r);
  }
  // C keywords as output names (the ONNX test has them as input names).
  for (const std::string keyword : {"int", "restrict"}) {
    const std::string model = dir_ + "/m" + std::to_string(n++) + ".yaml";
    WriteFile(model, SmallYaml("output", keyword));
    ExpectRefused({"export", model, "-o", dir_ + "/out.tar"},
                  "module 'default': output '" + keyword + "' has the C name '" +
                      keyword + "', which is a C keyword");
  }
  // A 4000-byte name.
  const std::string model = dir_ + "/long.yaml";
  WriteFile(model, SmallYaml("node", std::string(4000, 'L')));
  CommandResult r = Mlf({"export", model, "-o", dir_ + "/out.tar"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("mlf: error: " + model + ":8: not a valid mlf_model 1 description: /nodes/0/name: value \"LLLL", 0), 0u) << r.err;
  EXPECT_TRUE(Contains(r.err, "has 4000 characters, more than the maximum 256 (maxLength)")) << r.err;
  // Outputs differing only in case.
  const std::string clash = dir_ + "/case.yaml";
  WriteFile(clash,
            "mlf_model: 1\nname: clash\ninputs: [{name: x, dtype: float32, shape: [1, 4]}]\n"
            "nodes:\n"
            "  - {op: Relu, inputs: [x], outputs: [Y]}\n"
            "  - {op: Relu, inputs: [x], outputs: [y]}\n"
            "outputs: [Y, y]\n");
  ExpectRefused({"export", clash, "-o", dir_ + "/out.tar"},
                "module 'default': output 'Y' and output 'y' both give the macro "
                        "TVMGEN_DEFAULT_Y_SIZE (their C names differ only in case, so on a "
                        "case-insensitive file system their files would collide too)");
  EXPECT_FALSE(Exists(dir_ + "/out.tar"));
}

// ------------------------------------------------------------------- ONNX

void AddTensorInfo(onnx::ValueInfoProto* v, const std::string& name) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  t->mutable_shape()->add_dim()->set_dim_value(1);
  t->mutable_shape()->add_dim()->set_dim_value(4);
}

// The ONNX twin of YamlModel(): per name an input, an initializer, an Add
// node named `name` and an output; graph name, doc strings and producer
// carry every name.
std::string OnnxModel(const std::vector<std::string>& names) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  m.set_producer_name(Join(names, " | "));
  m.set_doc_string(Join(names, " | "));
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name(Join(names, " | "));
  g->set_doc_string(Join(names, " | "));
  for (size_t k = 0; k < names.size(); ++k) {
    const std::string i = "i" + std::to_string(k) + " " + names[k];
    const std::string p = "p" + std::to_string(k) + " " + names[k];
    const std::string o = "o" + std::to_string(k) + " " + names[k];
    AddTensorInfo(g->add_input(), i);
    AddTensorInfo(g->add_output(), o);
    onnx::TensorProto* init = g->add_initializer();
    init->set_name(p);
    init->set_data_type(onnx::TensorProto::FLOAT);
    init->add_dims(1);
    init->add_dims(4);
    for (float v : {1.0f, 2.0f, 3.0f, 4.0f}) init->add_float_data(v);
    onnx::NodeProto* node = g->add_node();
    node->set_op_type("Add");
    node->set_name(names[k]);
    node->add_input(i);
    node->add_input(p);
    node->add_output(o);
  }
  return m.SerializeAsString();
}

TEST_F(HostileNamesTest, OnnxNamesInEveryFieldAtOnce) {
  // C names are at most 1024 bytes (mlfkit metadata's pattern bound):
  // the long name with its prefix fits (4000 bytes: see below).
  const std::vector<std::string> corpus = PrintableCorpus(1000);
  const std::string model = dir_ + "/hostile.onnx";
  WriteFile(model, OnnxModel(corpus));
  const std::string archive = dir_ + "/onnx.tar";
  MlfOk({"export", model, "-o", archive});
  std::vector<std::string> names;
  for (size_t k = 0; k < corpus.size(); ++k) {
    for (const char* prefix : {"i", "o", "p"}) {
      names.push_back(prefix + std::to_string(k) + " " + corpus[k]);
    }
  }
  ExerciseArchive(archive, names);
}

TEST_F(HostileNamesTest, OnnxRefusesControlCharactersKeywordsAndCaseClashes) {
  int n = 0;
  // Field -> how the model is changed, and the subject of the message.
  struct Field {
    std::function<void(onnx::GraphProto*, const std::string&)> set;
    std::string subject;
  };
  const std::vector<Field> fields = {
      {[](onnx::GraphProto* g, const std::string& s) {
         g->mutable_input(0)->set_name(s);
         g->mutable_node(0)->set_input(0, s);
       },
       "graph input 0: name"},
      {[](onnx::GraphProto* g, const std::string& s) {
         g->mutable_output(0)->set_name(s);
         g->mutable_node(0)->set_output(0, s);
       },
       "graph output 0: name"},
      {[](onnx::GraphProto* g, const std::string& s) {
         g->mutable_initializer(0)->set_name(s);
         g->mutable_node(0)->set_input(1, s);
       },
       "initializer 0: name"},
      {[](onnx::GraphProto* g, const std::string& s) { g->mutable_node(0)->set_name(s); },
       "node 0: name"},
  };
  const auto write = [&](const std::function<void(onnx::GraphProto*)>& edit) {
    onnx::ModelProto m;
    m.ParseFromString(OnnxModel({"add"}));
    edit(m.mutable_graph());
    const std::string path = dir_ + "/m" + std::to_string(n++) + ".onnx";
    WriteFile(path, m.SerializeAsString());
    return path;
  };
  for (const Field& f : fields) {
    for (const ControlName& c : ControlCorpus()) {
      SCOPED_TRACE(f.subject + " " + c.quoted);
      const std::string model = write([&](onnx::GraphProto* g) { f.set(g, c.name); });
      ExpectRefused({"export", model, "-o", dir_ + "/out.tar"},
                    model + ": " + f.subject + " " + c.quoted + " contains a control character (" +
                        c.codepoint + "); names must be printable");
    }
  }
  for (const std::string keyword : {"int", "restrict"}) {
    const std::string model = write([&](onnx::GraphProto* g) { fields[0].set(g, keyword); });
    ExpectRefused({"export", model, "-o", dir_ + "/out.tar"},
                  "module 'default': input '" + keyword + "' has the C name '" +
                      keyword + "', which is a C keyword");
  }
  // A 4000-byte input name passes the ONNX reader and is refused only when
  // the archive's metadata is checked against the schema.
  const std::string long_model =
      write([&](onnx::GraphProto* g) { fields[0].set(g, std::string(4000, 'L')); });
  ExpectRefused({"export", long_model, "-o", dir_ + "/out.tar"},
                "member 'metadata.json': metadata.json does not match the version 9 schema: "
                "/modules/default/inputs/0/c_name: value \"" + std::string(59, 'L') +
                    "... is too long to match against pattern \"^[A-Za-z_][A-Za-z0-9_]*$\" (4000 "
                    "bytes; at most 1024 are matched) (pattern)");
  onnx::ModelProto two;
  two.ParseFromString(OnnxModel({"a", "b"}));
  two.mutable_graph()->mutable_output(0)->set_name("Y");
  two.mutable_graph()->mutable_node(0)->set_output(0, "Y");
  two.mutable_graph()->mutable_output(1)->set_name("y");
  two.mutable_graph()->mutable_node(1)->set_output(0, "y");
  const std::string clash = dir_ + "/case.onnx";
  WriteFile(clash, two.SerializeAsString());
  ExpectRefused({"export", clash, "-o", dir_ + "/out.tar"},
                "module 'default': output 'Y' and output 'y' both give the macro "
                        "TVMGEN_DEFAULT_Y_SIZE (their C names differ only in case, so on a "
                        "case-insensitive file system their files would collide too)");
  EXPECT_FALSE(Exists(dir_ + "/out.tar"));
}

// -------------------------------------------------------------------- TVM

void ReplaceAll(std::string* text, const std::string& from, const std::string& to) {
  for (size_t at = text->find(from); at != std::string::npos; at = text->find(from, at + to.size())) {
    text->replace(at, from.size(), to);
  }
}

// OperatorV5 (module "add") with model_name `name`.
void WriteOperatorArchive(const std::string& path, const std::string& name) {
  tvm_testing::Files files = tvm_testing::OperatorV5();
  json metadata = json::parse(files.at("metadata.json"));
  metadata["model_name"] = name;
  files["metadata.json"] = metadata.dump(2);
  tvm_testing::WriteTvmArchive(path, files);
}

TEST_F(HostileNamesTest, TvmModelNameCarryingEveryName) {
  // The model name is the module's name, whose C name names files of the
  // host build and the project (mlf_tvm_operators_<c>.c): the long name is
  // kept short enough that the whole name stays within the 200 bytes a module
  // name may have (artifact/format/name_clash.h; 4000 bytes: refused, below).
  const std::vector<std::string> corpus = PrintableCorpus(40);
  const std::string name = Join(corpus, " ");
  const std::string archive = dir_ + "/op.tar";
  WriteOperatorArchive(archive, name);
  ExerciseArchive(archive, corpus, {}, {name});
  for (const ControlName& c : ControlCorpus()) {
    SCOPED_TRACE(c.quoted);
    WriteOperatorArchive(archive, c.name);
    ExpectRefused({"verify", archive}, archive + ": metadata.json: model_name " + c.quoted +
                                           " contains a control character (" + c.codepoint +
                                           "); names must be printable");
  }
  WriteOperatorArchive(archive, std::string(4000, 'L'));
  ExpectRefused({"verify", archive},
                archive + ": metadata.json does not match the TVM version 5 schema: /model_name: "
                          "value \"" + std::string(59, 'L') +
                    "... is too long to match against pattern \"^[^\\\\x00-\\\\x1f\\\\x7f]*$\" (4000 "
                    "bytes; at most 1024 are matched) (pattern)");
}

// DenseV7 with its module "default" renamed to `key` everywhere: the
// metadata key and model_name, and in C, file names and metadata the C
// name `key` sanitised (every byte outside [A-Za-z0-9_] made '_').
tvm_testing::Files RenamedDenseModule(const std::string& key) {
  std::string c = key;
  for (char& ch : c) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
  }
  std::string upper = c;
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  tvm_testing::Files out;
  for (const auto& [original_path, original_data] : tvm_testing::DenseV7()) {
    std::string path = original_path, data = original_data;
    ReplaceAll(&data, "tvmgen_default", "tvmgen_" + c);
    ReplaceAll(&data, "TVMGEN_DEFAULT", "TVMGEN_" + upper);
    ReplaceAll(&path, "tvmgen_default", "tvmgen_" + c);
    ReplaceAll(&path, "/default", "/" + c);
    out[path] = data;
  }
  json metadata = json::parse(out.at("metadata.json"));
  json module = metadata["modules"]["default"];
  module["model_name"] = key;
  metadata["modules"].erase("default");
  metadata["modules"][key] = module;
  out["metadata.json"] = metadata.dump(2);
  return out;
}

TEST_F(HostileNamesTest, TvmModuleKeyCarryingEveryName) {
  // A module's C name names its files (tvmgen_<c>.h, <c>_lib0.c), which
  // the fixture's ustar headers hold in 100 bytes: the corpus in its short
  // forms, without the long name.
  const std::vector<std::string> corpus = {"*/", "\"", "\\", "$(touch MARKER)", "`touch MARKER`",
                                           "#", ";", "?" "?/", kRlo};
  const std::string key = "k " + Join(corpus, " ");
  const std::string archive = dir_ + "/dense.tar";
  tvm_testing::WriteTvmArchive(archive, RenamedDenseModule(key));
  ExerciseArchive(archive, corpus, {}, {key});
  for (const ControlName& c : ControlCorpus()) {
    SCOPED_TRACE(c.quoted);
    tvm_testing::WriteTvmArchive(archive, RenamedDenseModule(c.name));
    ExpectRefused({"verify", archive}, archive + ": metadata.json: module name " + c.quoted +
                                           " contains a control character (" + c.codepoint +
                                           "); names must be printable");
  }
}

// ------------------------------------------------------- mlfkit metadata

std::string ModelAbiHeader() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir != nullptr ? srcdir : ".") + "/mlfkit/schemas/model_abi.h";
}

TEST_F(HostileNamesTest, VersionEightMetadataStringsPackedByHand) {
  const std::vector<std::string> corpus = PrintableCorpus(4000);
  std::vector<std::string> everything = corpus;
  std::vector<std::string> control_shown;
  for (const ControlName& c : ControlCorpus()) {
    everything.push_back(c.name);
    control_shown.push_back(c.shown);
  }
  const std::string model = dir_ + "/model";
  const auto pack = [&](const std::function<void(json&)>& edit) {
    RemoveTree(model);
    CopyExample(model);
    // The example leaves out the ABI header that exported archives carry.
    MakeDirs(model + "/codegen/host/include/mlf");
    WriteFile(model + "/codegen/host/include/mlf/model_abi.h", ReadFile(ModelAbiHeader()));
    json md = json::parse(ReadFile(model + "/metadata.json"));
    edit(md["modules"]["tiny"]);
    WriteFile(model + "/metadata.json", md.dump(2) + "\n");
    const std::string archive = dir_ + "/v8.tar";
    MlfOk({"pack", model, "-o", archive});
    return archive;
  };
  // Tensor names stay: the example's library states them too (the loader's
  // ABI check compares them); YAML, ONNX and TVM archives cover them.
  const std::string archive = pack([&](json& m) {
    m["description"] = Join(everything, " | ");
    m["model_name"] = Join(corpus, " ");
    for (const std::string& name : corpus) {
      m["operators"].push_back({{"name", name}, {"ops", {"Gemm"}}, {"macs", 0}});
    }
  });
  std::vector<std::string> names = corpus;
  names.push_back(Join(corpus, " "));
  ExerciseArchive(archive, names, control_shown,
                  {Join(everything, " | ")});

  for (const ControlName& c : ControlCorpus()) {
    SCOPED_TRACE(c.quoted);
    for (const auto& [field, subject] :
         std::vector<std::pair<std::string, std::string>>{{"inputs", "input 0: name"},
                                                          {"outputs", "output 0: name"},
                                                          {"operators", "operator 0: name"}}) {
      RemoveTree(model);
      CopyExample(model);
      json md = json::parse(ReadFile(model + "/metadata.json"));
      md["modules"]["tiny"][field][0]["name"] = c.name;
      WriteFile(model + "/metadata.json", md.dump(2) + "\n");
      ExpectRefused({"pack", model, "-o", dir_ + "/bad.tar"},
                    model + ": metadata.json: module 'tiny': " + subject + " " + c.quoted +
                        " contains a control character (" + c.codepoint +
                        "); names must be printable");
    }
  }
}

// -------------------------------------------------------- tar member names

// metadata.json (`md`, whose files table lists `members`) and `members`
// as a tar, long names in pax headers.
std::string MembersArchive(const json& md,
                           const std::vector<std::pair<std::string, std::string>>& members) {
  std::vector<TarEntry> entries = {TarFile("metadata.json", md.dump(2) + "\n")};
  for (const auto& [path, data] : members) {
    TarEntry e = TarFile(path, data);
    if (path.size() > 99) e.pax = {{"path", path}};
    entries.push_back(e);
  }
  return BuildTar(entries);
}

TEST_F(HostileNamesTest, TarMemberNamesCarryingEveryName) {
  const std::string model = CopyExample(dir_ + "/model");
  json md = json::parse(ReadFile(model + "/metadata.json"));
  std::vector<std::pair<std::string, std::string>> members;
  for (const char* path : {"codegen/host/include/tvmgen_tiny.h", "codegen/host/src/tiny_lib0.c"}) {
    members.push_back({path, ReadFile(model + "/" + path)});
  }
  members.push_back({"codegen/host/include/mlf/model_abi.h", ReadFile(ModelAbiHeader())});
  std::vector<std::string> extra, shown;
  // A backslash is refused in member paths (below).
  std::vector<std::string> corpus;
  for (const std::string& name : PrintableCorpus(4000)) {
    if (name != "back\\slash") corpus.push_back(name);
  }
  for (size_t k = 0; k < corpus.size(); ++k) {
    extra.push_back("extra/" + std::to_string(k) + " " + corpus[k]);
  }
  for (const ControlName& c : ControlCorpus()) {
    extra.push_back("extra/" + c.name);
    shown.push_back("extra/" + c.shown);
  }
  for (const std::string& path : extra) members.push_back({path, "data of " + path});
  md["files"] = json::object();
  for (const auto& [path, data] : members) {
    md["files"][path] = {{"size", data.size()}, {"sha256", Sha256Hex(data)}};
  }
  const std::string archive = dir_ + "/members.tar";
  WriteFile(archive, MembersArchive(md, members));
  std::vector<std::string> printable(extra.begin(), extra.begin() + corpus.size());
  ExerciseArchive(archive, printable, shown, extra);

  // One more member, named with a backslash. (The message doubles the
  // backslash, as every message quoting a name does.)
  const std::string bad = "extra/back\\slash";
  members.push_back({bad, "data"});
  md["files"][bad] = {{"size", 4}, {"sha256", Sha256Hex("data")}};
  WriteFile(archive, MembersArchive(md, members));
  ExpectRefused({"verify", archive}, archive + ": metadata.json: files entry '" + Shown(bad) +
                                         "' is not a safe relative path");
}

}  // namespace
}  // namespace mlf
