// The resource bounds of docs/resource-bounds.md, hit through the `mlf`
// command line: each input is refused with exit 1 and exactly
// "mlf: error: <message>", before the work (or the memory) the bound protects
// against is spent. The bounds' unit tests, with small limits, live beside
// the code (archive_reader_test, json_limits_test, read_metadata_test,
// onnx_frontend_test, yaml_frontend_test, npy_test); archive bounds through
// `mlf verify` and `mlf unpack` are in malicious_archive_test, `mlf run`'s
// .npy bounds in cli_run_test. These cover the defaults the CLI uses.
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "artifact/archive/archive_reader.h"
#include "tests/run_command.h"
#include "tests/tar_builder.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

class ResourceBoundsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(std::string("bounds/") +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }

  CommandResult Mlf(const std::vector<std::string>& args) {
    argv_ = {MlfBinary()};
    argv_.insert(argv_.end(), args.begin(), args.end());
    RunOptions options;
    options.env = {{"MLF_CACHE_DIR", dir_ + "/cache"}};
    options.cwd = dir_;
    return RunCommand(argv_, options);
  }

  // Expects exit 1, nothing on stdout, exactly "mlf: error: <message>\n" on
  // stderr, and no output file.
  void ExpectRefused(const std::vector<std::string>& args, const std::string& message) {
    CommandResult r = Mlf(args);
    EXPECT_EQ(r.exit_code, 1) << Describe(argv_, r);
    EXPECT_EQ(r.out, "") << Describe(argv_, r);
    EXPECT_EQ(r.err, "mlf: error: " + message + "\n") << Describe(argv_, r);
    EXPECT_FALSE(Exists(dir_ + "/out.tar"));
  }

  void ExpectExportRefused(const std::string& model, const std::string& message) {
    ExpectRefused({"export", model, "-o", dir_ + "/out.tar"}, message);
  }

  // A file of `size` bytes that takes no space (a hole).
  std::string SparseFile(const std::string& name, uint64_t size) {
    const std::string path = dir_ + "/" + name;
    WriteFile(path, "");
    EXPECT_EQ(truncate(path.c_str(), static_cast<off_t>(size)), 0);
    return path;
  }

  std::string dir_;
  std::vector<std::string> argv_;
};

// ------------------------------------------------------------------ ONNX

std::string OnnxModel(const std::vector<int64_t>& input_shape, int identity_nodes = 1) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("g");
  auto* in = g->add_input();
  in->set_name("x");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : input_shape) {
    in->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
  }
  std::string prev = "x";
  for (int i = 0; i < identity_nodes; ++i) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type("Identity");
    n->add_input(prev);
    prev = "t" + std::to_string(i);
    n->add_output(prev);
  }
  auto* out = g->add_output();
  out->set_name(prev);
  *out->mutable_type() = in->type();
  return m.SerializeAsString();
}

TEST_F(ResourceBoundsTest, OnnxModelSize) {
  // 2 GiB + 1 byte: refused from its size, never read.
  const std::string path = SparseFile("huge.onnx", (uint64_t{2} << 30) + 1);
  ExpectExportRefused(path, "'" + path +
                                "': the ONNX model is 2147483649 bytes, more than the limit of "
                                "2147483648 bytes");
}

TEST_F(ResourceBoundsTest, OnnxNodeCount) {
  const std::string path = dir_ + "/many.onnx";
  WriteFile(path, OnnxModel({2}, 100001));
  ExpectExportRefused(path, path + ": the ONNX graph has 100001 nodes, more than the limit of 100000");
}

TEST_F(ResourceBoundsTest, OnnxTensorRankAndElements) {
  const std::string rank = dir_ + "/rank.onnx";
  WriteFile(rank, OnnxModel({1, 1, 1, 1, 1, 1, 1, 1, 1}));
  ExpectExportRefused(rank, rank + ": input 'x': rank 9 is more than the limit of 8");
  const std::string elements = dir_ + "/elements.onnx";
  WriteFile(elements, OnnxModel({16384, 16385}));
  ExpectExportRefused(elements, elements + ": input 'x': shape [16384, 16385] has more elements "
                                           "than the limit of 268435456");
}

// ------------------------------------------------------------------ YAML

std::string YamlModel(const std::string& shape, const std::string& extra = "") {
  return "mlf_model: 1\nname: m\ninputs:\n  - {name: x, dtype: float32, shape: " + shape +
         "}\n" + extra + "nodes:\n  - {name: r, op: Relu, inputs: [x], outputs: [y]}\n"
         "outputs: [y]\n";
}

TEST_F(ResourceBoundsTest, YamlFileSize) {
  const std::string path = SparseFile("huge.yaml", (uint64_t{16} << 20) + 1);
  ExpectExportRefused(path, "'" + path + "' is larger than the limit of 16777216 bytes for a YAML "
                                         "model");
}

TEST_F(ResourceBoundsTest, YamlNestingDepth) {
  const std::string path = dir_ + "/deep.yaml";
  WriteFile(path, YamlModel("[2]", "description: " + std::string(40, '[') + std::string(40, ']') +
                                       "\n"));
  ExpectExportRefused(path, path + ":5: YAML nesting is deeper than the limit of 32 levels");
}

TEST_F(ResourceBoundsTest, YamlValueCountWithAliases) {
  // Ten levels of ten aliases each: 10^10 values once expanded.
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    const std::string p = "*a" + std::to_string(i - 1);
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + p;
    for (int k = 1; k < 10; ++k) bomb += ", " + p;
    bomb += "]\n";
  }
  const std::string path = dir_ + "/laughs.yaml";
  WriteFile(path, bomb + YamlModel("[2]"));
  ExpectExportRefused(path, path + ":7: the YAML document has more than 4000000 values (aliases "
                                  "counted expanded)");
}

TEST_F(ResourceBoundsTest, YamlNodeCount) {
  std::string nodes = "nodes:\n";
  std::string prev = "x";
  for (int i = 0; i <= 100000; ++i) {
    const std::string next = "t" + std::to_string(i);
    nodes += "  - {op: Relu, inputs: [" + prev + "], outputs: [" + next + "]}\n";
    prev = next;
  }
  const std::string path = dir_ + "/many.yaml";
  WriteFile(path, "mlf_model: 1\nname: m\ninputs:\n  - {name: x, dtype: float32, shape: [2]}\n" +
                      nodes + "outputs: [" + prev + "]\n");
  ExpectExportRefused(path, path + ": the model has 100001 nodes, more than the limit of 100000");
}

TEST_F(ResourceBoundsTest, YamlTensorRankAndElements) {
  const std::string rank = dir_ + "/rank.yaml";
  WriteFile(rank, YamlModel("[1, 1, 1, 1, 1, 1, 1, 1, 1]"));
  ExpectExportRefused(rank, rank + ":4: input 'x': rank 9 is more than the limit of 8");
  const std::string elements = dir_ + "/elements.yaml";
  WriteFile(elements, YamlModel("[16384, 16385]"));
  ExpectExportRefused(elements, elements + ":4: input 'x': shape [16384, 16385] has 268451840 "
                                           "elements, more than the limit of 268435456");
}

// ------------------------------------------------------------------ archives

// The members of the example, packed by `mlf pack` without compression.
class ArchiveBoundsTest : public ResourceBoundsTest {
 protected:
  std::vector<TarEntry> ExampleMembers() {
    CopyExample(dir_ + "/model");
    const std::string packed = dir_ + "/example.tar";
    CommandResult r = Mlf({"pack", dir_ + "/model", "-o", packed, "--compress", "none"});
    EXPECT_EQ(r.exit_code, 0) << Describe(argv_, r);
    std::vector<TarEntry> members;
    auto reader = ArchiveReader::Open(packed);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return members;
    while (true) {
      auto entry = (*reader)->Next();
      EXPECT_TRUE(entry.ok()) << entry.status().ToString();
      if (!entry.ok() || !*entry) break;
      auto data = (*reader)->ReadAll(1 << 20);
      EXPECT_TRUE(data.ok()) << data.status().ToString();
      if (!data.ok()) break;
      members.push_back(TarFile((*entry)->name, *data));
    }
    return members;
  }

  std::string Write(const std::string& name, const std::string& bytes) {
    WriteFile(dir_ + "/" + name, bytes);
    return dir_ + "/" + name;
  }
};

TEST_F(ArchiveBoundsTest, MetadataSizeAndNesting) {
  TarEntry oversize = TarFile("metadata.json", "");
  oversize.header_size = uint64_t{1} << 30;  // claimed, not written
  const std::string big = Write("big_metadata.tar", BuildTar({oversize}));
  const std::string deep = Write(
      "deep_metadata.tar",
      BuildTar({TarFile("metadata.json", "{\"version\": 8, \"x\": " + std::string(100000, '[') +
                                             std::string(100000, ']') + "}")}));
  for (const char* command : {"inspect", "verify", "run"}) {
    SCOPED_TRACE(command);
    ExpectRefused({command, big},
                  big + ": metadata.json is 1073741824 bytes, more than the limit of 16777216");
    ExpectRefused({command, deep},
                  deep + ": metadata.json: JSON nesting is deeper than the limit of 64 levels");
  }
}

TEST_F(ArchiveBoundsTest, MemberCountAndSize) {
  std::vector<TarEntry> members = ExampleMembers();
  ASSERT_FALSE(members.empty());
  std::string many;
  for (const TarEntry& e : members) many += TarEntryBytes(e);
  char name[32];
  for (int i = 0; i < 100001; ++i) {
    std::snprintf(name, sizeof name, "d/%06d/", i);
    TarEntry dir = TarFile(name, "");
    dir.type = '5';
    many += TarHeader(dir);
  }
  many.append(1024, '\0');
  const std::string count = Write("many.tar.zst", ZstdCompress(many, 3));

  TarEntry big = TarFile("data/big.bin", "");
  big.pax = {{"size", std::to_string(uint64_t{100} << 30)}};
  big.header_size = 0;
  members.push_back(big);
  const std::string size = Write("big_member.tar", BuildTar(members));
  for (const char* command : {"verify", "run"}) {
    SCOPED_TRACE(command);
    ExpectRefused({command, count}, count + ": archive has more than 100000 members");
    ExpectRefused({command, size},
                  size + ": member 'data/big.bin': size 107374182400 bytes (100.0 GiB) exceeds "
                         "the limit of 68719476736 bytes (64.0 GiB)");
  }
}

// 4 GiB of zeros listed in metadata.json, compressed by zstd: the reader stops
// once the decompressed data passes 256 MiB at a ratio over 1000:1, long
// before the digest could be checked. Only the first 300 MiB are written (the
// reader never gets further), which keeps the test fast.
TEST_F(ArchiveBoundsTest, DecompressionRatio) {
  std::vector<TarEntry> members = ExampleMembers();
  ASSERT_FALSE(members.empty());
  nlohmann::json metadata = nlohmann::json::parse(members[0].data);
  metadata["files"]["data/zeros.bin"] = {{"size", uint64_t{4} << 30},
                                         {"sha256", std::string(64, 'a')}};
  members[0].data = metadata.dump(2);
  const std::string path = dir_ + "/bomb.tar.zst";
  ZstdFileWriter w(path, 1);
  for (const TarEntry& e : members) w.Write(TarEntryBytes(e));
  TarEntry zeros = TarFile("data/zeros.bin", "");
  zeros.header_size = uint64_t{4} << 30;
  w.Write(TarHeader(zeros));
  w.WriteZeros(uint64_t{300} << 20);
  const uint64_t compressed = w.Close();
  ASSERT_LT(compressed, uint64_t{1} << 20);
  for (const char* command : {"verify", "run"}) {
    SCOPED_TRACE(command);
    CommandResult r = Mlf({command, path});
    EXPECT_EQ(r.exit_code, 1) << Describe(argv_, r);
    const std::string prefix = "mlf: error: " + path +
                               ": member 'data/zeros.bin': decompressed data exceeds the allowed "
                               "size for ";
    EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << Describe(argv_, r);
    EXPECT_NE(r.err.find(":1 exceeds the limit of 1000:1; possible decompression bomb)\n"),
              std::string::npos)
        << Describe(argv_, r);
  }
}

}  // namespace
}  // namespace mlf
