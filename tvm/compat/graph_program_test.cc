#include "tvm/compat/graph_program.h"

#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

namespace mlf::tvm_compat {
namespace {

using nlohmann::json;

// x -> f(x) -> g(f) with g's output in f's input storage.
json Chain() {
  return {{"nodes",
           {{{"op", "null"}, {"name", "x"}, {"inputs", json::array()}},
            {{"op", "tvm_op"}, {"name", "f"}, {"attrs", {{"func_name", "f"}, {"num_outputs", "1"}}},
             {"inputs", {{0, 0, 0}}}},
            {{"op", "tvm_op"}, {"name", "g"}, {"attrs", {{"func_name", "g"}, {"num_outputs", "1"}}},
             {"inputs", {{1, 0, 0}}}}}},
          {"arg_nodes", {0}},
          {"heads", {{2, 0, 0}}},
          {"attrs",
           {{"dltype", {"list_str", {"float32", "float32", "int8"}}},
            {"shape", {"list_shape", {{1, 4}, {2}, {3}}}},
            {"storage_id", {"list_int", {0, 1, 0}}}}}};
}

TEST(GraphProgramTest, ReadsCallsStorageArgumentsAndHeads) {
  json graph = Chain();
  Result<GraphProgram> p = ParseGraphProgram(graph.dump());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->entries.size(), 3u);  // no node_row_ptr: one entry per node
  EXPECT_EQ(p->entries[0].bytes, 16u);
  EXPECT_EQ(p->entries[2].dtype, DType::kInt8);
  EXPECT_EQ(p->storage_bytes, (std::map<int, uint64_t>{{0, 16}, {1, 8}}));
  ASSERT_EQ(p->calls.size(), 2u);
  EXPECT_EQ(p->calls[1].function, "g");
  EXPECT_EQ(p->calls[1].args, (std::vector<int>{1, 2}));
  EXPECT_EQ(p->calls[1].num_inputs, 1);
  ASSERT_EQ(p->args.size(), 1u);
  EXPECT_EQ(p->args[0].name, "x");
  EXPECT_EQ(p->heads, std::vector<int>{2});

  graph["node_row_ptr"] = {0, 1, 2, 3};
  EXPECT_TRUE(ParseGraphProgram(graph.dump()).ok());
}

TEST(GraphProgramTest, BadGraphsAreRefusedSayingWhatIsWrong) {
  struct Case {
    std::function<void(json&)> change;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](json& g) { g.erase("nodes"); }, "graph executor JSON: no \"nodes\" list"},
      {[](json& g) { g["nodes"][1]["inputs"] = {{2, 0, 0}}; },
       "graph executor JSON: node 1 reads entry 2 before it is computed"},
      {[](json& g) { g["nodes"][1]["inputs"] = {{7, 0, 0}}; },
       "graph executor JSON: node 1: an input node is not an index below 3"},
      {[](json& g) { g["nodes"][2]["op"] = "relu"; },
       "graph executor JSON: node 2 has op 'relu', not tvm_op"},
      {[](json& g) { g["nodes"][2]["attrs"].erase("func_name"); },
       "graph executor JSON: node 2 (tvm_op) has no attrs.func_name"},
      {[](json& g) { g["attrs"]["shape"][1].erase(2); },
       "graph executor JSON: attrs.shape is not [\"list_...\", [one value per entry (3)]]"},
      {[](json& g) { g["attrs"]["storage_id"][1][0] = -1; },
       "graph executor JSON: entry 0: storage_id is not a non-negative integer"},
      {[](json& g) { g["attrs"]["dltype"][1][0] = "complex64"; },
       "graph executor JSON: entry 0: unknown dtype 'complex64' (expected one of: bool, int8, "
       "int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, "
       "float64)"},
      {[](json& g) { g["node_row_ptr"] = {0, 1, 2}; },
       "graph executor JSON: node_row_ptr does not have one more element than nodes"},
      {[](json& g) { g["heads"] = {{2, 1, 0}}; },
       "graph executor JSON: a heads entry index is not an index below 1"},
  };
  for (const Case& c : cases) {
    json graph = Chain();
    c.change(graph);
    Result<GraphProgram> p = ParseGraphProgram(graph.dump());
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument) << c.message;
    EXPECT_EQ(p.status().message(), c.message);
  }
  EXPECT_EQ(ParseGraphProgram("{").status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace mlf::tvm_compat
