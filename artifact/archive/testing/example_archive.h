// Test support for the archive-level libraries (pack, verify, sign, unpack,
// read_metadata): a small valid model built in memory, a raw tar builder for
// archives no writer would produce, and readers that list an archive's
// members and headers independently of the code under test (libarchive
// directly). The file helpers (FreshDir, ReadFile, ...) come with it from
// artifact/base/testing/test_files.h.
#ifndef MLFKIT_ARTIFACT_ARCHIVE_TESTING_EXAMPLE_ARCHIVE_H_
#define MLFKIT_ARTIFACT_ARCHIVE_TESTING_EXAMPLE_ARCHIVE_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "artifact/archive/archive_writer.h"
#include "artifact/archive/signature.h"
#include "artifact/base/testing/test_files.h"
#include "artifact/format/metadata.h"

namespace mlf {
namespace testutil {

// Member names of the example.
inline constexpr char kExampleSource[] = "codegen/host/src/default_lib0.c";
inline constexpr char kExampleHeader[] = "codegen/host/include/tvmgen_default.h";
inline constexpr char kExampleParams[] = "parameters/default.bin";
inline constexpr char kExampleModel[] = "src/default.onnx";

// A valid mlfkit model ("default": one input, one output, a file-stored
// parameter blob with tensors at offsets 0 and 64) and its members.
// `metadata.files` is empty: the writer fills it in.
struct Example {
  Metadata metadata;
  std::map<std::string, std::string> members;  // name -> content (no metadata.json)
};
Example MakeExample();

// The example's members as in-memory archive members (map order).
std::vector<ArchiveMember> ExampleMembers(const Example& example);

// Writes the example as an archive with WriteMlfArchive; fails the test (and
// returns the empty metadata) on error.
Metadata WriteExampleArchive(const std::string& path, Compression compression = Compression::kNone,
                             int64_t mtime = 0);

// Writes the example as a directory in MLF layout (metadata.json without
// "files", every member as a file).
void WriteExampleDir(const std::string& dir);

// One member as libarchive sees it (independently of ArchiveReader).
struct RawMember {
  std::string name;
  std::string data;
  int64_t mtime = 0;
  int64_t uid = -1, gid = -1;
  int mode = 0;  // permission bits
  std::string uname, gname;
  char type = '0';  // '0' regular file, '5' directory, '?' other
};
// Every entry of the archive at `path` (any compression); fails the test on error.
std::vector<RawMember> ReadRawMembers(const std::string& path);

// Every regular member with its data_offset, as ArchiveReader reports it.
struct ReadMember {
  std::string name;
  uint64_t size = 0;
  uint64_t data_offset = 0;
  std::string data;
};
std::vector<ReadMember> ReadMembers(const std::string& path);

// An uncompressed tar of `entries` (name, data) in the given order, built
// with EncodeMemberHeader: duplicate names, any first member, anything goes.
std::string RawTar(const std::vector<std::pair<std::string, std::string>>& entries);

// (name, data) of every member, in archive order.
using Entries = std::vector<std::pair<std::string, std::string>>;

// The entries of the archive at `path` (ReadMembers).
Entries EntriesOf(const std::string& path);

// Writes RawTar(entries) to `path`; returns `path`.
std::string WriteTar(const std::string& path, const Entries& entries);

// Flips one bit of the byte at `offset` of the file at `path`.
void FlipByte(const std::string& path, uint64_t offset);

// The directory part of a path ("a/b" -> "a", "b" -> ".").
std::string DirName(const std::string& path);

// Every compression an archive can be written with.
inline constexpr Compression kAllCompressions[] = {Compression::kNone, Compression::kGzip,
                                                   Compression::kZstd};

// Signing key pair `n` (1 or 2), generated once per test program: two
// different keys for the signer and the wrong verifier.
const KeyPair& TestKey(int n);

// PublicKeyFingerprint of `key`'s public key.
std::string FingerprintOf(const KeyPair& key);

}  // namespace testutil
}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_TESTING_EXAMPLE_ARCHIVE_H_
