#include "codegen/frontend/yaml_frontend.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "artifact/format/npy.h"
#include "codegen/reference/interpreter.h"

namespace mlf::frontend {
namespace {

using nlohmann::json;

YamlImportOptions Named(const std::string& name = "m.yaml") {
  YamlImportOptions o;
  o.file_name = name;
  return o;
}

Result<ir::Graph> Import(const std::string& text, const YamlImportOptions& o = Named(),
                         const std::string& base_dir = "") {
  return ImportYaml(text, base_dir, o);
}

// A valid model around `body` lines (parameters and nodes), with input x [1, 4].
std::string Model(const std::string& parameters, const std::string& nodes,
                  const std::string& outputs = "[y]") {
  return "mlf_model: 1\n"
         "name: t\n"
         "inputs:\n"
         "  - {name: x, dtype: float32, shape: [1, 4]}\n" +
         (parameters.empty() ? std::string() : "parameters:\n" + parameters) +
         "nodes:\n" + nodes + "outputs: " + outputs + "\n";
}

const std::string kRelu = "  - {op: Relu, inputs: [x], outputs: [y]}\n";

void ExpectError(const Result<ir::Graph>& r, StatusCode code, const std::string& message) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), code) << r.status().ToString();
  EXPECT_EQ(r.status().message(), message);
}

std::string TempDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t != nullptr ? t : "/tmp";
}

std::string RealPathOf(const std::string& path) {
  char* r = realpath(path.c_str(), nullptr);
  std::string s = r != nullptr ? r : "";
  free(r);
  return s;
}

float FloatAt(const ir::HostTensor& t, size_t i) { return t.data<float>()[i]; }

const ir::Value& ValueNamed(const ir::Graph& g, const std::string& name) {
  for (const ir::Value& v : g.values) {
    if (v.name == name) return v;
  }
  ADD_FAILURE() << "no value " << name;
  return g.values.at(0);
}

// ---------------------------------------------------------------------------
// A minimal model

TEST(YamlFrontend, ImportsMinimalModel) {
  YamlModelInfo info;
  Result<ir::Graph> g = ImportYaml(
      "mlf_model: 1\nname: tiny\ndescription: just relu\n"
      "inputs: [{name: x, dtype: float32, shape: [1, 4]}]\n"
      "nodes: [{op: Relu, inputs: [x], outputs: [y]}]\noutputs: [y]\n",
      "", Named(), &info);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(info.name, "tiny");
  EXPECT_EQ(info.description, "just relu");
  ASSERT_EQ(g->inputs.size(), 1u);
  ASSERT_EQ(g->outputs.size(), 1u);
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->nodes[0].name, "Relu_0");  // default name "<op>_<index>"
  const ir::Value& y = g->value(g->outputs[0]);
  EXPECT_EQ(y.name, "y");
  EXPECT_EQ(y.dtype, DType::kFloat32);
  EXPECT_EQ(y.shape, (std::vector<int64_t>{1, 4}));
  EXPECT_TRUE(g->Validate().ok());
}

// Names may be any printable text; a control character is refused with the
// line, the field and the name escaped (YAML escapes can write any of them).
TEST(YamlFrontend, NamesWithControlCharactersAreRefused) {
  ExpectError(Import(Model("",
                           "  - {name: \"r\\n$(shell echo X > PWNED)\\n#\", op: Relu, "
                           "inputs: [x], outputs: [y]}\n")),
              StatusCode::kInvalidArgument,
              "m.yaml:6: node 0: name 'r\\x0a$(shell echo X > PWNED)\\x0a#' contains a control "
              "character (U+000A); names must be printable");
  ExpectError(
      Import(Model("", "  - {op: Relu, inputs: [x], outputs: [\"y\\x85\"]}\n", "[\"y\\x85\"]")),
      StatusCode::kInvalidArgument,
      "m.yaml:6: node 0: output 0 'y\\u{0085}' contains a control character (U+0085); "
      "names must be printable");
  ExpectError(Import(Model("  \"w\\e\": {dtype: float32, shape: [4], fill: 1}\n",
                           "  - {op: Add, inputs: [x, \"w\\e\"], outputs: [y]}\n")),
              StatusCode::kInvalidArgument,
              "m.yaml:6: parameter name 'w\\x1b' contains a control character (U+001B); names "
              "must be printable");
  Result<ir::Graph> printable =
      Import(Model("", "  - {name: \"r */ $(x) `y` ?\?/ \\\\\", op: Relu, inputs: [x], "
                       "outputs: [y]}\n"));
  ASSERT_TRUE(printable.ok()) << printable.status().ToString();
  EXPECT_EQ(printable->nodes.at(0).name, "r */ $(x) `y` ?\?/ \\");
}

// Attributes the compiler's passes set ("mlf.activation", ...) cannot come
// from a model: the schema's attribute names have no dot.
TEST(YamlFrontend, CompilerAttributesAreRefused) {
  ExpectError(Import(Model("", "  - {op: Relu, inputs: [x], outputs: [y], attrs: {mlf.activation: Relu}}\n")),
              StatusCode::kInvalidArgument,
              "m.yaml:6: not a valid mlf_model 1 description: /nodes/0/attrs: property name "
              "\"mlf.activation\" does not match pattern \"^[A-Za-z_][A-Za-z0-9_]{0,63}$\" (pattern)");
}

TEST(YamlFrontend, ParametersBecomeConstants) {
  Result<ir::Graph> g = Import(Model(
      "  b: {dtype: float32, shape: [4], values: [1, 2.5, -3, 4e-1]}\n"
      "  a: {dtype: float32, shape: [1, 4], fill: 0.5}\n",
      "  - {op: Add, name: add, inputs: [x, b], outputs: [s]}\n"
      "  - {op: Add, inputs: [s, a], outputs: [y]}\n"));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const ir::Value& b = ValueNamed(*g, "b");
  ASSERT_TRUE(b.is_constant());
  EXPECT_EQ(b.shape, (std::vector<int64_t>{4}));
  EXPECT_EQ(FloatAt(*b.constant, 0), 1.0f);
  EXPECT_EQ(FloatAt(*b.constant, 1), 2.5f);
  EXPECT_EQ(FloatAt(*b.constant, 2), -3.0f);
  EXPECT_EQ(FloatAt(*b.constant, 3), 0.4f);
  const ir::Value& a = ValueNamed(*g, "a");
  ASSERT_TRUE(a.is_constant());
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(FloatAt(*a.constant, i), 0.5f);
  // Parameters are added in alphabetical order, after the inputs.
  EXPECT_EQ(g->values[1].name, "a");
  EXPECT_EQ(g->values[2].name, "b");
  EXPECT_EQ(g->nodes[0].name, "add");
  EXPECT_EQ(g->nodes[1].name, "Add_1");
}

TEST(YamlFrontend, NestedAndIntegerValues) {
  Result<ir::Graph> g = Import(Model(
      "  w: {dtype: float32, shape: [2, 2], values: [[1, 2], [3, 4]]}\n"
      "  big: {dtype: int64, shape: [3], values: [9223372036854775807, -9223372036854775808, 0x10]}\n"
      "  u: {dtype: uint64, shape: [1], values: [18446744073709551615]}\n"
      "  m: {dtype: bool, shape: [2], values: [true, 0]}\n"
      "  h: {dtype: float16, shape: [], values: 1.5}\n"
      "  i8: {dtype: int8, shape: [2], values: [-128, 127.0]}\n",
      kRelu));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const ir::HostTensor& w = *ValueNamed(*g, "w").constant;
  EXPECT_EQ(FloatAt(w, 2), 3.0f);
  const ir::HostTensor& big = *ValueNamed(*g, "big").constant;
  EXPECT_EQ(big.data<int64_t>()[0], INT64_MAX);
  EXPECT_EQ(big.data<int64_t>()[1], INT64_MIN);
  EXPECT_EQ(big.data<int64_t>()[2], 16);
  EXPECT_EQ(ValueNamed(*g, "u").constant->data<uint64_t>()[0], UINT64_MAX);
  const ir::HostTensor& m = *ValueNamed(*g, "m").constant;
  EXPECT_EQ(m.bytes, std::string("\x01\x00", 2));
  EXPECT_EQ(ValueNamed(*g, "h").constant->GetDouble(0), 1.5);
  EXPECT_EQ(ValueNamed(*g, "i8").constant->data<int8_t>()[0], -128);
  EXPECT_EQ(ValueNamed(*g, "i8").constant->data<int8_t>()[1], 127);
}

TEST(YamlFrontend, AttributeTyping) {
  Result<ir::Graph> g = Import(Model(
      "", "  - op: Relu\n    inputs: [x]\n    outputs: [y]\n"
          "    attrs: {i: 3, f: 0.5, s: hello, q: '7', b: true, ints: [1, -2], floats: [1, 2.5],\n"
          "            strs: [a, b], empty: [], e: 1e3}\n"));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const auto& a = g->nodes[0].attrs;
  EXPECT_EQ(std::get<int64_t>(a.at("i")), 3);
  EXPECT_EQ(std::get<double>(a.at("f")), 0.5);
  EXPECT_EQ(std::get<std::string>(a.at("s")), "hello");
  EXPECT_EQ(std::get<std::string>(a.at("q")), "7");
  EXPECT_EQ(std::get<int64_t>(a.at("b")), 1);
  EXPECT_EQ(std::get<std::vector<int64_t>>(a.at("ints")), (std::vector<int64_t>{1, -2}));
  EXPECT_EQ(std::get<std::vector<double>>(a.at("floats")), (std::vector<double>{1.0, 2.5}));
  EXPECT_EQ(std::get<std::vector<std::string>>(a.at("strs")), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(std::get<std::vector<int64_t>>(a.at("empty")), std::vector<int64_t>{});
  EXPECT_EQ(std::get<double>(a.at("e")), 1000.0);
}

TEST(YamlFrontend, OmittedOptionalInputs) {
  Result<ir::Graph> g = Import(Model(
      "  lo: {dtype: float32, shape: [], values: 0}\n",
      "  - {op: Clip, name: c1, inputs: [x, \"\", \"\"], outputs: [a]}\n"
      "  - {op: Clip, name: c2, inputs: [a, \"\", lo], outputs: [y]}\n"));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->nodes[0].inputs.size(), 1u);  // trailing omitted inputs are dropped
  ASSERT_EQ(g->nodes[1].inputs.size(), 3u);
  EXPECT_EQ(g->nodes[1].inputs[1], ir::kNoValue);
}

TEST(YamlFrontend, AnchorsAndAliases) {
  Result<ir::Graph> g = Import(Model(
      "  a: &p {dtype: float32, shape: [4], fill: 1}\n"
      "  b: *p\n",
      "  - {op: Add, inputs: [x, a], outputs: [s]}\n"
      "  - {op: Add, inputs: [s, b], outputs: [y]}\n"));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_TRUE(ValueNamed(*g, "b").is_constant());
}

// ---------------------------------------------------------------------------
// YAML to JSON

TEST(YamlToJson, CoreSchemaScalars) {
  Result<json> j = YamlToJson(
      "a: [~, null, NULL, true, False, yes, no, on, 12, -3, +4, 0o17, 0x1F, 1.5, .5, 5., 1e3,"
      " -.inf, .nan, '12', \"true\", !!str 3, 1_000, 0b1, 2001-12-14]\nb:\n");
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  const json& a = (*j)["a"];
  EXPECT_TRUE(a[0].is_null());
  EXPECT_TRUE(a[1].is_null());
  EXPECT_TRUE(a[2].is_null());
  EXPECT_EQ(a[3], true);
  EXPECT_EQ(a[4], false);
  EXPECT_EQ(a[5], "yes");
  EXPECT_EQ(a[6], "no");
  EXPECT_EQ(a[7], "on");
  EXPECT_TRUE(a[8].is_number_integer());
  EXPECT_EQ(a[8], 12);
  EXPECT_EQ(a[9], -3);
  EXPECT_EQ(a[10], 4);
  EXPECT_EQ(a[11], 15);
  EXPECT_EQ(a[12], 31);
  EXPECT_TRUE(a[13].is_number_float());
  EXPECT_EQ(a[13], 1.5);
  EXPECT_EQ(a[14], 0.5);
  EXPECT_EQ(a[15], 5.0);
  EXPECT_TRUE(a[16].is_number_float());
  EXPECT_EQ(a[16], 1000.0);
  EXPECT_TRUE(std::isinf(a[17].get<double>()) && a[17].get<double>() < 0);
  EXPECT_TRUE(std::isnan(a[18].get<double>()));
  EXPECT_EQ(a[19], "12");
  EXPECT_EQ(a[20], "true");
  EXPECT_EQ(a[21], "3");
  EXPECT_EQ(a[22], "1_000");
  EXPECT_EQ(a[23], "0b1");
  EXPECT_EQ(a[24], "2001-12-14");
  EXPECT_TRUE((*j)["b"].is_null());
}

TEST(YamlToJson, Errors) {
  struct Case {
    const char* yaml;
    StatusCode code;
    const char* message;
  } cases[] = {
      {"a: [1, 2\n", StatusCode::kInvalidArgument,
       "<yaml>:2:1: not valid YAML: end of sequence flow not found"},
      {"a: 1\na: 2\n", StatusCode::kInvalidArgument, "<yaml>:2:1: duplicate mapping key 'a'"},
      {"a: 1\n---\nb: 2\n", StatusCode::kInvalidArgument,
       "<yaml>:2:1: more than one YAML document (only one model per file)"},
      {"", StatusCode::kInvalidArgument,
       "<yaml>: the document is empty; expected a YAML mapping starting with `mlf_model: 1`"},
      {"a: 99999999999999999999\n", StatusCode::kInvalidArgument,
       "<yaml>:1:4: integer 99999999999999999999 does not fit in 64 bits"},
      {"a: 1e999\n", StatusCode::kInvalidArgument,
       "<yaml>:1:4: number 1e999 is out of the range of a 64-bit float"},
      {"a: !!int 3\n", StatusCode::kInvalidArgument,
       "<yaml>:1:4: unsupported YAML tag 'tag:yaml.org,2002:int' (only !!str is supported)"},
      {"? [1]\n: 2\n", StatusCode::kInvalidArgument, "<yaml>:1:3: mapping keys must be scalars"},
      {"a: \xff x\n", StatusCode::kInvalidArgument, "<yaml>:1:4: a scalar is not valid UTF-8"},
      {"a: *nope\n", StatusCode::kInvalidArgument,
       "<yaml>:1:4: not valid YAML: the referenced anchor is not defined"},
      {"a: &x [*x]\n", StatusCode::kInvalidArgument,
       "<yaml>:1:8: an alias refers to a node that contains it"},
  };
  for (const Case& c : cases) {
    Result<json> j = YamlToJson(c.yaml);
    ASSERT_FALSE(j.ok()) << c.yaml;
    EXPECT_EQ(j.status().code(), c.code) << c.yaml;
    EXPECT_EQ(j.status().message(), c.message) << c.yaml;
  }
}

TEST(YamlToJson, Bounds) {
  YamlImportOptions o;
  o.max_file_bytes = 10;
  Result<json> j = YamlToJson("a: [1, 2, 3, 4]\n", o);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(j.status().message(), "<yaml>: the document is 16 bytes, more than the limit of 10");

  o = YamlImportOptions();
  o.max_depth = 3;
  EXPECT_TRUE(YamlToJson("a: [[1]]\n", o).ok());
  j = YamlToJson("a: [[[1]]]\n", o);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(j.status().message(), "<yaml>:1: YAML nesting is deeper than the limit of 3 levels");

  // An alias cannot smuggle depth past the bound either.
  j = YamlToJson("a: &x [[1]]\nb: [*x]\n", o);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().message(), "<yaml>:2: YAML nesting is deeper than the limit of 3 levels");

  // Default depth: a hostile, very deep document is refused, not a stack overflow.
  j = YamlToJson(std::string(100000, '[') + std::string(100000, ']'));
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kOutOfRange);

  // "Billion laughs": aliases are counted expanded.
  o = YamlImportOptions();
  o.max_yaml_values = 1000;
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    const char p = static_cast<char>(c - 1);
    bomb += std::string(1, c) + ": &" + c + " [*" + p + ", *" + p + ", *" + p + ", *" + p + ", *" +
            p + ", *" + p + ", *" + p + ", *" + p + ", *" + p + ", *" + p + "]\n";
  }
  j = YamlToJson(bomb, o);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(j.status().message(),
            "<yaml>:3: the YAML document has more than 1000 values (aliases counted expanded)");
}

// ---------------------------------------------------------------------------
// Document-level errors

TEST(YamlFrontend, SchemaViolationsCarryThePointer) {
  ExpectError(Import("mlf_model: 1\nname: t\n"
                     "inputs: [{name: x, dtype: float33, shape: [1, 4]}]\n"
                     "nodes: [{op: Relu, inputs: [x], outputs: [y]}]\noutputs: [y]\n"),
              StatusCode::kInvalidArgument,
              "m.yaml:3: not a valid mlf_model 1 description: /inputs/0/dtype: value \"float33\" "
              "is not one of the allowed values (enum)");
  ExpectError(Import(Model("", "  - {inputs: [x], outputs: [y]}\n")),
              StatusCode::kInvalidArgument,
              "m.yaml:6: not a valid mlf_model 1 description: /nodes/0: missing required "
              "property \"op\" (required)");
  ExpectError(Import(Model("", "  - {op: Relu, inputs: [x], outputs: [y], atrs: {}}\n")),
              StatusCode::kInvalidArgument,
              "m.yaml:6: not a valid mlf_model 1 description: /nodes/0: unexpected property "
              "\"atrs\" (additionalProperties)");
  ExpectError(Import("- 1\n"), StatusCode::kInvalidArgument,
              "m.yaml: not a valid mlf_model 1 description: (root): value [1] is not of type "
              "object (type)");
}

TEST(YamlFrontend, ParameterNeedsExactlyOneSource) {
  ExpectError(Import(Model("  w: {dtype: float32, shape: [4], fill: 1, values: [1, 2, 3, 4]}\n", kRelu)),
              StatusCode::kInvalidArgument,
              "m.yaml:6: parameter 'w': give exactly one of values, npy, random or fill (it has "
              "fill, values)");
  ExpectError(Import(Model("  w: {dtype: float32, shape: [4]}\n", kRelu)),
              StatusCode::kInvalidArgument,
              "m.yaml:6: parameter 'w': give exactly one of values, npy, random or fill (it has "
              "none)");
  ExpectError(Import(Model("  w: {dtype: float32, shape: [4], random: {seed: 1, distribution: normal, mean: 0}}\n", kRelu)),
              StatusCode::kInvalidArgument,
              "m.yaml:6: not a valid mlf_model 1 description: /parameters/w/random: missing "
              "required property \"std\" (required)");
}

TEST(YamlFrontend, LongSchemaMessagesAreShortened) {
  std::string values = "[a";
  for (int i = 0; i < 5000; ++i) values += ", 1";
  Result<ir::Graph> r = Import(Model("  w: {dtype: float32, shape: [5001], values: " + values + "]}\n", kRelu));
  ASSERT_FALSE(r.ok());
  EXPECT_LT(r.status().message().size(), 1200u);
  EXPECT_EQ(r.status().message().rfind("m.yaml:6: not a valid mlf_model 1 description: /parameters/w/values: ", 0), 0u)
      << r.status().message();
}

TEST(YamlFrontend, NewerFormatVersion) {
  ExpectError(Import("mlf_model: 2\nname: t\n"), StatusCode::kFailedPrecondition,
              "m.yaml:1: mlf_model 2 is not supported: this mlfkit reads format version 1");
}

TEST(YamlFrontend, NotYaml) {
  ExpectError(Import("mlf_model: 1\nname: [t\n"), StatusCode::kInvalidArgument,
              "m.yaml:3:1: not valid YAML: end of sequence flow not found");
}

// ---------------------------------------------------------------------------
// Graph errors

TEST(YamlFrontend, UnknownOp) {
  ExpectError(Import(Model("", "  - {op: FancyOp, name: f, inputs: [x], outputs: [y]}\n")),
              StatusCode::kUnimplemented,
              "m.yaml:6: node 'f' (FancyOp): operator 'FancyOp' is not supported; see `mlf help "
              "export`");
}

TEST(YamlFrontend, DuplicateNames) {
  ExpectError(Import(Model("", "  - {op: Relu, inputs: [x], outputs: [x]}\n", "[x]")),
              StatusCode::kAlreadyExists,
              "m.yaml:6: node 'Relu_0' (Relu): value name 'x' is already used (a model input); "
              "every input, parameter and node output needs its own name");
  ExpectError(Import(Model("  x: {dtype: float32, shape: [1], fill: 0}\n", kRelu)),
              StatusCode::kAlreadyExists,
              "m.yaml:6: parameter 'x': value name 'x' is already used (a model input); every "
              "input, parameter and node output needs its own name");
  ExpectError(Import(Model("", "  - {op: Relu, name: r, inputs: [x], outputs: [y]}\n"
                               "  - {op: Relu, inputs: [x], outputs: [y]}\n")),
              StatusCode::kAlreadyExists,
              "m.yaml:7: node 'Relu_1' (Relu): value name 'y' is already used (an output of node "
              "'r'); every input, parameter and node output needs its own name");
  ExpectError(Import(Model("", "  - {op: Relu, name: r, inputs: [x], outputs: [a]}\n"
                               "  - {op: Relu, name: r, inputs: [a], outputs: [y]}\n")),
              StatusCode::kAlreadyExists,
              "m.yaml:7: node 'r' (Relu): node #1 has the same name as node #0; give each node its "
              "own name");
  ExpectError(Import("mlf_model: 1\nname: t\ninputs:\n  - {name: x, dtype: float32, shape: [1]}\n"
                     "  - {name: x, dtype: float32, shape: [2]}\n" "nodes: [" "{op: Relu, inputs: [x], outputs: [y]}]\noutputs: [y]\n"),
              StatusCode::kAlreadyExists,
              "m.yaml:5: input 'x': value name 'x' is already used (a model input); every input, "
              "parameter and node output needs its own name");
}

TEST(YamlFrontend, UndefinedInputs) {
  ExpectError(Import(Model("", "  - {op: Add, name: a, inputs: [x, w], outputs: [y]}\n")),
              StatusCode::kInvalidArgument,
              "m.yaml:6: node 'a' (Add): input 'w' is not defined (not a model input, a parameter "
              "or an output of a node)");
  ExpectError(Import(Model("", "  - {op: Relu, name: second, inputs: [h], outputs: [y]}\n"
                               "  - {op: Relu, name: first, inputs: [x], outputs: [h]}\n")),
              StatusCode::kInvalidArgument,
              "m.yaml:6: node 'second' (Relu): input 'h' is computed by a later node 'first' (#1); "
              "list nodes in topological order");
  ExpectError(Import(Model("", "  - {op: Add, name: loop, inputs: [x, y], outputs: [y]}\n")),
              StatusCode::kInvalidArgument,
              "m.yaml:6: node 'loop' (Add): input 'y' is an output of the same node");
}

TEST(YamlFrontend, OutputErrors) {
  ExpectError(Import(Model("", kRelu, "[z]")), StatusCode::kInvalidArgument,
              "m.yaml:7: model output 'z' is not an output of any node");
  ExpectError(Import(Model("", kRelu, "[x]")), StatusCode::kInvalidArgument,
              "m.yaml:7: model output 'x' is a model input; outputs must be computed by a node "
              "(an Identity node can copy it)");
  ExpectError(Import(Model("  w: {dtype: float32, shape: [1], fill: 0}\n", kRelu, "[w]")),
              StatusCode::kInvalidArgument,
              "m.yaml:9: model output 'w' is a parameter; outputs must be computed by a node (an "
              "Identity node can copy it)");
}

TEST(YamlFrontend, InferenceErrorsNameTheNode) {
  Result<ir::Graph> r = Import(Model("  w: {dtype: float32, shape: [3], fill: 0}\n",
                                     "  - {op: Add, name: bad, inputs: [x, w], outputs: [y]}\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("m.yaml:8: node 'bad' (Add): ", 0), 0u) << r.status().message();
}

// ---------------------------------------------------------------------------
// Parameter values

TEST(YamlFrontend, InlineValuesMustMatchTheShape) {
  // Parameter `w` as written, and what the error says after "m.yaml:6: parameter 'w': ".
  struct Case {
    const char* spec;
    const char* problem;
  };
  const Case cases[] = {
      {"{dtype: float32, shape: [2, 4], values: [1, 2, 3, 4, 5, 6]}",
       "'values' has 6 values but shape [2, 4] needs 8"},
      {"{dtype: float32, shape: [2, 2], values: [[1, 2], [3, 4, 5]]}",
       "/parameters/w/values/1 has 3 entries but dimension 1 of shape [2, 2] is 2"},
      {"{dtype: float32, shape: [2, 2], values: [[1, 2], 3]}",
       "/parameters/w/values/1 has 1 value but dimension 1 of shape [2, 2] is 2"},
      {"{dtype: float32, shape: [2], values: [[1], [2]]}",
       "/parameters/w/values/0 is a list, but shape [2] has only 1 dimensions"},
      {"{dtype: float32, shape: [2], values: 1}",
       "'values' is a single value but shape [2] needs 2 values"},
      {"{dtype: int32, shape: [2], values: [1, 2.5]}",
       "/parameters/w/values/1: value 2.5 is not an integer (dtype int32)"},
      {"{dtype: uint8, shape: [2], values: [1, 256]}",
       "/parameters/w/values/1: value 256 is out of range (dtype uint8)"},
      {"{dtype: uint8, shape: [1], values: [-1]}",
       "/parameters/w/values/0: value -1 is out of range (dtype uint8)"},
      {"{dtype: float32, shape: [1], values: [1e39]}",
       "/parameters/w/values/0: value 1e+39 is out of range (dtype float32)"},
      {"{dtype: int16, shape: [1], values: [.nan]}",
       "/parameters/w/values/0: value .nan is not an integer (dtype int16)"},
      {"{dtype: float32, shape: [1], values: [true]}",
       "/parameters/w/values/0: expected a number, got true (dtype float32)"},
      {"{dtype: bool, shape: [1], values: [2]}",
       "/parameters/w/values/0: expected true or false (or 0 or 1), got 2 (dtype bool)"},
      {"{dtype: int8, shape: [3], fill: 1000}",
       "/parameters/w/fill: value 1000 is out of range (dtype int8)"},
      {"{dtype: int32, shape: [2], random: {seed: 1, distribution: uniform, low: 0, high: 1}}",
       "random values need a floating-point dtype, not int32 (use values, fill or npy)"},
      {"{dtype: float32, shape: [2], random: {seed: 1, distribution: uniform, low: 1, high: 0}}",
       "random low (1) is greater than high (0)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.spec);
    ExpectError(Import(Model(std::string("  w: ") + c.spec + "\n", kRelu)),
                StatusCode::kInvalidArgument,
                std::string("m.yaml:6: parameter 'w': ") + c.problem);
  }
}

TEST(YamlFrontend, NpyParameters) {
  const std::string dir = TempDir() + "/npy_params";
  ASSERT_EQ(std::system(("mkdir -p '" + dir + "/weights'").c_str()), 0);
  NpyArray a;
  a.dtype = DType::kFloat32;
  a.shape = {2, 2};
  const float data[] = {1, 2, 3, 4};
  a.data.assign(reinterpret_cast<const char*>(data), sizeof data);
  ASSERT_TRUE(WriteNpyFile(dir + "/weights/w.npy", a).ok());

  Result<ir::Graph> g = Import(Model("  w: {dtype: float32, shape: [2, 2], npy: weights/w.npy}\n", kRelu),
                               Named(), dir);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(FloatAt(*ValueNamed(*g, "w").constant, 3), 4.0f);

  ExpectError(Import(Model("  w: {dtype: float64, shape: [2, 2], npy: weights/w.npy}\n", kRelu),
                     Named(), dir),
              StatusCode::kInvalidArgument,
              "m.yaml:6: parameter 'w': '" + dir + "/weights/w.npy' holds float32 [2, 2] but the "
              "parameter is declared float64 [2, 2]");
  ExpectError(Import(Model("  w: {dtype: float32, shape: [4], npy: weights/w.npy}\n", kRelu),
                     Named(), dir),
              StatusCode::kInvalidArgument,
              "m.yaml:6: parameter 'w': '" + dir + "/weights/w.npy' holds float32 [2, 2] but the "
              "parameter is declared float32 [4]");
  ExpectError(Import(Model("  w: {dtype: float32, shape: [4], npy: missing.npy}\n", kRelu),
                     Named(), dir),
              StatusCode::kNotFound,
              "m.yaml:6: parameter 'w': '" + dir + "/missing.npy' does not exist");
  ExpectError(Import(Model("  w: {dtype: float32, shape: [4], npy: /etc/w.npy}\n", kRelu),
                     Named(), dir),
              StatusCode::kInvalidArgument,
              "m.yaml:6: parameter 'w': npy path '/etc/w.npy' is absolute; give it relative to "
              "the YAML file's directory");

  // Through ImportYamlFile, paths are relative to the YAML file.
  {
    std::ofstream f(dir + "/model.yaml");
    f << Model("  w: {dtype: float32, shape: [2, 2], npy: weights/w.npy}\n", kRelu);
  }
  g = ImportYamlFile(dir + "/model.yaml");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(FloatAt(*ValueNamed(*g, "w").constant, 0), 1.0f);
}

// An npy file stays in the model's directory: '..' above it, and symbolic
// links leading out of it, are refused like absolute paths (a model handed
// over with its files must not pull other files into an archive).
TEST(YamlFrontend, NpyPathsAreConfinedToTheModelDirectory) {
  const std::string root = TempDir() + "/npy_confined";
  const std::string dir = root + "/model";
  ASSERT_EQ(std::system(("rm -rf '" + root + "' && mkdir -p '" + dir + "/weights' '" + root +
                         "/secret'")
                            .c_str()),
            0);
  NpyArray a;
  a.dtype = DType::kFloat32;
  a.shape = {4};
  const float data[] = {1, 2, 3, 4};
  a.data.assign(reinterpret_cast<const char*>(data), sizeof data);
  ASSERT_TRUE(WriteNpyFile(root + "/secret/s.npy", a).ok());
  ASSERT_TRUE(WriteNpyFile(dir + "/weights/w.npy", a).ok());
  ASSERT_EQ(symlink((root + "/secret/s.npy").c_str(), (dir + "/link.npy").c_str()), 0);
  ASSERT_EQ(symlink((root + "/secret").c_str(), (dir + "/linkdir").c_str()), 0);
  ASSERT_EQ(symlink("weights/w.npy", (dir + "/inside.npy").c_str()), 0);
  auto with = [&](const std::string& npy) {
    return Import(Model("  w: {dtype: float32, shape: [4], npy: " + npy + "}\n", kRelu), Named(),
                  dir);
  };
  const std::string advice = "; keep npy files in the YAML file's directory or below it";
  for (const std::string up :
       {"../secret/s.npy", "weights/../../secret/s.npy", "./../model/../x.npy", ".."}) {
    ExpectError(with("'" + up + "'"), StatusCode::kInvalidArgument,
                "m.yaml:6: parameter 'w': npy path '" + up +
                    "' leads outside the YAML file's directory" + advice);
  }
  const std::string real_secret = RealPathOf(root + "/secret/s.npy");
  for (const std::string link : {"link.npy", "linkdir/s.npy"}) {
    ExpectError(with(link), StatusCode::kInvalidArgument,
                "m.yaml:6: parameter 'w': npy path '" + link +
                    "' leads outside the YAML file's directory through a symbolic link (to '" +
                    real_secret + "')" + advice);
  }
  // Inside the directory, through '..' or a link, is fine; the files read are reported.
  for (const std::string ok : {"weights/w.npy", "weights/../weights/w.npy", "inside.npy"}) {
    YamlModelInfo info;
    Result<ir::Graph> g =
        ImportYaml(Model("  w: {dtype: float32, shape: [4], npy: " + ok + "}\n", kRelu), dir,
                   Named(), &info);
    ASSERT_TRUE(g.ok()) << ok << ": " << g.status().ToString();
    EXPECT_EQ(info.npy_files, std::vector<std::string>{dir + "/" + ok});
  }
  // Through ImportYamlFile the model's own directory is the limit.
  {
    std::ofstream f(dir + "/m.yaml");
    f << Model("  w: {dtype: float32, shape: [4], npy: ../secret/s.npy}\n", kRelu);
  }
  ExpectError(ImportYamlFile(dir + "/m.yaml"), StatusCode::kInvalidArgument,
              dir + "/m.yaml:6: parameter 'w': npy path '../secret/s.npy' leads outside the YAML "
              "file's directory" + advice);
}

// ---------------------------------------------------------------------------
// Random parameters

TEST(YamlFrontend, RandomIsSplitMix64) {
  // splitmix64's first output for seed 1 is 0x910A2DEC89025CC1.
  ir::HostTensor t = ir::HostTensor::Zeros(DType::kFloat64, {3});
  RandomSpec spec;
  spec.seed = 1;
  ASSERT_TRUE(FillRandomTensor(spec, &t).ok());
  EXPECT_EQ(t.data<double>()[0], static_cast<double>(0x910A2DEC89025CC1ull >> 11) * 0x1.0p-53);
}

TEST(YamlFrontend, RandomGoldenValuesSeed1) {
  Result<ir::Graph> g = Import(Model(
      "  u: {dtype: float32, shape: [4], random: {seed: 1, distribution: uniform, low: -1, high: 1}}\n"
      "  n: {dtype: float32, shape: [2, 2], random: {seed: 1, distribution: normal, mean: 0, std: 1}}\n",
      kRelu));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const ir::HostTensor& u = *ValueNamed(*g, "u").constant;
  const ir::HostTensor& n = *ValueNamed(*g, "n").constant;
  const float golden_u[] = {0.13312314450740814f, 0.4915635287761688f, 0.9420055150985718f,
                            -0.11128156632184982f};
  const float golden_n[] = {-0.03426732122898102f, -1.2926084995269775f, -2.5000674724578857f,
                            0.9114665985107422f};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(FloatAt(u, i), golden_u[i]) << i;
    EXPECT_EQ(FloatAt(n, i), golden_n[i]) << i;
  }
  // Reproducible: the same document gives the same bytes.
  Result<ir::Graph> again = Import(Model(
      "  u: {dtype: float32, shape: [4], random: {seed: 1, distribution: uniform, low: -1, high: 1}}\n",
      kRelu));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(ValueNamed(*again, "u").constant->bytes, u.bytes);
}

// ---------------------------------------------------------------------------
// Bounds

TEST(YamlFrontend, Bounds) {
  YamlImportOptions o = Named();
  o.max_nodes = 1;
  ExpectError(Import(Model("", kRelu + "  - {op: Relu, inputs: [y], outputs: [z]}\n"), o),
              StatusCode::kOutOfRange, "m.yaml: the model has 2 nodes, more than the limit of 1");

  o = Named();
  o.max_tensor_elements = 3;
  ExpectError(Import(Model("", kRelu), o), StatusCode::kOutOfRange,
              "m.yaml:4: input 'x': shape [1, 4] has 4 elements, more than the limit of 3");
  o.max_tensor_elements = 100;
  ExpectError(Import(Model("  w: {dtype: float32, shape: [10, 11], fill: 0}\n", kRelu), o),
              StatusCode::kOutOfRange,
              "m.yaml:6: parameter 'w': shape [10, 11] has 110 elements, more than the limit of 100");

  o = Named();
  o.max_rank = 1;
  ExpectError(Import(Model("", kRelu), o), StatusCode::kOutOfRange,
              "m.yaml:4: input 'x': rank 2 is more than the limit of 1");

  o = Named();
  o.max_parameter_bytes = 100;
  ExpectError(Import(Model("  a: {dtype: float32, shape: [20], fill: 0}\n"
                           "  b: {dtype: float32, shape: [20], fill: 0}\n", kRelu), o),
              StatusCode::kOutOfRange,
              "m.yaml:7: parameter 'b': parameters take more than the limit of 100 bytes together");
  // The bound names the parameter that crosses it in document order (not
  // the alphabetical order of the parsed mapping, which named 'z').
  ExpectError(Import(Model("  z: {dtype: float32, shape: [20], fill: 0}\n"
                           "  a: {dtype: float32, shape: [20], fill: 0}\n", kRelu), o),
              StatusCode::kOutOfRange,
              "m.yaml:7: parameter 'a': parameters take more than the limit of 100 bytes together");

  ExpectError(Import(Model("  w: {dtype: float32, shape: [4294967296, 4294967296], fill: 0}\n", kRelu)),
              StatusCode::kOutOfRange,
              "m.yaml:6: parameter 'w': shape [4294967296, 4294967296] has too many elements, more "
              "than the limit of 268435456");

  o = Named();
  o.max_file_bytes = 20;
  ExpectError(Import(Model("", kRelu), o), StatusCode::kOutOfRange,
              "m.yaml: the document is " + std::to_string(Model("", kRelu).size()) +
                  " bytes, more than the limit of 20");

  o = Named();
  o.max_depth = 4;
  ExpectError(Import(Model("  w: {dtype: float32, shape: [1, 1], values: [[1]]}\n", kRelu), o),
              StatusCode::kOutOfRange, "m.yaml:6: YAML nesting is deeper than the limit of 4 levels");
}

TEST(YamlFrontend, ImportYamlFileErrors) {
  ExpectError(ImportYamlFile(TempDir() + "/no/such/model.yaml"), StatusCode::kNotFound,
              "'" + TempDir() + "/no/such/model.yaml' does not exist");
  const std::string path = TempDir() + "/big.yaml";
  {
    std::ofstream f(path);
    f << Model("", kRelu);
  }
  YamlImportOptions o;
  o.max_file_bytes = 10;
  ExpectError(ImportYamlFile(path, o), StatusCode::kOutOfRange,
              "'" + path + "' is larger than the limit of 10 bytes for a YAML model");
  ExpectError(ImportYamlFile(TempDir()), StatusCode::kInvalidArgument,
              "'" + TempDir() + "' is a directory, not a YAML file");
  // Errors name the file.
  {
    std::ofstream f(path);
    f << Model("", "  - {op: Relu, name: r, inputs: [q], outputs: [y]}\n");
  }
  ExpectError(ImportYamlFile(path), StatusCode::kInvalidArgument,
              path + ":6: node 'r' (Relu): input 'q' is not defined (not a model input, a "
              "parameter or an output of a node)");
}

// Mutated copies of a valid model never crash the importer (a small,
// deterministic stand-in for the fuzzer).
TEST(YamlFrontend, MutatedDocumentsFailCleanly) {
  const std::string base = Model(
      "  w: {dtype: float32, shape: [2, 2], values: [[1, 2], [3, 4]]}\n"
      "  r: &r {dtype: float32, shape: [4], random: {seed: 3, distribution: normal, mean: 0, std: 1}}\n"
      "  s: *r\n",
      "  - {op: Add, name: a, inputs: [x, r], outputs: [h], attrs: {k: [1, 2.5]}}\n"
      "  - {op: Clip, inputs: [h, \"\", \"\"], outputs: [y]}\n");
  ASSERT_TRUE(Import(base).ok()) << Import(base).status().ToString();
  std::mt19937 rng(12345);
  const std::string alphabet = "[]{}:,-&*!|>'\"#\n \t0123456789.eE~?%@`\\\x80\xff";
  int ok = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string doc = base;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t pos = rng() % doc.size();
      switch (rng() % 3) {
        case 0: doc[pos] = alphabet[rng() % alphabet.size()]; break;
        case 1: doc.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
        default: doc.erase(pos, 1 + rng() % 8); break;
      }
      if (doc.empty()) doc = "x";
    }
    Result<ir::Graph> r = Import(doc);
    if (r.ok()) {
      ++ok;
      EXPECT_TRUE(r->Validate().ok());
    } else {
      EXPECT_FALSE(r.status().message().empty());
      EXPECT_EQ(r.status().message().rfind("m.yaml", 0), 0u) << r.status().message();
    }
  }
  EXPECT_GT(ok, 0);
}

// ---------------------------------------------------------------------------
// The bundled examples

// The example of docs/yaml-models.md, verbatim.
const char kDocsExample[] = R"(mlf_model: 1                      # format version: required, must be 1
name: tiny_classifier             # [A-Za-z0-9_][A-Za-z0-9_.-]*
description: A 4 -> 3 dense layer and a softmax.   # optional

inputs:                           # in order; static shapes, every dimension >= 1
  - {name: features, dtype: float32, shape: [1, 4]}

parameters:                       # constant tensors, by name
  dense.weight:
    dtype: float32
    shape: [3, 4]
    random: {seed: 7, distribution: uniform, low: -0.5, high: 0.5}
  dense.bias:
    dtype: float32
    shape: [3]
    values: [0.1, 0.0, -0.1]
  scale:
    dtype: float32
    shape: []                     # a scalar
    fill: 2.0
  embedding:
    dtype: float32
    shape: [1000, 16]
    npy: weights/embedding.npy    # relative to this file's directory

nodes:                            # ONNX operators, in topological order
  - name: dense                   # optional; default "<op>_<index>" (here it would be Gemm_0)
    op: Gemm
    inputs: [features, dense.weight, dense.bias]
    outputs: [logits]
    attrs: {transB: 1}
  - op: Mul
    inputs: [logits, scale]
    outputs: [scaled]
  - op: Softmax
    inputs: [scaled]
    outputs: [probabilities]
    attrs: {axis: -1}

outputs: [probabilities]          # values computed by nodes, in order
)";

TEST(YamlExamples, DocsExample) {
  const std::string dir = TempDir() + "/docs_example";
  ASSERT_EQ(std::system(("mkdir -p '" + dir + "/weights'").c_str()), 0);
  NpyArray e;
  e.dtype = DType::kFloat32;
  e.shape = {1000, 16};
  e.data.assign(1000 * 16 * 4, '\0');
  ASSERT_TRUE(WriteNpyFile(dir + "/weights/embedding.npy", e).ok());
  {
    std::ofstream f(dir + "/model.yaml");
    f << kDocsExample;
  }
  YamlModelInfo info;
  Result<ir::Graph> g = ImportYamlFile(dir + "/model.yaml", {}, &info);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(info.name, "tiny_classifier");
  EXPECT_EQ(info.description, "A 4 -> 3 dense layer and a softmax.");
  EXPECT_EQ(g->nodes[1].name, "Mul_1");
  EXPECT_EQ(g->value(g->outputs[0]).shape, (std::vector<int64_t>{1, 3}));
  EXPECT_TRUE(ValueNamed(*g, "scale").shape.empty());
}


ir::HostTensor RandomInput(const ir::Value& v) {
  ir::HostTensor t = ir::HostTensor::Zeros(v.dtype, v.shape);
  for (uint64_t i = 0; i < t.element_count(); ++i) t.SetDouble(i, std::sin(0.37 * static_cast<double>(i)));
  return t;
}

TEST(YamlExamples, MnistMlp) {
  YamlModelInfo info;
  Result<ir::Graph> g = ImportYamlFile("examples/mnist_mlp/model.yaml", {}, &info);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(info.name, "mnist_mlp");
  ASSERT_EQ(g->inputs.size(), 1u);
  EXPECT_EQ(g->value(g->inputs[0]).name, "image");
  EXPECT_EQ(g->value(g->inputs[0]).shape, (std::vector<int64_t>{1, 784}));
  EXPECT_EQ(g->nodes.size(), 4u);
  EXPECT_EQ(ValueNamed(*g, "fc1_out").shape, (std::vector<int64_t>{1, 64}));
  EXPECT_EQ(ValueNamed(*g, "hidden").shape, (std::vector<int64_t>{1, 64}));
  EXPECT_EQ(ValueNamed(*g, "logits").shape, (std::vector<int64_t>{1, 10}));
  ASSERT_EQ(g->outputs.size(), 1u);
  const ir::Value& out = g->value(g->outputs[0]);
  EXPECT_EQ(out.name, "probabilities");
  EXPECT_EQ(out.shape, (std::vector<int64_t>{1, 10}));
  // fc1.weight: uniform in +-1/28 from seed 1.
  const ir::HostTensor& w1 = *ValueNamed(*g, "fc1.weight").constant;
  EXPECT_EQ(w1.shape, (std::vector<int64_t>{64, 784}));
  for (uint64_t i = 0; i < w1.element_count(); ++i) ASSERT_LE(std::fabs(FloatAt(w1, i)), 1.0f / 28);

  Result<std::vector<ir::HostTensor>> y = reference::Interpret(*g, {RandomInput(g->value(g->inputs[0]))});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  ASSERT_EQ(y->size(), 1u);
  double sum = 0;
  for (size_t i = 0; i < 10; ++i) sum += FloatAt((*y)[0], i);
  EXPECT_NEAR(sum, 1.0, 1e-5);
}

TEST(YamlExamples, TinyCnn) {
  YamlModelInfo info;
  Result<ir::Graph> g = ImportYamlFile("examples/tiny_cnn/model.yaml", {}, &info);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(info.name, "tiny_cnn");
  EXPECT_EQ(g->value(g->inputs[0]).shape, (std::vector<int64_t>{1, 1, 8, 8}));
  EXPECT_EQ(g->nodes.size(), 6u);
  EXPECT_EQ(ValueNamed(*g, "conv_out").shape, (std::vector<int64_t>{1, 4, 8, 8}));
  EXPECT_EQ(ValueNamed(*g, "bn_out").shape, (std::vector<int64_t>{1, 4, 8, 8}));
  EXPECT_EQ(ValueNamed(*g, "pool_out").shape, (std::vector<int64_t>{1, 4, 4, 4}));
  EXPECT_EQ(ValueNamed(*g, "features").shape, (std::vector<int64_t>{1, 64}));
  ASSERT_EQ(g->outputs.size(), 1u);
  EXPECT_EQ(g->value(g->outputs[0]).name, "logits");
  EXPECT_EQ(g->value(g->outputs[0]).shape, (std::vector<int64_t>{1, 10}));
  // Nested inline values land in C order: filter 1 is the horizontal Sobel.
  const ir::HostTensor& w = *ValueNamed(*g, "conv.weight").constant;
  EXPECT_EQ(FloatAt(w, 9), -1.0f);
  EXPECT_EQ(FloatAt(w, 10), -2.0f);
  EXPECT_EQ(FloatAt(w, 17), 1.0f);

  Result<std::vector<ir::HostTensor>> y = reference::Interpret(*g, {RandomInput(g->value(g->inputs[0]))});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  ASSERT_EQ(y->size(), 1u);
  for (size_t i = 0; i < 10; ++i) EXPECT_TRUE(std::isfinite(FloatAt((*y)[0], i)));
}

TEST(YamlExamples, ExamplesParseAndValidateWithoutOps) {
  // Independent of which operators have landed: the documents are valid.
  for (const char* path : {"examples/mnist_mlp/model.yaml", "examples/tiny_cnn/model.yaml"}) {
    std::ifstream f(path);
    ASSERT_TRUE(f.good()) << path;
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    Result<json> j = YamlToJson(text);
    ASSERT_TRUE(j.ok()) << j.status().ToString();
    EXPECT_EQ((*j)["mlf_model"], 1);
  }
}

}  // namespace
}  // namespace mlf::frontend
