// End-to-end behaviour of `mlf run` and `mlf bench` on hand-written fixture
// models (tests/fixtures): inputs from .npy files by raw or C name, random
// inputs, --output-dir, --expect-dir with tolerances, the JSON reports, the
// exact error of each bad input, and archives without a host library (compiled
// into $MLF_CACHE_DIR, which every child gets so nothing is written to $HOME).
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "artifact/archive/signature.h"
#include "artifact/base/shell_text.h"
#include "artifact/format/dtype.h"
#include "artifact/format/npy.h"
#include "tests/fixtures/fixture_models.h"
#include "tests/run_command.h"
#include "tests/test_files.h"
#include "tests/test_tensors.h"

namespace mlf {
namespace {

using testing::MakeFixture;
using testing::NpyOf;
using testing::WriteFixtureArchive;

// --------------------------------------------------------------- .npy helpers

template <typename T>
std::vector<T> Values(const NpyArray& a) {
  std::vector<T> v(a.data.size() / sizeof(T));
  std::memcpy(v.data(), a.data.data(), v.size() * sizeof(T));
  return v;
}

void WriteNpy(const std::string& path, const NpyArray& array) {
  Status s = WriteNpyFile(path, array);
  ASSERT_TRUE(s.ok()) << s.ToString();
}

NpyArray ReadNpy(const std::string& path) {
  Result<NpyArray> a = ParseNpy(ReadFile(path));
  EXPECT_TRUE(a.ok()) << path << ": " << a.status().ToString();
  return a.ok() ? *a : NpyArray{};
}

// A hand-made .npy file: magic, version major.0, the header length (u16 for
// 1.0, u32 for 2.0) and `dict` padded with spaces and '\n' to 64 bytes.
std::string RawNpy(int major, const std::string& dict, const std::string& data) {
  const size_t prefix = 6 + 2 + (major == 1 ? 2 : 4);
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  const uint32_t len = static_cast<uint32_t>(header.size());
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) out += static_cast<char>((len >> (8 * i)) & 0xFF);
  return out + header + data;
}

template <typename T>
std::string Bytes(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// The "pair" fixture's reference inputs and outputs:
// sum[i][j] = a[i][j] + b[j]; stats = {#sum > 0, sum of b}.
const std::vector<float> kA = {1.5f, -2.0f, 0.25f, -4.0f, 5.0f, -0.5f};
const std::vector<int32_t> kB = {1, 2, 3};
const std::vector<float> kSum = {2.5f, 0.0f, 3.25f, -3.0f, 7.0f, 2.5f};
const std::vector<int64_t> kStats = {4, 6};

constexpr char kPairText[] =
    "module pair\n"
    "output sum float32[2, 3]  min -3  max 7  mean 2.04167\n"
    "  values 2.5 0 3.25 -3 7 2.5\n"
    "output stats int64[2]  min 4  max 6  mean 5\n"
    "  values 4 6\n";

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// For EXPECT_TRUE: whether `line` is a whole line of `text` (the failure shows both).
::testing::AssertionResult HasLine(const std::string& text, const std::string& line) {
  for (const std::string& l : Lines(text)) {
    if (l == line) return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "no line \"" << line << "\" in:\n" << text;
}

// ------------------------------------------------------------------ fixture

// Archives shared by every test (built once; the tests only read them).
struct Archives {
  std::string dir;
  std::string pair, dense, dense_file, two, inputs;  // `inputs`: pair's reference .npy files
};

const Archives& Shared() {
  static const Archives* archives = [] {
    auto* a = new Archives;
    a->dir = FreshDir("cli_run/archives");
    auto one = [&](const std::vector<std::pair<std::string, std::string>>& kinds_names,
                   const std::string& file) {
      std::vector<ModuleArtifacts> modules;
      for (const auto& [kind, name] : kinds_names) {
        Result<ModuleArtifacts> m = MakeFixture(kind, name);
        EXPECT_TRUE(m.ok()) << m.status().ToString();
        if (m.ok()) modules.push_back(*m);
      }
      const std::string out = a->dir + "/" + file;
      Status s = WriteFixtureArchive(modules, out);
      EXPECT_TRUE(s.ok()) << file << ": " << s.ToString();
      return out;
    };
    a->pair = one({{"pair", "pair"}}, "pair.mlf.tar");
    a->dense = one({{"dense", "dense"}}, "dense.mlf.tar");
    a->dense_file = one({{"dense_file", "dense_file"}}, "dense_file.mlf.tar");
    a->two = one({{"pair", "pair"}, {"dense", "dense"}}, "two.mlf.tar");
    a->inputs = a->dir + "/inputs";
    MakeDirs(a->inputs);
    EXPECT_TRUE(WriteNpyFile(a->inputs + "/a.npy", NpyOf(DType::kFloat32, {2, 3}, kA)).ok());
    EXPECT_TRUE(WriteNpyFile(a->inputs + "/b.npy", NpyOf(DType::kInt32, {3}, kB)).ok());
    return a;
  }();
  return *archives;
}

class CliRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    archives_ = &Shared();
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = FreshDir(std::string("cli_run/") + info->name());
    cache_ = dir_ + "/cache";
    a_npy_ = archives_->inputs + "/a.npy";
    b_npy_ = archives_->inputs + "/b.npy";
  }

  // Runs `mlf args...` in the test's directory with MLF_CACHE_DIR in it.
  CommandResult Mlf(const std::vector<std::string>& args, RunOptions options = {}) {
    argv_ = {MlfBinary()};
    argv_.insert(argv_.end(), args.begin(), args.end());
    options.env.insert(options.env.begin(), {"MLF_CACHE_DIR", cache_});
    if (options.cwd.empty()) options.cwd = dir_;
    return RunCommand(argv_, options);
  }

  std::string Why(const CommandResult& r) const { return Describe(argv_, r); }

  // `mlf run pair.mlf.tar --input a=... --input b:0=... extra...`
  CommandResult RunPair(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"run", archives_->pair, "--input", "a=" + a_npy_, "--input",
                                     "b:0=" + b_npy_};
    args.insert(args.end(), extra.begin(), extra.end());
    return Mlf(args);
  }

  // Expects exit 1, nothing on stdout and exactly "mlf: error: <message>\n" on stderr.
  void ExpectFailure(const CommandResult& r, const std::string& message) {
    EXPECT_EQ(r.exit_code, 1) << Why(r);
    EXPECT_EQ(r.out, "") << Why(r);
    EXPECT_EQ(r.err, "mlf: error: " + message + "\n") << Why(r);
  }

  // Expects exit 2, nothing on stdout and the message with the help hint on stderr.
  void ExpectUsageError(const CommandResult& r, const std::string& command,
                        const std::string& message) {
    EXPECT_EQ(r.exit_code, 2) << Why(r);
    EXPECT_EQ(r.out, "") << Why(r);
    EXPECT_EQ(r.err, "mlf: error: " + message + "\nTry 'mlf " + command + " --help'.\n") << Why(r);
  }

  // Writes the pair's reference outputs (as `mlf run --output-dir` would) to dir_/<name>.
  std::string ExpectedDir(const std::string& name, std::vector<float> sum = kSum) {
    const std::string d = dir_ + "/" + name;
    MakeDirs(d);
    WriteNpy(d + "/sum.npy", NpyOf(DType::kFloat32, {2, 3}, sum));
    WriteNpy(d + "/stats.npy", NpyOf(DType::kInt64, {2}, kStats));
    return d;
  }

  static std::string Fingerprint(const std::string& pub_path) {
    Result<std::string> fp = PublicKeyFingerprint(ReadFile(pub_path));
    EXPECT_TRUE(fp.ok()) << fp.status().ToString();
    return fp.ok() ? *fp : "";
  }

  nlohmann::json Json(const CommandResult& r) {
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << Why(r);
    return j;
  }

  const Archives* archives_ = nullptr;
  std::string dir_, cache_, a_npy_, b_npy_;
  std::vector<std::string> argv_;
};

// ------------------------------------------------------------- mlf run: values

TEST_F(CliRunTest, InputsByRawNamePrintEveryOutput) {
  CommandResult r = RunPair();
  EXPECT_EQ(r.exit_code, 0) << Why(r);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, kPairText);
}

TEST_F(CliRunTest, InputsByCNameGiveTheSameOutputs) {
  CommandResult r = Mlf({"run", archives_->pair, "--input", "b_0=" + b_npy_, "--input", "a=" + a_npy_});
  EXPECT_EQ(r.exit_code, 0) << Why(r);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, kPairText);
}

TEST_F(CliRunTest, OutputDirHoldsOneNpyPerOutputWithTheExactValues) {
  const std::string out = dir_ + "/out";
  CommandResult r = RunPair({"--output-dir", out});
  ASSERT_EQ(r.exit_code, 0) << Why(r);
  EXPECT_EQ(r.out, kPairText);
  EXPECT_EQ(ListTree(out).size(), 2u) << FormatListing(ListTree(out));

  NpyArray sum = ReadNpy(out + "/sum.npy");
  EXPECT_EQ(sum.dtype, DType::kFloat32);
  EXPECT_EQ(sum.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Values<float>(sum), kSum);
  NpyArray stats = ReadNpy(out + "/stats.npy");
  EXPECT_EQ(stats.dtype, DType::kInt64);
  EXPECT_EQ(stats.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(Values<int64_t>(stats), kStats);
  // Written exactly as numpy.save writes them.
  EXPECT_EQ(ReadFile(out + "/sum.npy"), SerializeNpy(NpyOf(DType::kFloat32, {2, 3}, kSum)));
}

TEST_F(CliRunTest, DenseModelsWithLinkedAndFileParametersComputeTheReference) {
  const std::vector<float> x = {0.5f, -1.0f, 2.0f, 0.25f};
  WriteNpy(dir_ + "/x.npy", NpyOf(DType::kFloat32, {1, 4}, x));
  for (const std::string& archive : {archives_->dense, archives_->dense_file}) {
    SCOPED_TRACE(archive);
    const std::string out = dir_ + "/out" + std::to_string(archive.size());
    CommandResult r = Mlf({"run", archive, "--input", "x=" + dir_ + "/x.npy", "--output-dir", out});
    ASSERT_EQ(r.exit_code, 0) << Why(r);
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("\noutput y float32[1, 3]  min "), std::string::npos) << r.out;
    NpyArray y = ReadNpy(out + "/y.npy");
    EXPECT_EQ(y.shape, (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(Values<float>(y), testing::DenseReference(x));
  }
}

TEST_F(CliRunTest, NpyVersion2AndDoubleQuotedHeadersAreAccepted) {
  const std::string a2 = dir_ + "/a_v2.npy";
  WriteFile(a2, RawNpy(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", Bytes(kA)));
  const std::string b1 = dir_ + "/b_hand.npy";
  WriteFile(b1, RawNpy(1, "{\"shape\": (3,), \"descr\": \"<i4\", \"fortran_order\": False}", Bytes(kB)));
  CommandResult r = Mlf({"run", archives_->pair, "--input", "a=" + a2, "--input", "b:0=" + b1});
  EXPECT_EQ(r.exit_code, 0) << Why(r);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, kPairText);
}

TEST_F(CliRunTest, RandomInputsAreReproducibleAndDependOnTheSeed) {
  auto run = [&](const std::string& seed, const std::string& out) {
    CommandResult r = Mlf({"run", archives_->pair, "--random-inputs", seed, "--output-dir", out});
    EXPECT_EQ(r.exit_code, 0) << Why(r);
    EXPECT_EQ(r.err, "");
    return r.out;
  };
  const std::string first = run("7", dir_ + "/s7a");
  const std::string second = run("7", dir_ + "/s7b");
  const std::string other = run("8", dir_ + "/s8");
  EXPECT_EQ(first, second);
  EXPECT_NE(first, other);
  for (const char* file : {"/sum.npy", "/stats.npy"}) {
    EXPECT_EQ(ReadFile(dir_ + "/s7a" + file), ReadFile(dir_ + "/s7b" + file)) << file;
  }
  EXPECT_NE(ReadFile(dir_ + "/s7a/sum.npy"), ReadFile(dir_ + "/s8/sum.npy"));
  // Random int32 b lies in [-10, 10] (artifact/format/tensor_values.h), so |stats[1]| <= 30.
  NpyArray stats = ReadNpy(dir_ + "/s7a/stats.npy");
  ASSERT_EQ(Values<int64_t>(stats).size(), 2u);
  EXPECT_LE(std::abs(Values<int64_t>(stats)[1]), 30);
}

TEST_F(CliRunTest, RandomInputsFillOnlyTheInputsNotGiven) {
  WriteNpy(dir_ + "/zeros.npy", NpyOf(DType::kFloat32, {2, 3}, std::vector<float>(6, 0.0f)));
  const std::string out = dir_ + "/out";
  CommandResult r = Mlf({"run", archives_->pair, "--input", "a=" + dir_ + "/zeros.npy",
                         "--random-inputs", "7", "--output-dir", out});
  ASSERT_EQ(r.exit_code, 0) << Why(r);
  // With a = 0 both rows of sum are b, and stats[1] is their sum.
  std::vector<float> sum = Values<float>(ReadNpy(out + "/sum.npy"));
  ASSERT_EQ(sum.size(), 6u);
  for (int j = 0; j < 3; ++j) EXPECT_EQ(sum[j], sum[3 + j]) << j;
  EXPECT_EQ(static_cast<float>(Values<int64_t>(ReadNpy(out + "/stats.npy"))[1]),
            sum[0] + sum[1] + sum[2]);
}

// ------------------------------------------------------- mlf run: --expect-dir

TEST_F(CliRunTest, ExpectDirWithTheSameOutputsMatches) {
  const std::string out = dir_ + "/out";
  ASSERT_EQ(RunPair({"--output-dir", out}).exit_code, 0);
  CommandResult r = RunPair({"--expect-dir", out});
  EXPECT_EQ(r.exit_code, 0) << Why(r);
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(HasLine(r.out, "  expected: match 0/6 elements off; worst at 0: got 2.5, expected 2.5 "
                             "(abs error 0)"));
  EXPECT_TRUE(HasLine(r.out, "  expected: match 0/2 elements off; worst at 0: got 4, expected 4 "
                             "(abs error 0)"));
}

TEST_F(CliRunTest, ExpectDirWithOneValueChangedFailsAndNamesTheWorstElement) {
  std::vector<float> sum = kSum;
  sum[4] = 7.5f;
  const std::string expect = ExpectedDir("expect", sum);
  CommandResult r = RunPair({"--expect-dir", expect});
  EXPECT_EQ(r.exit_code, 1) << Why(r);
  EXPECT_EQ(r.err, "mlf: error: outputs differ from " + expect + "\n");
  EXPECT_TRUE(HasLine(r.out, "  expected: MISMATCH 1/6 elements off; worst at 4: got 7, expected 7.5 "
                             "(abs error 0.5)"));
  EXPECT_TRUE(HasLine(r.out, "  expected: match 0/2 elements off; worst at 0: got 4, expected 4 "
                             "(abs error 0)"));
}

TEST_F(CliRunTest, ToleranceFlagsLoosenTheComparison) {
  std::vector<float> sum = kSum;
  sum[4] = 7.5f;  // off by 0.5
  const std::string expect = ExpectedDir("expect", sum);
  struct Case {
    std::vector<std::string> flags;
    int exit_code;
  };
  const Case cases[] = {
      {{"--atol", "0.6"}, 0},
      {{"--atol=0.4"}, 1},
      {{"--rtol", "0.1"}, 0},          // 0.1 * 7.5 = 0.75
      {{"--rtol", "0.05"}, 1},         // 0.375
      {{"--rtol", "0.05", "--atol", "0.2"}, 0},  // 0.575
      {{"--rtol", "0", "--atol", "0"}, 1},
  };
  for (const Case& c : cases) {
    std::vector<std::string> extra = {"--expect-dir", expect};
    extra.insert(extra.end(), c.flags.begin(), c.flags.end());
    CommandResult r = RunPair(extra);
    EXPECT_EQ(r.exit_code, c.exit_code) << Why(r);
    EXPECT_EQ(r.err, c.exit_code == 0 ? "" : "mlf: error: outputs differ from " + expect + "\n");
  }
  // An exact match passes with zero tolerances.
  CommandResult exact = RunPair({"--expect-dir", ExpectedDir("exact"), "--rtol=0", "--atol=0"});
  EXPECT_EQ(exact.exit_code, 0) << Why(exact);
}

TEST_F(CliRunTest, JsonReportHasEveryOutputAndItsComparison) {
  CommandResult r = RunPair({"--json", "--expect-dir", ExpectedDir("expect")});
  ASSERT_EQ(r.exit_code, 0) << Why(r);
  EXPECT_EQ(r.err, "");
  nlohmann::json j = Json(r);
  EXPECT_EQ(j["module"], "pair");
  EXPECT_EQ(j["ok"], true);
  ASSERT_EQ(j["outputs"].size(), 2u) << r.out;
  const nlohmann::json& sum = j["outputs"][0];
  EXPECT_EQ(sum["name"], "sum");
  EXPECT_EQ(sum["c_name"], "sum");
  EXPECT_EQ(sum["dtype"], "float32");
  EXPECT_EQ(sum["shape"], nlohmann::json({2, 3}));
  EXPECT_EQ(sum["min"], -3.0);
  EXPECT_EQ(sum["max"], 7.0);
  EXPECT_EQ(sum["comparison"]["elements"], 6);
  EXPECT_EQ(sum["comparison"]["mismatches"], 0);
  EXPECT_EQ(j["outputs"][1]["name"], "stats");
  EXPECT_EQ(j["outputs"][1]["dtype"], "int64");
  EXPECT_EQ(j["outputs"][1]["comparison"]["elements"], 2);

  std::vector<float> off = kSum;
  off[4] = 7.5f;
  CommandResult bad = RunPair({"--json", "--expect-dir", ExpectedDir("off", off)});
  EXPECT_EQ(bad.exit_code, 1) << Why(bad);
  EXPECT_EQ(bad.err, "mlf: error: outputs differ from " + dir_ + "/off\n");
  nlohmann::json b = Json(bad);
  EXPECT_EQ(b["ok"], false);
  const nlohmann::json& c = b["outputs"][0]["comparison"];
  EXPECT_EQ(c["mismatches"], 1);
  EXPECT_EQ(c["worst_index"], 4);
  EXPECT_EQ(c["got"], 7.0);
  EXPECT_EQ(c["expected"], 7.5);
  EXPECT_EQ(c["abs_error"], 0.5);

  // Without --expect-dir there is no comparison.
  CommandResult plain = RunPair({"--json"});
  ASSERT_EQ(plain.exit_code, 0) << Why(plain);
  EXPECT_FALSE(Json(plain)["outputs"][0].contains("comparison"));
}

// ---------------------------------------------------------- mlf run: --expect

TEST_F(CliRunTest, ExpectComparesOnlyTheOutputsNamed) {
  std::vector<float> sum = kSum;
  sum[4] = 7.5f;  // off by 0.5
  const std::string expect = ExpectedDir("expect", sum);
  // stats alone (by its C name): matches; sum is not compared.
  CommandResult stats = RunPair({"--expect", "stats=" + expect + "/stats.npy"});
  EXPECT_EQ(stats.exit_code, 0) << Why(stats);
  EXPECT_EQ(stats.err, "");
  EXPECT_TRUE(HasLine(stats.out, "  expected: match 0/2 elements off; worst at 0: got 4, "
                                 "expected 4 (abs error 0)"));
  EXPECT_EQ(stats.out.find("MISMATCH"), std::string::npos) << stats.out;
  // sum too: the changed element fails the run, and the tolerance flags apply.
  CommandResult both = RunPair({"--expect", "sum=" + expect + "/sum.npy", "--expect",
                                "stats=" + expect + "/stats.npy"});
  EXPECT_EQ(both.exit_code, 1) << Why(both);
  EXPECT_EQ(both.err, "mlf: error: outputs differ from the --expect files\n");
  EXPECT_TRUE(HasLine(both.out, "  expected: MISMATCH 1/6 elements off; worst at 4: got 7, "
                                "expected 7.5 (abs error 0.5)"));
  CommandResult loose = RunPair({"--expect", "sum=" + expect + "/sum.npy", "--atol", "0.6"});
  EXPECT_EQ(loose.exit_code, 0) << Why(loose);
  nlohmann::json j = Json(RunPair({"--json", "--expect", "stats=" + expect + "/stats.npy"}));
  EXPECT_FALSE(j["outputs"][0].contains("comparison"));
  EXPECT_EQ(j["outputs"][1]["comparison"]["mismatches"], 0);
}

TEST_F(CliRunTest, ExpectBadUsage) {
  const std::string expect = ExpectedDir("expect");
  ExpectUsageError(RunPair({"--expect", "sum=" + expect + "/sum.npy", "--expect",
                            "sum=" + expect + "/stats.npy"}),
                   "run", "--expect names 'sum' more than once");
  ExpectUsageError(RunPair({"--expect", "sum=" + expect + "/sum.npy", "--expect-dir", expect}),
                   "run", "--expect and --expect-dir cannot be combined: use one of them");
  ExpectUsageError(RunPair({"--expect", "sum"}), "run", "--expect needs NAME=FILE.npy, got 'sum'");
  ExpectFailure(RunPair({"--expect", "total=" + expect + "/sum.npy"}),
                "no output named 'total' (the model's outputs: sum, stats)");
}

TEST_F(CliRunTest, RepeatedInputIsAUsageError) {
  ExpectUsageError(Mlf({"run", archives_->pair, "--input", "a=" + a_npy_, "--input",
                        "a=" + a_npy_}),
                   "run", "--input names 'a' more than once");
  // The raw name and the C name of one input: found once the archive is read.
  ExpectFailure(Mlf({"run", archives_->pair, "--input", "b:0=" + b_npy_, "--input",
                     "b_0=" + b_npy_, "--input", "a=" + a_npy_}),
                "--input names input 'b:0' twice (by its raw and its C name)");
}

// --------------------------------------------------------- mlf run: bad input

TEST_F(CliRunTest, MissingInputWithoutRandomInputs) {
  ExpectFailure(Mlf({"run", archives_->pair}),
                "input 'a' has no value: pass --input a=FILE.npy or --random-inputs SEED");
  ExpectFailure(Mlf({"run", archives_->pair, "--input", "a=" + a_npy_}),
                "input 'b:0' has no value: pass --input b_0=FILE.npy or --random-inputs SEED");
}

TEST_F(CliRunTest, UnknownInputName) {
  ExpectFailure(Mlf({"run", archives_->pair, "--input", "c=" + a_npy_}),
                "no input named 'c' (the model's inputs: a, b:0)");
}

TEST_F(CliRunTest, InputWithoutEqualsSign) {
  // A malformed --input value is bad usage (exit 2), refused before loading.
  ExpectUsageError(Mlf({"run", archives_->pair, "--input", "a"}), "run",
                   "--input needs NAME=FILE.npy, got 'a'");
}

TEST_F(CliRunTest, NpyOfTheWrongDtype) {
  const std::string f = dir_ + "/a_int.npy";
  WriteNpy(f, NpyOf(DType::kInt32, {2, 3}, std::vector<int32_t>(6, 1)));
  ExpectFailure(Mlf({"run", archives_->pair, "--input", "a=" + f, "--random-inputs", "1"}),
                f + ": input 'a': the .npy file holds int32, the model expects float32");
}

TEST_F(CliRunTest, NpyOfTheWrongShape) {
  const std::string f = dir_ + "/a_t.npy";
  WriteNpy(f, NpyOf(DType::kFloat32, {3, 2}, kA));
  ExpectFailure(Mlf({"run", archives_->pair, "--input", "a=" + f, "--random-inputs", "1"}),
                f + ": input 'a': the .npy file has shape [3, 2], the model expects [2, 3]");
}

TEST_F(CliRunTest, NotAnNpyFile) {
  const std::string f = dir_ + "/a.txt";
  WriteFile(f, "1.5 -2 0.25 -4 5 -0.5\n");
  ExpectFailure(Mlf({"run", archives_->pair, "--input", "a=" + f, "--random-inputs", "1"}),
                "'" + f + "': not an .npy file: it does not start with \"\\x93NUMPY\"");
}

TEST_F(CliRunTest, BigEndianNpy) {
  const std::string f = dir_ + "/a_be.npy";
  WriteFile(f, RawNpy(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", Bytes(kA)));
  ExpectFailure(Mlf({"run", archives_->pair, "--input", "a=" + f, "--random-inputs", "1"}),
                "'" + f + "': big-endian data is not supported; save with dtype '<f4'");
}

TEST_F(CliRunTest, FortranOrderNpy) {
  const std::string f = dir_ + "/a_f.npy";
  WriteFile(f, RawNpy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", Bytes(kA)));
  ExpectFailure(Mlf({"run", archives_->pair, "--input", "a=" + f, "--random-inputs", "1"}),
                "'" + f + "': Fortran-order arrays are not supported; save with numpy.ascontiguousarray");
}

TEST_F(CliRunTest, MissingNpyFile) {
  const std::string f = dir_ + "/nope.npy";
  ExpectFailure(Mlf({"run", archives_->pair, "--input", "a=" + f, "--random-inputs", "1"}),
                "'" + f + "' does not exist");
}

// An .npy file is refused before it is read when it is larger than the
// tensor's bytes plus 1 MiB (for the header): a 1 GiB sparse file costs
// nothing to make and would cost 1 GiB to read.
TEST_F(CliRunTest, OversizeNpyIsRefusedBeforeItIsRead) {
  const uint64_t limit = 6 * 4 + (1 << 20);  // float32 [2, 3]
  const std::string f = dir_ + "/huge.npy";
  WriteFile(f, "");
  ASSERT_EQ(truncate(f.c_str(), 1 << 30), 0);
  ExpectFailure(Mlf({"run", archives_->pair, "--input", "a=" + f, "--random-inputs", "1"}),
                "'" + f + "' is larger than the limit of " + std::to_string(limit) + " bytes");
  const std::string expect = ExpectedDir("expect");
  ASSERT_EQ(truncate((expect + "/sum.npy").c_str(), 1 << 30), 0);
  ExpectFailure(RunPair({"--expect-dir", expect}),
                "'" + expect + "/sum.npy' is larger than the limit of " + std::to_string(limit) +
                    " bytes");
}

TEST_F(CliRunTest, TwoModulesNeedModule) {
  ExpectFailure(Mlf({"run", archives_->two, "--random-inputs", "1"}),
                "the archive has 2 modules; choose one with --module (dense, pair)");
  ExpectFailure(Mlf({"run", archives_->two, "--module", "tiny", "--random-inputs", "1"}),
                "no module named 'tiny' (the archive has: dense, pair)");
  CommandResult r = Mlf({"run", archives_->two, "--module", "pair", "--input", "a=" + a_npy_,
                         "--input", "b_0=" + b_npy_});
  EXPECT_EQ(r.exit_code, 0) << Why(r);
  EXPECT_EQ(r.out, kPairText);
  CommandResult dense = Mlf({"run", archives_->two, "--module=dense", "--random-inputs", "1"});
  EXPECT_EQ(dense.exit_code, 0) << Why(dense);
  EXPECT_EQ(dense.out.rfind("module dense\noutput y float32[1, 3]  min ", 0), 0u) << dense.out;
}

TEST_F(CliRunTest, ToleranceWithoutExpectDirIsAUsageError) {
  ExpectUsageError(RunPair({"--rtol", "0.1"}), "run", "--rtol and --atol need --expect-dir or --expect");
  ExpectUsageError(RunPair({"--atol", "0.1"}), "run", "--rtol and --atol need --expect-dir or --expect");
}

TEST_F(CliRunTest, NegativeToleranceIsAUsageErrorBeforeAnythingRuns) {
  // A negative tolerance is bad usage (exit 2), refused before the model runs.
  const std::string out = dir_ + "/out";
  const std::string expect = ExpectedDir("expect");
  ExpectUsageError(RunPair({"--expect-dir", expect, "--rtol=-1", "--output-dir", out}), "run",
                   "--rtol needs a non-negative number, got '-1'");
  EXPECT_FALSE(Exists(out)) << "outputs were written before the flag was refused";
  ExpectUsageError(RunPair({"--expect-dir", expect, "--atol=abc"}), "run",
                   "--atol needs a non-negative number, got 'abc'");
}

TEST_F(CliRunTest, RandomInputsSeedMustBeAnInteger) {
  // Bad usage (exit 2), like `mlf bench --iterations abc`.
  ExpectUsageError(Mlf({"run", archives_->pair, "--random-inputs", "abc"}), "run",
                   "option '--random-inputs' needs a non-negative integer, got 'abc'");
}

TEST_F(CliRunTest, ExpectDirMissingAFile) {
  const std::string expect = ExpectedDir("expect");
  RemoveTree(expect + "/stats.npy");
  ExpectFailure(RunPair({"--expect-dir", expect}), "'" + expect + "/stats.npy' does not exist");
}

TEST_F(CliRunTest, ExpectedFileOfTheWrongShape) {
  const std::string expect = ExpectedDir("expect");
  WriteNpy(expect + "/stats.npy", NpyOf(DType::kInt64, {1, 2}, kStats));
  ExpectFailure(RunPair({"--expect-dir", expect}),
                expect + "/stats.npy: output 'stats': the .npy file has shape [1, 2], the model "
                         "expects [2]");
}

TEST_F(CliRunTest, SignedArchiveWithTheWrongKeyIsRefused) {
  for (const char* name : {"good", "other"}) {
    CommandResult k = Mlf({"keygen", "-o", dir_ + "/" + name});
    ASSERT_EQ(k.exit_code, 0) << Why(k);
  }
  const std::string signed_archive = dir_ + "/signed.mlf.tar";
  CommandResult s = Mlf({"sign", archives_->pair, "--key", dir_ + "/good.key", "-o", signed_archive});
  ASSERT_EQ(s.exit_code, 0) << Why(s);

  CommandResult good = Mlf({"run", signed_archive, "--key", dir_ + "/good.pub", "--input",
                            "a=" + a_npy_, "--input", "b:0=" + b_npy_});
  EXPECT_EQ(good.exit_code, 0) << Why(good);
  EXPECT_EQ(good.out, kPairText);

  ExpectFailure(Mlf({"run", signed_archive, "--key", dir_ + "/other.pub", "--random-inputs", "1"}),
                signed_archive + ": signed by a different key: the signature names key " +
                    Fingerprint(dir_ + "/good.pub") + ", the given key is " +
                    Fingerprint(dir_ + "/other.pub"));

  // An unsigned archive is refused when a key is given, and by --require-signature.
  const std::string unsigned_error =
      archives_->pair + ": archive is not signed (no metadata.json.sig after metadata.json) but a "
                        "signature is required; sign it with `mlf sign`";
  ExpectFailure(Mlf({"run", archives_->pair, "--key", dir_ + "/good.pub", "--random-inputs", "1"}),
                unsigned_error);
  ExpectFailure(Mlf({"run", archives_->pair, "--require-signature", "--random-inputs", "1"}),
                unsigned_error);
  ExpectFailure(Mlf({"run", signed_archive, "--key", dir_ + "/none.pub", "--random-inputs", "1"}),
                "key file '" + dir_ + "/none.pub' does not exist");
}

TEST_F(CliRunTest, NonexistentArchive) {
  const std::string missing = dir_ + "/missing.mlf.tar";
  ExpectFailure(Mlf({"run", missing, "--random-inputs", "1"}),
                missing + ": cannot open archive '" + missing + "': No such file or directory");
  ExpectFailure(Mlf({"bench", missing, "--iterations", "1"}),
                missing + ": cannot open archive '" + missing + "': No such file or directory");
}

TEST_F(CliRunTest, MissingArchiveArgument) {
  ExpectUsageError(Mlf({"run"}), "run", "missing argument");
}

// --------------------------------------------------------------------- bench

TEST_F(CliRunTest, BenchJsonReportsPercentilesAndThroughput) {
  CommandResult r = Mlf({"bench", archives_->pair, "--iterations", "200", "--executors", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << Why(r);
  EXPECT_EQ(r.err, "");
  nlohmann::json j = Json(r);
  EXPECT_EQ(j["module"], "pair");
  EXPECT_EQ(j["executors"], 2);
  EXPECT_EQ(j["threads"], 1);
  EXPECT_EQ(j["threads_used"], 1);
  EXPECT_EQ(j["kernel_isa"], "auto");
  EXPECT_EQ(j["iterations"], 200);
  EXPECT_EQ(j["runs"], 400);
  EXPECT_EQ(j["code_origin"], "archive");
  const nlohmann::json& l = j["latency_us"];
  const double min = l["min"], p50 = l["p50"], p90 = l["p90"], p99 = l["p99"], max = l["max"];
  EXPECT_GE(min, 0.0);
  EXPECT_LE(min, p50);
  EXPECT_LE(p50, p90);
  EXPECT_LE(p90, p99);
  EXPECT_LE(p99, max);
  EXPECT_GE(static_cast<double>(l["mean"]), min);
  EXPECT_LE(static_cast<double>(l["mean"]), max);
  EXPECT_GT(static_cast<double>(j["throughput_per_s"]), 0.0);
  EXPECT_GE(static_cast<double>(j["open_ms"]), 0.0);
}

TEST_F(CliRunTest, BenchTextReport) {
  CommandResult r = Mlf({"bench", archives_->dense_file, "--iterations", "20"});
  ASSERT_EQ(r.exit_code, 0) << Why(r);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("module dense_file: 20 runs on 1 thread (open ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(" ms, code from archive)\nlatency us   min "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nthroughput   "), std::string::npos) << r.out;
}

// On a terminal, bench draws its progress on stderr (runs done of all runs),
// and clears the line before the report. script(1) gives it a terminal.
TEST_F(CliRunTest, BenchDrawsProgressOnATerminal) {
  const std::string command = ShellWord(MlfBinary()) + " bench " + ShellWord(archives_->pair) +
                              " --iterations 400000";
  CommandResult r = RunCommand({"script", "-qefc", command, "/dev/null"});
  ASSERT_EQ(r.exit_code, 0) << Describe({"script", command}, r);
  // script merges the terminal's output into its stdout.
  EXPECT_NE(r.out.find("\r\033[Kbench "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" of 400000 runs)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\r\033[Kmodule pair: 400000 runs on 1 thread"), std::string::npos) << r.out;
  // Not on a pipe: the report alone.
  CommandResult piped = Mlf({"bench", archives_->pair, "--iterations", "2000"});
  EXPECT_EQ(piped.err, "");
}

TEST_F(CliRunTest, BenchBadFlags) {
  ExpectUsageError(Mlf({"bench", archives_->pair, "--threads", "0"}), "bench",
                   "--threads must be between 1 and 256, got '0'");
  ExpectUsageError(Mlf({"bench", archives_->pair, "--executors", "257"}), "bench",
                   "--executors must be between 1 and 256");
  ExpectUsageError(Mlf({"bench", archives_->pair, "--iterations", "0"}), "bench",
                   "--iterations must be at least 1");
  ExpectUsageError(Mlf({"bench", archives_->pair, "--iterations", "abc"}), "bench",
                   "option '--iterations' needs a non-negative integer, got 'abc'");
  ExpectFailure(Mlf({"bench", archives_->two, "--iterations", "1"}),
                "the archive has 2 modules; choose one with --module (dense, pair)");
}

// ----------------------------------------------- archives without a host library

TEST_F(CliRunTest, ArchiveWithoutHostLibraryIsCompiledIntoTheCache) {
  Result<ModuleArtifacts> m = MakeFixture("dense_file", "nolib");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ExportOptions options;
  options.build_host_library = false;
  const std::string archive = dir_ + "/nolib.mlf.tar";
  Status s = WriteFixtureArchive({*m}, archive, options);
  ASSERT_TRUE(s.ok()) << s.ToString();

  // HOME points at an empty directory the child must leave alone.
  const std::string home = dir_ + "/home";
  MakeDirs(home);
  RunOptions env;
  env.env = {{"HOME", home}, {"XDG_CACHE_HOME", std::nullopt}};

  const std::vector<float> x = {1.0f, 2.0f, -3.0f, 0.5f};
  WriteNpy(dir_ + "/x.npy", NpyOf(DType::kFloat32, {1, 4}, x));
  const std::string out = dir_ + "/out";
  EXPECT_FALSE(Exists(cache_));
  CommandResult r = Mlf({"run", archive, "--input", "x=" + dir_ + "/x.npy", "--output-dir", out}, env);
  ASSERT_EQ(r.exit_code, 0) << Why(r);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("module nolib\noutput y float32[1, 3]  min ", 0), 0u) << r.out;
  EXPECT_EQ(Values<float>(ReadNpy(out + "/y.npy")), testing::DenseReference(x));

  bool has_library = false;
  for (const auto& [path, entry] : ListTree(cache_)) {
    if (path.size() > 4 && path.compare(path.size() - 4, 4, ".lib") == 0) has_library = true;
  }
  EXPECT_TRUE(has_library) << FormatListing(ListTree(cache_));

  CommandResult bench = Mlf({"bench", archive, "--iterations", "20", "--json"}, env);
  ASSERT_EQ(bench.exit_code, 0) << Why(bench);
  nlohmann::json j = Json(bench);
  EXPECT_EQ(j["code_origin"], "cache");
  EXPECT_EQ(j["runs"], 20);
  EXPECT_TRUE(ListTree(home).empty()) << FormatListing(ListTree(home));
}

}  // namespace
}  // namespace mlf
