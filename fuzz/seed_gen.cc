// Writes seed inputs that only mlfkit's own writers make (fuzz/make_seeds.sh
// adds archives, metadata and models made by `mlf` and GNU tar):
//
//   seed_gen npy DIR      .npy files: every dtype with a descr, 0-d to 3-d,
//                         an empty array, format versions 1.0, 2.0 and 3.0
//   seed_gen params DIR   TVM .params files: empty, one tensor, several dtypes
//   seed_gen key FILE     the fuzz test private key (fuzz/test_key.h), mode 0600
//   seed_gen tvm DIR      TVM archives (tests/tvm_fixtures: versions 5-7, AOT,
//                         graph and operator style) as <fixture>.tar, in
//                         Python tarfile's layout and plain (<fixture>_plain.tar);
//                         their metadata.json as <fixture>.metadata.json; for
//                         graph modules the tvm_graph input <fixture>.graph
//                         (graph JSON, NUL, .params)
//
// Everything is deterministic: the same build writes the same bytes.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "artifact/format/dtype.h"
#include "artifact/format/npy.h"
#include "fuzz/test_key.h"
#include "tests/tvm_fixtures/tvm_fixtures.h"
#include "tvm/format/tvm_params.h"

namespace mlf {
namespace {

bool WriteFile(const std::string& path, const std::string& data, mode_t mode = 0644) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) {
    std::perror(path.c_str());
    return false;
  }
  bool ok = write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size());
  ok = fchmod(fd, mode) == 0 && ok;
  ok = close(fd) == 0 && ok;
  if (!ok) std::perror(path.c_str());
  return ok;
}

// Deterministic element bytes: 0, 1, 2, ... (as bytes), enough for `n` bytes.
std::string Pattern(uint64_t n) {
  std::string s(n, '\0');
  for (uint64_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 37 + 11) & 0x7f);
  return s;
}

// The same array in format 2.0 or 3.0: a 4-byte header length.
std::string WithVersion(const std::string& v1, uint8_t major) {
  const uint16_t header_len = static_cast<uint8_t>(v1[8]) | static_cast<uint8_t>(v1[9]) << 8;
  std::string out = v1.substr(0, 6);
  out += static_cast<char>(major);
  out += '\0';
  const uint32_t len = header_len;
  for (int i = 0; i < 4; ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
  out += v1.substr(10);
  return out;
}

int WriteNpySeeds(const std::string& dir) {
  const std::vector<std::vector<int64_t>> shapes = {{}, {3}, {2, 3}, {2, 1, 2}, {1, 0}};
  int count = 0;
  for (DType dtype : kAllDTypes) {
    if (!NpyDescr(dtype).ok()) continue;  // bfloat16 has no descr
    for (const auto& shape : shapes) {
      NpyArray a;
      a.dtype = dtype;
      a.shape = shape;
      a.data = Pattern(ByteSize(dtype, shape).value());
      if (dtype == DType::kBool) {
        for (char& c : a.data) c = static_cast<char>(c & 1);
      }
      std::string name = dir + "/" + DTypeName(dtype);
      for (int64_t d : shape) name += "_" + std::to_string(d);
      if (!WriteFile(name + ".npy", SerializeNpy(a))) return 1;
      ++count;
      if (shape.size() == 2 && shape[1] == 3) {
        const std::string v1 = SerializeNpy(a);
        if (!WriteFile(name + ".v2.npy", WithVersion(v1, 2))) return 1;
        if (!WriteFile(name + ".v3.npy", WithVersion(v1, 3))) return 1;
        count += 2;
      }
    }
  }
  std::printf("seed_gen: %d .npy files in %s\n", count, dir.c_str());
  return 0;
}

NamedTensor Tensor(const std::string& name, DType dtype, std::vector<int64_t> shape) {
  NamedTensor t;
  t.name = name;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.data = Pattern(ByteSize(t.dtype, t.shape).value());
  return t;
}

int WriteParamsSeeds(const std::string& dir) {
  const std::vector<std::pair<std::string, std::vector<NamedTensor>>> files = {
      {"empty", {}},
      {"one_float", {Tensor("p0", DType::kFloat32, {2, 3})}},
      {"scalar", {Tensor("s", DType::kInt64, {})}},
      {"mixed",
       {Tensor("w", DType::kFloat32, {4, 2}), Tensor("b", DType::kFloat16, {4}),
        Tensor("q", DType::kInt8, {3, 1, 2}), Tensor("z", DType::kUInt64, {0}),
        Tensor("bf", DType::kBFloat16, {2}), Tensor("flag", DType::kBool, {1})}},
  };
  for (const auto& [name, tensors] : files) {
    if (!WriteFile(dir + "/" + name + ".params", WriteTvmParams(tensors))) return 1;
  }
  std::printf("seed_gen: %zu .params files in %s\n", files.size(), dir.c_str());
  return 0;
}

// The tvm_graph target's input for a fixture with a graph JSON, or "".
std::string GraphInput(const tvm_testing::Files& files) {
  std::string graph, params;
  for (const auto& [path, data] : files) {
    if (path.rfind("executor-config/graph/", 0) == 0) graph = data;
    if (path.size() > 7 && path.compare(path.size() - 7, 7, ".params") == 0) params = data;
  }
  if (graph.empty()) return "";
  return params.empty() ? graph : graph + '\0' + params;
}

int WriteTvmSeeds(const std::string& dir) {
  const std::vector<std::pair<std::string, tvm_testing::Files>> fixtures = {
      {"dense_v7", tvm_testing::DenseV7()},         {"pair_v7", tvm_testing::PairV7()},
      {"multi_v7", tvm_testing::MultiV7()},         {"scale_v5", tvm_testing::ScaleV5()},
      {"graph_v6", tvm_testing::GraphV6()},         {"graph_chain_v6", tvm_testing::GraphChainV6()},
      {"operator_v5", tvm_testing::OperatorV5()},   {"arm_v7", tvm_testing::ArmV7()},
      {"bundled_v7", tvm_testing::BundledV7()},
  };
  tvm_testing::TarLayout plain;
  plain.tarfile_style = false;
  for (const auto& [name, files] : fixtures) {
    const std::string base = dir + "/" + name;
    const std::string graph = GraphInput(files);
    if (!WriteFile(base + ".tar", tvm_testing::BuildTar(tvm_testing::LayoutMembers(files, {}))) ||
        !WriteFile(base + "_plain.tar",
                   tvm_testing::BuildTar(tvm_testing::LayoutMembers(files, plain))) ||
        !WriteFile(base + ".metadata.json", files.at("metadata.json")) ||
        (!graph.empty() && !WriteFile(base + ".graph", graph))) {
      return 1;
    }
  }
  std::printf("seed_gen: %zu TVM fixtures in %s\n", fixtures.size(), dir.c_str());
  return 0;
}

}  // namespace
}  // namespace mlf

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: seed_gen npy|params|tvm DIR | seed_gen key FILE\n");
    return 2;
  }
  const std::string what = argv[1];
  if (what == "npy") return mlf::WriteNpySeeds(argv[2]);
  if (what == "params") return mlf::WriteParamsSeeds(argv[2]);
  if (what == "tvm") return mlf::WriteTvmSeeds(argv[2]);
  if (what == "key") return mlf::WriteFile(argv[2], mlf::fuzz::kTestPrivateKeyPem, 0600) ? 0 : 1;
  std::fprintf(stderr, "seed_gen: unknown kind '%s'\n", argv[1]);
  return 2;
}
