#include "artifact/archive/testing/example_archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "artifact/archive/archive_reader.h"
#include "artifact/archive/pack.h"
#include "artifact/base/digest.h"

namespace mlf {
namespace testutil {

Example MakeExample() {
  Example ex;
  std::string params(1088, '\0');
  for (size_t i = 0; i < params.size(); ++i) params[i] = static_cast<char>((i * 7 + 3) & 0xFF);
  ex.members[kExampleSource] =
      "#include \"tvmgen_default.h\"\nint tvmgen_default_run(void) { return 0; }\n";
  ex.members[kExampleHeader] = "#pragma once\nint tvmgen_default_run(void);\n";
  ex.members[kExampleParams] = params;
  ex.members[kExampleModel] = std::string("\x08\x07\x12\x04onnx", 8);

  Metadata& md = ex.metadata;
  md.generator_version = "0.1.0";
  ModuleMetadata m;
  m.model_name = "default";
  m.target.kind = "c";
  m.target.host_triple = "x86_64-linux-gnu";
  SourceInfo source;
  source.format = SourceFormat::kOnnx;
  source.opset = 13;
  source.sha256 = Sha256Hex(ex.members[kExampleModel]);
  source.path = kExampleModel;
  m.source = source;
  m.inputs.push_back(TensorInfo{"input:0", "input_0", DType::kFloat32, {1, 4}, 16, true, std::nullopt});
  m.outputs.push_back(TensorInfo{"out0", "out0", DType::kFloat32, {1, 2}, 8, true, std::nullopt});
  m.memory.workspace_size_bytes = 0;
  m.memory.constants_size_bytes = params.size();
  m.memory.io_size_bytes = 24;
  m.memory.alignment_bytes = 64;
  ParametersInfo p;
  p.storage = ParamStorage::kFile;
  p.path = kExampleParams;
  p.tensors.push_back(ParamTensorInfo{"w0", DType::kFloat32, {16, 16}, 0, 1024, std::nullopt, ""});
  p.tensors.push_back(ParamTensorInfo{"b0", DType::kFloat32, {16}, 1024, 64, std::nullopt, ""});
  m.parameters = p;
  m.sources = {kExampleSource};
  m.operators.push_back(OperatorInfo{"fused_dense_0", {"Gemm"}, 256, std::nullopt});
  md.modules["default"] = m;
  return ex;
}

std::vector<ArchiveMember> ExampleMembers(const Example& example) {
  std::vector<ArchiveMember> out;
  for (const auto& [name, data] : example.members) {
    out.push_back(ArchiveMember{name, MemberSource::Bytes(data), false});
  }
  return out;
}

Metadata WriteExampleArchive(const std::string& path, Compression compression, int64_t mtime) {
  const Example ex = MakeExample();
  PackOptions options;
  options.compression = compression;
  options.mtime = mtime;
  Result<Metadata> md = WriteMlfArchive(path, ex.metadata, ExampleMembers(ex), options);
  if (!md.ok()) {
    ADD_FAILURE() << "WriteMlfArchive(" << path << "): " << md.status().ToString();
    return Metadata{};
  }
  return *md;
}

void WriteExampleDir(const std::string& dir) {
  const Example ex = MakeExample();
  MakeDirs(dir);
  WriteFile(dir + "/metadata.json", SerializeMetadata(ex.metadata));
  for (const auto& [name, data] : ex.members) {
    MakeDirs(DirName(dir + "/" + name));
    WriteFile(dir + "/" + name, data);
  }
}

std::vector<RawMember> ReadRawMembers(const std::string& path) {
  std::vector<RawMember> out;
  struct archive* a = archive_read_new();
  archive_read_support_filter_all(a);
  archive_read_support_format_tar(a);
  if (archive_read_open_filename(a, path.c_str(), 1 << 16) != ARCHIVE_OK) {
    ADD_FAILURE() << "libarchive cannot open " << path << ": " << archive_error_string(a);
    archive_read_free(a);
    return out;
  }
  struct archive_entry* e = nullptr;
  int rc;
  while ((rc = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
    RawMember m;
    m.name = archive_entry_pathname(e);
    m.mtime = archive_entry_mtime(e);
    m.uid = archive_entry_uid(e);
    m.gid = archive_entry_gid(e);
    m.mode = archive_entry_perm(e);
    m.uname = archive_entry_uname(e) ? archive_entry_uname(e) : "";
    m.gname = archive_entry_gname(e) ? archive_entry_gname(e) : "";
    const mode_t type = archive_entry_filetype(e);
    m.type = type == AE_IFREG ? '0' : type == AE_IFDIR ? '5' : '?';
    char buf[1 << 16];
    la_ssize_t n;
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0) m.data.append(buf, n);
    if (n < 0) ADD_FAILURE() << "libarchive: " << archive_error_string(a);
    out.push_back(std::move(m));
  }
  if (rc != ARCHIVE_EOF) ADD_FAILURE() << "libarchive: " << archive_error_string(a);
  archive_read_free(a);
  return out;
}

std::vector<ReadMember> ReadMembers(const std::string& path) {
  std::vector<ReadMember> out;
  auto reader = ArchiveReader::Open(path);
  if (!reader.ok()) {
    ADD_FAILURE() << reader.status().ToString();
    return out;
  }
  for (;;) {
    auto e = (*reader)->Next();
    if (!e.ok()) {
      ADD_FAILURE() << e.status().ToString();
      return out;
    }
    if (!*e) break;
    auto data = (*reader)->ReadAll(UINT64_MAX);
    if (!data.ok()) {
      ADD_FAILURE() << data.status().ToString();
      return out;
    }
    out.push_back(ReadMember{(*e)->name, (*e)->size, (*e)->data_offset, *data});
  }
  return out;
}

std::string RawTar(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string tar;
  for (const auto& [name, data] : entries) {
    tar += EncodeMemberHeader(name, data.size(), 0, tar.size(), false);
    tar += data;
    tar.resize((tar.size() + 511) / 512 * 512, '\0');
  }
  tar.append(1024, '\0');
  return tar;
}

Entries EntriesOf(const std::string& path) {
  Entries out;
  for (const ReadMember& m : ReadMembers(path)) out.push_back({m.name, m.data});
  return out;
}

std::string WriteTar(const std::string& path, const Entries& entries) {
  WriteFile(path, RawTar(entries));
  return path;
}

void FlipByte(const std::string& path, uint64_t offset) {
  const int fd = open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0) << path;
  unsigned char c = 0;
  ASSERT_EQ(pread(fd, &c, 1, static_cast<off_t>(offset)), 1);
  c ^= 0x01;
  ASSERT_EQ(pwrite(fd, &c, 1, static_cast<off_t>(offset)), 1);
  close(fd);
}

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

const KeyPair& TestKey(int n) {
  EXPECT_TRUE(n == 1 || n == 2) << n;
  static const KeyPair* const keys[] = {new KeyPair(*GenerateKeyPair()),
                                        new KeyPair(*GenerateKeyPair())};
  return *keys[n == 2 ? 1 : 0];
}

std::string FingerprintOf(const KeyPair& key) { return *PublicKeyFingerprint(key.public_pem); }

}  // namespace testutil
}  // namespace mlf
