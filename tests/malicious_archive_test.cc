// A corpus of malicious and broken archives, each run through both
// `mlf verify` and `mlf unpack -o DEST`: every one must be refused (exit 1)
// with its own exact error, and nothing may be written outside DEST — in
// fact nothing at all: DEST must not exist afterwards and no staging or
// temporary file may be left beside it.
//
// The archives are built here from the bundled example: it is packed with
// the artifact library, its members are read back, and hostile variants are
// assembled with a hand-written tar builder (tests/tar_builder.h).
//
// Layout under $TEST_TMPDIR/corpus:
//   archives/<case>.tar      the hostile archives
//   keys/k1.pub, k2.pub      signing keys
//   sentinel/                watched tree: its full recursive listing must be
//     keep.txt, etc/passwd   identical before and after every run
//     out/                   parent of every DEST (sentinel/out/<case>) and
//                            the working directory of every mlf run
// Every escape attempt aims inside `sentinel` ("../x" from DEST lands in
// sentinel/out, absolute paths name sentinel/abs_pwned, the symlink points at
// sentinel/escaped), so a successful escape would show in the listing.
//
// After the corpus: a control (a valid archive is accepted and lands only in
// DEST), then tests that pin down product bugs found while writing the corpus:
// a file/directory path conflict that verify accepts and gzip trailer
// corruption that goes unnoticed (both fail until fixed), and unpack reading
// the archive path twice (verified bytes != extracted bytes; a FIFO served
// different archives to the two reads), fixed by the single-pass unpack.
#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "artifact/archive/archive_reader.h"
#include "artifact/archive/pack.h"
#include "artifact/archive/signature.h"
#include "artifact/base/digest.h"
#include "tests/run_command.h"
#include "tests/tar_builder.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

constexpr char kHeaderName[] = "codegen/host/include/tvmgen_tiny.h";
constexpr char kSourceName[] = "codegen/host/src/tiny_lib0.c";

// The valid example archive, member by member, and two key pairs.
struct Base {
  std::string metadata;  // metadata.json exactly as packed
  std::string header;    // kHeaderName
  std::string source;    // kSourceName
  KeyPair k1, k2;
  std::string k1_pub_path, k2_pub_path;
  std::string fp1, fp2;
  std::string sig1;  // metadata.json.sig over `metadata` by k1

  TarEntry Metadata() const { return TarFile("metadata.json", metadata); }
  TarEntry Header() const { return TarFile(kHeaderName, header); }
  TarEntry Source() const { return TarFile(kSourceName, source); }
  TarEntry Signature() const { return TarFile("metadata.json.sig", sig1); }
  std::vector<TarEntry> Members() const { return {Metadata(), Header(), Source()}; }
};

std::string Dump(const nlohmann::json& j) { return j.dump(2) + "\n"; }

TarEntry Special(const std::string& name, char type, const std::string& link = "") {
  TarEntry e;
  e.name = name;
  e.type = type;
  e.linkname = link;
  if (type == '5') e.mode = 0755;
  if (type == '3') {
    e.devmajor = 1;
    e.devminor = 3;
  }
  if (type == '4') e.devmajor = 8;
  return e;
}

enum class Policy { kNone, kKey1, kKey2, kRequire };

struct Case {
  std::string name;
  // Writes the archive to the given path.
  std::function<void(const std::string& path)> build;
  Policy policy = Policy::kNone;
  int exit_code = 1;
  // The message after "mlf: error: <archive>: ". `exact`: the whole message;
  // otherwise every part must occur in it. "{archive}" stands for the path.
  std::vector<std::string> parts;
  bool exact = true;
};

std::function<void(const std::string&)> Bytes(std::function<std::string()> make) {
  return [make](const std::string& path) { WriteFile(path, make()); };
}

std::function<void(const std::string&)> Tar(std::function<std::vector<TarEntry>()> entries) {
  return [entries](const std::string& path) { WriteFile(path, BuildTar(entries())); };
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) {
    s.replace(at, from.size(), to);
  }
  return s;
}

class MaliciousArchiveTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::signal(SIGPIPE, SIG_IGN);  // FifoServer writes to pipes whose reader may be gone
    root_ = FreshDir("corpus");
    MakeDirs(root_ + "/archives");
    MakeDirs(root_ + "/keys");
    sentinel_ = root_ + "/sentinel";
    MakeDirs(sentinel_ + "/out");
    MakeDirs(sentinel_ + "/etc");
    WriteFile(sentinel_ + "/keep.txt", "precious\n");
    WriteFile(sentinel_ + "/etc/passwd", "root:x:0:0::/root:/bin/sh\n");

    base_ = new Base();
    const std::string model = CopyExample(root_ + "/model");
    const std::string packed = root_ + "/base.tar";
    Result<mlf::Metadata> md = PackDirectory(model, packed, PackOptions{});
    ASSERT_TRUE(md.ok()) << md.status().ToString();
    Result<std::unique_ptr<ArchiveReader>> reader = ArchiveReader::Open(packed);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    std::map<std::string, std::string> members;
    for (;;) {
      Result<std::optional<EntryInfo>> e = (*reader)->Next();
      ASSERT_TRUE(e.ok()) << e.status().ToString();
      if (!*e) break;
      Result<std::string> data = (*reader)->ReadAll(1 << 20);
      ASSERT_TRUE(data.ok()) << data.status().ToString();
      members[(*e)->name] = *data;
    }
    ASSERT_EQ(members.size(), 3u);
    base_->metadata = members["metadata.json"];
    base_->header = members[kHeaderName];
    base_->source = members[kSourceName];

    for (auto [pair, fp] : {std::pair{&base_->k1, &base_->fp1}, std::pair{&base_->k2, &base_->fp2}}) {
      Result<KeyPair> k = GenerateKeyPair();
      ASSERT_TRUE(k.ok()) << k.status().ToString();
      *pair = *k;
      Result<std::string> f = PublicKeyFingerprint(k->public_pem);
      ASSERT_TRUE(f.ok()) << f.status().ToString();
      *fp = *f;
    }
    base_->k1_pub_path = root_ + "/keys/k1.pub";
    base_->k2_pub_path = root_ + "/keys/k2.pub";
    WriteFile(base_->k1_pub_path, base_->k1.public_pem);
    WriteFile(base_->k2_pub_path, base_->k2.public_pem);
    Result<std::string> sig = Sign(base_->k1.private_pem, base_->metadata);
    ASSERT_TRUE(sig.ok()) << sig.status().ToString();
    base_->sig1 = *sig;
  }

  static void TearDownTestSuite() {
    delete base_;
    base_ = nullptr;
  }

  static std::vector<std::string> PolicyFlags(Policy p) {
    switch (p) {
      case Policy::kNone: return {};
      case Policy::kKey1: return {"--key", base_->k1_pub_path};
      case Policy::kKey2: return {"--key", base_->k2_pub_path};
      case Policy::kRequire: return {"--require-signature"};
    }
    return {};
  }

  struct Outcome {
    bool refused = false;  // exit code and message as expected
    std::string err;
  };

  // Runs `mlf <command> archive [-o DEST] [policy]` and checks the outcome.
  static Outcome Run(const Case& c, const std::string& archive, bool unpack) {
    const std::string dest = sentinel_ + "/out/" + c.name;
    std::vector<std::string> argv = {MlfBinary(), unpack ? "unpack" : "verify", archive};
    if (unpack) argv.insert(argv.end(), {"-o", dest});
    for (const std::string& f : PolicyFlags(c.policy)) argv.push_back(f);
    RunOptions options;
    options.cwd = sentinel_ + "/out";
    options.env = {{"SOURCE_DATE_EPOCH", std::nullopt}};

    const auto before = ListTree(sentinel_);
    const CommandResult r = RunCommand(argv, options);
    const auto after = ListTree(sentinel_);
    const std::string why = c.name + ":\n" + Describe(argv, r);

    Outcome outcome;
    outcome.err = r.err;
    bool ok = true;
    auto check = [&](bool condition, const std::string& what) {
      if (!condition) {
        ok = false;
        ADD_FAILURE() << what << "\n" << why;
      }
    };
    check(!r.signaled, "mlf was killed by a signal");
    check(r.exit_code == c.exit_code, "unexpected exit code");
    check(r.out.empty(), "nothing may be printed on stdout on failure");
    const std::string prefix = "mlf: error: " + archive + ": ";
    if (c.exact) {
      const std::string expected = prefix + Replace(c.parts.at(0), "{archive}", archive) + "\n";
      check(r.err == expected, "stderr is not exactly:\n" + expected);
    } else {
      check(r.err.rfind(prefix, 0) == 0, "stderr does not start with '" + prefix + "'");
      check(r.err.find('\n') == r.err.size() - 1, "stderr is not one line");
      for (const std::string& part : c.parts) {
        check(r.err.find(Replace(part, "{archive}", archive)) != std::string::npos,
              "stderr lacks '" + part + "'");
      }
    }
    check(before == after, "the sentinel tree changed:\nbefore:\n" + FormatListing(before) +
                               "after:\n" + FormatListing(after));
    check(!Exists(dest), "DEST exists after a failed run");
    outcome.refused = ok;
    return outcome;
  }

  static std::string root_;
  static std::string sentinel_;
  static Base* base_;
};

std::string MaliciousArchiveTest::root_;
std::string MaliciousArchiveTest::sentinel_;
Base* MaliciousArchiveTest::base_ = nullptr;

// A gzip stream whose deflate data holds the first `valid_prefix` bytes of
// `tar` in stored blocks, followed by a block of the reserved type 3.
std::string CorruptGzip(const std::string& tar, size_t valid_prefix) {
  std::string out("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);
  // Stored (uncompressed) deflate blocks, not final: 5-byte header each.
  for (size_t at = 0; at < valid_prefix; at += 65535) {
    const size_t n = std::min<size_t>(65535, valid_prefix - at);
    out += static_cast<char>(0x00);  // BFINAL=0, BTYPE=00
    out += static_cast<char>(n & 0xff);
    out += static_cast<char>(n >> 8);
    out += static_cast<char>(~n & 0xff);
    out += static_cast<char>((~n >> 8) & 0xff);
    out += tar.substr(at, n);
  }
  out += static_cast<char>(0x07);  // BFINAL=1, BTYPE=11: reserved, an error
  out += std::string(16, '\0');
  return out;
}

std::vector<Case> Corpus(const Base& b, const std::string& sentinel) {
  const std::string abs_target = sentinel + "/abs_pwned";
  const std::string source_sha = Sha256Hex(b.source);
  std::string changed = b.source;
  changed[changed.find("0.1f")] = '9';  // a changed constant, same size
  const std::string long_name = std::string(5000, 'n');

  auto edit_metadata = [&b](std::function<void(nlohmann::json&)> edit) {
    nlohmann::json j = nlohmann::json::parse(b.metadata);
    edit(j);
    return Dump(j);
  };
  auto with_metadata = [&b](const std::string& md) {
    return std::vector<TarEntry>{TarFile("metadata.json", md), b.Header(), b.Source()};
  };

  std::vector<Case> cases;
  // ------------------------------------------------------------ unsafe paths and types
  cases.push_back({"path_traversal", Tar([&b] {
                     return std::vector<TarEntry>{b.Metadata(), TarFile("../x", "pwned\n"),
                                                  b.Header(), b.Source()};
                   }),
                   Policy::kNone, 1,
                   {"member '../x': path escapes the destination ('..' component)"}});
  cases.push_back({"nested_traversal", Tar([&b] {
                     return std::vector<TarEntry>{b.Metadata(), b.Header(), b.Source(),
                                                  TarFile("a/../../x", "pwned\n")};
                   }),
                   Policy::kNone, 1,
                   {"member 'a/../../x': path escapes the destination ('..' component)"}});
  cases.push_back({"pax_path_traversal", Tar([&b] {
                     TarEntry e = TarFile("innocent.txt", "pwned\n");
                     e.pax = {{"path", "../../pax_pwned"}};
                     return std::vector<TarEntry>{b.Metadata(), e, b.Header(), b.Source()};
                   }),
                   Policy::kNone, 1,
                   {"member '../../pax_pwned': path escapes the destination ('..' component)"}});
  cases.push_back({"directory_traversal", Tar([&b] {
                     return std::vector<TarEntry>{b.Metadata(), Special("../evil_dir/", '5'),
                                                  b.Header(), b.Source()};
                   }),
                   Policy::kNone, 1,
                   {"member '../evil_dir/': path escapes the destination ('..' component)"}});
  cases.push_back({"absolute_path", Tar([&b, abs_target] {
                     TarEntry e = TarFile(abs_target, "pwned\n");
                     e.pax = {{"path", abs_target}};
                     return std::vector<TarEntry>{b.Metadata(), e, b.Header(), b.Source()};
                   }),
                   Policy::kNone, 1, {"member '" + abs_target + "': absolute path"}});
  cases.push_back({"symlink", Tar([&b] {
                     return std::vector<TarEntry>{b.Metadata(), b.Header(), b.Source(),
                                                  Special("passwd", '2', "/etc/passwd")};
                   }),
                   Policy::kNone, 1,
                   {"member 'passwd': symbolic link to '/etc/passwd' (links are not allowed)"}});
  cases.push_back({"symlink_escape_then_write", Tar([&b] {
                     return std::vector<TarEntry>{b.Metadata(), Special("evil", '2', "../../escaped"),
                                                  TarFile("evil/pwned", "pwned\n"), b.Header(),
                                                  b.Source()};
                   }),
                   Policy::kNone, 1,
                   {"member 'evil': symbolic link to '../../escaped' (links are not allowed)"}});
  cases.push_back({"hardlink", Tar([&b] {
                     return std::vector<TarEntry>{b.Metadata(), b.Header(), b.Source(),
                                                  Special("hl", '1', "/etc/passwd")};
                   }),
                   Policy::kNone, 1,
                   {"member 'hl': hard link to '/etc/passwd' (links are not allowed)"}});
  cases.push_back({"character_device", Tar([&b] {
                     return std::vector<TarEntry>{b.Metadata(), Special("null", '3'), b.Header(),
                                                  b.Source()};
                   }),
                   Policy::kNone, 1,
                   {"member 'null': character device file (device files are not allowed)"}});
  cases.push_back({"block_device", Tar([&b] {
                     return std::vector<TarEntry>{b.Metadata(), Special("sda", '4'), b.Header(),
                                                  b.Source()};
                   }),
                   Policy::kNone, 1,
                   {"member 'sda': block device file (device files are not allowed)"}});
  cases.push_back({"fifo", Tar([&b] {
                     return std::vector<TarEntry>{b.Metadata(), Special("pipe", '6'), b.Header(),
                                                  b.Source()};
                   }),
                   Policy::kNone, 1, {"member 'pipe': FIFO (named pipes are not allowed)"}});
  cases.push_back({"duplicate_member", Tar([&b, changed] {
                     return std::vector<TarEntry>{b.Metadata(), b.Header(), b.Source(),
                                                  TarFile(kSourceName, changed)};
                   }),
                   Policy::kNone, 1,
                   {std::string("member '") + kSourceName + "': duplicate member"}});
  cases.push_back({"duplicate_dot_slash", Tar([&b, changed] {
                     return std::vector<TarEntry>{b.Metadata(), b.Header(), b.Source(),
                                                  TarFile(std::string("./") + kSourceName, changed)};
                   }),
                   Policy::kNone, 1,
                   {std::string("member './") + kSourceName +
                    "': duplicate member (same path as '" + kSourceName + "')"}});
  cases.push_back({"long_name", Tar([&b, long_name] {
                     TarEntry e = TarFile("long", "x");
                     e.pax = {{"path", long_name}};
                     return std::vector<TarEntry>{b.Metadata(), e, b.Header(), b.Source()};
                   }),
                   Policy::kNone, 1,
                   {"member '" + long_name.substr(0, 200) +
                    "...': name is 5000 bytes, longer than the limit of 4096"}});

  // ------------------------------------------------------------ sizes, counts, bombs
  cases.push_back({"oversize_member", Tar([&b] {
                     TarEntry e = TarFile("big.bin", "");
                     e.pax = {{"size", std::to_string(100ull << 30)}};
                     e.header_size = 0;
                     return std::vector<TarEntry>{b.Metadata(), e};
                   }),
                   Policy::kNone, 1,
                   {"member 'big.bin': size 107374182400 bytes (100.0 GiB) exceeds the limit of "
                    "68719476736 bytes (64.0 GiB)"}});
  // The reader's default: 100000 members, directories included. Directory
  // entries are skipped by verify, so they reach the count limit.
  cases.push_back({"member_count_bomb", [&b](const std::string& path) {
                     std::string tar;
                     for (const TarEntry& e : b.Members()) tar += TarEntryBytes(e);
                     char name[32];
                     for (int i = 0; i < 120000; ++i) {
                       std::snprintf(name, sizeof name, "bomb/%06d/", i);
                       tar += TarHeader(Special(name, '5'));
                     }
                     tar.append(1024, '\0');
                     WriteFile(path, ZstdCompress(tar, 3));
                   },
                   Policy::kNone, 1, {"archive has more than 100000 members"}});
  // 4 GiB of zeros, listed in metadata.json with its true size, compressed to
  // about 150 KB: the reader must stop at the ratio limit (1000:1 beyond
  // 256 MiB), long before the digest could be checked.
  const uint64_t bomb_size = 4ull << 30;
  const std::string bomb_md = edit_metadata([bomb_size](nlohmann::json& j) {
    j["files"]["data/zeros.bin"] = {{"size", bomb_size}, {"sha256", std::string(64, 'a')}};
  });
  cases.push_back({"zstd_decompression_bomb", [&b, bomb_md, bomb_size](const std::string& path) {
                     ZstdFileWriter w(path, 1);
                     w.Write(TarEntryBytes(TarFile("metadata.json", bomb_md)));
                     w.Write(TarEntryBytes(b.Header()));
                     w.Write(TarEntryBytes(b.Source()));
                     TarEntry zeros = TarFile("data/zeros.bin", "");
                     zeros.header_size = bomb_size;
                     w.Write(TarHeader(zeros));
                     w.WriteZeros(bomb_size + 1024);  // data (a multiple of 512) and end blocks
                     w.Close();
                   },
                   Policy::kNone, 1,
                   {"member 'data/zeros.bin': decompressed data exceeds the allowed size for ",
                    " compressed bytes (compression ratio ",
                    ":1 exceeds the limit of 1000:1; possible decompression bomb)"},
                   false});

  // ------------------------------------------------------------ broken containers
  cases.push_back({"truncated_tar", Bytes([&b] {
                     const std::string tar = BuildTar(b.Members());
                     const size_t source_data = TarEntryBytes(b.Metadata()).size() +
                                                TarEntryBytes(b.Header()).size() + 512;
                     return tar.substr(0, source_data + 300);
                   }),
                   Policy::kNone, 1,
                   {std::string("member '") + kSourceName + "': truncated archive ("}, false});
  cases.push_back({"corrupt_tar_header_checksum", Bytes([&b] {
                     std::string tar = BuildTar(b.Members());
                     tar[TarEntryBytes(b.Metadata()).size() + 3] ^= 0x20;  // in the name
                     return tar;
                   }),
                   Policy::kNone, 1,
                   {"corrupt tar header (bad checksum) after member 'metadata.json' (Damaged tar "
                    "archive)"}});
  cases.push_back({"corrupt_gzip", Bytes([&b] {
                     const std::string tar = BuildTar(b.Members());
                     return CorruptGzip(tar, TarEntryBytes(b.Metadata()).size() + 512);
                   }),
                   Policy::kNone, 1, {"corrupt gzip data", "(gzip decompression failed)"}, false});
  cases.push_back({"corrupt_zstd", Bytes([&b] {
                     std::string z = ZstdCompress(BuildTar(b.Members()), 3);
                     z[z.size() / 2] ^= 0x5a;
                     return z;
                   }),
                   Policy::kNone, 1, {"corrupt zstd data", "(Zstd decompression failed: "}, false});
  cases.push_back({"truncated_zstd", Bytes([&b] {
                     const std::string z = ZstdCompress(BuildTar(b.Members()), 3);
                     return z.substr(0, z.size() / 2);
                   }),
                   Policy::kNone, 1, {"truncated archive", "(Truncated zstd input)"}, false});
  cases.push_back({"empty_archive", Bytes([] { return BuildTar({}); }), Policy::kNone, 1,
                   {"archive is empty: expected metadata.json as its first member"}});
  cases.push_back({"not_a_tar_zip", Bytes([] { return std::string("PK\x03\x04", 4) + std::string(200, '\0'); }),
                   Policy::kNone, 1,
                   {"'{archive}' is a zip archive, not a tar archive (accepted: tar, optionally "
                    "gzip- or zstd-compressed)"}});

  // ------------------------------------------------------------ contents vs metadata
  cases.push_back({"digest_mismatch", Tar([&b, changed] {
                     return std::vector<TarEntry>{b.Metadata(), b.Header(),
                                                  TarFile(kSourceName, changed)};
                   }),
                   Policy::kNone, 1,
                   {std::string("member '") + kSourceName + "': SHA-256 mismatch (archive has " +
                    Sha256Hex(changed) + ", metadata.json files says " + source_sha + ")"}});
  cases.push_back({"size_mismatch", Tar([&b] {
                     return std::vector<TarEntry>{b.Metadata(), b.Header(),
                                                  TarFile(kSourceName, b.source + "\n")};
                   }),
                   Policy::kNone, 1,
                   {std::string("member '") + kSourceName + "': size " +
                    std::to_string(b.source.size() + 1) + " does not match metadata.json files (" +
                    std::to_string(b.source.size()) + ")"}});
  cases.push_back({"missing_member", Tar([&b] {
                     return std::vector<TarEntry>{b.Metadata(), b.Source()};
                   }),
                   Policy::kNone, 1,
                   {std::string("member '") + kHeaderName +
                    "' is listed in metadata.json files but missing from the archive"}});
  cases.push_back({"extra_member", Tar([&b] {
                     return std::vector<TarEntry>{b.Metadata(), b.Header(), b.Source(),
                                                  TarFile("codegen/host/src/backdoor.c", "x")};
                   }),
                   Policy::kNone, 1,
                   {"extra member 'codegen/host/src/backdoor.c' is not listed in metadata.json "
                    "files"}});
  cases.push_back({"metadata_not_first", Tar([&b] {
                     return std::vector<TarEntry>{b.Header(), b.Metadata(), b.Source()};
                   }),
                   Policy::kNone, 1,
                   {std::string("first member is '") + kHeaderName +
                    "', expected metadata.json (is this a Model Library Format archive?)"}});
  cases.push_back({"metadata_not_json", Tar([with_metadata] {
                     return with_metadata("{\"version\": 8, \"modules\": ");
                   }),
                   Policy::kNone, 1,
                   {"metadata.json: not valid JSON: [json.exception.parse_error.101] parse error at line 1, "},
                   false});
  cases.push_back({"metadata_nesting_bomb", Tar([with_metadata] {
                     return with_metadata("{\"version\": 8, \"x\": " + std::string(100000, '[') +
                                          std::string(100000, ']') + "}");
                   }),
                   Policy::kNone, 1, {"metadata.json: JSON nesting is deeper than the limit of 64 levels"}});
  // Readers that keep the first or the last of two equal keys would see
  // different models behind one signature: refused outright.
  cases.push_back({"metadata_duplicate_key", Tar([&b, with_metadata] {
                     return with_metadata(Replace(b.metadata, "\"model_name\": \"tiny\"",
                                                  "\"model_name\": \"tiny\", \"model_name\": \"evil\""));
                   }),
                   Policy::kNone, 1, {"metadata.json: duplicate JSON object key \"model_name\""}});
  cases.push_back({"metadata_oversize", Tar([] {
                     TarEntry e = TarFile("metadata.json", "");
                     e.header_size = 1ull << 30;  // claimed, not written
                     return std::vector<TarEntry>{e};
                   }),
                   Policy::kNone, 1,
                   {"metadata.json is 1073741824 bytes, more than the limit of 16777216"}});
  cases.push_back({"metadata_schema_invalid", Tar([with_metadata, edit_metadata] {
                     return with_metadata(edit_metadata(
                         [](nlohmann::json& j) { j["modules"]["tiny"].erase("memory"); }));
                   }),
                   Policy::kNone, 1,
                   {"metadata.json does not match the version 8 schema: /modules/tiny: missing "
                    "required property \"memory\" (required)"}});
  cases.push_back({"metadata_semantics_invalid", Tar([with_metadata, edit_metadata] {
                     return with_metadata(edit_metadata([](nlohmann::json& j) {
                       j["modules"]["tiny"]["inputs"][0]["size_bytes"] = 17;
                     }));
                   }),
                   Policy::kNone, 1,
                   {"metadata.json: module 'tiny': input 'x': size_bytes is 17 but float32 with "
                    "this shape takes 16"}});
  cases.push_back({"newer_version_10", Tar([with_metadata, edit_metadata] {
                     return with_metadata(
                         edit_metadata([](nlohmann::json& j) { j["version"] = 10; }));
                   }),
                   Policy::kNone, 1,
                   {"metadata version 10 is newer than this mlfkit supports (version 9); upgrade "
                    "mlfkit"}});

  // ------------------------------------------------------------ signatures
  const std::string tampered_md = edit_metadata([changed](nlohmann::json& j) {
    j["files"][kSourceName]["sha256"] = Sha256Hex(changed);
  });
  cases.push_back({"bad_signature", Tar([&b, tampered_md, changed] {
                     // The source and its digest changed after signing: every digest
                     // matches, but metadata.json is no longer what k1 signed.
                     return std::vector<TarEntry>{TarFile("metadata.json", tampered_md),
                                                  b.Signature(), b.Header(),
                                                  TarFile(kSourceName, changed)};
                   }),
                   Policy::kKey1, 1,
                   {"signature does not match: the signed data or the signature was altered"}});
  const auto signed_members = [&b] {
    return std::vector<TarEntry>{b.Metadata(), b.Signature(), b.Header(), b.Source()};
  };
  cases.push_back({"wrong_key", Tar(signed_members), Policy::kKey2, 1,
                   {"signed by a different key: the signature names key " + b.fp1 +
                    ", the given key is " + b.fp2}});
  cases.push_back({"signature_missing_but_required", Tar([&b] { return b.Members(); }),
                   Policy::kRequire, 1,
                   {"archive is not signed (no metadata.json.sig after metadata.json) but a "
                    "signature is required; sign it with `mlf sign`"}});
  cases.push_back({"signature_missing_but_key_given", Tar([&b] { return b.Members(); }),
                   Policy::kKey1, 1,
                   {"archive is not signed (no metadata.json.sig after metadata.json) but a "
                    "signature is required; sign it with `mlf sign`"}});
  cases.push_back({"malformed_signature", Tar([&b] {
                     const std::string three_lines =
                         b.sig1.substr(0, b.sig1.rfind('\n', b.sig1.size() - 2) + 1);
                     return std::vector<TarEntry>{b.Metadata(),
                                                  TarFile("metadata.json.sig", three_lines),
                                                  b.Header(), b.Source()};
                   }),
                   Policy::kRequire, 1,
                   {"malformed signature member: expected exactly 4 lines, got 3"}});
  cases.push_back({"signature_oversize", Tar([&b] {
                     TarEntry sig = TarFile("metadata.json.sig", "");
                     sig.header_size = 1ull << 30;  // claimed, not written
                     return std::vector<TarEntry>{b.Metadata(), sig};
                   }),
                   Policy::kRequire, 1,
                   {"malformed signature member: metadata.json.sig is 1073741824 bytes"}});
  cases.push_back({"signature_after_members", Tar([&b] {
                     return std::vector<TarEntry>{b.Metadata(), b.Header(), b.Source(),
                                                  b.Signature()};
                   }),
                   Policy::kNone, 1,
                   {"member 'metadata.json.sig' must directly follow metadata.json"}});
  return cases;
}

TEST_F(MaliciousArchiveTest, EveryCaseIsRefusedByVerifyAndUnpack) {
  ASSERT_NE(base_, nullptr);
  const std::vector<Case> cases = Corpus(*base_, sentinel_);
  ASSERT_GE(cases.size(), 22u);
  std::set<std::string> names;
  int by_verify = 0, by_unpack = 0;
  std::string table;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case name " << c.name;
    const std::string archive = root_ + "/archives/" + c.name + ".tar";
    c.build(archive);
    const Outcome verify = Run(c, archive, /*unpack=*/false);
    const Outcome unpack = Run(c, archive, /*unpack=*/true);
    by_verify += verify.refused;
    by_unpack += unpack.refused;
    // Verify and unpack apply the same checks: the same error.
    EXPECT_EQ(verify.err, unpack.err);
    std::string line = verify.err.substr(0, verify.err.find('\n'));
    const std::string prefix = "mlf: error: " + archive + ": ";
    if (line.rfind(prefix, 0) == 0) line = line.substr(prefix.size());
    if (line.size() > 160) line = line.substr(0, 157) + "...";
    table += "  " + c.name + std::string(c.name.size() < 32 ? 32 - c.name.size() : 1, ' ') +
             line + "\n";
  }
  std::cout << "corpus (case -> error):\n" << table;
  std::cout << "malicious corpus: " << cases.size() << " cases, " << by_verify
            << " refused by verify, " << by_unpack << " refused by unpack" << std::endl;
  EXPECT_EQ(by_verify, static_cast<int>(cases.size()));
  EXPECT_EQ(by_unpack, static_cast<int>(cases.size()));
}

// The harness itself: a valid archive run the same way is accepted, and the
// sentinel changes only by the new DEST.
TEST_F(MaliciousArchiveTest, ControlArchiveIsAcceptedAndLandsOnlyInDest) {
  ASSERT_NE(base_, nullptr);
  const std::string archive = root_ + "/archives/control.tar";
  WriteFile(archive, BuildTar({base_->Metadata(), base_->Signature(), base_->Header(),
                               base_->Source()}));
  const std::string dest = sentinel_ + "/out/control";
  RunOptions options;
  options.cwd = sentinel_ + "/out";
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{}, std::vector<std::string>{"--key", base_->k1_pub_path}}) {
    std::vector<std::string> argv = {MlfBinary(), "verify", archive};
    argv.insert(argv.end(), flags.begin(), flags.end());
    CommandResult r = RunCommand(argv, options);
    EXPECT_EQ(r.exit_code, 0) << Describe(argv, r);
  }
  const auto before = ListTree(sentinel_);
  std::vector<std::string> argv = {MlfBinary(), "unpack", archive, "-o", dest, "--key",
                                   base_->k1_pub_path};
  CommandResult r = RunCommand(argv, options);
  ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);
  auto after = ListTree(sentinel_);
  std::map<std::string, std::string> added;
  for (const auto& [path, desc] : after) {
    if (!before.count(path)) added[path] = desc;
  }
  for (const auto& [path, desc] : before) EXPECT_EQ(after[path], desc) << path;
  for (const auto& [path, desc] : added) {
    EXPECT_EQ(path.rfind("out/control", 0), 0u) << "written outside DEST: " << path;
  }
  EXPECT_EQ(ReadFile(dest + "/" + kSourceName), base_->source);
  EXPECT_EQ(ReadFile(dest + "/metadata.json.sig"), base_->sig1);
  EXPECT_EQ(added.size(), 9u) << FormatListing(added);  // control, 4 files, 4 directories
  RemoveTree(dest);
}

// A file and a directory at the same path ("codegen" as a file, and
// "codegen/host/..." below it) can never be extracted. Both are listed in
// metadata.json with correct digests. `mlf verify` must refuse the archive as
// `mlf unpack` does, instead of reporting it verified.
TEST_F(MaliciousArchiveTest, FileAndDirectoryAtTheSamePathAreRefusedByVerify) {
  ASSERT_NE(base_, nullptr);
  nlohmann::json j = nlohmann::json::parse(base_->metadata);
  j["files"]["codegen"] = {{"size", 2}, {"sha256", Sha256Hex("X\n")}};
  const std::string md = Dump(j);
  const TarEntry file = TarFile("codegen", "X\n");
  const TarEntry metadata = TarFile("metadata.json", md);
  const std::vector<std::vector<TarEntry>> orders = {
      {metadata, file, base_->Header(), base_->Source()},
      {metadata, base_->Header(), base_->Source(), file}};
  for (size_t i = 0; i < orders.size(); ++i) {
    SCOPED_TRACE("order " + std::to_string(i));
    const std::string archive = root_ + "/archives/file_dir_conflict" + std::to_string(i) + ".tar";
    WriteFile(archive, BuildTar(orders[i]));
    RunOptions options;
    options.cwd = sentinel_ + "/out";
    const std::string dest = sentinel_ + "/out/file_dir_conflict";
    const auto before = ListTree(sentinel_);

    std::vector<std::string> unpack = {MlfBinary(), "unpack", archive, "-o", dest};
    CommandResult u = RunCommand(unpack, options);
    EXPECT_EQ(u.exit_code, 1) << Describe(unpack, u);
    EXPECT_FALSE(Exists(dest));
    EXPECT_EQ(ListTree(sentinel_), before);

    std::vector<std::string> verify = {MlfBinary(), "verify", archive};
    CommandResult v = RunCommand(verify, options);
    EXPECT_EQ(v.exit_code, 1) << "verify accepts an archive that unpack cannot extract\n"
                              << Describe(verify, v);
    EXPECT_EQ(v.err.rfind("mlf: error: " + archive + ": member '", 0), 0u) << v.err;
    EXPECT_NE(v.err.find("codegen"), std::string::npos) << v.err;
  }
}

// The gzip trailer holds the CRC-32 and length of the uncompressed data; a
// reader that "refuses corrupt gzip data" must check it (gzip -t does).
TEST_F(MaliciousArchiveTest, GzipTrailerCorruptionIsRefused) {
  ASSERT_NE(base_, nullptr);
  const std::string gz = GzipCompress(BuildTar(base_->Members()), 6);
  struct Variant {
    const char* name;
    size_t offset_from_end;
  };
  for (const Variant& v : {Variant{"crc", 8}, Variant{"isize", 2}}) {
    SCOPED_TRACE(v.name);
    std::string bad = gz;
    bad[bad.size() - v.offset_from_end] ^= 0xff;
    const std::string archive = root_ + "/archives/gzip_bad_" + v.name + ".tar";
    WriteFile(archive, bad);
    std::vector<std::string> argv = {MlfBinary(), "verify", archive};
    CommandResult r = RunCommand(argv);
    EXPECT_EQ(r.exit_code, 1) << Describe(argv, r);
    EXPECT_NE(r.err.find("corrupt gzip data"), std::string::npos) << Describe(argv, r);
  }
}

// Serves `payloads` through a FIFO, one per reader that opens it: the i-th
// open reads payloads[i] (then end of file); opens beyond the list read an
// empty stream. The write end stays open until the reader closes its end
// (or has read everything), so two opens never share one payload.
class FifoServer {
 public:
  FifoServer(const std::string& path, std::vector<std::string> payloads)
      : path_(path), payloads_(std::move(payloads)) {
    unlink(path_.c_str());
    if (mkfifo(path_.c_str(), 0600) != 0) {
      ADD_FAILURE() << "mkfifo " << path_ << ": " << std::strerror(errno);
      return;
    }
    // Readers' closes of the FIFO, watched from before the first open.
    closes_fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (closes_fd_ < 0 || inotify_add_watch(closes_fd_, path_.c_str(), IN_CLOSE_NOWRITE) < 0) {
      ADD_FAILURE() << "inotify on " << path_ << ": " << std::strerror(errno);
      return;
    }
    thread_ = std::thread([this] { Loop(); });
  }
  ~FifoServer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (closes_fd_ >= 0) close(closes_fd_);
    unlink(path_.c_str());
  }
  // How many readers opened the FIFO (at most payloads + 1).
  int opens() const { return opens_; }

 private:
  // Waits until readers have closed the FIFO `count` times in all (or stop).
  void WaitForReaderCloses(int count) {
    while (!stop_ && reader_closes_ < count) {
      pollfd p{closes_fd_, POLLIN, 0};
      if (poll(&p, 1, 10) <= 0) continue;
      alignas(inotify_event) char buf[4096];
      const ssize_t n = read(closes_fd_, buf, sizeof buf);
      for (ssize_t off = 0; off < n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(buf + off);
        if (e->mask & IN_CLOSE_NOWRITE) ++reader_closes_;
        off += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      }
    }
  }

  void Loop() {
    for (size_t i = 0; !stop_; ++i) {
      // Payload i goes to a reader that opens the path after i closes: a
      // reader still reading its stream to the end never gets the next
      // payload appended to it, however late it closes.
      WaitForReaderCloses(static_cast<int>(i));
      int fd = -1;
      while (!stop_ && (fd = open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));  // ENXIO: no reader yet
      }
      if (fd < 0) return;
      if (i <= payloads_.size()) ++opens_;  // further opens may be one reader's retries
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      const std::string data = i < payloads_.size() ? payloads_[i] : "";
      for (size_t done = 0; done < data.size();) {
        const ssize_t n = write(fd, data.data() + done, data.size() - done);
        if (n <= 0) break;  // the reader went away
        done += static_cast<size_t>(n);
      }
      // Keep the write end open until the reader has closed its end (POLLERR),
      // so the next payload cannot end up in the same reader's stream; but a
      // reader that waits for end of file gets it once it has read everything
      // and a second has passed.
      int drained_ms = 0;
      for (int waited = 0; !data.empty() && !stop_ && waited < 5000 && drained_ms < 1000;
           waited += 10) {
        pollfd p{fd, 0, 0};
        if (poll(&p, 1, 10) > 0 && (p.revents & (POLLERR | POLLHUP))) break;
        int unread = 0;
        drained_ms = ioctl(fd, FIONREAD, &unread) == 0 && unread == 0 ? drained_ms + 10 : 0;
      }
      close(fd);
    }
  }

  std::string path_;
  std::vector<std::string> payloads_;
  std::atomic<bool> stop_{false};
  std::atomic<int> opens_{0};
  int closes_fd_ = -1;
  int reader_closes_ = 0;
  std::thread thread_;
};

// `mlf unpack` must extract exactly the bytes it verified. An implementation
// that verifies in one pass and re-opens the path to extract (as cmd_unpack.cc
// did before artifact/archive/unpack.h) extracts whatever is behind the path by then:
// here a FIFO serves a signed archive to the first open and an unsigned,
// modified one to any second open, with --key given.
TEST_F(MaliciousArchiveTest, UnpackExtractsOnlyWhatItVerified) {
  ASSERT_NE(base_, nullptr);
  const std::string good = BuildTar({base_->Metadata(), base_->Signature(), base_->Header(),
                                     base_->Source()});
  const std::string backdoor = "/* BACKDOOR */\n" + base_->source;
  nlohmann::json j = nlohmann::json::parse(base_->metadata);
  j["files"][kSourceName] = {{"size", backdoor.size()}, {"sha256", Sha256Hex(backdoor)}};
  const std::string evil = BuildTar({TarFile("metadata.json", Dump(j)), base_->Header(),
                                     TarFile(kSourceName, backdoor)});
  const std::string fifo = root_ + "/archives/swapped.fifo";
  const std::string dest = sentinel_ + "/out/swapped";
  std::vector<std::string> argv = {MlfBinary(), "unpack", fifo, "-o", dest, "--key",
                                   base_->k1_pub_path};
  CommandResult r;
  int opens = 0;
  {
    FifoServer server(fifo, {good, evil});
    RunOptions options;
    options.cwd = sentinel_ + "/out";
    r = RunCommand(argv, options);
    opens = server.opens();
  }
  // Unpack reads the path once (UnpackReadsAStreamOnce): it verifies and
  // extracts the signed archive, and never sees the modified one.
  ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);
  EXPECT_EQ(opens, 1) << "unpack opened the archive path more than once";
  EXPECT_EQ(ReadFile(dest + "/" + kSourceName), base_->source)
      << "unpack --key extracted content that is not covered by the verified signature ("
      << opens << " opens of the archive path)\n"
      << Describe(argv, r);
  RemoveTree(dest);
}

// A stream can be read once: `mlf unpack <(curl ...) -o DIR` must work as
// `mlf verify` does (a second open of the path finds the stream consumed).
TEST_F(MaliciousArchiveTest, UnpackReadsAStreamOnce) {
  ASSERT_NE(base_, nullptr);
  const std::string good = BuildTar(base_->Members());
  const std::string fifo = root_ + "/archives/stream.fifo";
  const std::string dest = sentinel_ + "/out/stream";
  RunOptions options;
  options.cwd = sentinel_ + "/out";
  {
    FifoServer server(fifo, {good});
    std::vector<std::string> verify = {MlfBinary(), "verify", fifo};
    CommandResult v = RunCommand(verify, options);
    EXPECT_EQ(v.exit_code, 0) << Describe(verify, v);
  }
  {
    FifoServer server(fifo, {good});
    std::vector<std::string> unpack = {MlfBinary(), "unpack", fifo, "-o", dest};
    CommandResult u = RunCommand(unpack, options);
    EXPECT_EQ(u.exit_code, 0) << Describe(unpack, u);
  }
  RemoveTree(dest);
}

}  // namespace
}  // namespace mlf
