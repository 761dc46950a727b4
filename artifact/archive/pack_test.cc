#include "artifact/archive/pack.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "artifact/archive/archive_reader.h"
#include "artifact/archive/signature.h"
#include "artifact/archive/testing/example_archive.h"
#include "artifact/archive/verify.h"
#include "artifact/base/digest.h"

namespace mlf {
namespace {

using testutil::Example;
using testutil::ExampleMembers;
using testutil::Exists;
using testutil::FreshDir;
using testutil::ListDir;
using testutil::MakeExample;
using testutil::ReadFile;
using testutil::ReadMembers;
using testutil::ReadRawMembers;
using testutil::WriteExampleDir;
using testutil::WriteFile;

std::vector<std::string> Names(const std::vector<testutil::ReadMember>& members) {
  std::vector<std::string> out;
  for (const auto& m : members) out.push_back(m.name);
  return out;
}

// ---------------------------------------------------------------- layout --

TEST(WriteMlfArchiveTest, MetadataFirstThenSignatureThenSortedMembers) {
  const std::string dir = FreshDir("order");
  Example ex = MakeExample();
  std::vector<ArchiveMember> members = ExampleMembers(ex);
  // Given in reverse order, with a signature member in the middle.
  std::reverse(members.begin(), members.end());
  members.insert(members.begin() + 2,
                 ArchiveMember{kSignatureMember, MemberSource::Bytes("sig\n"), false});
  auto md = WriteMlfArchive(dir + "/a.tar", ex.metadata, members, PackOptions{});
  ASSERT_TRUE(md.ok()) << md.status().ToString();

  EXPECT_EQ(Names(ReadMembers(dir + "/a.tar")),
            (std::vector<std::string>{"metadata.json", "metadata.json.sig",
                                      testutil::kExampleHeader, testutil::kExampleSource,
                                      testutil::kExampleParams, testutil::kExampleModel}));
}

TEST(WriteMlfArchiveTest, FilesHoldSizeAndSha256OfEveryMember) {
  const std::string dir = FreshDir("files");
  Example ex = MakeExample();
  // Whatever "files" the caller passes is replaced.
  ex.metadata.files["ghost.txt"] = FileEntry{1, std::string(64, 'a')};
  std::vector<ArchiveMember> members = ExampleMembers(ex);
  members.push_back(ArchiveMember{kSignatureMember, MemberSource::Bytes("sig\n"), false});
  auto md = WriteMlfArchive(dir + "/a.tar", ex.metadata, members, PackOptions{});
  ASSERT_TRUE(md.ok()) << md.status().ToString();

  ASSERT_EQ(md->files.size(), ex.members.size());  // no ghost, no signature
  for (const auto& [name, data] : ex.members) {
    ASSERT_TRUE(md->files.count(name)) << name;
    EXPECT_EQ(md->files.at(name).size, data.size()) << name;
    EXPECT_EQ(md->files.at(name).sha256, Sha256Hex(data)) << name;
  }
  // The stored metadata.json is exactly the returned model, serialised.
  auto stored = ReadMembers(dir + "/a.tar");
  ASSERT_FALSE(stored.empty());
  EXPECT_EQ(stored[0].data, SerializeMetadata(*md));
  auto reparsed = ParseMetadata(stored[0].data);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status().ToString();
  EXPECT_EQ(reparsed->files, md->files);
  // And every member holds the caller's bytes.
  for (const auto& m : stored) {
    if (m.name == kMetadataMember) continue;
    if (m.name == kSignatureMember) {
      EXPECT_EQ(m.data, "sig\n");
      continue;
    }
    EXPECT_EQ(m.data, ex.members.at(m.name)) << m.name;
  }
}

TEST(WriteMlfArchiveTest, FileSourcesAreHashedLikeBytes) {
  const std::string dir = FreshDir("file_sources");
  Example ex = MakeExample();
  std::vector<ArchiveMember> members;
  for (const auto& [name, data] : ex.members) {
    const std::string src = dir + "/src" + std::to_string(members.size());
    WriteFile(src, data);
    members.push_back(ArchiveMember{name, MemberSource::File(src), false});
  }
  for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
    PackOptions options;
    options.compression = c;
    auto md = WriteMlfArchive(dir + "/a.tar", ex.metadata, members, options);
    ASSERT_TRUE(md.ok()) << md.status().ToString();
    for (const auto& [name, data] : ex.members) {
      EXPECT_EQ(md->files.at(name).sha256, Sha256Hex(data)) << CompressionName(c) << " " << name;
    }
  }
}

// (A signature member second is covered by RepackingAnExtractedSignedArchiveIsByteIdentical.)
TEST(PackDirectoryTest, PacksEveryFileSortedByName) {
  const std::string dir = FreshDir("pack_dir");
  WriteExampleDir(dir + "/model");
  WriteFile(dir + "/model/aaa.txt", "first by name\n");
  auto md = PackDirectory(dir + "/model", dir + "/a.tar", PackOptions{});
  ASSERT_TRUE(md.ok()) << md.status().ToString();

  auto members = ReadMembers(dir + "/a.tar");
  EXPECT_EQ(Names(members),
            (std::vector<std::string>{"metadata.json", "aaa.txt", testutil::kExampleHeader,
                                      testutil::kExampleSource, testutil::kExampleParams,
                                      testutil::kExampleModel}));
  EXPECT_EQ(md->files.size(), 5u);
  EXPECT_FALSE(md->files.count(kSignatureMember));
  EXPECT_EQ(md->files.at("aaa.txt").size, 14u);
  EXPECT_EQ(md->files.at("aaa.txt").sha256, Sha256Hex("first by name\n"));
  const Example ex = MakeExample();
  for (const auto& [name, data] : ex.members) {
    EXPECT_EQ(md->files.at(name).sha256, Sha256Hex(data)) << name;
  }
  EXPECT_EQ(members[0].data, SerializeMetadata(*md));
}

// --------------------------------------------------------- determinism --

TEST(PackDirectoryTest, SameDirectoryGivesByteIdenticalArchives) {
  const std::string dir = FreshDir("determinism");
  WriteExampleDir(dir + "/a");
  // The same tree created in another order (readdir order differs).
  const Example ex = MakeExample();
  testutil::MakeDirs(dir + "/b");
  for (auto it = ex.members.rbegin(); it != ex.members.rend(); ++it) {
    testutil::MakeDirs(testutil::DirName(dir + "/b/" + it->first));
    WriteFile(dir + "/b/" + it->first, it->second);
  }
  WriteFile(dir + "/b/metadata.json", ReadFile(dir + "/a/metadata.json"));

  for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
    SCOPED_TRACE(CompressionName(c));
    PackOptions options;
    options.compression = c;
    options.mtime = 1234567890;
    ASSERT_TRUE(PackDirectory(dir + "/a", dir + "/1.tar", options).ok());
    ASSERT_TRUE(PackDirectory(dir + "/a", dir + "/2.tar", options).ok());
    ASSERT_TRUE(PackDirectory(dir + "/b", dir + "/3.tar", options).ok());
    const std::string one = ReadFile(dir + "/1.tar");
    ASSERT_FALSE(one.empty());
    EXPECT_EQ(one, ReadFile(dir + "/2.tar"));
    EXPECT_EQ(one, ReadFile(dir + "/3.tar"));
    auto reader = ArchiveReader::Open(dir + "/1.tar");
    ASSERT_TRUE(reader.ok());
    EXPECT_EQ((*reader)->compression(), c);
  }
}

// --------------------------------------------------------------- headers --

TEST(PackDirectoryTest, MtimeOwnerAndModeInEveryHeader) {
  const std::string dir = FreshDir("mtime");
  WriteExampleDir(dir + "/m");
  for (int64_t mtime : {int64_t{0}, int64_t{1700000000}, int64_t{10000000000}}) {
    for (Compression c : {Compression::kNone, Compression::kZstd}) {
      SCOPED_TRACE(std::to_string(mtime) + " " + CompressionName(c));
      PackOptions options;
      options.mtime = mtime;
      options.compression = c;
      ASSERT_TRUE(PackDirectory(dir + "/m", dir + "/a.tar", options).ok());
      auto raw = ReadRawMembers(dir + "/a.tar");
      ASSERT_EQ(raw.size(), 5u);  // regular files only: no directory entries
      for (const auto& m : raw) {
        EXPECT_EQ(m.type, '0') << m.name;
        EXPECT_EQ(m.mtime, mtime) << m.name;
        EXPECT_EQ(m.uid, 0) << m.name;
        EXPECT_EQ(m.gid, 0) << m.name;
        EXPECT_EQ(m.mode, 0644) << m.name;
        EXPECT_EQ(m.uname, "") << m.name;
        EXPECT_EQ(m.gname, "") << m.name;
      }
    }
  }
}

TEST(PackDirectoryTest, MtimeAsPythonTarfileSeesIt) {
  ASSERT_EQ(access("/usr/bin/python3", X_OK), 0) << "no /usr/bin/python3 (scripts/setup.sh)";
  const std::string dir = FreshDir("mtime_python");
  WriteExampleDir(dir + "/m");
  PackOptions options;
  options.mtime = 1234567890;
  ASSERT_TRUE(PackDirectory(dir + "/m", dir + "/a.tar", options).ok());
  const std::string cmd =
      "/usr/bin/python3 -c 'import sys, tarfile\n"
      "for m in tarfile.open(sys.argv[1]): print(m.name, m.mtime, m.uid, m.gid, oct(m.mode))' " +
      dir + "/a.tar";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << out;
  EXPECT_EQ(out,
            "metadata.json 1234567890 0 0 0o644\n"
            "codegen/host/include/tvmgen_default.h 1234567890 0 0 0o644\n"
            "codegen/host/src/default_lib0.c 1234567890 0 0 0o644\n"
            "parameters/default.bin 1234567890 0 0 0o644\n"
            "src/default.onnx 1234567890 0 0 0o644\n");
}

// ------------------------------------------------------------- alignment --

TEST(IsAlignedMemberTest, ParametersBinOnly) {
  EXPECT_TRUE(IsAlignedMember("parameters/default.bin"));
  EXPECT_TRUE(IsAlignedMember("parameters/a.bin"));
  EXPECT_FALSE(IsAlignedMember("parameters/.bin"));
  EXPECT_FALSE(IsAlignedMember("parameters/a.bin.txt"));
  EXPECT_FALSE(IsAlignedMember("parameters/a.params"));
  EXPECT_FALSE(IsAlignedMember("xparameters/a.bin"));
  EXPECT_FALSE(IsAlignedMember("src/a.bin"));
  EXPECT_FALSE(IsAlignedMember("metadata.json"));
}

TEST(WriteMlfArchiveTest, ParameterDataIs4096AlignedAndTensorOffsetsSurvive) {
  const std::string dir = FreshDir("align");
  // Vary what comes before the blobs so they start at many different offsets.
  for (size_t pad : {size_t{0}, size_t{1}, size_t{511}, size_t{512}, size_t{3000}, size_t{4095},
                     size_t{4096}, size_t{70001}}) {
    SCOPED_TRACE("pad " + std::to_string(pad));
    Example ex = MakeExample();
    ex.members["codegen/host/include/aaa_pad.h"] = std::string(pad, 'p');
    ex.members["parameters/extra.bin"] = std::string(pad + 5, 'x');  // not in the index
    auto md = WriteMlfArchive(dir + "/a.tar", ex.metadata, ExampleMembers(ex), PackOptions{});
    ASSERT_TRUE(md.ok()) << md.status().ToString();
    const std::string archive = ReadFile(dir + "/a.tar");
    int aligned = 0;
    for (const auto& m : ReadMembers(dir + "/a.tar")) {
      ASSERT_NE(m.data_offset, kUnknownOffset) << m.name;
      EXPECT_EQ(archive.substr(m.data_offset, m.size), m.data) << m.name;
      if (!IsAlignedMember(m.name)) continue;
      ++aligned;
      EXPECT_EQ(m.data_offset % kDataAlignment, 0u) << m.name << " at " << m.data_offset;
    }
    EXPECT_EQ(aligned, 2);
    // Every tensor of the index starts 64-aligned in the file, with its bytes.
    const std::string& blob = ex.members.at(testutil::kExampleParams);
    for (const auto& m : ReadMembers(dir + "/a.tar")) {
      if (m.name != testutil::kExampleParams) continue;
      for (const ParamTensorInfo& t : md->modules.at("default").parameters->tensors) {
        EXPECT_EQ((m.data_offset + t.offset) % 64, 0u) << t.name;
        EXPECT_EQ(archive.substr(m.data_offset + t.offset, t.size_bytes),
                  blob.substr(t.offset, t.size_bytes))
            << t.name;
      }
    }
  }
}

TEST(PackDirectoryTest, ProgressReachesTheTotal) {
  const std::string dir = FreshDir("progress");
  WriteExampleDir(dir + "/m");
  for (Compression c : {Compression::kNone, Compression::kGzip}) {
    std::vector<std::pair<uint64_t, uint64_t>> calls;
    PackOptions options;
    options.compression = c;
    options.progress = [&](uint64_t done, uint64_t total) { calls.push_back({done, total}); };
    ASSERT_TRUE(PackDirectory(dir + "/m", dir + "/a.tar", options).ok());
    ASSERT_FALSE(calls.empty());
    for (size_t i = 1; i < calls.size(); ++i) {
      EXPECT_GE(calls[i].first, calls[i - 1].first);
      EXPECT_EQ(calls[i].second, calls[0].second);
    }
    EXPECT_EQ(calls.back().first, calls.back().second) << CompressionName(c);
  }
}

// ---------------------------------------------------------------- errors --

TEST(PackDirectoryTest, DirectoryWithoutMetadataIsRefused) {
  const std::string dir = FreshDir("no_metadata");
  testutil::MakeDirs(dir + "/m");
  WriteFile(dir + "/m/a.c", "int x;\n");
  auto md = PackDirectory(dir + "/m", dir + "/a.tar", PackOptions{});
  ASSERT_FALSE(md.ok());
  EXPECT_EQ(md.status().code(), StatusCode::kIoError);
  EXPECT_EQ(md.status().message(),
            "cannot read '" + dir + "/m/metadata.json': No such file or directory");
  EXPECT_FALSE(Exists(dir + "/a.tar"));
}

TEST(PackDirectoryTest, InvalidMetadataIsRefusedNamingTheDirectory) {
  const std::string dir = FreshDir("bad_metadata");
  WriteExampleDir(dir + "/m");
  WriteFile(dir + "/m/metadata.json", "{}");
  auto md = PackDirectory(dir + "/m", dir + "/a.tar", PackOptions{});
  ASSERT_FALSE(md.ok());
  EXPECT_EQ(md.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(md.status().message(),
            dir + "/m: metadata.json: missing integer field \"version\"");

  WriteFile(dir + "/m/metadata.json", "{\"version\": 10}");
  md = PackDirectory(dir + "/m", dir + "/a.tar", PackOptions{});
  ASSERT_FALSE(md.ok());
  EXPECT_EQ(md.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(md.status().message(),
            dir + "/m: metadata version 10 is newer than this mlfkit supports "
                  "(version 9); upgrade mlfkit");
  EXPECT_FALSE(Exists(dir + "/a.tar"));
}

TEST(PackDirectoryTest, SymlinkIsRefusedNamingIt) {
  const std::string dir = FreshDir("symlink");
  WriteExampleDir(dir + "/m");
  ASSERT_EQ(symlink("/etc/passwd", (dir + "/m/codegen/host/src/passwd").c_str()), 0);
  auto md = PackDirectory(dir + "/m", dir + "/a.tar", PackOptions{});
  ASSERT_FALSE(md.ok());
  EXPECT_EQ(md.status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(md.status().message(),
            "'codegen/host/src/passwd' in '" + dir +
                "/m' is not a regular file (links and special files are not packed)");
  EXPECT_FALSE(Exists(dir + "/a.tar"));

  // A symlinked directory is refused as well (never followed).
  unlink((dir + "/m/codegen/host/src/passwd").c_str());
  ASSERT_EQ(symlink("/etc", (dir + "/m/etc").c_str()), 0);
  md = PackDirectory(dir + "/m", dir + "/a.tar", PackOptions{});
  ASSERT_FALSE(md.ok());
  EXPECT_EQ(md.status().message(),
            "'etc' in '" + dir + "/m' is not a regular file (links and special files are not packed)");
}

TEST(PackDirectoryTest, MissingReferencedSourceIsRefused) {
  const std::string dir = FreshDir("missing_source");
  WriteExampleDir(dir + "/m");
  ASSERT_EQ(unlink((dir + "/m/" + testutil::kExampleSource).c_str()), 0);
  auto md = PackDirectory(dir + "/m", dir + "/a.tar", PackOptions{});
  ASSERT_FALSE(md.ok());
  EXPECT_EQ(md.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(md.status().message(),
            "'" + dir + "/m/codegen/host/src/default_lib0.c' does not exist (module 'default' "
            "sources refers to it)");
  EXPECT_FALSE(Exists(dir + "/a.tar"));
  EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"m"}));  // no temporary file left
}

// Found only when metadata.json is produced, after every member was written:
// the existing destination must survive that late failure.
TEST(WriteMlfArchiveTest, MissingReferencedMemberIsRefusedAndDestinationKept) {
  const std::string dir = FreshDir("missing_member");
  WriteFile(dir + "/a.tar", "old archive");
  for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
    SCOPED_TRACE(CompressionName(c));
    Example ex = MakeExample();
    ex.members.erase(testutil::kExampleSource);
    PackOptions options;
    options.compression = c;
    auto md = WriteMlfArchive(dir + "/a.tar", ex.metadata, ExampleMembers(ex), options);
    ASSERT_FALSE(md.ok());
    EXPECT_EQ(md.status().code(), StatusCode::kNotFound);
    EXPECT_EQ(md.status().message(),
              "member 'metadata.json': metadata.json: module 'default': sources entry "
              "'codegen/host/src/default_lib0.c' is not listed in files");
    EXPECT_EQ(ReadFile(dir + "/a.tar"), "old archive");
    EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"a.tar"}));  // no temporary file

    ex = MakeExample();
    ex.members.erase(testutil::kExampleModel);
    md = WriteMlfArchive(dir + "/a.tar", ex.metadata, ExampleMembers(ex), options);
    ASSERT_FALSE(md.ok());
    EXPECT_EQ(md.status().message(),
              "member 'metadata.json': metadata.json: module 'default': source.path "
              "'src/default.onnx' is not listed in files");
    EXPECT_EQ(ReadFile(dir + "/a.tar"), "old archive");
    EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"a.tar"}));
  }
}

TEST(PackDirectoryTest, FailureLeavesAnExistingDestinationIntact) {
  const std::string dir = FreshDir("keep_dest");
  WriteExampleDir(dir + "/m");
  ASSERT_TRUE(PackDirectory(dir + "/m", dir + "/a.tar", PackOptions{}).ok());
  const std::string before = ReadFile(dir + "/a.tar");
  ASSERT_EQ(unlink((dir + "/m/" + testutil::kExampleParams).c_str()), 0);
  for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
    PackOptions options;
    options.compression = c;
    auto md = PackDirectory(dir + "/m", dir + "/a.tar", options);
    ASSERT_FALSE(md.ok()) << CompressionName(c);
    EXPECT_EQ(md.status().message(),
              "'" + dir + "/m/parameters/default.bin' does not exist (module 'default' "
              "parameters.path refers to it)");
    EXPECT_EQ(ReadFile(dir + "/a.tar"), before);
    EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"a.tar", "m"}));
  }
}

TEST(WriteMlfArchiveTest, MetadataJsonAsMemberIsRefused) {
  const std::string dir = FreshDir("metadata_member");
  Example ex = MakeExample();
  std::vector<ArchiveMember> members = ExampleMembers(ex);
  members.push_back(ArchiveMember{kMetadataMember, MemberSource::Bytes("{}"), false});
  auto md = WriteMlfArchive(dir + "/a.tar", ex.metadata, members, PackOptions{});
  ASSERT_FALSE(md.ok());
  EXPECT_EQ(md.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(md.status().message(), "members must not include metadata.json");
  EXPECT_FALSE(Exists(dir + "/a.tar"));
}

TEST(WriteMlfArchiveTest, DuplicateMemberIsRefused) {
  const std::string dir = FreshDir("duplicate_member");
  Example ex = MakeExample();
  std::vector<ArchiveMember> members = ExampleMembers(ex);
  members.push_back(members[0]);
  auto md = WriteMlfArchive(dir + "/a.tar", ex.metadata, members, PackOptions{});
  ASSERT_FALSE(md.ok());
  EXPECT_EQ(md.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(md.status().message(), "member '" + members[0].name + "': duplicate member");
  EXPECT_FALSE(Exists(dir + "/a.tar"));
}

TEST(WriteMlfArchiveTest, MissingOutputDirectoryIsRefused) {
  const std::string dir = FreshDir("no_out_dir");
  Example ex = MakeExample();
  const std::string out = dir + "/missing/a.tar";
  auto md = WriteMlfArchive(out, ex.metadata, ExampleMembers(ex), PackOptions{});
  ASSERT_FALSE(md.ok());
  EXPECT_EQ(md.status().code(), StatusCode::kIoError);
  EXPECT_EQ(md.status().message(), "cannot open directory '" + dir + "/missing' to write '" + out +
                                       "': No such file or directory");
  EXPECT_FALSE(Exists(dir + "/missing"));
  EXPECT_TRUE(ListDir(dir).empty());

  testutil::WriteExampleDir(dir + "/m");
  auto packed = PackDirectory(dir + "/m", out, PackOptions{});
  ASSERT_FALSE(packed.ok());
  EXPECT_EQ(packed.status().message(), md.status().message());
  EXPECT_FALSE(Exists(dir + "/missing"));
}

// --------------------------------------------------- SOURCE_DATE_EPOCH --

class SourceDateEpochTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* v = std::getenv("SOURCE_DATE_EPOCH");
    if (v != nullptr) saved_ = v;
  }
  void TearDown() override {
    if (saved_) {
      setenv("SOURCE_DATE_EPOCH", saved_->c_str(), 1);
    } else {
      unsetenv("SOURCE_DATE_EPOCH");
    }
  }
  std::optional<std::string> saved_;
};

TEST_F(SourceDateEpochTest, UnsetOrEmptyIsZero) {
  unsetenv("SOURCE_DATE_EPOCH");
  auto t = ArchiveMtimeFromEnvironment();
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, 0);
  setenv("SOURCE_DATE_EPOCH", "", 1);
  t = ArchiveMtimeFromEnvironment();
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, 0);
}

TEST_F(SourceDateEpochTest, IntegerIsUsed) {
  setenv("SOURCE_DATE_EPOCH", "123", 1);
  auto t = ArchiveMtimeFromEnvironment();
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, 123);
  setenv("SOURCE_DATE_EPOCH", "0", 1);
  t = ArchiveMtimeFromEnvironment();
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, 0);
  setenv("SOURCE_DATE_EPOCH", "10000000000", 1);
  t = ArchiveMtimeFromEnvironment();
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, 10000000000);
}

TEST_F(SourceDateEpochTest, NonIntegersAreRefused) {
  for (const char* bad : {"abc", "-5", "12abc", "1.5", "99999999999999999999999"}) {
    setenv("SOURCE_DATE_EPOCH", bad, 1);
    auto t = ArchiveMtimeFromEnvironment();
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(t.status().message(), std::string("SOURCE_DATE_EPOCH='") + bad +
                                        "' is not a non-negative integer number of seconds");
  }
}


// ------------------------------------------------- signature in a directory --

// A directory holding an archive's exact metadata.json and its signature (as
// `mlf unpack` leaves it) packs back into the very same, still verifying, archive.
TEST(PackDirectoryTest, RepackingAnExtractedSignedArchiveIsByteIdentical) {
  const std::string dir = FreshDir("repack_signed");
  const KeyPair key = *GenerateKeyPair();
  testutil::WriteExampleArchive(dir + "/unsigned.tar", Compression::kNone, 77);
  auto members = ReadMembers(dir + "/unsigned.tar");
  auto sig = Sign(key.private_pem, members[0].data);
  ASSERT_TRUE(sig.ok());
  // The signed archive, written as the writer would.
  std::vector<ArchiveMember> rest{{kSignatureMember, MemberSource::Bytes(*sig), false}};
  for (size_t i = 1; i < members.size(); ++i) {
    rest.push_back({members[i].name, MemberSource::Bytes(members[i].data),
                    IsAlignedMember(members[i].name)});
  }
  WriteOptions wo;
  wo.mtime = 77;
  const std::string metadata = members[0].data;
  ASSERT_TRUE(WriteArchive(dir + "/signed.tar", kMetadataMember, metadata.size(),
                           [&](const DigestMap&) -> Result<std::string> { return metadata; }, rest,
                           wo)
                  .ok());
  // Its extracted tree.
  for (const auto& m : ReadMembers(dir + "/signed.tar")) {
    testutil::MakeDirs(testutil::DirName(dir + "/tree/" + m.name));
    WriteFile(dir + "/tree/" + m.name, m.data);
  }
  PackOptions options;
  options.mtime = 77;
  ASSERT_TRUE(PackDirectory(dir + "/tree", dir + "/repacked.tar", options).ok());
  EXPECT_EQ(ReadFile(dir + "/repacked.tar"), ReadFile(dir + "/signed.tar"));
  VerifyOptions vo;
  vo.public_key_pem = key.public_pem;
  auto report = VerifyArchive(dir + "/repacked.tar", vo);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->signature_checked);
}

// A metadata.json.sig in the directory is packed only when it is well formed
// (and signs exactly the metadata.json written); otherwise packing refuses.
TEST(PackDirectoryTest, MalformedSignatureFileIsNotPackedIntoABrokenArchive) {
  const std::string dir = FreshDir("malformed_sig_file");
  WriteExampleDir(dir + "/m");
  WriteFile(dir + "/m/metadata.json.sig", "not a signature\n");
  auto md = PackDirectory(dir + "/m", dir + "/a.tar", PackOptions{});
  ASSERT_FALSE(md.ok()) << "a malformed metadata.json.sig was packed";
  EXPECT_EQ(md.status().code(), StatusCode::kUnauthenticated) << md.status().ToString();
  EXPECT_EQ(md.status().message(),
            dir + "/m/metadata.json.sig: malformed signature member: expected exactly 4 lines, got 1");
  EXPECT_FALSE(Exists(dir + "/a.tar"));
}

TEST(PackDirectoryTest, UnsafeFileNameIsRefused) {
  const std::string dir = FreshDir("unsafe_name");
  WriteExampleDir(dir + "/m");
  WriteFile(dir + "/m/back\\slash.txt", "x");
  auto md = PackDirectory(dir + "/m", dir + "/a.tar", PackOptions{});
  ASSERT_FALSE(md.ok());
  EXPECT_EQ(md.status().code(), StatusCode::kInvalidArgument);
  // Messages double a backslash (artifact/base/display_text.h).
  EXPECT_EQ(md.status().message(),
            "'back\\\\slash.txt' in '" + dir + "/m' is not a valid member name");
  EXPECT_FALSE(Exists(dir + "/a.tar"));
}

// SOURCE_DATE_EPOCH is decimal digits only (the output of `date +%s`).
TEST_F(SourceDateEpochTest, OnlyDecimalDigitsAreAccepted) {
  for (const char* bad : {" 12", "+12", "\t12"}) {
    setenv("SOURCE_DATE_EPOCH", bad, 1);
    auto t = ArchiveMtimeFromEnvironment();
    ASSERT_FALSE(t.ok()) << "'" << bad << "' was accepted as " << *t;
    EXPECT_EQ(t.status().message(), std::string("SOURCE_DATE_EPOCH='") + bad +
                                        "' is not a non-negative integer number of seconds");
  }
}

}  // namespace
}  // namespace mlf
