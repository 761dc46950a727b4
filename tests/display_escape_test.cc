// What `mlf` prints for names that carry terminal control: escape sequences,
// carriage returns and newlines, C1 controls, bidi overrides and invalid
// UTF-8 in descriptions and tar member names. Human-readable output and error
// messages show them escaped (artifact/base/display_text.h) — a member named
// "codegen/\x1b[2K\rverified OK\n" once painted a fake "verified OK" line —
// and --json output stays valid JSON, ASCII only, with the original strings.
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "artifact/base/digest.h"
#include "tests/run_command.h"
#include "tests/tar_builder.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

constexpr char kHeader[] = "codegen/host/include/tvmgen_tiny.h";
constexpr char kSource[] = "codegen/host/src/tiny_lib0.c";

// The M2 reproduction, and a member name that is not UTF-8 with a bidi override.
const std::string kFakeLine = "codegen/\x1b[2K\rverified OK\n";
const std::string kFakeLineShown = "codegen/\\x1b[2K\\x0dverified OK\\x0a";
const std::string kNotUtf8 = "codegen/\xff\xfe\xe2\x80\xae" "c.txt";
const std::string kNotUtf8Shown = "codegen/\\xff\\xfe\\u{202E}c.txt";
const std::string kDescription =
    "fine\x1b[2K\rverified OK\nnext\tline \xe2\x80\xae" "exe.png \xc2\x9b" "31m \xe2\x81\xa6x\x7f";
const std::string kDescriptionShown =
    "fine\\x1b[2K\\x0dverified OK\\x0anext\\x09line \\u{202E}exe.png \\u{009B}31m \\u{2066}x\\x7f";

class DisplayEscapeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(std::string("display_escape/") +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    CopyExample(dir_ + "/model");
  }

  CommandResult Mlf(std::vector<std::string> args) {
    args.insert(args.begin(), MlfBinary());
    return RunCommand(args, {});
  }

  // The example with `edit` applied to metadata.json, `listed` members added
  // to the archive and to `files`, and `unlisted` members added to the
  // archive only.
  std::string Craft(const std::string& name, const std::function<void(nlohmann::json&)>& edit,
                    const std::vector<std::pair<std::string, std::string>>& listed,
                    const std::vector<std::string>& unlisted = {}) {
    nlohmann::json md = nlohmann::json::parse(ReadFile(dir_ + "/model/metadata.json"));
    edit(md);
    std::vector<std::pair<std::string, std::string>> members = {
        {kHeader, ReadFile(dir_ + "/model/" + kHeader)}, {kSource, ReadFile(dir_ + "/model/" + kSource)}};
    members.insert(members.end(), listed.begin(), listed.end());
    md["files"] = nlohmann::json::object();
    std::vector<TarEntry> entries;
    for (const auto& [path, data] : members) {
      md["files"][path] = {{"size", data.size()}, {"sha256", Sha256Hex(data)}};
    }
    entries.push_back(TarFile("metadata.json", md.dump(2) + "\n"));
    for (const auto& [path, data] : members) entries.push_back(TarFile(path, data));
    for (const std::string& path : unlisted) {
      TarEntry e = TarFile(path, "x");
      if (path.size() > 100) e.pax = {{"path", path}};  // ustar names hold 100 bytes
      entries.push_back(e);
    }
    const std::string archive = dir_ + "/" + name;
    WriteFile(archive, BuildTar(entries));
    return archive;
  }

  std::string dir_;
};

// True when `text` holds only printable ASCII and line breaks.
bool PrintableAscii(const std::string& text) {
  for (unsigned char c : text) {
    if (c != '\n' && (c < 0x20 || c >= 0x7F)) return false;
  }
  return true;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

bool HasLine(const std::string& text, const std::string& line) {
  for (const std::string& l : Lines(text)) {
    if (l == line) return true;
  }
  return false;
}

TEST_F(DisplayEscapeTest, InspectShowsDescriptionsAndMemberPathsEscaped) {
  const std::string data = "hello";
  const std::string archive = Craft(
      "desc.tar", [](nlohmann::json& md) { md["modules"]["tiny"]["description"] = kDescription; },
      {{kFakeLine, data}});
  CommandResult inspect = Mlf({"inspect", archive});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_TRUE(PrintableAscii(inspect.out)) << inspect.out;
  EXPECT_TRUE(HasLine(inspect.out, "  " + kDescriptionShown)) << inspect.out;
  // files table: bytes (width 5), the first 16 hex digits of the digest, the path.
  EXPECT_TRUE(HasLine(inspect.out, "  5      " + Sha256Hex(data).substr(0, 16) + "  " + kFakeLineShown))
      << inspect.out;
  EXPECT_FALSE(HasLine(inspect.out, "verified OK"));
  EXPECT_EQ(inspect.err, "");

  // The archive is valid: verify's report has no control bytes either.
  CommandResult verify = Mlf({"verify", archive});
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
  EXPECT_TRUE(PrintableAscii(verify.out)) << verify.out;

  // --json: valid JSON, ASCII only, with the original strings.
  CommandResult json = Mlf({"inspect", archive, "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(PrintableAscii(json.out)) << json.out;
  nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["metadata"]["modules"]["tiny"]["description"], kDescription);
  EXPECT_TRUE(j["metadata"]["files"].contains(kFakeLine));
  EXPECT_NE(json.out.find("\\u001b[2K\\r"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\\u202e"), std::string::npos) << json.out;
}

TEST_F(DisplayEscapeTest, ErrorsShowHostileMemberNamesEscaped) {
  const std::string fake = Craft("fake.tar", [](nlohmann::json&) {}, {}, {kFakeLine});
  CommandResult verify = Mlf({"verify", fake});
  EXPECT_EQ(verify.exit_code, 1);
  EXPECT_EQ(verify.out, "");
  EXPECT_EQ(verify.err, "mlf: error: " + fake + ": extra member '" + kFakeLineShown +
                            "' is not listed in metadata.json files\n");

  const std::string bad_utf8 = Craft("utf8.tar", [](nlohmann::json&) {}, {}, {kNotUtf8});
  verify = Mlf({"verify", bad_utf8});
  EXPECT_EQ(verify.exit_code, 1);
  EXPECT_EQ(verify.err, "mlf: error: " + bad_utf8 + ": extra member '" + kNotUtf8Shown +
                            "' is not listed in metadata.json files\n");

  // --json reports the same error as a JSON string (it used to abort on
  // bytes that are not UTF-8).
  for (const auto& [archive, shown] : {std::pair{fake, kFakeLineShown}, {bad_utf8, kNotUtf8Shown}}) {
    CommandResult json = Mlf({"verify", archive, "--json"});
    EXPECT_EQ(json.exit_code, 1);
    EXPECT_FALSE(json.signaled);
    EXPECT_TRUE(PrintableAscii(json.out)) << json.out;
    nlohmann::json j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j["ok"], false);
    EXPECT_EQ(j["error"], "extra member '" + shown + "' is not listed in metadata.json files");
  }
}

TEST_F(DisplayEscapeTest, EveryErrorPassesTheTerminalGuard) {
  // Paths from the command line reach messages without an explicit escape;
  // the guard on std::cerr escapes them all the same.
  const std::string path = dir_ + "/missing\x1b]0;title\x07\xe2\x80\xae.tar";
  CommandResult r = Mlf({"inspect", path});
  EXPECT_EQ(r.exit_code, 1);
  const std::string shown = dir_ + "/missing\\x1b]0;title\\x07\\u{202E}.tar";
  EXPECT_EQ(r.err.rfind("mlf: error: " + shown + ": ", 0), 0u) << r.err;
  EXPECT_TRUE(PrintableAscii(r.err)) << r.err;
  EXPECT_EQ(Lines(r.err).size(), 1u) << r.err;

  CommandResult unknown = Mlf({"\x1b[31mfrob\r"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err, "mlf: error: unknown command '\\x1b[31mfrob\\x0d'\nTry 'mlf help'.\n");

  CommandResult extra = Mlf({"verify", "a.tar", "b\nc\x9b"});
  EXPECT_EQ(extra.exit_code, 2);
  EXPECT_EQ(extra.err, "mlf: error: unexpected argument 'b\\x0ac\\x9b'\nTry 'mlf verify --help'.\n");
}

// A member name with a newline, an ESC sequence, a RIGHT-TO-LEFT MARK
// (U+200F) and 300 more bytes: every command that reads the archive refuses
// it naming it the one way messages quote names (QuoteForMessage in
// artifact/base/display_text.h): escaped, in single quotes, cut after 200
// bytes with "...".
TEST_F(DisplayEscapeTest, EveryCommandQuotesAHostileLongNameTheSameWay) {
  const std::string name = "codegen/ev\nil\x1b[2K\xe2\x80\x8f" + std::string(300, 'L');
  const std::string quoted =
      "'codegen/ev\\x0ail\\x1b[2K\\u{200F}" + std::string(200 - 20, 'L') + "...'";
  const std::string archive = Craft("long.tar", [](nlohmann::json&) {}, {}, {name});
  const std::string message = "mlf: error: " + archive + ": extra member " + quoted +
                              " is not listed in metadata.json files\n";
  const std::vector<std::vector<std::string>> commands = {
      {"verify", archive},
      {"unpack", archive, "-o", dir_ + "/unpacked"},
      {"run", archive, "--random-inputs", "1"},
      {"bench", archive, "--iterations", "1"},
      {"project", archive, "-o", dir_ + "/project"},
  };
  for (const std::vector<std::string>& args : commands) {
    CommandResult r = Mlf(args);
    EXPECT_EQ(r.exit_code, 1) << args[0];
    EXPECT_EQ(r.err, message) << args[0];
    EXPECT_TRUE(PrintableAscii(r.err)) << args[0];
  }
}

}  // namespace
}  // namespace mlf
