// The TVM normaliser's parts: metadata.json of versions 5–7 against their
// schemas, the Relay and graph signature readers, the code scanner, the
// interface header reader, .params indexing and the completion rules.
#include "tvm/format/tvm_metadata.h"

#include <algorithm>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "artifact/format/dtype.h"
#include "tvm/format/tvm_relay.h"
#include "tvm/compat/compat.h"
#include "schemas/embedded.h"
#include "tvm/format/tvm_relay.h"

namespace mlf {
namespace {

using nlohmann::json;

json MainEntry() {
  return {{"device", 1}, {"workspace_size_bytes", 32}, {"constants_size_bytes", 60},
          {"io_size_bytes", 28}};
}

json FullModel(const json& target) {
  return {{"model_name", "default"},
          {"export_datetime", "2022-11-30 12:00:00Z"},
          {"memory", {{"functions", {{"main", {MainEntry()}}, {"operator_functions", json::array()}}}}},
          {"target", target},
          {"executors", {"aot"}},
          {"style", "full-model"}};
}

json V5() {
  json j = FullModel({{"1", "c -keys=cpu -interface-api=c"}});
  j["version"] = 5;
  return j;
}

json V6() {
  json j = FullModel({"c -keys=arm_cpu,cpu -mcpu=cortex-m4"});
  j["version"] = 6;
  return j;
}

json V7(const json& module = FullModel({"c -keys=cpu"})) {
  json m = module;
  return {{"version", 7}, {"modules", {{"default", m}}}};
}

TEST(TvmSchemasTest, AreEmbeddedAndCompile) {
  for (int v = 5; v <= 7; ++v) {
    const auto text = EmbeddedFile("tvm-metadata-v" + std::to_string(v) + ".schema.json");
    ASSERT_TRUE(text.has_value()) << v;
    EXPECT_NE(text->find("\"const\": " + std::to_string(v)), std::string_view::npos);
  }
  // Compiling happens on first use; a valid document of each version parses.
  EXPECT_TRUE(ParseTvmMetadata(V5().dump()).ok());
  EXPECT_TRUE(ParseTvmMetadata(V6().dump()).ok());
  EXPECT_TRUE(ParseTvmMetadata(V7().dump()).ok());
}

TEST(ParseTvmMetadataTest, Version5IsOneFlatModel) {
  Result<Metadata> md = ParseTvmMetadata(V5().dump());
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->version, 5);
  EXPECT_TRUE(md->is_tvm());
  EXPECT_EQ(md->generator_name, "tvm");
  EXPECT_EQ(md->export_datetime, "2022-11-30 12:00:00Z");
  ASSERT_EQ(md->modules.count("default"), 1u);
  const ModuleMetadata& m = md->modules.at("default");
  ASSERT_TRUE(m.tvm.has_value());
  EXPECT_EQ(m.tvm->version, 5);
  EXPECT_EQ(m.tvm->targets, std::vector<std::string>{"c -keys=cpu -interface-api=c"});
  EXPECT_EQ(m.interface_api, InterfaceApi::kC);  // from the target string
  EXPECT_EQ(m.target.kind, "c");
  EXPECT_EQ(m.target.attrs.at("keys"), "cpu");
  EXPECT_EQ(m.memory.workspace_size_bytes, 32u);
  EXPECT_EQ(m.memory.constants_size_bytes, 60u);
  EXPECT_EQ(m.memory.io_size_bytes, 28u);
  EXPECT_EQ(m.memory.alignment_bytes, 16u);
  EXPECT_EQ(m.abi_version, 0);
  EXPECT_TRUE(m.inputs.empty());
  EXPECT_TRUE(md->files.empty());
}

TEST(ParseTvmMetadataTest, Version6TargetListGivesMcpu) {
  Result<Metadata> md = ParseTvmMetadata(V6().dump());
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  const ModuleMetadata& m = md->modules.at("default");
  EXPECT_EQ(m.target.mcpu, "cortex-m4");
  EXPECT_EQ(m.interface_api, InterfaceApi::kPacked);  // completion may find the C interface header
  EXPECT_EQ(TvmTargetOption("c -keys=arm_cpu,cpu -mcpu=cortex-m4", "mcpu"), "cortex-m4");
  EXPECT_EQ(TvmTargetOption("c -keys=cpu", "mcpu"), "");
}

TEST(ParseTvmMetadataTest, Version7NestsModulesWithLateIoMaps) {
  json module = FullModel({"c -keys=cpu"});
  module["memory"]["functions"]["main"][0]["inputs"] = {
      {"serving_default_input_1:0", {{"size", 16}, {"dtype", "float32"}}},
      {"a", {{"size", 2}, {"dtype", "int8"}}}};
  module["memory"]["functions"]["main"][0]["outputs"] = {{"output", {{"size", 12}, {"dtype", "float32"}}}};
  module["memory"]["functions"]["operator_functions"] = {
      {{"function_name", "f"}, {"workspace", {{{"device", 1}, {"workspace_size_bytes", 16}}, {{"device", 2}, {"workspace_size_bytes", 64}}}}}};
  module["memory"]["sids"] = {{{"storage_id", 0}, {"size_bytes", 16}, {"input_binding", "x"}}};
  module["external_dependencies"] = {{{"short_name", "tvm_standalone_crt"}, {"url", "./runtime"},
                                      {"url_type", "mlf_path"}, {"version_spec", "0.11.0"}}};
  json doc = V7(module);
  doc["modules"]["other"] = FullModel({"c -keys=cpu"});
  doc["modules"]["other"]["executors"] = {"graph"};
  Result<Metadata> md = ParseTvmMetadata(doc.dump());
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->modules.size(), 2u);
  EXPECT_EQ(md->generator_version, "0.11.0");
  const ModuleMetadata& m = md->modules.at("default");
  ASSERT_EQ(m.inputs.size(), 2u);
  // Alphabetical until the header or Relay says otherwise.
  EXPECT_EQ(m.inputs[0].name, "a");
  EXPECT_EQ(m.inputs[1].name, "serving_default_input_1:0");
  EXPECT_EQ(m.inputs[1].c_name, "serving_default_input_1_0");
  EXPECT_TRUE(m.inputs[1].dtype == DType::kFloat32);
  EXPECT_EQ(m.inputs[1].size_bytes, 16u);
  EXPECT_FALSE(m.inputs[1].shape_known);
  ASSERT_EQ(m.tvm->operator_functions.size(), 1u);
  EXPECT_EQ(m.tvm->operator_functions[0].workspace_size_bytes, 64u);
  ASSERT_EQ(m.tvm->sids.size(), 1u);
  EXPECT_EQ(m.tvm->sids[0].input_binding, "x");
  EXPECT_EQ(m.tvm->external_dependencies[0].url, "./runtime");
  EXPECT_EQ(md->modules.at("other").tvm->executor, Executor::kGraph);
}

TEST(ParseTvmMetadataTest, OperatorStyleStaysFlatInVersion7) {
  json doc = {{"version", 7},
              {"model_name", "add"},
              {"export_datetime", "x"},
              {"memory", {{"add", {{{"size_bytes", 16}, {"shape", {4}}, {"dtype", "float32"}, {"input_binding", "A"}}}}}},
              {"target", {"c -keys=cpu"}},
              {"executors", json::array()},
              {"style", "operator"}};
  Result<Metadata> md = ParseTvmMetadata(doc.dump());
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  const ModuleMetadata& m = md->modules.at("add");
  EXPECT_EQ(m.style, ModuleStyle::kOperator);
  EXPECT_TRUE(m.executors.empty());
  ASSERT_EQ(m.tvm->operator_buffers.size(), 1u);
  EXPECT_EQ(m.tvm->operator_buffers[0].function, "add");
  EXPECT_EQ(m.tvm->operator_buffers[0].binding, "A");
  EXPECT_EQ(m.tvm->operator_buffers[0].shape, std::vector<int64_t>{4});
  EXPECT_TRUE(m.tvm->operator_buffers[0].dtype == DType::kFloat32);
  EXPECT_TRUE(m.tvm->notes.empty());

  doc["memory"]["add"][0]["dtype"] = "custom[posit]32";
  Result<Metadata> posit = ParseTvmMetadata(doc.dump());
  ASSERT_TRUE(posit.ok()) << posit.status().ToString();
  const TvmModuleInfo& tvm = *posit->modules.at("add").tvm;
  EXPECT_FALSE(tvm.operator_buffers[0].dtype.known().has_value());
  EXPECT_EQ(ToString(tvm.operator_buffers[0].dtype), "custom[posit]32");
  EXPECT_EQ(tvm.notes, std::vector<std::string>{
                           "buffer 'A' of 'add': dtype 'custom[posit]32' is unknown to mlfkit"});
}

void ExpectSchemaError(const json& doc, int version, const std::string& detail) {
  Result<Metadata> md = ParseTvmMetadata(doc.dump());
  ASSERT_FALSE(md.ok()) << doc.dump();
  EXPECT_EQ(md.status().code(), StatusCode::kInvalidArgument);
  const std::string prefix =
      "metadata.json does not match the TVM version " + std::to_string(version) + " schema: ";
  EXPECT_EQ(md.status().message().substr(0, prefix.size()), prefix) << md.status().message();
  EXPECT_NE(md.status().message().find(detail), std::string::npos) << md.status().message();
}

TEST(ParseTvmMetadataTest, EachVersionIsCheckedAgainstItsOwnSchema) {
  json v6_with_dict = V6();
  v6_with_dict["target"] = {{"1", "c"}};
  ExpectSchemaError(v6_with_dict, 6, "/target");
  json v5_with_list = V5();
  v5_with_list["target"] = {"c"};
  ExpectSchemaError(v5_with_list, 5, "/target");
  json v5_runtimes = V5();
  v5_runtimes["runtimes"] = {"aot"};
  ExpectSchemaError(v5_runtimes, 5, "(root)");
  json v6_nested = V6();
  v6_nested["modules"] = json::object();
  ExpectSchemaError(v6_nested, 6, "(root)");
  json v7_no_main = V7();
  v7_no_main["modules"]["default"]["memory"]["functions"].erase("main");
  ExpectSchemaError(v7_no_main, 7, "/modules/default/memory/functions");
  json v7_flat_full = V6();
  v7_flat_full["version"] = 7;  // a flat full model is not version 7
  ExpectSchemaError(v7_flat_full, 7, "/style");
  json bad_executor = V7();
  bad_executor["modules"]["default"]["executors"] = {""};  // unknown ones are kept, empty is not
  ExpectSchemaError(bad_executor, 7, "/modules/default/executors/0");
}

// Executors and interface APIs TVM may add are kept as unknown with the text
// as written and a note, instead of failing the read (issue 17, point 7).
TEST(ParseTvmMetadataTest, UnknownExecutorAndInterfaceApiAreKept) {
  json v7 = V7(FullModel({"c -keys=cpu -interface-api=wasm"}));
  v7["modules"]["default"]["executors"] = {"vm"};
  Result<Metadata> md = ParseTvmMetadata(v7.dump());
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  const ModuleMetadata& m = md->modules.at("default");
  ASSERT_EQ(m.executors.size(), 1u);
  EXPECT_EQ(m.executors[0], Executor::kUnknown);
  EXPECT_EQ(m.executors[0].text, "vm");
  ASSERT_TRUE(m.tvm->executor.has_value());
  EXPECT_EQ(ToString(*m.tvm->executor), "vm");
  EXPECT_EQ(m.interface_api, InterfaceApi::kUnknown);
  EXPECT_EQ(ToString(m.interface_api), "wasm");
  EXPECT_EQ(m.tvm->notes,
            (std::vector<std::string>{
                "executor 'vm' is unknown to mlfkit (it knows aot and graph)",
                "interface API 'wasm' (target option -interface-api) is unknown to mlfkit (it "
                "knows c and packed)"}));

  // A later target asking for the C interface wins, as in the archive reader.
  json both = V7(FullModel(json::array({"c -keys=cpu -interface-api=wasm", "c -interface-api=c"})));
  Result<Metadata> c = ParseTvmMetadata(both.dump());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->modules.at("default").interface_api, InterfaceApi::kC);
  // An explicit packed interface is known.
  Result<Metadata> packed = ParseTvmMetadata(V7(FullModel({"c -interface-api=packed"})).dump());
  ASSERT_TRUE(packed.ok()) << packed.status().ToString();
  EXPECT_EQ(packed->modules.at("default").interface_api, InterfaceApi::kPacked);
  EXPECT_TRUE(packed->modules.at("default").tvm->notes.empty());
}

TEST(ParseTvmMetadataTest, OtherRefusals) {
  json v4 = V5();
  v4["version"] = 4;
  EXPECT_EQ(ParseMetadata(v4.dump()).status().message(),
            "metadata version 4 is not supported (supported: 5, 6, 7, 8, 9)");
  // The mlfkit parser knows TVM's versions but does not read them alone.
  Result<Metadata> alone = ParseMetadata(V7().dump());
  EXPECT_EQ(alone.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(alone.status().message(),
            "metadata.json is TVM's (version 7): it is read together with its archive, not alone");
  Result<Metadata> packing = ParseMetadataForPacking(V7().dump());
  EXPECT_EQ(packing.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(packing.status().message(),
            "metadata.json is TVM's (version 7): packing writes mlfkit's own versions only");
  json int4 = V7();
  int4["modules"]["default"]["memory"]["functions"]["main"][0]["inputs"] = {{"x", {{"size", 2}, {"dtype", "int4"}}}};
  // A dtype mlfkit does not know is kept as written (issue 17, point 7):
  // completion notes it, the loaders refuse the tensor (tvm_cli_test).
  Result<Metadata> int4_read = ParseTvmMetadata(int4.dump());
  ASSERT_TRUE(int4_read.ok()) << int4_read.status().ToString();
  const DTypeValue& x = int4_read->modules.at("default").inputs.at(0).dtype;
  EXPECT_FALSE(x.known().has_value());
  EXPECT_EQ(ToString(x), "int4");
  json clash = V7();
  clash["modules"]["a-b"] = clash["modules"]["default"];
  clash["modules"]["a_b"] = clash["modules"]["default"];
  EXPECT_EQ(ParseTvmMetadata(clash.dump()).status().message(),
            "metadata.json: modules 'a-b' and 'a_b' both map to the C name 'a_b'");
  json cased = V7();
  cased["modules"]["A"] = cased["modules"]["default"];
  cased["modules"]["a"] = cased["modules"]["default"];
  EXPECT_EQ(ParseTvmMetadata(cased.dump()).status().message(),
            "metadata.json: modules 'A' and 'a' both give the header guard TVMGEN_A_H_ (their C "
            "names differ only in case, so on a case-insensitive file system their files would "
            "collide too)");
}

// Module names become identifiers and text in generated files: control
// characters are refused (before the schema, with the name escaped);
// printable names of any kind are kept as they are.
TEST(ParseTvmMetadataTest, ModuleNamesWithControlCharactersAreRefused) {
  json v5 = V5();
  v5["model_name"] = "add\n$(shell echo X > PWNED)\n#";
  EXPECT_EQ(ParseTvmMetadata(v5.dump()).status().ToString(),
            "invalid_argument: metadata.json: model_name 'add\\x0a$(shell echo X > PWNED)\\x0a#' "
            "contains a control character (U+000A); names must be printable");
  json v6 = V6();
  v6["model_name"] = "m\xc2\x85";  // U+0085 NEXT LINE, a C1 control
  EXPECT_EQ(ParseTvmMetadata(v6.dump()).status().message(),
            "metadata.json: model_name 'm\\u{0085}' contains a control character (U+0085); "
            "names must be printable");
  json key = V7();
  key["modules"]["a\x1b[2K"] = key["modules"]["default"];
  EXPECT_EQ(ParseTvmMetadata(key.dump()).status().message(),
            "metadata.json: module name 'a\\x1b[2K' contains a control character (U+001B); "
            "names must be printable");
  json inner = V7();
  inner["modules"]["default"]["model_name"] = std::string("de\x7f");
  EXPECT_EQ(ParseTvmMetadata(inner.dump()).status().message(),
            "metadata.json: module 'default': model_name 'de\\x7f' contains a control character "
            "(U+007F); names must be printable");
  json printable = V5();
  printable["model_name"] = "add $(shell touch PWNED) ; `touch PWNED` */ #[[ \\";
  Result<Metadata> md = ParseTvmMetadata(printable.dump());
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->modules.begin()->first, "add $(shell touch PWNED) ; `touch PWNED` */ #[[ \\");
}

// ------------------------------------------------------------------ Relay --

TEST(RelaySignatureTest, ReadsRawQuotedAndPrefixedNames) {
  const char text[] =
      "#[version = \"0.0.5\"]\n"
      "def @main(%serving_default_input_1:0: Tensor[(1, 28, 28, 1), int8] /* ty=Tensor[(1, 28, 28, 1), int8] */,\n"
      "          %\"a/b:0\": Tensor[(10), float32], %v_param_1: Tensor[(3, 4), float32],\n"
      "          %s: float32, %dyn: Tensor[(?, 4), float32], %untyped,\n"
      "          output_tensor_names=[\"Identity\", \"Identity_1\"]) -> (Tensor[(1, 10), float32], (Tensor[(), int32], bool)) {\n"
      "  %0 = nn.conv2d(%x) /* def @main(%fake: Tensor[(9), int8]) */;\n"
      "}\n";
  Result<RelaySignature> sig = ParseRelayMainSignature(text);
  ASSERT_TRUE(sig.ok()) << sig.status().ToString();
  ASSERT_EQ(sig->params.size(), 6u);
  EXPECT_EQ(sig->params[0].name, "serving_default_input_1:0");
  EXPECT_EQ(sig->params[0].dtype, "int8");
  EXPECT_EQ(sig->params[0].shape, (std::vector<int64_t>{1, 28, 28, 1}));
  EXPECT_TRUE(sig->params[0].shape_known);
  EXPECT_EQ(sig->params[1].name, "a/b:0");
  EXPECT_EQ(sig->params[1].shape, std::vector<int64_t>{10});
  EXPECT_EQ(sig->params[2].name, "v_param_1");
  EXPECT_EQ(sig->params[3].name, "s");
  EXPECT_TRUE(sig->params[3].shape.empty());
  EXPECT_TRUE(sig->params[3].shape_known);
  EXPECT_EQ(sig->params[4].name, "dyn");
  EXPECT_FALSE(sig->params[4].shape_known);
  EXPECT_EQ(sig->params[5].name, "untyped");
  EXPECT_FALSE(sig->params[5].shape_known);
  ASSERT_EQ(sig->results.size(), 3u);
  EXPECT_EQ(sig->results[0].shape, (std::vector<int64_t>{1, 10}));
  EXPECT_EQ(sig->results[1].dtype, "int32");
  EXPECT_EQ(sig->results[2].dtype, "bool");
  EXPECT_EQ(sig->output_names, (std::vector<std::string>{"Identity", "Identity_1"}));
  EXPECT_EQ(TvmOutputNames(3, {}), (std::vector<std::string>{"output0", "output1", "output2"}));
  EXPECT_EQ(TvmOutputNames(1, {}), std::vector<std::string>{"output"});
  EXPECT_EQ(TvmOutputNames(2, {"a", "b"}), (std::vector<std::string>{"a", "b"}));
}

TEST(RelaySignatureTest, ErrorsNameTheLine) {
  EXPECT_EQ(ParseRelayMainSignature("def @other(%x: Tensor[(1), int8]) {}").status().message(),
            "Relay text has no 'def @main(' function");
  EXPECT_EQ(ParseRelayMainSignature("#[version]\ndef @main(%x: Tensor[(1, 2) float32]) {}")
                .status()
                .message(),
            "Relay text, line 2: expected ', dtype' after the shape");
  EXPECT_EQ(ParseRelayMainSignature("def @main(%x: Tensor[(1), int8]").status().message(),
            "Relay text, line 1: @main's parameter list is not closed");
  EXPECT_EQ(ParseRelayMainSignature("def @main(%x: Tensor[(1), int8] /* open").status().message(),
            "Relay text, line 1: unterminated /* comment");
  std::string deep = "def @main() -> " + std::string(40, '(') + "Tensor[(1), int8]" + std::string(40, ')') + " {}";
  EXPECT_EQ(ParseRelayMainSignature(deep).status().message(),
            "Relay text, line 1: tuple types nested too deeply");
}

// ------------------------------------------------------------------ graph --

TEST(GraphSignatureTest, ReadsArgsAndHeads) {
  json graph = {{"nodes", {{{"op", "null"}, {"name", "x"}, {"inputs", json::array()}},
                           {{"op", "null"}, {"name", "w"}, {"inputs", json::array()}},
                           {{"op", "tvm_op"}, {"name", "f"}, {"inputs", {{0, 0, 0}, {1, 0, 0}}}}}},
                {"arg_nodes", {0, 1}},
                {"heads", {{2, 0, 0}}},
                {"attrs", {{"dltype", {"list_str", {"float32", "int8", "float32"}}},
                           {"shape", {"list_shape", {{1, 4}, {4}, {1, 3}}}}}},
                {"node_row_ptr", {0, 1, 2, 3}}};
  Result<GraphSignature> sig = ParseGraphExecutorJson(graph.dump());
  ASSERT_TRUE(sig.ok()) << sig.status().ToString();
  ASSERT_EQ(sig->args.size(), 2u);
  EXPECT_EQ(sig->args[1].name, "w");
  EXPECT_EQ(sig->args[1].dtype, "int8");
  ASSERT_EQ(sig->outputs.size(), 1u);
  EXPECT_EQ(sig->outputs[0].shape, (std::vector<int64_t>{1, 3}));
  graph["heads"] = {{7, 0, 0}};
  EXPECT_EQ(ParseGraphExecutorJson(graph.dump()).status().message(),
            "graph executor JSON: a heads entry names node 7");
  EXPECT_EQ(ParseGraphExecutorJson("{\"nodes\": []}").status().message(),
            "graph executor JSON: attrs.dltype is missing");
  EXPECT_EQ(ParseGraphExecutorJson("[").status().code(), StatusCode::kInvalidArgument);
}

// ------------------------------------------------------------------- code --

TEST(TvmCodeScanTest, IncludesDefinitionsAndArchitecture) {
  const char code[] =
      "// #include \"commented.h\"\n"
      "#include \"tvm/runtime/c_runtime_api.h\"\n"
      "  #  include <tvmgen_default.h>\n"
      "/* #include <nope.h> */\n"
      "TVM_DLL int32_t tvmgen_default___tvm_main__(void* a,void* b);\n"
      "int32_t tvmgen_default_run(struct tvmgen_default_inputs* i,\n"
      "                           struct tvmgen_default_outputs* o) {return tvmgen_default___tvm_main__(i, o);}\n"
      "static const char* s = \"__SMLAD(1, 2, 3)\";\n";
  TvmCodeScan scan = ScanTvmCode(code);
  ASSERT_EQ(scan.includes.size(), 2u);
  EXPECT_EQ(scan.includes[0].path, "tvm/runtime/c_runtime_api.h");
  EXPECT_FALSE(scan.includes[0].angled);
  EXPECT_EQ(scan.includes[1].path, "tvmgen_default.h");
  EXPECT_TRUE(scan.includes[1].angled);
  EXPECT_EQ(scan.defined_functions, std::set<std::string>{"tvmgen_default_run"});
  EXPECT_EQ(scan.arch, CodeArch::kAny);  // the intrinsic is only in a string

  // extern "C" blocks are file scope; bodies and parameter lists are not.
  TvmCodeScan wrapped = ScanTvmCode(
      "#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
      "int32_t tvmgen_m_run(struct tvmgen_m_inputs* i) { return tvmgen_m_inner(i); }\n"
      "static int x[2] = {1, 2};\n"
      "TVM_DLL int32_t tvmgen_m_f(float* p, int (*cb)(int)) {\n  if (tvmgen_m_g(p)) { return 1; }\n}\n"
      "int32_t tvmgen_m_decl(void);\n"
      "#ifdef __cplusplus\n}\n#endif\n");
  EXPECT_EQ(wrapped.defined_functions, (std::set<std::string>{"tvmgen_m_f", "tvmgen_m_run"}));

  TvmCodeScan arm = ScanTvmCode("#include <arm_acle.h>\nint f(int a) { return __SMLAD(a, a, 0); }\n");
  EXPECT_EQ(arm.arch, CodeArch::kArmCortexM);
  EXPECT_EQ(arm.arch_evidence, "includes <arm_acle.h>");
  TvmCodeScan intrinsic = ScanTvmCode("int f(int a) { return __SMLAD (a, a, 0); }\n");
  EXPECT_EQ(intrinsic.arch_evidence, "uses __SMLAD");
  EXPECT_FALSE(CodeArchRunsOnThisHost(CodeArch::kArmCortexM));
  EXPECT_TRUE(CodeArchRunsOnThisHost(CodeArch::kAny));
}

TEST(TvmInterfaceHeaderTest, StructsMacrosAndRunParameters) {
  const char header[] =
      "#define TVMGEN_M_IN_SIZE 16\n"
      "#define TVMGEN_M_WORKSPACE_SIZE 146448\n"
      "#define TVMGEN_M_NOT_A_NUMBER (1 + 2)\n"
      "struct tvmgen_m_inputs {\n  void* b_in;\n  void* a_in;\n};\n"
      "struct tvmgen_m_outputs { void* output; };\n"
      "struct tvmgen_m_workspace_pools { void* my_pool; };\n"
      "int32_t tvmgen_m_run(\n  struct tvmgen_m_inputs* inputs,\n  struct tvmgen_m_outputs* outputs,\n"
      "  struct tvmgen_m_workspace_pools* workspace_pools\n);\n";
  TvmInterfaceHeader h = ParseTvmInterfaceHeader(header, "m");
  EXPECT_EQ(h.inputs, (std::vector<std::string>{"b_in", "a_in"}));
  EXPECT_EQ(h.outputs, std::vector<std::string>{"output"});
  EXPECT_TRUE(h.declares_run);
  EXPECT_EQ(h.run_parameters, (std::vector<std::string>{"inputs", "outputs", "workspace_pools"}));
  EXPECT_EQ(h.numeric_macros.at("TVMGEN_M_IN_SIZE"), 16u);
  EXPECT_EQ(h.numeric_macros.at("TVMGEN_M_WORKSPACE_SIZE"), 146448u);
  EXPECT_EQ(h.numeric_macros.count("TVMGEN_M_NOT_A_NUMBER"), 0u);
}

TEST(TvmParamsIndexTest, OffsetsPointAtEachTensorsData) {
  std::vector<NamedTensor> tensors = {{"w", DType::kFloat32, {2, 2}, std::string(16, '\x11')},
                                      {"bias_long_name", DType::kInt8, {3}, "abc"},
                                      {"s", DType::kInt32, {}, std::string(4, '\x22')}};
  const std::string bytes = WriteTvmParams(tensors);
  std::vector<ParamTensorInfo> index = TvmParamsIndex(tensors);
  ASSERT_EQ(index.size(), 3u);
  for (size_t i = 0; i < index.size(); ++i) {
    EXPECT_EQ(bytes.substr(index[i].offset, index[i].size_bytes), tensors[i].data) << i;
    EXPECT_TRUE(index[i].dtype == tensors[i].dtype) << i;
  }
  EXPECT_EQ(index[2].offset + index[2].size_bytes, bytes.size());
}

// ------------------------------------------------------------- completion --

TvmArchiveContents Contents(const std::map<std::string, std::string>& files) {
  TvmArchiveContents c;
  for (const auto& [path, data] : files) {
    c.files[path] = FileEntry{data.size(), std::string(64, '0')};
    if (IsTvmTextMember(path)) c.texts[path] = data;
    if (IsTvmCodeMember(path)) c.code[path] = ScanTvmCode(data);
    if (path.rfind("parameters/", 0) == 0) {
      Result<std::vector<NamedTensor>> t = ReadTvmParams(data);
      c.params[path] = TvmParamsContents{t.ok() ? Status::Ok() : t.status(),
                                         t.ok() ? TvmParamsIndex(*t) : std::vector<ParamTensorInfo>{}};
    }
  }
  return c;
}

const char kHeader[] =
    "#define TVMGEN_DEFAULT_B_IN_SIZE 4\n"
    "struct tvmgen_default_inputs { void* b_in; void* a_in; };\n"
    "struct tvmgen_default_outputs { void* output; };\n"
    "int32_t tvmgen_default_run(struct tvmgen_default_inputs* inputs, struct tvmgen_default_outputs* outputs);\n";

std::map<std::string, std::string> Files() {
  return {{"codegen/host/include/tvmgen_default.h", kHeader},
          {"codegen/host/src/default_lib0.c", "#include <tvmgen_default.h>\nint32_t tvmgen_default_run(struct tvmgen_default_inputs* i, struct tvmgen_default_outputs* o) { return tvmgen_default___tvm_main__(i, o); }\n"},
          {"codegen/host/src/default_lib1.c", "#include \"tvm/runtime/c_backend_api.h\"\nint32_t tvmgen_default___tvm_main__(void* a, void* b, void* o) { return 0; }\n"},
          {"src/default.relay", "def @main(%a_in: Tensor[(2, 2), int8], %b_in: Tensor[(4), int8], %w: Tensor[(4), int8]) -> Tensor[(1, 4), float32] {}\n"},
          {"parameters/default.params", WriteTvmParams({{"w", DType::kInt8, {4}, "wwww"}})},
          {"README.txt", "appended by hand\n"}};
}

TEST(CompleteTvmMetadataTest, OrderFromHeaderShapesFromRelayParamsExcluded) {
  Result<Metadata> md = ParseTvmMetadata(V7().dump());
  ASSERT_TRUE(md.ok());
  TvmCompletion c = CompleteTvmMetadata(&*md, Contents(Files()));
  for (const Status& p : c.problems) ADD_FAILURE() << p.message();
  EXPECT_EQ(c.unreferenced, std::vector<std::string>{"README.txt"});
  const ModuleMetadata& m = md->modules.at("default");
  EXPECT_EQ(m.interface_api, InterfaceApi::kC);
  EXPECT_EQ(m.tvm->run_function, "tvmgen_default_run");
  EXPECT_EQ(m.tvm->main_function, "tvmgen_default___tvm_main__");
  EXPECT_EQ(m.tvm->shapes_from, ShapesFrom::kRelay);
  ASSERT_EQ(m.inputs.size(), 2u);  // "w" is in the .params
  EXPECT_EQ(m.inputs[0].name, "b_in");  // the header's calling order, not Relay's
  EXPECT_EQ(m.inputs[0].shape, std::vector<int64_t>{4});
  EXPECT_EQ(m.inputs[1].name, "a_in");
  EXPECT_EQ(m.inputs[1].shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(m.inputs[1].size_bytes, 4u);
  ASSERT_EQ(m.outputs.size(), 1u);
  EXPECT_EQ(m.outputs[0].name, "output");
  EXPECT_EQ(m.outputs[0].size_bytes, 16u);
  ASSERT_TRUE(m.parameters.has_value());
  EXPECT_EQ(m.parameters->storage, ParamStorage::kTvmParams);
  ASSERT_EQ(m.parameters->tensors.size(), 1u);
  EXPECT_EQ(m.parameters->tensors[0].name, "w");
  EXPECT_EQ(m.sources, (std::vector<std::string>{"codegen/host/src/default_lib0.c",
                                                 "codegen/host/src/default_lib1.c"}));
  ASSERT_TRUE(m.source.has_value());
  EXPECT_EQ(m.source->path, "src/default.relay");
  EXPECT_EQ(md->files.size(), Files().size());
}

TEST(CompleteTvmMetadataTest, ProblemsNameModuleAndMember) {
  std::map<std::string, std::string> files = Files();
  files.erase("codegen/host/include/tvmgen_default.h");
  files["codegen/host/src/default_lib1.c"] += "#include \"helpers.h\"\n#include <arm_math.h>\n";
  files["parameters/default.params"] = "not params";
  Result<Metadata> md = ParseTvmMetadata(V7().dump());
  ASSERT_TRUE(md.ok());
  TvmCompletion c = CompleteTvmMetadata(&*md, Contents(files));
  std::vector<std::string> messages;
  for (const Status& p : c.problems) messages.push_back(p.message());
  EXPECT_EQ(messages,
            (std::vector<std::string>{
                "module 'default': parameters/default.params: .params: bad file magic "
                "0x6172617020746F6E at offset 0 (expected 0xF7E58D4F05049CB7); not a TVM .params "
                "file",
                "module 'default': codegen/host/src/default_lib0.c includes <tvmgen_default.h>, "
                "which is not in the archive",
                "module 'default': codegen/host/src/default_lib1.c includes \"helpers.h\", which "
                "is not in the archive"}))
      << ::testing::PrintToString(messages);
  const ModuleMetadata& m = md->modules.at("default");
  EXPECT_EQ(m.tvm->external_headers, std::vector<std::string>{"arm_math.h"});
  EXPECT_EQ(m.tvm->foreign_evidence, "codegen/host/src/default_lib1.c includes <arm_math.h>");
}

// Every header tvm/compat provides counts as provided (one list: what
// tvm/compat embeds); only the others are external.
TEST(CompleteTvmMetadataTest, CompatHeadersAreTheOnesTvmCompatEmbeds) {
  std::map<std::string, std::string> files = Files();
  const std::vector<std::string> compat = tvm_compat::HeaderPaths();
  std::string includes;
  for (const std::string& h : compat) includes += "#include <" + h + ">\n";
  files["codegen/host/src/default_lib1.c"] += includes + "#include <tvm/runtime/crt/graph_executor.h>\n";
  Result<Metadata> md = ParseTvmMetadata(V7().dump());
  ASSERT_TRUE(md.ok());
  TvmCompletion c = CompleteTvmMetadata(&*md, Contents(files));
  EXPECT_TRUE(c.problems.empty()) << c.problems.front().ToString();
  EXPECT_EQ(md->modules.at("default").tvm->external_headers,
            std::vector<std::string>{"tvm/runtime/crt/graph_executor.h"});
  // The header the old hand-written list had missed, and those of the
  // graph executor's system-lib registry and C metadata module.
  for (const char* h : {"tvm/runtime/crt/platform.h", "tvm/runtime/crt/module.h",
                        "tvm/runtime/metadata_types.h"}) {
    EXPECT_NE(std::find(compat.begin(), compat.end(), h), compat.end()) << h;
  }
}

TEST(CompleteTvmMetadataTest, SizesThatDisagreeAreProblems) {
  json doc = V7();
  doc["modules"]["default"]["memory"]["functions"]["main"][0]["inputs"] = {
      {"a_in", {{"size", 5}, {"dtype", "int8"}}}, {"b_in", {{"size", 4}, {"dtype", "int8"}}}};
  Result<Metadata> md = ParseTvmMetadata(doc.dump());
  ASSERT_TRUE(md.ok());
  std::map<std::string, std::string> files = Files();
  files["codegen/host/include/tvmgen_default.h"] =
      std::string(kHeader) + "#define TVMGEN_DEFAULT_A_IN_SIZE 3\n";
  TvmCompletion c = CompleteTvmMetadata(&*md, Contents(files));
  std::vector<std::string> messages;
  for (const Status& p : c.problems) messages.push_back(p.message());
  EXPECT_EQ(messages,
            (std::vector<std::string>{
                "module 'default': input 'a_in': metadata.json says 5 bytes but src/default.relay "
                "gives int8 [2, 2] (4 bytes)",
                "module 'default': input 'a_in' is 5 bytes but "
                "codegen/host/include/tvmgen_default.h defines TVMGEN_DEFAULT_A_IN_SIZE 3"}))
      << ::testing::PrintToString(messages);
}

TEST(CompleteTvmMetadataTest, WithoutRelayShapesAreUnknownButSizesKept) {
  std::map<std::string, std::string> files = Files();
  files.erase("src/default.relay");
  Result<Metadata> md = ParseTvmMetadata(V7().dump());
  ASSERT_TRUE(md.ok());
  TvmCompletion c = CompleteTvmMetadata(&*md, Contents(files));
  EXPECT_TRUE(c.problems.empty());
  const ModuleMetadata& m = md->modules.at("default");
  EXPECT_EQ(m.tvm->shapes_from, ShapesFrom::kNone);
  ASSERT_EQ(m.inputs.size(), 2u);  // from the header alone
  EXPECT_EQ(m.inputs[0].name, "b_in");
  EXPECT_FALSE(m.inputs[0].shape_known);
  EXPECT_EQ(m.inputs[0].size_bytes, 4u);  // TVMGEN_DEFAULT_B_IN_SIZE
  EXPECT_FALSE(m.inputs[0].dtype.stated());  // nothing says
  EXPECT_EQ(m.tvm->notes,
            std::vector<std::string>{"shapes are unknown: the archive has no Relay text (src/default.relay)"});
}

}  // namespace
}  // namespace mlf
