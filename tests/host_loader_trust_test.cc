// No code from an archive runs before the archive has passed verification:
// the "marker" fixture's library writes a file from its constructor, so the
// file's existence tells whether dlopen happened. The archive also holds a
// module with a parameter blob, the only thing the verification memo may
// spare from rehashing.
//
// The cache tests run as root in CI (as every test does): another user's
// directory is made with chown, the victim runs `mlf` under setpriv, and
// what is asserted is the owner and mode check, never a permission error.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "artifact/archive/archive_reader.h"
#include "artifact/archive/sign.h"
#include "artifact/archive/signature.h"
#include "artifact/base/digest.h"
#include "loader/host/compile_cache.h"
#include "loader/host/model_library.h"
#include "loader/host/verification_memo.h"
#include "tests/fixtures/fixture_models.h"
#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

// Where `member`'s data starts in the uncompressed `archive`, its size, and
// how many member data bytes verification reads up to its end (what
// VerifyOptions::progress counts).
struct MemberPlace {
  uint64_t offset = kUnknownOffset;
  uint64_t size = 0;
  uint64_t done_at_end = 0;
};

MemberPlace FindMember(const std::string& archive, const std::string& member) {
  MemberPlace place;
  auto reader = ArchiveReader::Open(archive);
  EXPECT_TRUE(reader.ok());
  uint64_t done = 0;
  for (;;) {
    auto e = (*reader)->Next();
    if (!e.ok() || !*e) break;
    if ((*e)->name != "metadata.json" && (*e)->name != "metadata.json.sig") done += (*e)->size;
    if ((*e)->name == member) place = MemberPlace{(*e)->data_offset, (*e)->size, done};
  }
  EXPECT_NE(place.offset, kUnknownOffset) << member;
  return place;
}

// The bytes of `member` of `archive`.
std::string MemberBytes(const std::string& archive, const std::string& member) {
  const MemberPlace place = FindMember(archive, member);
  return ReadFile(archive).substr(place.offset, place.size);
}

// Waits until `path`'s status-change time is settled for the memo
// (VerificationMemo::kSettleSeconds older than the coarse clock), so that
// the next full verification records it whatever the timestamp granularity.
void WaitUntilSettled(const std::string& path) {
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  for (int i = 0; i < 100; ++i) {
    timespec now{};
    clock_gettime(CLOCK_REALTIME_COARSE, &now);
    if (now.tv_sec > st.st_ctim.tv_sec + VerificationMemo::kSettleSeconds) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  FAIL() << path << " did not settle";
}

class HostLoaderTrustTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    marker_ = dir_ + "/loaded.marker";
    testing::FixtureOptions fixture;
    fixture.marker_path = marker_;
    auto m = testing::MakeFixture("marker", "marker", fixture);
    auto weights = testing::MakeFixture("dense_file", "weights");
    ASSERT_TRUE(m.ok() && weights.ok());
    archive_ = dir_ + "/marker.tar";
    ASSERT_TRUE(testing::WriteFixtureArchive({*m, *weights}, archive_).ok());
    auto keys = GenerateKeyPair();
    auto other = GenerateKeyPair();
    ASSERT_TRUE(keys.ok() && other.ok());
    keys_ = *keys;
    other_ = *other;
    signed_ = dir_ + "/signed.tar";
    ASSERT_TRUE(SignArchive(archive_, keys_.private_pem, signed_, {}).ok());
    options_.cache_dir = dir_ + "/cache";
  }

  // Opens `archive` and reports whether the library's constructor ran.
  Status OpenAndCheckMarker(const std::string& archive, bool* loaded) {
    unlink(marker_.c_str());
    auto lib = ModelLibrary::Open(archive, options_);
    *loaded = Exists(marker_);
    return lib.status();
  }

  // Flips one byte inside the data of `member` of an uncompressed archive.
  std::string Corrupt(const std::string& archive, const std::string& member) {
    auto reader = ArchiveReader::Open(archive);
    uint64_t offset = kUnknownOffset;
    for (;;) {
      auto e = (*reader)->Next();
      if (!e.ok() || !*e) break;
      if ((*e)->name == member) offset = (*e)->data_offset + (*e)->size / 2;
    }
    EXPECT_NE(offset, kUnknownOffset);
    std::string bytes = ReadFile(archive);
    bytes[offset] ^= 0x01;
    const std::string out = dir_ + "/corrupt.tar";
    WriteFile(out, bytes);
    return out;
  }

  std::string dir_, marker_, archive_, signed_;
  KeyPair keys_, other_;
  LoadOptions options_;
};

TEST_F(HostLoaderTrustTest, AValidArchiveLoadsItsLibrary) {
  bool loaded = false;
  EXPECT_TRUE(OpenAndCheckMarker(archive_, &loaded).ok());
  EXPECT_TRUE(loaded);
  options_.public_key_pem = keys_.public_pem;
  EXPECT_TRUE(OpenAndCheckMarker(signed_, &loaded).ok());
  EXPECT_TRUE(loaded);
}

TEST_F(HostLoaderTrustTest, WrongDigestOfTheLibraryIsRefusedBeforeLoading) {
  bool loaded = true;
  const std::string bad = Corrupt(archive_, "codegen/host/lib/marker.so");
  Status s = OpenAndCheckMarker(bad, &loaded);
  EXPECT_FALSE(loaded);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("member 'codegen/host/lib/marker.so': SHA-256 mismatch"),
            std::string::npos)
      << s.message();
}

TEST_F(HostLoaderTrustTest, WrongDigestOfAnotherMemberIsRefusedBeforeLoading) {
  bool loaded = true;
  Status s = OpenAndCheckMarker(Corrupt(archive_, "codegen/host/src/marker_lib0.c"), &loaded);
  EXPECT_FALSE(loaded);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
}

TEST_F(HostLoaderTrustTest, WrongSignatureIsRefusedBeforeLoading) {
  options_.public_key_pem = other_.public_pem;
  bool loaded = true;
  Status s = OpenAndCheckMarker(signed_, &loaded);
  EXPECT_FALSE(loaded);
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_NE(s.message().find("signed by a different key"), std::string::npos) << s.message();
}

TEST_F(HostLoaderTrustTest, UnsignedArchiveIsRefusedWhenAKeyIsConfigured) {
  options_.public_key_pem = keys_.public_pem;
  bool loaded = true;
  Status s = OpenAndCheckMarker(archive_, &loaded);
  EXPECT_FALSE(loaded);
  EXPECT_EQ(s.message(), archive_ +
                             ": archive is not signed (no metadata.json.sig after metadata.json) "
                             "but a signature is required; sign it with `mlf sign`");
}

TEST_F(HostLoaderTrustTest, TamperedMetadataUnderTheRightKeyIsRefusedBeforeLoading) {
  // The same JSON in other bytes (": " becomes " :"), so only the signature
  // can tell; the archive stays a valid tar of the same size.
  std::string bytes = ReadFile(signed_);
  const size_t metadata = bytes.find("{");
  const size_t colon = bytes.find("\": ", metadata);
  ASSERT_NE(colon, std::string::npos);
  bytes.replace(colon + 1, 2, " :");
  const std::string tampered = dir_ + "/tampered.tar";
  WriteFile(tampered, bytes);
  options_.public_key_pem = keys_.public_pem;
  bool loaded = true;
  Status s = OpenAndCheckMarker(tampered, &loaded);
  EXPECT_FALSE(loaded);
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(s.message(), tampered + ": signature does not match: the signed data or the "
                                    "signature was altered");
  // Without a key the same archive loads: nothing proves who made it.
  options_.public_key_pem.reset();
  EXPECT_TRUE(OpenAndCheckMarker(tampered, &loaded).ok());
  EXPECT_TRUE(loaded);
}

TEST_F(HostLoaderTrustTest, RequireSignatureWithoutKeyRefusesUnsigned) {
  options_.require_signature = true;
  bool loaded = true;
  EXPECT_FALSE(OpenAndCheckMarker(archive_, &loaded).ok());
  EXPECT_FALSE(loaded);
}

// Flips one byte of `path` in place (same inode), then puts its modification
// time back, as a tamperer hiding the change would.
void TamperInPlace(const std::string& path, uint64_t offset) {
  struct stat before {};
  ASSERT_EQ(stat(path.c_str(), &before), 0);
  const int fd = open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  char byte = 0;
  ASSERT_EQ(pread(fd, &byte, 1, static_cast<off_t>(offset)), 1);
  byte ^= 0x01;
  ASSERT_EQ(pwrite(fd, &byte, 1, static_cast<off_t>(offset)), 1);
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(futimens(fd, times), 0);
  close(fd);
}

std::string Mismatch(const std::string& member, const std::string& actual,
                     const std::string& listed) {
  return "member '" + member + "': SHA-256 mismatch (archive has " + actual +
         ", metadata.json files says " + listed + ")";
}

TEST_F(HostLoaderTrustTest, TheMemoSparesOnlyTheParametersOfTheUnchangedFile) {
  WaitUntilSettled(archive_);
  auto first = ModelLibrary::Open(archive_, options_);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE((*first)->digests_checked());
  auto second = ModelLibrary::Open(archive_, options_);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE((*second)->digests_checked());

  // A parameter byte changes in place and the mtime is restored. The memo
  // recorded a settled status-change time, and this write stamps a later one
  // whatever the clock's granularity, so the memo misses and the full check
  // refuses the archive before loading anything.
  const std::string blob = "parameters/weights.bin";
  const std::string listed = Sha256Hex(MemberBytes(archive_, blob));
  const MemberPlace place = FindMember(archive_, blob);
  TamperInPlace(archive_, place.offset + place.size / 2);
  bool loaded = true;
  Status s = OpenAndCheckMarker(archive_, &loaded);
  EXPECT_FALSE(loaded);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.ToString();
  EXPECT_EQ(s.message(),
            archive_ + ": " + Mismatch(blob, Sha256Hex(MemberBytes(archive_, blob)), listed));
}

TEST_F(HostLoaderTrustTest, AFileChangedJustNowIsNotMemoised) {
  WriteFile(archive_, ReadFile(archive_));  // a fresh status-change time
  const int fd = open(archive_.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  std::optional<FileIdentity> identity = VerificationMemo::Identify(fd);
  ASSERT_TRUE(identity.has_value());
  EXPECT_FALSE(identity->settled);
  auto cache = PrivateCacheDir::Open({options_.cache_dir, ""}, true);
  ASSERT_TRUE(cache.ok() && cache->has_value());
  const VerificationMemo memo(**cache);
  EXPECT_FALSE(memo.Record(*identity, fd, std::string(64, '0')));
  EXPECT_FALSE(memo.Lookup(*identity).has_value());
  close(fd);
}

// H3 (b): the identity is taken before hashing and the memo recorded only if
// it is unchanged after, so a file changed while it is being hashed is
// hashed again next time.
TEST_F(HostLoaderTrustTest, AFileChangedWhileItIsHashedIsNotMemoised) {
  WaitUntilSettled(archive_);
  const std::string blob = "parameters/weights.bin";
  const MemberPlace place = FindMember(archive_, blob);
  const std::string listed = Sha256Hex(MemberBytes(archive_, blob));
  bool changed = false;
  options_.progress = [&](uint64_t done, uint64_t) {
    if (changed || done < place.done_at_end) return;
    // The blob has just been hashed: change it, and its modification time to
    // one it never had, so the identity differs whatever the clock does.
    changed = true;
    struct stat st {};
    ASSERT_EQ(stat(archive_.c_str(), &st), 0);
    TamperInPlace(archive_, place.offset + place.size / 2);
    const struct timespec times[2] = {st.st_atim, {st.st_mtim.tv_sec - 7, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, archive_.c_str(), times, 0), 0);
  };
  auto first = ModelLibrary::Open(archive_, options_);
  ASSERT_TRUE(first.ok()) << first.status().ToString();  // hashed before it changed
  ASSERT_TRUE(changed);
  options_.progress = nullptr;
  WaitUntilSettled(archive_);  // a settled identity now: only "before" can tell
  auto second = ModelLibrary::Open(archive_, options_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(),
            archive_ + ": " + Mismatch(blob, Sha256Hex(MemberBytes(archive_, blob)), listed));
}

// H3 (a): code replaced in place through a shared mapping (writes to a
// dirty page change no timestamp), with a memo that vouches for the file as
// it now is: the signed run still hashes the library as it copies it into
// the sealed memfd, and refuses it.
TEST_F(HostLoaderTrustTest, CodeChangedThroughASharedMappingIsNeverLoaded) {
  const std::string library = "codegen/host/lib/marker.so";
  // Another library of the same size whose constructor writes another file.
  const std::string evil_marker = dir_ + "/evil00.marker";
  ASSERT_EQ(evil_marker.size(), marker_.size());
  testing::FixtureOptions fixture;
  fixture.marker_path = evil_marker;
  auto evil = testing::MakeFixture("marker", "marker", fixture);
  ASSERT_TRUE(evil.ok());
  ASSERT_TRUE(testing::WriteFixtureArchive({*evil}, dir_ + "/evil.tar").ok());
  const std::string evil_bytes = MemberBytes(dir_ + "/evil.tar", library);
  const std::string genuine = MemberBytes(signed_, library);
  ASSERT_EQ(evil_bytes.size(), genuine.size());
  ASSERT_NE(evil_bytes, genuine);

  options_.public_key_pem = keys_.public_pem;
  options_.require_signature = true;
  WaitUntilSettled(signed_);
  ASSERT_TRUE(ModelLibrary::Open(signed_, options_).ok());
  auto memoised = ModelLibrary::Open(signed_, options_);
  ASSERT_TRUE(memoised.ok());
  ASSERT_FALSE((*memoised)->digests_checked());  // the memo vouches for the file

  const int fd = open(signed_.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  const size_t size = ReadFile(signed_).size();
  void* map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(map, MAP_FAILED);
  const uint64_t offset = FindMember(signed_, library).offset;
  static_cast<char*>(map)[offset] = static_cast<char*>(map)[offset];  // dirty the page first
  memcpy(static_cast<char*>(map) + offset, evil_bytes.data(), evil_bytes.size());
  munmap(map, size);
  // Whatever the kernel did to the timestamps, the memo vouches for the
  // modified file as it now is.
  WaitUntilSettled(signed_);
  std::optional<FileIdentity> now = VerificationMemo::Identify(fd);
  ASSERT_TRUE(now.has_value());
  auto cache = PrivateCacheDir::Open({options_.cache_dir, ""}, false);
  ASSERT_TRUE(cache.ok() && cache->has_value());
  const std::string metadata_sha256 = Sha256Hex(MemberBytes(signed_, "metadata.json"));
  ASSERT_TRUE(VerificationMemo(**cache).Record(*now, fd, metadata_sha256));
  ASSERT_EQ(VerificationMemo(**cache).Lookup(*now), metadata_sha256);
  close(fd);

  bool loaded = true;
  Status s = OpenAndCheckMarker(signed_, &loaded);
  EXPECT_FALSE(loaded);
  EXPECT_FALSE(Exists(evil_marker));
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(),
            signed_ + ": " + Mismatch(library, Sha256Hex(evil_bytes), Sha256Hex(genuine)));
}

// A compiled library in the cache whose bytes are not the digest recorded
// at insertion is compiled again, never loaded.
TEST_F(HostLoaderTrustTest, ACachedLibraryWithoutItsRecordedDigestIsCompiledAgain) {
  testing::FixtureOptions fixture;
  fixture.marker_path = dir_ + "/compiled.marker";
  auto m = testing::MakeFixture("marker", "marker", fixture);
  ASSERT_TRUE(m.ok());
  ExportOptions sources_only;
  sources_only.build_host_library = false;
  const std::string archive = dir_ + "/sources.tar";
  ASSERT_TRUE(testing::WriteFixtureArchive({*m}, archive, sources_only).ok());
  auto first = ModelLibrary::Open(archive, options_);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ((*first)->code_origin("marker"), "compiled");
  EXPECT_TRUE(Exists(dir_ + "/compiled.marker"));
  first->reset();
  const std::vector<std::string> entries = testutil::ListDir(options_.cache_dir + "/host-libs");
  ASSERT_EQ(entries.size(), 1u);
  const std::string entry = options_.cache_dir + "/host-libs/" + entries[0];
  // The marker library of the SetUp archive, under the genuine digest.
  const std::string recorded = ReadFile(entry).substr(0, 23 + 65);
  ASSERT_EQ(recorded.substr(0, 23), "mlfkit-host-library-v1\n");
  WriteFile(entry, recorded + MemberBytes(archive_, "codegen/host/lib/marker.so"));
  unlink((dir_ + "/compiled.marker").c_str());
  bool planted_ran = true;
  auto again = ModelLibrary::Open(archive, options_);
  planted_ran = Exists(marker_);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(planted_ran);
  EXPECT_EQ((*again)->code_origin("marker"), "compiled");
  auto third = ModelLibrary::Open(archive, options_);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ((*third)->code_origin("marker"), "cache");
}

TEST_F(HostLoaderTrustTest, TheMemoCanBeTurnedOff) {
  options_.use_verification_memo = false;
  for (int i = 0; i < 2; ++i) {
    auto lib = ModelLibrary::Open(archive_, options_);
    ASSERT_TRUE(lib.ok());
    EXPECT_TRUE((*lib)->digests_checked());
  }
}

TEST_F(HostLoaderTrustTest, TheMemoStillChecksTheSignature) {
  ASSERT_TRUE(ModelLibrary::Open(signed_, options_).ok());  // memo recorded, no key
  options_.public_key_pem = other_.public_pem;
  auto lib = ModelLibrary::Open(signed_, options_);
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().code(), StatusCode::kUnauthenticated);
}

// H4: the victim (uid 12345, run with setpriv and an environment of PATH
// only, as a service would be) runs a signed archive that ships no host library, so its
// sources are compiled through the cache. Another user (uid 65534) planted a
// valid cache entry for exactly that build — its recorded digest matches —
// whose constructor would write a file the victim may write.
constexpr uid_t kVictim = 12345;
constexpr uid_t kOther = 65534;

class VictimCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/mlfkit-h4-XXXXXX";  // readable by the victim, unlike $TEST_TMPDIR
    ASSERT_NE(mkdtemp(pattern), nullptr);
    base_ = pattern;
    ASSERT_EQ(chmod(base_.c_str(), 0755), 0);
    mlf_ = base_ + "/mlf";
    WriteFile(mlf_, ReadFile(MlfBinary()));
    ASSERT_EQ(chmod(mlf_.c_str(), 0755), 0);

    auto keys = GenerateKeyPair();
    ASSERT_TRUE(keys.ok());
    key_ = base_ + "/k.pub";
    WriteFile(key_, keys->public_pem);
    auto identity = testing::MakeFixture("identity", "identity");
    ASSERT_TRUE(identity.ok());
    ExportOptions sources_only;
    sources_only.build_host_library = false;
    ASSERT_TRUE(testing::WriteFixtureArchive({*identity}, base_ + "/unsigned.tar", sources_only).ok());
    archive_ = base_ + "/v.tar";
    ASSERT_TRUE(SignArchive(base_ + "/unsigned.tar", keys->private_pem, archive_, {}).ok());
    for (const std::string& f : {key_, archive_}) ASSERT_EQ(chmod(f.c_str(), 0644), 0);

    // The planted code writes into a directory the victim owns.
    const std::string out = base_ + "/out";
    ASSERT_EQ(mkdir(out.c_str(), 0755), 0);
    ASSERT_EQ(chown(out.c_str(), kVictim, kVictim), 0);
    planted_marker_ = out + "/planted.marker";
    testing::FixtureOptions fixture;
    fixture.marker_path = planted_marker_;
    auto marker = testing::MakeFixture("marker", "marker", fixture);
    ASSERT_TRUE(marker.ok());
    ASSERT_TRUE(testing::WriteFixtureArchive({*marker}, base_ + "/marker.tar").ok());
    planted_ = MemberBytes(base_ + "/marker.tar", "codegen/host/lib/marker.so");

    // The cache entry's name for the victim's build: the same binary, run
    // once with a cache of its own.
    CommandResult learn = RunCommand({"env", "-i", kPath, "MLF_CACHE_DIR=" + base_ + "/learn", mlf_, "run",
                                      archive_, "--random-inputs", "1", "--key", key_,
                                      "--require-signature"});
    ASSERT_EQ(learn.exit_code, 0) << learn.err;
    const std::vector<std::string> entries = testutil::ListDir(base_ + "/learn/host-libs");
    ASSERT_EQ(entries.size(), 1u);
    entry_ = entries[0];
    ASSERT_EQ(entry_.size(), 64u + 4);
  }

  void TearDown() override {
    RemoveTree(base_);
    RemoveTree(kPredictable);
  }

  // A cache directory holding a valid entry of the planted library (and the
  // older layout's <key>.so), all owned by `owner`, the directory with `mode`
  // (what is inside private too when `mode` is 0700, else readable by all).
  void Plant(const std::string& dir, uid_t owner, mode_t mode) {
    MakeDirs(dir + "/host-libs");
    WriteFile(dir + "/host-libs/" + entry_, EncodeHostLibraryEntry(planted_));
    WriteFile(dir + "/host-libs/" + entry_.substr(0, 64) + ".so", planted_);
    for (const std::string& p : {dir, dir + "/host-libs", dir + "/host-libs/" + entry_,
                                 dir + "/host-libs/" + entry_.substr(0, 64) + ".so"}) {
      ASSERT_EQ(chown(p.c_str(), owner, owner), 0) << p;
      const bool is_dir = p == dir || p == dir + "/host-libs";
      const mode_t inner = mode == 0700 ? (is_dir ? 0700 : 0600) : (is_dir ? 0755 : 0644);
      ASSERT_EQ(chmod(p.c_str(), p == dir ? mode : inner), 0) << p;
    }
  }

  // `mlf run` as the victim, with only `env` in its environment.
  CommandResult RunAsVictim(const std::vector<std::string>& env) {
    std::vector<std::string> argv = {"setpriv", "--reuid=" + std::to_string(kVictim),
                                     "--regid=" + std::to_string(kVictim), "--clear-groups",
                                     "env", "-i", kPath};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.insert(argv.end(), {mlf_, "run", archive_, "--random-inputs", "1", "--key", key_,
                             "--require-signature"});
    return RunCommand(argv);
  }

  static constexpr char kPredictable[] = "/tmp/mlfkit-cache-12345";  // the former fallback
  static constexpr char kPath[] = "PATH=/usr/bin:/bin";  // for the C compiler; no HOME
  std::string base_, mlf_, key_, archive_, planted_marker_, planted_, entry_;
};

TEST_F(VictimCacheTest, WithoutHomeNoPredictableDirectoryIsUsed) {
  // Owned by another user, then even by the victim with mode 0700: without a
  // variable naming a cache there is none, whoever owns the old name.
  for (uid_t owner : {kOther, kVictim}) {
    RemoveTree(kPredictable);
    Plant(kPredictable, owner, owner == kVictim ? 0700 : 0755);
    const std::map<std::string, std::string> before = testutil::ReadTree(kPredictable);
    CommandResult r = RunAsVictim({});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_FALSE(Exists(planted_marker_)) << "planted code ran (owner " << owner << ")";
    EXPECT_EQ(testutil::ReadTree(kPredictable), before);
  }
}

TEST_F(VictimCacheTest, AnotherUsersCacheIsRefused) {
  ASSERT_EQ(mkdir((base_ + "/xdg").c_str(), 0755), 0);
  Plant(base_ + "/xdg/mlfkit", kOther, 0755);  // readable: only the owner check stops it
  CommandResult r = RunAsVictim({"XDG_CACHE_HOME=" + base_ + "/xdg"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "mlf: error: " + archive_ + ": cache directory '" + base_ +
                       "/xdg/mlfkit' is owned by uid 65534, not by this user (uid 12345); not "
                       "using it: set XDG_CACHE_HOME or HOME to a directory of your own, or "
                       "MLF_CACHE_DIR to one with mode 0700\n");
  EXPECT_FALSE(Exists(planted_marker_));
}

TEST_F(VictimCacheTest, TheVictimsOwnCacheOpenToOthersIsRefused) {
  Plant(base_ + "/open", kVictim, 0777);
  CommandResult r = RunAsVictim({"MLF_CACHE_DIR=" + base_ + "/open"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "mlf: error: " + archive_ + ": cache directory '" + base_ +
                       "/open' is open to its group or others (mode 0777); not using it: set "
                       "MLF_CACHE_DIR to a directory of your own with mode 0700\n");
  EXPECT_FALSE(Exists(planted_marker_));

  MakeDirs(base_ + "/home/.cache");
  Plant(base_ + "/home/.cache/mlfkit", kVictim, 0770);
  r = RunAsVictim({"HOME=" + base_ + "/home"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "mlf: error: " + archive_ + ": cache directory '" + base_ +
                       "/home/.cache/mlfkit' is open to its group or others (mode 0770); not "
                       "using it: set XDG_CACHE_HOME or HOME to a directory of your own, or "
                       "MLF_CACHE_DIR to one with mode 0700\n");
  EXPECT_FALSE(Exists(planted_marker_));
}

TEST_F(VictimCacheTest, ThePlantedEntryWouldRunFromAPrivateCache) {
  // The control: the same entry in a cache that passes the checks is used,
  // so the refusals above are what kept the planted code from running.
  Plant(base_ + "/mine", kVictim, 0700);
  CommandResult r = RunAsVictim({"MLF_CACHE_DIR=" + base_ + "/mine"});
  EXPECT_TRUE(Exists(planted_marker_)) << r.err;
}

}  // namespace
}  // namespace mlf
