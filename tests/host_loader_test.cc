// End-to-end tests of the host loader on hand-written fixture models:
// ModelLibrary::Open, every AotExecutor method and every mismatch error.
#include <dlpack/dlpack.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "artifact/archive/archive_source.h"
#include "artifact/archive/pack.h"
#include "artifact/archive/unpack.h"
#include "loader/host/model_library.h"
#include "tests/fixtures/fixture_models.h"
#include "tests/test_files.h"
#include "tests/test_tensors.h"

namespace mlf {
namespace {

using testing::DlView;
using testing::MakeFixture;
using testing::WriteFixtureArchive;

constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDataType kI32{kDLInt, 32, 1};
constexpr DLDataType kI64{kDLInt, 64, 1};

class HostLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    options_.cache_dir = dir_ + "/cache";
  }

  std::string Export(const std::vector<std::string>& kinds, ExportOptions export_options = {}) {
    std::vector<ModuleArtifacts> modules;
    for (const std::string& kind : kinds) {
      auto m = MakeFixture(kind, kind, fixture_options_);
      EXPECT_TRUE(m.ok()) << m.status().ToString();
      modules.push_back(*m);
    }
    const std::string out = dir_ + "/" + kinds[0] + std::to_string(counter_++) + ".tar";
    Status s = WriteFixtureArchive(modules, out, export_options);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }

  std::shared_ptr<ModelLibrary> Open(const std::string& archive) {
    auto lib = ModelLibrary::Open(archive, options_);
    EXPECT_TRUE(lib.ok()) << lib.status().ToString();
    return lib.ok() ? *lib : nullptr;
  }

  std::unique_ptr<AotExecutor> Executor(const std::string& archive, const std::string& module) {
    auto lib = Open(archive);
    if (!lib) return nullptr;
    auto e = lib->CreateExecutor(module);
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return e.ok() ? std::move(*e) : nullptr;
  }

  std::string dir_;
  LoadOptions options_;
  testing::FixtureOptions fixture_options_;
  int counter_ = 0;
};

// Runs "pair" on fixed inputs and checks both outputs.
void RunPairAndCheck(AotExecutor& e) {
  std::vector<float> a = {1, -2, 3, -4, 5, -6};
  std::vector<int32_t> b = {1, 2, -3};
  std::vector<int64_t> a_shape = {2, 3}, b_shape = {3};
  ASSERT_TRUE(e.SetInput("a", DlView(a.data(), kF32, a_shape)).ok());
  ASSERT_TRUE(e.SetInput("b_0", DlView(b.data(), kI32, b_shape)).ok());
  ASSERT_TRUE(e.Run().ok());
  auto sum = e.GetOutput(0);
  ASSERT_TRUE(sum.ok());
  const float* s = static_cast<const float*>(sum->data);
  EXPECT_EQ(std::vector<float>(s, s + 6), (std::vector<float>{2, 0, 0, -3, 7, -9}));
  auto stats = e.GetOutput(1);
  const int64_t* st = static_cast<const int64_t*>(stats->data);
  EXPECT_EQ(st[0], 2);  // 2 and 7 are positive
  EXPECT_EQ(st[1], 0);  // 1 + 2 - 3
}

TEST_F(HostLoaderTest, DescribesInputsAndOutputs) {
  auto e = Executor(Export({"pair"}), "pair");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->num_inputs(), 2);
  EXPECT_EQ(e->num_outputs(), 2);
  auto b = e->input_info(1);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->name, "b:0");
  EXPECT_EQ(b->c_name, "b_0");
  EXPECT_EQ(b->dtype, DType::kInt32);
  EXPECT_EQ(b->shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(b->size_bytes, 12u);
  EXPECT_EQ(e->output_info(1)->dtype, DType::kInt64);
  EXPECT_EQ(*e->input_index("b:0"), 1);
  EXPECT_EQ(*e->input_index("b_0"), 1);
  EXPECT_EQ(*e->output_index("stats"), 1);
  EXPECT_EQ(e->input_index("c").status().message(),
            "no input named 'c' (the model's inputs: a, b:0)");
  EXPECT_EQ(e->output_info(2).status().message(),
            "output index 2 is out of range (module 'pair' has 2 outputs)");
  EXPECT_EQ(e->input_info(-1).status().message(),
            "input index -1 is out of range (module 'pair' has 2 inputs)");
}

TEST_F(HostLoaderTest, RunsWithCopiedInputs) {
  auto e = Executor(Export({"pair"}), "pair");
  ASSERT_NE(e, nullptr);
  RunPairAndCheck(*e);
  // GetInput shows what Run() read.
  auto in = e->GetInput(1);
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(static_cast<const int32_t*>(in->data)[2], -3);
  EXPECT_EQ(in->dtype.code, kDLInt);
  EXPECT_EQ(in->ndim, 1);
}

TEST_F(HostLoaderTest, CopyOutputToChecksAndCopies) {
  auto e = Executor(Export({"pair"}), "pair");
  ASSERT_NE(e, nullptr);
  RunPairAndCheck(*e);
  std::vector<int64_t> stats(2, -1), shape = {2};
  DLTensor dest = DlView(stats.data(), kI64, shape);
  ASSERT_TRUE(e->CopyOutputTo(1, &dest).ok());
  EXPECT_EQ(stats, (std::vector<int64_t>{2, 0}));
  std::vector<int64_t> wrong_shape = {3};
  std::vector<int64_t> big(3);
  DLTensor bad = DlView(big.data(), kI64, wrong_shape);
  EXPECT_EQ(e->CopyOutputTo(1, &bad).message(),
            "output 'stats': shape [3] does not match the model's [2]");
  EXPECT_EQ(e->CopyOutputTo(1, nullptr).message(), "CopyOutputTo: destination tensor is null");
}

TEST_F(HostLoaderTest, ZeroCopyUsesCallerMemoryUntilReset) {
  auto e = Executor(Export({"pair"}), "pair");
  ASSERT_NE(e, nullptr);
  alignas(64) float a[6] = {1, 1, 1, 1, 1, 1};
  alignas(64) int32_t b[3] = {0, 0, 0};
  alignas(64) float sum[6] = {};
  std::vector<int64_t> a_shape = {2, 3}, b_shape = {3};
  ASSERT_TRUE(e->SetInputZeroCopy(0, DlView(a, kF32, a_shape)).ok());
  ASSERT_TRUE(e->SetInput(1, DlView(b, kI32, b_shape)).ok());
  ASSERT_TRUE(e->SetOutputZeroCopy(0, DlView(sum, kF32, a_shape)).ok());
  ASSERT_TRUE(e->Run().ok());
  EXPECT_EQ(sum[5], 1.0f);
  a[5] = 41;  // no copy: the next run sees the change
  ASSERT_TRUE(e->Run().ok());
  EXPECT_EQ(sum[5], 41.0f);
  EXPECT_EQ(e->GetOutput(0)->data, static_cast<void*>(sum));
  e->ResetZeroCopy();
  EXPECT_NE(e->GetOutput(0)->data, static_cast<void*>(sum));
  EXPECT_NE(e->GetInput(0)->data, static_cast<void*>(a));
}

TEST_F(HostLoaderTest, EveryMismatchIsAClearError) {
  auto e = Executor(Export({"pair"}), "pair");
  ASSERT_NE(e, nullptr);
  alignas(64) float a[8] = {};
  std::vector<int64_t> shape = {2, 3}, wrong = {3, 2}, flat = {6};
  EXPECT_EQ(e->SetInput(0, DlView(a, kI32, shape)).message(),
            "input 'a': dtype int32 does not match the model's float32");
  EXPECT_EQ(e->SetInput(0, DlView(a, kF32, wrong)).message(),
            "input 'a': shape [3, 2] does not match the model's [2, 3]");
  EXPECT_EQ(e->SetInput(0, DlView(a, kF32, flat)).message(),
            "input 'a': shape [6] does not match the model's [2, 3]");
  DLTensor on_gpu = DlView(a, kF32, shape);
  on_gpu.device = {kDLCUDA, 0};
  EXPECT_EQ(e->SetInput(0, on_gpu).message(),
            "input 'a': tensor is on device type 2, expected the CPU (1)");
  std::vector<int64_t> strides = {1, 2};  // column-major
  DLTensor strided = DlView(a, kF32, shape);
  strided.strides = strides.data();
  EXPECT_EQ(e->SetInput(0, strided).message(),
            "input 'a': tensor is strided; only dense C-order tensors are accepted");
  std::vector<int64_t> compact = {3, 1};
  strided.strides = compact.data();
  EXPECT_TRUE(e->SetInput(0, strided).ok());
  EXPECT_EQ(e->SetInput(0, DlView(nullptr, kF32, shape)).message(), "input 'a': tensor data is null");
  DLTensor misaligned = DlView(reinterpret_cast<char*>(a) + 1, kF32, shape);
  EXPECT_EQ(e->SetInputZeroCopy(0, misaligned).message(),
            "input 'a': data address is not aligned to 4 bytes, as zero-copy float32 needs");
  EXPECT_TRUE(e->SetInput(0, misaligned).ok());  // a copy has no alignment needs
  DLTensor vector_lanes = DlView(a, DLDataType{kDLFloat, 32, 4}, shape);
  EXPECT_EQ(e->SetInput(0, vector_lanes).message(),
            "input 'a': dtype code 2 bits 32 lanes 4 does not match the model's float32");
  EXPECT_EQ(e->SetInput(5, DlView(a, kF32, shape)).message(),
            "input index 5 is out of range (module 'pair' has 2 inputs)");
  EXPECT_EQ(e->SetInput("nope", DlView(a, kF32, shape)).message(),
            "no input named 'nope' (the model's inputs: a, b:0)");
  EXPECT_EQ(e->SetOutputZeroCopy(1, DlView(a, kF32, shape)).message(),
            "output 'stats': dtype float32 does not match the model's int64");
  DLTensor offset = DlView(a, kF32, shape);
  offset.byte_offset = 8;  // honoured: the tensor starts at a[2]
  a[2] = 5;
  ASSERT_TRUE(e->SetInput(0, offset).ok());
  EXPECT_EQ(static_cast<const float*>(e->GetInput(0)->data)[0], 5.0f);
}

TEST_F(HostLoaderTest, LinkedAndFileParametersGiveTheSameResults) {
  const std::vector<float> x = {0.5f, -1.0f, 2.0f, 3.0f};
  const std::vector<float> want = testing::DenseReference(x);
  for (const std::string kind : {"dense", "dense_file"}) {
    for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
      SCOPED_TRACE(kind + " " + CompressionName(c));
      ExportOptions options;
      options.pack.compression = c;
      auto e = Executor(Export({kind}, options), kind);
      ASSERT_NE(e, nullptr);
      std::vector<float> in = x;
      std::vector<int64_t> shape = {1, 4};
      ASSERT_TRUE(e->SetInput("x", DlView(in.data(), kF32, shape)).ok());
      ASSERT_TRUE(e->Run().ok());
      const float* y = static_cast<const float*>(e->GetOutput(0)->data);
      EXPECT_EQ(std::vector<float>(y, y + 3), want);
    }
  }
}

TEST_F(HostLoaderTest, TwoModulesInOneArchive) {
  auto lib = Open(Export({"pair", "dense_file"}));
  ASSERT_NE(lib, nullptr);
  EXPECT_EQ(lib->module_names(), (std::vector<std::string>{"dense_file", "pair"}));
  auto pair = lib->CreateExecutor("pair");
  auto dense = lib->CreateExecutor("dense_file");
  ASSERT_TRUE(pair.ok() && dense.ok());
  RunPairAndCheck(**pair);
  EXPECT_EQ(lib->CreateExecutor("other").status().message(),
            "no module named 'other' (the archive has: dense_file, pair)");
}

TEST_F(HostLoaderTest, ArchivesWithoutHostLibraryAreCompiledOnceIntoTheCache) {
  ExportOptions no_lib;
  no_lib.build_host_library = false;
  const std::string archive = Export({"pair"}, no_lib);
  auto first = Open(archive);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->code_origin("pair"), "compiled");
  auto e = first->CreateExecutor("pair");
  ASSERT_TRUE(e.ok());
  RunPairAndCheck(**e);
  auto second = Open(archive);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->code_origin("pair"), "cache");
  auto shipped = Open(Export({"pair"}));
  EXPECT_EQ(shipped->code_origin("pair"), "archive");
}

TEST_F(HostLoaderTest, CompileFailureNamesTheModule) {
  auto m = MakeFixture("pair", "pair");
  ASSERT_TRUE(m.ok());
  m->sources[0].content += "\nthis is not C;\n";
  ExportOptions no_lib;
  no_lib.build_host_library = false;
  const std::string out = dir_ + "/broken.tar";
  ASSERT_TRUE(WriteFixtureArchive({*m}, out, no_lib).ok());
  auto lib = ModelLibrary::Open(out, options_);
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().message().rfind(
                out + ": module 'pair' has no host library for x86_64-linux-gnu and compiling "
                      "its sources failed: compiling the host library failed (",
                0),
            0u)
      << lib.status().message();
}

TEST_F(HostLoaderTest, AbiMismatchIsRefusedNamingTheField) {
  const std::string archive = Export({"pair"});
  const std::string tree = dir_ + "/tree";
  ASSERT_TRUE(UnpackArchive(archive, tree, {}).ok());
  std::string md = ReadFile(tree + "/metadata.json");
  const std::string from = "\"workspace_size_bytes\": 64";
  ASSERT_NE(md.find(from), std::string::npos);
  md.replace(md.find(from), from.size(), "\"workspace_size_bytes\": 128");
  WriteFile(tree + "/metadata.json", md);
  const std::string repacked = dir_ + "/repacked.tar";
  ASSERT_TRUE(PackDirectory(tree, repacked, {}).ok());
  auto lib = ModelLibrary::Open(repacked, options_);
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().message(),
            repacked + ": module 'pair': ABI check failed: workspace size differs: the library "
                       "says 64, metadata.json says 128");
}

TEST_F(HostLoaderTest, MissingArchiveIsAnIoError) {
  auto lib = ModelLibrary::Open(dir_ + "/nope.tar", options_);
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().message(),
            dir_ + "/nope.tar: cannot open archive '" + dir_ + "/nope.tar': No such file or directory");
}

// Errors name the archive as the caller gave it (the loader reads an open
// ArchiveSource, never a /proc/self/fd path).
TEST_F(HostLoaderTest, NonArchivesAreRefusedNamingThePathAsGiven) {
  auto dir = ModelLibrary::Open(dir_, options_);
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().message(), dir_ + ": '" + dir_ + "' is a directory, not an archive");
  const std::string zip = dir_ + "/model.zip";
  WriteFile(zip, std::string("PK\x03\x04", 4) + std::string(200, '\0'));
  auto lib = ModelLibrary::Open(zip, options_);
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().message(),
            zip + ": '" + zip + "' is a zip archive, not a tar archive (accepted: tar, optionally "
                                "gzip- or zstd-compressed)");
}

// The same archive loads and runs from a file, a mapped file, and bytes in
// memory (copied or borrowed), compressed or not; "file" parameters are
// mapped out of a file and copied out of memory.
TEST_F(HostLoaderTest, ArchivesLoadFromEverySource) {
  const std::vector<float> x = {0.5f, -1.0f, 2.0f, 3.0f};
  const std::vector<float> want = testing::DenseReference(x);
  for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
    ExportOptions export_options;
    export_options.pack.compression = c;
    const std::string archive = Export({"pair", "dense_file"}, export_options);
    const std::string bytes = ReadFile(archive);
    ASSERT_FALSE(bytes.empty());
    std::vector<std::unique_ptr<ArchiveSource>> sources;
    sources.push_back(ArchiveSource::Memory(bytes, "model bytes"));
    sources.push_back(ArchiveSource::MemoryView(bytes, "model view"));
    auto mapped = ArchiveSource::MapFile(archive);
    ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
    sources.push_back(std::move(*mapped));
    auto file = ArchiveSource::OpenFile(archive);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    sources.push_back(std::move(*file));
    for (const auto& source : sources) {
      SCOPED_TRACE(source->name() + " " + CompressionName(c));
      auto lib = ModelLibrary::Open(*source, options_);
      ASSERT_TRUE(lib.ok()) << lib.status().ToString();
      auto pair = (*lib)->CreateExecutor("pair");
      ASSERT_TRUE(pair.ok()) << pair.status().ToString();
      RunPairAndCheck(**pair);
      auto dense = (*lib)->CreateExecutor("dense_file");
      ASSERT_TRUE(dense.ok()) << dense.status().ToString();
      std::vector<float> in = x;
      std::vector<int64_t> shape = {1, 4};
      ASSERT_TRUE((*dense)->SetInput("x", DlView(in.data(), kF32, shape)).ok());
      ASSERT_TRUE((*dense)->Run().ok());
      const float* y = static_cast<const float*>((*dense)->GetOutput(0)->data);
      EXPECT_EQ(std::vector<float>(y, y + 3), want);
    }
  }
}

// An archive in memory is verified like a file, and errors carry its name.
TEST_F(HostLoaderTest, ArchiveInMemoryIsVerifiedAndNamedInErrors) {
  std::string bytes = ReadFile(Export({"pair"}));
  ASSERT_FALSE(bytes.empty());
  std::unique_ptr<ArchiveSource> truncated =
      ArchiveSource::Memory(bytes.substr(0, bytes.size() / 2), "upload.tar (memory)");
  auto lib = ModelLibrary::Open(*truncated, options_);
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().message().rfind("upload.tar (memory): ", 0), 0u)
      << lib.status().message();
  EXPECT_NE(lib.status().message().find("truncated archive"), std::string::npos)
      << lib.status().message();
  // One changed byte of code: the digest check refuses it before any dlopen.
  const size_t at = bytes.rfind("tvmgen_pair_run");
  ASSERT_NE(at, std::string::npos);
  bytes[at] ^= 0x20;
  std::unique_ptr<ArchiveSource> changed = ArchiveSource::MemoryView(bytes, "changed");
  auto refused = ModelLibrary::Open(*changed, options_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message().rfind("changed: member '", 0), 0u)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("': SHA-256 mismatch (archive has "), std::string::npos)
      << refused.status().message();
}

}  // namespace
}  // namespace mlf
