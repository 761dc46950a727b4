// End-to-end behaviour of the `mlf` command line: help and usage errors,
// pack -> verify -> inspect -> keygen -> sign -> verify --key -> unpack,
// determinism, GNU tar compatibility and the exact error of each bad input.
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "artifact/archive/signature.h"
#include "artifact/base/digest.h"
#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

constexpr char kHeader[] = "codegen/host/include/tvmgen_tiny.h";
constexpr char kSource[] = "codegen/host/src/tiny_lib0.c";

const char* const kCommands[] = {"pack", "unpack", "inspect", "verify", "keygen", "sign"};

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = FreshDir(std::string("cli/") + info->name());
  }

  // Runs `mlf args...` in the test's directory, with SOURCE_DATE_EPOCH unset
  // unless `env` sets it.
  CommandResult Mlf(const std::vector<std::string>& args, RunOptions options = {}) {
    argv_ = {MlfBinary()};
    argv_.insert(argv_.end(), args.begin(), args.end());
    options.env.insert(options.env.begin(), {"SOURCE_DATE_EPOCH", std::nullopt});
    if (options.cwd.empty()) options.cwd = dir_;
    return RunCommand(argv_, options);
  }

  std::string Why(const CommandResult& r) const { return Describe(argv_, r); }

  // Copies the example into the test directory and packs it; returns the archive path.
  std::string PackExample(const std::string& name = "tiny.mlf.tar",
                          const std::vector<std::string>& extra = {}) {
    if (!Exists(dir_ + "/model")) CopyExample(dir_ + "/model");
    const std::string out = dir_ + "/" + name;
    std::vector<std::string> args = {"pack", dir_ + "/model", "-o", out};
    args.insert(args.end(), extra.begin(), extra.end());
    CommandResult r = Mlf(args);
    EXPECT_EQ(r.exit_code, 0) << Why(r);
    EXPECT_EQ(r.out, "packed 3 members into " + out + "\n");
    EXPECT_EQ(r.err, "");
    return out;
  }

  // Runs GNU tar (found in PATH) with TZ=UTC.
  CommandResult Tar(const std::vector<std::string>& args) {
    argv_ = {"tar"};
    argv_.insert(argv_.end(), args.begin(), args.end());
    RunOptions options;
    options.env = {{"TZ", "UTC"}, {"LC_ALL", "C"}};
    options.cwd = dir_;
    return RunCommand(argv_, options);
  }

  // Keys "<dir>/<name>.key/.pub" made by `mlf keygen`.
  std::string Keygen(const std::string& name) {
    const std::string base = dir_ + "/" + name;
    CommandResult r = Mlf({"keygen", "-o", base});
    EXPECT_EQ(r.exit_code, 0) << Why(r);
    EXPECT_EQ(r.out, "wrote " + base + ".key (private) and " + base + ".pub (public)\n");
    return base;
  }

  static std::string Fingerprint(const std::string& pub_path) {
    Result<std::string> fp = PublicKeyFingerprint(ReadFile(pub_path));
    EXPECT_TRUE(fp.ok()) << fp.status().ToString();
    return fp.ok() ? *fp : "";
  }

  // Expects exit 1, nothing on stdout and exactly "mlf: error: <message>\n" on stderr.
  void ExpectFailure(const CommandResult& r, const std::string& message) {
    EXPECT_EQ(r.exit_code, 1) << Why(r);
    EXPECT_EQ(r.out, "") << Why(r);
    EXPECT_EQ(r.err, "mlf: error: " + message + "\n") << Why(r);
  }

  std::string dir_;
  std::vector<std::string> argv_;
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

bool HasRow(const std::string& text, const std::vector<std::string>& row) {
  for (const std::string& line : Lines(text)) {
    if (Words(line) == row) return true;
  }
  return false;
}

// ---------------------------------------------------------------- help and usage

TEST_F(CliTest, HelpPrintsTheOverviewOnStdout) {
  CommandResult r = Mlf({"help"});
  EXPECT_EQ(r.exit_code, 0) << Why(r);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("usage: mlf <command> [options]\n", 0), 0u) << r.out;
  for (const char* command : kCommands) {
    EXPECT_NE(r.out.find("\n  " + std::string(command) + " "), std::string::npos)
        << command << " missing from:\n" << r.out;
  }
  EXPECT_NE(r.out.find("Exit status: 0 success, 1 a failed operation or check, 2 bad usage."),
            std::string::npos);
  for (const char* flag : {"--help", "-h"}) {
    CommandResult same = Mlf({flag});
    EXPECT_EQ(same.exit_code, 0) << Why(same);
    EXPECT_EQ(same.out, r.out);
  }
}

TEST_F(CliTest, CommandHelpIsTheSameThroughHelpAndFlag) {
  for (const char* command : kCommands) {
    SCOPED_TRACE(command);
    CommandResult help = Mlf({"help", command});
    EXPECT_EQ(help.exit_code, 0) << Why(help);
    EXPECT_EQ(help.err, "");
    EXPECT_EQ(help.out.rfind(std::string("usage: mlf ") + command + " ", 0), 0u) << help.out;
    CommandResult flag = Mlf({command, "--help"});
    EXPECT_EQ(flag.exit_code, 0) << Why(flag);
    EXPECT_EQ(flag.err, "");
    EXPECT_EQ(flag.out, help.out);
    CommandResult short_flag = Mlf({command, "-h"});
    EXPECT_EQ(short_flag.exit_code, 0) << Why(short_flag);
    EXPECT_EQ(short_flag.out, help.out);
  }
  CommandResult pack = Mlf({"pack", "--help"});
  EXPECT_EQ(Lines(pack.out).at(0), "usage: mlf pack DIR -o OUT [--compress none|gzip|zstd]");
  // --help wins over otherwise bad arguments.
  CommandResult bad = Mlf({"pack", "--bogus", "--help"});
  EXPECT_EQ(bad.exit_code, 0) << Why(bad);
  EXPECT_EQ(bad.out, pack.out);
}

TEST_F(CliTest, NoCommandIsAUsageError) {
  CommandResult r = Mlf({});
  EXPECT_EQ(r.exit_code, 2) << Why(r);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("usage: mlf <command> [options]\n", 0), 0u) << r.err;
}

TEST_F(CliTest, UsageErrorsExitTwoWithTheExactMessage) {
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<Case> cases = {
      {{"frob"}, "mlf: error: unknown command 'frob'\nTry 'mlf help'.\n"},
      {{"inpsect", "a.tar"},
       "mlf: error: unknown command 'inpsect' (did you mean 'inspect'?)\nTry 'mlf help'.\n"},
      {{"verfy"}, "mlf: error: unknown command 'verfy' (did you mean 'verify'?)\nTry 'mlf help'.\n"},
      {{"pack", "dir", "--ouput", "x"},
       "mlf: error: unknown option '--ouput' (did you mean '--output'?)\nTry 'mlf pack --help'.\n"},
      {{"verify", "a.tar", "--require-signatur"},
       "mlf: error: unknown option '--require-signatur' (did you mean '--require-signature'?)\n"
       "Try 'mlf verify --help'.\n"},
      {{"--version", "extra"},
       "mlf: error: 'mlf --version' takes no argument but --json\nTry 'mlf help'.\n"},
      {{"pack", "--bogus", "x"}, "mlf: error: unknown option '--bogus'\nTry 'mlf pack --help'.\n"},
      {{"verify", "a.tar", "-x"}, "mlf: error: unknown option '-x'\nTry 'mlf verify --help'.\n"},
      {{"pack"}, "mlf: error: missing argument\nTry 'mlf pack --help'.\n"},
      {{"verify"}, "mlf: error: missing argument\nTry 'mlf verify --help'.\n"},
      {{"inspect"}, "mlf: error: missing argument\nTry 'mlf inspect --help'.\n"},
      {{"unpack", "-o", "d"}, "mlf: error: missing argument\nTry 'mlf unpack --help'.\n"},
      {{"pack", "a", "b", "-o", "x"},
       "mlf: error: unexpected argument 'b'\nTry 'mlf pack --help'.\n"},
      {{"pack", "dir"}, "mlf: error: missing required option '-o OUT'\nTry 'mlf pack --help'.\n"},
      {{"unpack", "a.tar"},
       "mlf: error: missing required option '-o DIR'\nTry 'mlf unpack --help'.\n"},
      {{"keygen"}, "mlf: error: missing required option '-o NAME'\nTry 'mlf keygen --help'.\n"},
      {{"sign", "a.tar"},
       "mlf: error: missing required option '--key NAME.key'\nTry 'mlf sign --help'.\n"},
      {{"pack", "dir", "-o"},
       "mlf: error: option '--output' needs a value\nTry 'mlf pack --help'.\n"},
      {{"pack", "dir", "-o", "x", "--output", "y"},
       "mlf: error: option '--output' given more than once\nTry 'mlf pack --help'.\n"},
      {{"verify", "a.tar", "--json=yes"},
       "mlf: error: option '--json' takes no value\nTry 'mlf verify --help'.\n"},
      {{"pack", "dir", "-o", "x", "--compress", "lz4"},
       "mlf: error: --compress must be none, gzip or zstd, not 'lz4'\nTry 'mlf pack --help'.\n"},
  };
  for (const Case& c : cases) {
    CommandResult r = Mlf(c.args);
    EXPECT_EQ(r.exit_code, 2) << Why(r);
    EXPECT_EQ(r.out, "") << Why(r);
    EXPECT_EQ(r.err, c.err) << Why(r);
  }
  EXPECT_EQ(ListTree(dir_).size(), 0u) << "usage errors must not create files:\n"
                                       << FormatListing(ListTree(dir_));
  CommandResult help = Mlf({"help", "frob"});
  EXPECT_EQ(help.exit_code, 2) << Why(help);
  EXPECT_EQ(help.out, "");
  EXPECT_EQ(Lines(help.err).at(0), "mlf: error: unknown command 'frob'");
}

TEST_F(CliTest, VersionNamesTheToolAndTheFormatVersions) {
  CommandResult text = Mlf({"--version"});
  EXPECT_EQ(text.exit_code, 0) << Why(text);
  EXPECT_EQ(text.err, "");
  EXPECT_EQ(text.out,
            "mlf 0.1.0\n"
            "writes Model Library Format version 9; reads versions 8-9 and TVM's versions 5-7\n");
  CommandResult json = Mlf({"--version", "--json"});
  EXPECT_EQ(json.exit_code, 0) << Why(json);
  nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["mlf_version"], "0.1.0");
  EXPECT_EQ(j["writes_metadata_version"], 9);
  EXPECT_EQ(j["reads_metadata_versions"], nlohmann::json({5, 6, 7, 8, 9}));
  // `mlf help` lists it.
  EXPECT_NE(Mlf({"help"}).out.find("--version"), std::string::npos);
}

// `mlf help` lists `help` as a command, and the hint after `mlf help frob`
// says "Try 'mlf help --help'.": both must work.
TEST_F(CliTest, HelpAboutHelpWorks) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"help", "help"}, std::vector<std::string>{"help", "--help"}}) {
    CommandResult r = Mlf(args);
    EXPECT_EQ(r.exit_code, 0) << Why(r);
    EXPECT_EQ(r.err, "") << Why(r);
    EXPECT_NE(r.out.find("usage: mlf"), std::string::npos) << Why(r);
  }
}

// ---------------------------------------------------------------- pack, verify, inspect

TEST_F(CliTest, PackVerifyInspect) {
  const std::string archive = PackExample();
  CommandResult v = Mlf({"verify", archive});
  EXPECT_EQ(v.exit_code, 0) << Why(v);
  EXPECT_EQ(v.err, "");
  EXPECT_EQ(v.out.rfind("verified " + archive + ": 3 members, ", 0), 0u) << v.out;
  EXPECT_NE(v.out.find(" KiB, 1 module\nsignature: none\n"), std::string::npos) << v.out;

  CommandResult vj = Mlf({"verify", archive, "--json"});
  EXPECT_EQ(vj.exit_code, 0) << Why(vj);
  nlohmann::json report = nlohmann::json::parse(vj.out);
  EXPECT_EQ(report["ok"], true);
  EXPECT_EQ(report["archive"], archive);
  EXPECT_EQ(report["compression"], "none");
  EXPECT_EQ(report["members"], 3);
  EXPECT_EQ(report["signed"], false);
  EXPECT_EQ(report["signature_checked"], false);
  EXPECT_EQ(report["modules"], nlohmann::json::array({"tiny"}));

  CommandResult text = Mlf({"inspect", archive});
  EXPECT_EQ(text.exit_code, 0) << Why(text);
  EXPECT_EQ(text.err, "");
  EXPECT_EQ(Lines(text.out).at(0).rfind("archive     " + archive + " (none, ", 0), 0u) << text.out;
  EXPECT_NE(text.out.find("\nsignature   none\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\nmodule tiny\n"), std::string::npos) << text.out;
  EXPECT_TRUE(HasRow(text.out, {"#", "name", "c", "name", "dtype", "shape", "bytes"})) << text.out;
  EXPECT_TRUE(HasRow(text.out, {"0", "x", "x", "float32", "[1,4]", "16"})) << text.out;
  EXPECT_TRUE(HasRow(text.out, {"0", "y", "y", "float32", "[1,3]", "12"})) << text.out;
  EXPECT_TRUE(HasRow(text.out, {"sources", kSource})) << text.out;
  const std::string header = ReadFile(ExampleRunfilesDir() + "/" + kHeader);
  EXPECT_TRUE(HasRow(text.out, {std::to_string(header.size()), Sha256Hex(header).substr(0, 16),
                                kHeader}))
      << text.out;

  CommandResult json = Mlf({"inspect", archive, "--json"});
  EXPECT_EQ(json.exit_code, 0) << Why(json);
  nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["archive"], archive);
  EXPECT_EQ(j["compression"], "none");
  EXPECT_EQ(j["signed"], false);
  ASSERT_TRUE(j["metadata"]["modules"].contains("tiny")) << json.out;
  const nlohmann::json& tiny = j["metadata"]["modules"]["tiny"];
  EXPECT_EQ(tiny["inputs"][0]["c_name"], "x");
  EXPECT_EQ(tiny["outputs"][0]["shape"], nlohmann::json::array({1, 3}));
  EXPECT_EQ(j["metadata"]["files"].size(), 2u);
  EXPECT_EQ(j["metadata"]["files"][kSource]["size"],
            ReadFile(ExampleRunfilesDir() + "/" + kSource).size());
}

TEST_F(CliTest, VerifyJsonReportsFailures) {
  const std::string archive = PackExample();
  std::string bytes = ReadFile(archive);
  const size_t at = bytes.find("kBias");  // only in the C source
  ASSERT_NE(at, std::string::npos);
  bytes[at] = 'u';
  const std::string bad = dir_ + "/bad.tar";
  WriteFile(bad, bytes);
  CommandResult r = Mlf({"verify", bad, "--json"});
  EXPECT_EQ(r.exit_code, 1) << Why(r);
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["archive"], bad);
  EXPECT_EQ(j["error_code"], "data_loss");
  const std::string error = j["error"];
  EXPECT_EQ(error.rfind("member '" + std::string(kSource) + "': SHA-256 mismatch (archive has ", 0),
            0u)
      << error;
  EXPECT_EQ(r.err, "mlf: error: " + bad + ": " + error + "\n");

  CommandResult missing = Mlf({"verify", dir_ + "/nope.tar", "--json"});
  EXPECT_EQ(missing.exit_code, 1) << Why(missing);
  nlohmann::json m = nlohmann::json::parse(missing.out);
  EXPECT_EQ(m["ok"], false);
  EXPECT_EQ(m["error"], "cannot open archive '" + dir_ + "/nope.tar': No such file or directory");
}

// With --json every outcome is one JSON document on stdout: the report, or an
// error object with the exit status; the human message stays on stderr.
TEST_F(CliTest, JsonFailuresAreErrorObjectsOnStdout) {
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::string error, error_code;
  };
  const std::string missing = dir_ + "/nope.tar";
  const std::vector<Case> cases = {
      {{"inspect", "--json"}, 2, "missing argument", "usage"},
      {{"inspect", missing, "--json", "--bogus"}, 2, "unknown option '--bogus'", "usage"},
      {{"verfy", missing, "--json"}, 2, "unknown command 'verfy' (did you mean 'verify'?)",
       "usage"},
      {{"inspect", missing, "--json"}, 1,
       missing + ": cannot open archive '" + missing + "': No such file or directory", "io_error"},
      {{"run", missing, "--random-inputs", "1", "--json"}, 1,
       missing + ": cannot open archive '" + missing + "': No such file or directory", "io_error"},
      {{"export", dir_ + "/nope.onnx", "-o", dir_ + "/x.tar", "--json"}, 1,
       "cannot read '" + dir_ + "/nope.onnx': No such file or directory", "io_error"},
  };
  for (const Case& c : cases) {
    CommandResult r = Mlf(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << Why(r);
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["ok"], false) << r.out;
    EXPECT_EQ(j["error"], c.error) << r.out;
    EXPECT_EQ(j["error_code"], c.error_code) << r.out;
    EXPECT_EQ(j["exit_status"], c.exit_code) << r.out;
    EXPECT_EQ(j["schema_version"], 1) << r.out;
    EXPECT_EQ(j["mlf_version"], "0.1.0") << r.out;
    EXPECT_EQ(Lines(r.err).at(0), "mlf: error: " + c.error) << Why(r);
  }
  // verify's own failure document has the same fields.
  CommandResult v = Mlf({"verify", missing, "--json"});
  EXPECT_EQ(v.exit_code, 1) << Why(v);
  nlohmann::json j = nlohmann::json::parse(v.out);
  EXPECT_EQ(j["error_code"], "io_error");
  EXPECT_EQ(j["exit_status"], 1);
  EXPECT_EQ(j["schema_version"], 1);
  // Without --json nothing goes to stdout.
  EXPECT_EQ(Mlf({"inspect", missing}).out, "");
}

TEST_F(CliTest, JsonReportsCarryTheSchemaVersion) {
  const std::string archive = PackExample();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"inspect", archive, "--json"},
        std::vector<std::string>{"verify", archive, "--json"},
        std::vector<std::string>{"--version", "--json"}}) {
    CommandResult r = Mlf(args);
    EXPECT_EQ(r.exit_code, 0) << Why(r);
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["schema_version"], 1) << r.out;
    EXPECT_EQ(j["mlf_version"], "0.1.0") << r.out;
  }
}

TEST_F(CliTest, ProjectJsonReport) {
  const std::string archive = PackExample();
  CommandResult r = Mlf({"project", archive, "-o", dir_ + "/proj", "--json"});
  ASSERT_EQ(r.exit_code, 0) << Why(r);
  EXPECT_EQ(r.err, "");
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["project"], dir_ + "/proj");
  EXPECT_EQ(j["platform"], "host");
  EXPECT_EQ(j["modules"], nlohmann::json::array({"tiny"}));
  EXPECT_GT(j["files"].get<int>(), 3) << r.out;
  EXPECT_FALSE(j.contains("built"));
}

TEST_F(CliTest, InspectAndVerifyRefuseNonArchives) {
  const std::string text = dir_ + "/notes.txt";
  WriteFile(text, std::string(2048, 'z'));
  CommandResult r = Mlf({"inspect", text});
  ExpectFailure(r, text + ": '" + text +
                       "' is not recognised, not a tar archive (accepted: tar, optionally gzip- "
                       "or zstd-compressed)");
  CommandResult d = Mlf({"verify", dir_});
  ExpectFailure(d, dir_ + ": '" + dir_ + "' is a directory, not an archive");
}

// ---------------------------------------------------------------- keys and signatures

TEST_F(CliTest, KeygenWritesPrivateAndPublicKeysAndNeverOverwrites) {
  const std::string k = Keygen("release");
  EXPECT_EQ(FileMode(k + ".key"), 0600u);
  EXPECT_EQ(FileMode(k + ".pub"), 0644u);
  EXPECT_NE(ReadFile(k + ".key").find("-----BEGIN PRIVATE KEY-----"), std::string::npos);
  EXPECT_NE(ReadFile(k + ".pub").find("-----BEGIN PUBLIC KEY-----"), std::string::npos);

  const auto before = ListTree(dir_);
  CommandResult again = Mlf({"keygen", "-o", k});
  ExpectFailure(again, "key file '" + k + ".key' already exists; refusing to overwrite it");
  EXPECT_EQ(ListTree(dir_), before);

  // A lone .pub is not overwritten either, and no .key is left behind.
  const std::string lone = dir_ + "/lone";
  WriteFile(lone + ".pub", "mine\n");
  CommandResult r = Mlf({"keygen", "-o", lone});
  ExpectFailure(r, "key file '" + lone + ".pub' already exists; refusing to overwrite it");
  EXPECT_FALSE(Exists(lone + ".key"));
  EXPECT_EQ(ReadFile(lone + ".pub"), "mine\n");
}

TEST_F(CliTest, SignAndVerifyWithKeys) {
  const std::string archive = PackExample();
  const std::string unsigned_bytes = ReadFile(archive);
  const std::string k1 = Keygen("k1"), k2 = Keygen("k2");
  const std::string fp1 = Fingerprint(k1 + ".pub"), fp2 = Fingerprint(k2 + ".pub");

  // -o leaves the input alone.
  const std::string signed_out = dir_ + "/signed.mlf.tar";
  CommandResult s = Mlf({"sign", archive, "--key", k1 + ".key", "-o", signed_out});
  EXPECT_EQ(s.exit_code, 0) << Why(s);
  EXPECT_EQ(s.out, "signed " + signed_out + " with key sha256 " + fp1 + "\n");
  EXPECT_EQ(ReadFile(archive), unsigned_bytes);

  // In place gives the same bytes (Ed25519 is deterministic).
  const std::string in_place = dir_ + "/in_place.mlf.tar";
  WriteFile(in_place, unsigned_bytes);
  CommandResult sp = Mlf({"sign", in_place, "--key", k1 + ".key"});
  EXPECT_EQ(sp.exit_code, 0) << Why(sp);
  EXPECT_EQ(sp.out, "signed " + in_place + " with key sha256 " + fp1 + "\n");
  EXPECT_EQ(ReadFile(in_place), ReadFile(signed_out));

  CommandResult ok = Mlf({"verify", signed_out, "--key", k1 + ".pub"});
  EXPECT_EQ(ok.exit_code, 0) << Why(ok);
  EXPECT_EQ(ok.out.rfind("verified " + signed_out + ": 4 members, ", 0), 0u) << ok.out;
  EXPECT_NE(ok.out.find(" KiB, 1 module\nsignature: valid, key sha256 " + fp1 + "\n"),
            std::string::npos)
      << ok.out;
  CommandResult both = Mlf({"verify", signed_out, "--key", k1 + ".pub", "--require-signature"});
  EXPECT_EQ(both.exit_code, 0) << Why(both);

  CommandResult present = Mlf({"verify", signed_out, "--require-signature"});
  EXPECT_EQ(present.exit_code, 0) << Why(present);
  EXPECT_NE(present.out.find(" KiB, 1 module\nsignature: present, key sha256 " + fp1 +
                             " (not checked: pass --key to check it)\n"),
            std::string::npos)
      << present.out;

  CommandResult json = Mlf({"verify", signed_out, "--key", k1 + ".pub", "--json"});
  EXPECT_EQ(json.exit_code, 0) << Why(json);
  nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["signed"], true);
  EXPECT_EQ(j["signature_checked"], true);
  EXPECT_EQ(j["signer_key_sha256"], fp1);

  CommandResult inspect = Mlf({"inspect", signed_out});
  EXPECT_NE(inspect.out.find("\nsignature   key sha256 " + fp1 + " (check with mlf verify --key)\n"),
            std::string::npos)
      << inspect.out;

  const std::string wrong_key_error = signed_out + ": signed by a different key: the signature "
                                      "names key " + fp1 + ", the given key is " + fp2;
  ExpectFailure(Mlf({"verify", signed_out, "--key", k2 + ".pub"}), wrong_key_error);
  CommandResult wrong_json = Mlf({"verify", signed_out, "--key", k2 + ".pub", "--json"});
  EXPECT_EQ(wrong_json.exit_code, 1);
  nlohmann::json wj = nlohmann::json::parse(wrong_json.out);
  EXPECT_EQ(wj["ok"], false);
  EXPECT_EQ(wj["error_code"], "unauthenticated");
  EXPECT_EQ(wj["error"], wrong_key_error.substr(signed_out.size() + 2));

  const std::string not_signed =
      archive + ": archive is not signed (no metadata.json.sig after metadata.json) but a "
                "signature is required; sign it with `mlf sign`";
  ExpectFailure(Mlf({"verify", archive, "--require-signature"}), not_signed);
  ExpectFailure(Mlf({"verify", archive, "--key", k1 + ".pub"}), not_signed);

  // Re-signing with another key replaces the signature.
  CommandResult resign = Mlf({"sign", in_place, "--key", k2 + ".key"});
  EXPECT_EQ(resign.exit_code, 0) << Why(resign);
  EXPECT_EQ(Mlf({"verify", in_place, "--key", k2 + ".pub"}).exit_code, 0);
  EXPECT_EQ(Mlf({"verify", in_place, "--key", k1 + ".pub"}).exit_code, 1);
}

TEST_F(CliTest, KeyMisuseIsAClearError) {
  const std::string archive = PackExample();
  const std::string before = ReadFile(archive);
  const std::string k = Keygen("k");

  ExpectFailure(Mlf({"sign", archive, "--key", k + ".pub"}),
                archive + ": expected a private key but got a public key (use the .key file, "
                          "not the .pub file)");
  EXPECT_EQ(ReadFile(archive), before);
  ExpectFailure(Mlf({"sign", archive, "--key", k + ".pub", "-o", dir_ + "/x.tar"}),
                archive + ": expected a private key but got a public key (use the .key file, "
                          "not the .pub file)");
  EXPECT_FALSE(Exists(dir_ + "/x.tar"));

  const std::string signed_out = dir_ + "/signed.tar";
  ASSERT_EQ(Mlf({"sign", archive, "--key", k + ".key", "-o", signed_out}).exit_code, 0);
  ExpectFailure(Mlf({"verify", signed_out, "--key", k + ".key"}),
                signed_out + ": expected a public key but got a private key (use the .pub "
                             "file; keep the .key file private)");

  ExpectFailure(Mlf({"sign", archive, "--key", dir_ + "/none.key"}),
                "key file '" + dir_ + "/none.key' does not exist");

  const std::string open_key = dir_ + "/open.key";
  WriteFile(open_key, ReadFile(k + ".key"));
  chmod(open_key.c_str(), 0644);
  ExpectFailure(Mlf({"sign", archive, "--key", open_key}),
                "key file '" + open_key + "' is readable by others (mode 0644); chmod 600 it");
  EXPECT_EQ(ReadFile(archive), before);
}

// ---------------------------------------------------------------- determinism, GNU tar

TEST_F(CliTest, PackIsDeterministicForEveryCompression) {
  for (const char* compression : {"none", "gzip", "zstd"}) {
    SCOPED_TRACE(compression);
    const std::string a = PackExample(std::string("a.") + compression, {"--compress", compression});
    const std::string b = PackExample(std::string("b.") + compression, {"--compress", compression});
    const std::string bytes = ReadFile(a);
    ASSERT_FALSE(bytes.empty());
    EXPECT_TRUE(bytes == ReadFile(b)) << "packing twice gave different bytes";
    const std::string kind = compression;
    if (kind == "gzip") {
      EXPECT_EQ(bytes.substr(0, 2), "\x1f\x8b");
    } else if (kind == "zstd") {
      EXPECT_EQ(bytes.substr(0, 4), "\x28\xb5\x2f\xfd");
    } else {
      EXPECT_EQ(bytes.size() % 512, 0u);
    }
    CommandResult v = Mlf({"verify", a, "--json"});
    EXPECT_EQ(v.exit_code, 0) << Why(v);
    EXPECT_EQ(nlohmann::json::parse(v.out)["compression"], compression);
  }
  // The default is uncompressed.
  EXPECT_TRUE(ReadFile(PackExample("default.tar")) == ReadFile(dir_ + "/a.none"));
}

TEST_F(CliTest, GnuTarListsMetadataFirstAndEveryMember) {
  const std::string expected = std::string("metadata.json\n") + kHeader + "\n" + kSource + "\n";
  for (const char* compression : {"none", "gzip", "zstd"}) {
    SCOPED_TRACE(compression);
    const std::string archive =
        PackExample(std::string("t.") + compression, {"--compress", compression});
    CommandResult r = Tar({"tf", archive});
    EXPECT_EQ(r.exit_code, 0) << Why(r);
    EXPECT_EQ(r.out, expected);
    EXPECT_EQ(r.err, "");
  }
  const std::string k = Keygen("k");
  const std::string signed_out = dir_ + "/signed.tar";
  ASSERT_EQ(Mlf({"sign", dir_ + "/t.none", "--key", k + ".key", "-o", signed_out}).exit_code, 0);
  CommandResult r = Tar({"tf", signed_out});
  EXPECT_EQ(r.exit_code, 0) << Why(r);
  EXPECT_EQ(r.out, std::string("metadata.json\nmetadata.json.sig\n") + kHeader + "\n" + kSource + "\n");

  // Owner, mode and time as docs/archive-format.md, "Container", says.
  CommandResult v = Tar({"--full-time", "-tvf", dir_ + "/t.none"});
  EXPECT_EQ(v.exit_code, 0) << Why(v);
  for (const std::string& line : Lines(v.out)) {
    EXPECT_EQ(line.rfind("-rw-r--r-- 0/0 ", 0), 0u) << line;
    EXPECT_NE(line.find(" 1970-01-01 00:00:00 "), std::string::npos) << line;
  }
}

TEST_F(CliTest, SourceDateEpochSetsTheMemberTime) {
  CopyExample(dir_ + "/model");
  const std::string out = dir_ + "/dated.tar";
  RunOptions options;
  options.env = {{"SOURCE_DATE_EPOCH", "1700000000"}};
  CommandResult p = Mlf({"pack", dir_ + "/model", "-o", out}, options);
  ASSERT_EQ(p.exit_code, 0) << Why(p);
  CommandResult v = Tar({"--full-time", "-tvf", out});
  ASSERT_EQ(v.exit_code, 0) << Why(v);
  ASSERT_EQ(Lines(v.out).size(), 3u) << v.out;
  for (const std::string& line : Lines(v.out)) {
    EXPECT_NE(line.find(" 2023-11-14 22:13:20 "), std::string::npos) << line;
  }
  EXPECT_FALSE(ReadFile(out) == ReadFile(PackExample("undated.tar")));
  // Same epoch, same bytes.
  const std::string again = dir_ + "/dated2.tar";
  ASSERT_EQ(Mlf({"pack", dir_ + "/model", "-o", again}, options).exit_code, 0);
  EXPECT_TRUE(ReadFile(out) == ReadFile(again));

  for (const char* bad : {"abc", "-5", "12x", "99999999999999999999"}) {
    SCOPED_TRACE(bad);
    const std::string target = dir_ + "/bad_epoch.tar";
    RunOptions bad_env;
    bad_env.env = {{"SOURCE_DATE_EPOCH", bad}};
    CommandResult r = Mlf({"pack", dir_ + "/model", "-o", target}, bad_env);
    ExpectFailure(r, std::string("SOURCE_DATE_EPOCH='") + bad +
                         "' is not a non-negative integer number of seconds");
    EXPECT_FALSE(Exists(target));
  }
}

// ---------------------------------------------------------------- pack errors

TEST_F(CliTest, PackRefusesBadDirectories) {
  const std::string out = dir_ + "/out.tar";

  const std::string empty = dir_ + "/empty";
  MakeDirs(empty);
  WriteFile(empty + "/notes.txt", "no metadata here\n");
  ExpectFailure(Mlf({"pack", empty, "-o", out}),
                "cannot read '" + empty + "/metadata.json': No such file or directory");
  EXPECT_FALSE(Exists(out));

  const std::string linked = CopyExample(dir_ + "/linked");
  ASSERT_EQ(symlink("/etc/passwd", (linked + "/codegen/passwd").c_str()), 0);
  ExpectFailure(Mlf({"pack", linked, "-o", out}),
                "'codegen/passwd' in '" + linked +
                    "' is not a regular file (links and special files are not packed)");
  EXPECT_FALSE(Exists(out));

  const std::string missing = CopyExample(dir_ + "/missing");
  ASSERT_EQ(unlink((missing + "/" + kSource).c_str()), 0);
  ExpectFailure(Mlf({"pack", missing, "-o", out}),
                "'" + missing + "/" + std::string(kSource) +
                    "' does not exist (module 'tiny' sources refers to it)");
  EXPECT_FALSE(Exists(out));

  const std::string broken = CopyExample(dir_ + "/broken");
  WriteFile(broken + "/metadata.json", "{\"version\": 8,");
  CommandResult r = Mlf({"pack", broken, "-o", out});
  EXPECT_EQ(r.exit_code, 1) << Why(r);
  EXPECT_EQ(r.err.rfind("mlf: error: " + broken + ": metadata.json: not valid JSON: ", 0), 0u)
      << Why(r);
  EXPECT_FALSE(Exists(out));
}

TEST_F(CliTest, PackIntoAMissingDirectoryCreatesNothing) {
  CopyExample(dir_ + "/model");
  const auto before = ListTree(dir_);
  const std::string out = dir_ + "/nodir/sub/out.tar";
  ExpectFailure(Mlf({"pack", dir_ + "/model", "-o", out}),
                "cannot open directory '" + dir_ + "/nodir/sub' to write '" + out +
                    "': No such file or directory");
  EXPECT_EQ(ListTree(dir_), before) << FormatListing(ListTree(dir_));
}

TEST_F(CliTest, PackLeavesAnExistingOutputAloneOnFailure) {
  const std::string out = PackExample("keep.tar");
  const std::string before = ReadFile(out);
  const std::string missing = CopyExample(dir_ + "/missing");
  ASSERT_EQ(unlink((missing + "/" + kHeader).c_str()), 0);
  ASSERT_EQ(unlink((missing + "/" + kSource).c_str()), 0);
  const auto listing = ListTree(dir_);
  CommandResult r = Mlf({"pack", missing, "-o", out});
  EXPECT_EQ(r.exit_code, 1) << Why(r);
  EXPECT_EQ(ReadFile(out), before);
  EXPECT_EQ(ListTree(dir_), listing) << "no temporary file may remain";
}

// ---------------------------------------------------------------- unpack

TEST_F(CliTest, UnpackRoundTripsEveryMember) {
  const std::string archive = PackExample();
  const std::string k = Keygen("k");
  const std::string signed_out = dir_ + "/signed.tar";
  ASSERT_EQ(Mlf({"sign", archive, "--key", k + ".key", "-o", signed_out}).exit_code, 0);

  struct Case {
    std::string archive;
    std::vector<std::string> flags;
    int members;
  };
  for (const Case& c : {Case{archive, {}, 3}, Case{signed_out, {"--key", k + ".pub"}, 4},
                        Case{signed_out, {"--require-signature"}, 4}}) {
    SCOPED_TRACE(c.archive + " " + std::to_string(c.flags.size()));
    const std::string work = FreshDir("cli/UnpackRoundTripsEveryMember.work");
    const std::string dest = work + "/out/model";
    std::vector<std::string> args = {"unpack", c.archive, "-o", dest};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    CommandResult r = Mlf(args);
    ASSERT_EQ(r.exit_code, 0) << Why(r);
    EXPECT_EQ(r.out, "unpacked " + std::to_string(c.members) + " members into " + dest + "\n");
    EXPECT_EQ(r.err, "");

    // The same tree as GNU tar extracts, and the example's own files.
    const std::string ref = work + "/ref";
    MakeDirs(ref);
    CommandResult t = Tar({"xf", c.archive, "-C", ref});
    ASSERT_EQ(t.exit_code, 0) << Why(t);
    EXPECT_EQ(ListTree(dest), ListTree(ref)) << "mlf:\n" << FormatListing(ListTree(dest))
                                             << "tar:\n" << FormatListing(ListTree(ref));
    for (const char* member : {kHeader, kSource}) {
      EXPECT_EQ(ReadFile(dest + "/" + member), ReadFile(ExampleRunfilesDir() + "/" + member));
    }
    EXPECT_EQ(FileMode(dest + "/" + kSource), 0644u);
    EXPECT_EQ(FileMode(dest), 0755u);
    // Nothing else beside the destination (no staging directory left).
    std::set<std::string> beside;
    for (const auto& [path, desc] : ListTree(work + "/out")) {
      beside.insert(path.substr(0, path.find('/')));
    }
    EXPECT_EQ(beside, std::set<std::string>{"model"});
  }
}

TEST_F(CliTest, UnpackIntoAnEmptyDirectoryWorks) {
  const std::string archive = PackExample();
  const std::string dest = dir_ + "/empty";
  MakeDirs(dest);
  CommandResult r = Mlf({"unpack", archive, "-o", dest});
  EXPECT_EQ(r.exit_code, 0) << Why(r);
  EXPECT_TRUE(Exists(dest + "/" + kSource));
}

TEST_F(CliTest, UnpackRefusesANonEmptyOrNonDirectoryDestination) {
  const std::string archive = PackExample();
  const std::string dest = dir_ + "/full";
  MakeDirs(dest);
  WriteFile(dest + "/mine.txt", "keep me\n");
  const auto before = ListTree(dir_);
  ExpectFailure(Mlf({"unpack", archive, "-o", dest}),
                archive + ": destination '" + dest +
                    "' exists and is not empty; extract into a new or empty directory");
  EXPECT_EQ(ListTree(dir_), before) << FormatListing(ListTree(dir_));

  const std::string file = dir_ + "/file";
  WriteFile(file, "x");
  ExpectFailure(Mlf({"unpack", archive, "-o", file}),
                archive + ": destination '" + file + "' exists and is not a directory");
  EXPECT_EQ(ReadFile(file), "x");
}

TEST_F(CliTest, UnpackWithTheWrongKeyWritesNothing) {
  const std::string archive = PackExample();
  const std::string k1 = Keygen("k1"), k2 = Keygen("k2");
  ASSERT_EQ(Mlf({"sign", archive, "--key", k1 + ".key"}).exit_code, 0);
  MakeDirs(dir_ + "/out");
  const auto before = ListTree(dir_);
  const std::string dest = dir_ + "/out/model";
  ExpectFailure(Mlf({"unpack", archive, "-o", dest, "--key", k2 + ".pub"}),
                archive + ": signed by a different key: the signature names key " +
                    Fingerprint(k1 + ".pub") + ", the given key is " + Fingerprint(k2 + ".pub"));
  EXPECT_EQ(ListTree(dir_), before) << FormatListing(ListTree(dir_));
}

// A failed unpack leaves the file system as it was: the missing parent
// directories of DEST that unpack creates for a successful run must not
// remain after a failure.
TEST_F(CliTest, FailedUnpackLeavesNoNewParentDirectories) {
  const std::string archive = PackExample();
  const std::string k1 = Keygen("k1"), k2 = Keygen("k2");
  ASSERT_EQ(Mlf({"sign", archive, "--key", k1 + ".key"}).exit_code, 0);
  const auto before = ListTree(dir_);
  const std::string dest = dir_ + "/new/parents/model";
  CommandResult r = Mlf({"unpack", archive, "-o", dest, "--key", k2 + ".pub"});
  EXPECT_EQ(r.exit_code, 1) << Why(r);
  EXPECT_EQ(ListTree(dir_), before) << "after a failed unpack:\n" << FormatListing(ListTree(dir_));

  // A successful unpack does create them.
  CommandResult ok = Mlf({"unpack", archive, "-o", dest, "--key", k1 + ".pub"});
  EXPECT_EQ(ok.exit_code, 0) << Why(ok);
  EXPECT_TRUE(Exists(dest + "/" + kSource));
}

}  // namespace
}  // namespace mlf
