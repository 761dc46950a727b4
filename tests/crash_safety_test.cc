// Crash safety of the archive writers: `mlf export`, `mlf pack`, `mlf sign`
// (in place) and `mlf upgrade` are killed with SIGKILL at random moments, many times. After
// each kill the destination must be exactly one of
//   - what it was before (absent for a new file, the same bytes for an
//     existing one), or
//   - the complete new archive: byte-identical to an uninterrupted run's output
//     (the writers are deterministic) and accepted by VerifyArchive;
// never a partial file. A run that exits 0 before the kill must have left the
// complete new archive. All writers go through artifact/base/atomic_file.h.
//
// The delays are uniform in [0, the operation's duration], measured by one
// uninterrupted run, from a fixed PRNG seed: the same kill schedule each run
// (the moments they hit still depend on the machine's load).
//
// Left behind, because SIGKILL runs no destructor (counted, printed and
// recorded as test properties):
//   - `.<name>.tmp.XXXXXX` next to the destination: rare, the temporary file
//     is unnamed until the instant before its rename (artifact/base/atomic_file.h);
//   - scratch directories in $TMPDIR of an export killed while building its
//     host library (`mlf-export-*`, `mlf-build-*`) or of an upgrade
//     (`mlf-upgrade-*`). The next writer removes them once they are a minute
//     old (artifact/base/scratch_dir.h); the test asserts that each one is
//     unlocked, i.e. recognised as abandoned, by removing them the same way
//     without the minute.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "artifact/archive/signature.h"
#include "artifact/archive/verify.h"
#include "artifact/base/digest.h"
#include "artifact/base/scratch_dir.h"
#include "tests/fixtures/fixture_models.h"
#include "tests/run_command.h"
#include "tests/test_files.h"
#include "tests/tvm_fixtures/tvm_fixtures.h"

extern char** environ;

namespace mlf {
namespace {

constexpr uint64_t kSeed = 20261121;

// Where a destination stands: absent, or the SHA-256 of its bytes.
using FileState = std::optional<std::string>;

FileState StateOf(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return std::nullopt;
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  Result<std::string> digest = Sha256OfFile(path);
  return digest.ok() ? *digest : "unreadable: " + digest.status().message();
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

struct Outcome {
  bool exited_ok = false;  // the writer exited 0 before the kill
  bool exited = false;     // it exited (any status) before the kill
  bool mid_write = false;  // killed while it held a temporary file in the destination's folder
};

// How a run is ended.
enum class KillAt {
  kDelay,        // after the given delay
  kFirstWrite,   // as soon as the writer holds a temporary file next to the destination
};

// Whether process `pid` has a file open in `dir` other than `dest` itself: the
// writer's temporary output (an unnamed O_TMPFILE shows as "DIR/#<inode>
// (deleted)", a named one as "DIR/.<name>.tmp.XXXXXX"). An in-place signer
// reading `dest` does not count.
bool HoldsTempFileIn(pid_t pid, const std::string& dir, const std::string& dest) {
  const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
  DIR* d = opendir(fds.c_str());
  if (d == nullptr) return false;
  bool found = false;
  while (dirent* e = readdir(d)) {
    char target[4096];
    const ssize_t n = readlink((fds + "/" + e->d_name).c_str(), target, sizeof target - 1);
    if (n <= 0) continue;
    const std::string t(target, static_cast<size_t>(n));
    // Not the destination, nor the file it replaced: `mlf sign` signs in
    // place and keeps the old archive open for reading until it exits, so
    // after its commit that descriptor reads "<dest> (deleted)" (counting it
    // made a run killed after the commit look killed mid-write).
    if (t.rfind(dir + "/", 0) == 0 && t != dest && t != dest + " (deleted)" &&
        t.find('/', dir.size() + 1) == std::string::npos) {
      found = true;
      break;
    }
  }
  closedir(d);
  return found;
}

// Starts `argv` in its own process group (stdout and stderr to /dev/null),
// waits `delay` seconds (KillAt::kDelay) or until it holds a temporary file
// next to `dest` (kFirstWrite; at most `delay` seconds), or until it exits,
// then SIGKILLs it (only it, as a crash would) and reaps it; finally SIGKILLs
// whatever is left of its group.
Outcome RunAndKill(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                   double delay, KillAt when, const std::string& dest) {
  const std::string dest_dir = dest.substr(0, dest.rfind('/'));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<std::string> words = argv;
  std::vector<char*> args;
  for (std::string& w : words) args.push_back(w.data());
  args.push_back(nullptr);
  std::vector<std::string> env_words = env;
  std::vector<char*> envp;
  for (std::string& e : env_words) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &actions, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  Outcome outcome;
  if (rc != 0) {
    ADD_FAILURE() << "cannot start " << argv[0] << ": " << strerror(rc);
    return outcome;
  }
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(delay));
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      outcome.exited = true;
      outcome.exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      break;
    }
    const auto now = std::chrono::steady_clock::now();
    const bool writing = HoldsTempFileIn(pid, dest_dir, dest);
    if (now >= deadline || (when == KillAt::kFirstWrite && writing)) {
      // Stopped first, and looked at again: a writer may commit its output
      // between the look above and a kill, and then it was not killed while
      // writing.
      kill(pid, SIGSTOP);
      if (waitpid(pid, &status, WUNTRACED) == pid && !WIFSTOPPED(status)) {
        outcome.exited = WIFEXITED(status);  // finished before the stop
        outcome.exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        break;
      }
      outcome.mid_write = HoldsTempFileIn(pid, dest_dir, dest);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      outcome.exited = WIFEXITED(status);
      outcome.exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      break;
    }
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        deadline - now, std::chrono::microseconds(when == KillAt::kFirstWrite ? 20 : 200)));
  }
  kill(-pid, SIGKILL);  // children (a compiler started by export), if any
  return outcome;
}

std::vector<std::string> ChildEnvironment(const std::string& tmpdir) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.rfind("SOURCE_DATE_EPOCH=", 0) == 0 || entry.rfind("TMPDIR=", 0) == 0) continue;
    env.push_back(entry);
  }
  env.push_back("SOURCE_DATE_EPOCH=0");
  env.push_back("TMPDIR=" + tmpdir);
  return env;
}

// What the writers run with, here and in RunAndKill: output bytes that do not
// depend on the clock, scratch space inside the test's directory.
RunOptions Deterministic(const std::string& tmpdir) {
  RunOptions options;
  options.env = {{"SOURCE_DATE_EPOCH", "0"}, {"TMPDIR", tmpdir}};
  return options;
}

// Names in `dir` starting with `prefix`.
std::vector<std::string> EntriesWithPrefix(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind(prefix, 0) == 0) names.push_back(name);
  }
  closedir(d);
  return names;
}

// One writer under test.
struct Writer {
  Writer(std::string name, std::vector<std::string> argv, std::string dest,
         std::vector<FileState> previous, std::string old_file, int kills)
      : name(std::move(name)),
        argv(std::move(argv)),
        dest(std::move(dest)),
        previous(std::move(previous)),
        old_file(std::move(old_file)),
        kills(kills) {}

  std::string name;                 // for messages: "export", "pack", "sign"
  std::vector<std::string> argv;    // writes `dest`
  std::string dest;
  std::vector<FileState> previous;  // the states to start from, in turn
  std::string old_file;             // holds the bytes of the existing-file state
  int kills;
  std::optional<std::string> public_key_pem;  // VerifyArchive must check this signature
};

struct Counts {
  int kills = 0;           // runs ended by SIGKILL while still running
  int mid_write = 0;       // of those, runs killed while writing the destination's temporary file
  int unchanged = 0;       // the destination was still the previous state
  int complete = 0;        // the destination was the complete new archive
  int finished = 0;        // the writer exited 0 before the kill
  int stale_temps = 0;     // .<dest>.tmp.* files left next to the destination
  int stale_scratch = 0;   // mlf-export-* / mlf-build-* / mlf-upgrade-* left in TMPDIR
};

class CrashSafetyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir("crash_safety");
    tmpdir_ = dir_ + "/tmp";
    MakeDirs(tmpdir_);
    env_ = ChildEnvironment(tmpdir_);
  }

  // Runs the writer to completion twice (the second time with warm caches);
  // returns the state of its output and the shorter of the two durations.
  std::pair<std::string, double> Reference(const Writer& w) {
    double seconds = 1e9;
    for (int i = 0; i < 2; ++i) {
      const auto start = std::chrono::steady_clock::now();
      CommandResult r = RunCommand(w.argv, Deterministic(tmpdir_));
      seconds = std::min(seconds, Seconds(std::chrono::steady_clock::now() - start));
      EXPECT_EQ(r.exit_code, 0) << Describe(w.argv, r);
    }
    FileState state = StateOf(w.dest);
    EXPECT_TRUE(state.has_value()) << w.dest;
    ExpectValid(w);
    return {state.value_or(""), seconds};
  }

  void ExpectValid(const Writer& w) {
    VerifyOptions options;
    options.public_key_pem = w.public_key_pem;
    Result<VerifyReport> report = VerifyArchive(w.dest, options);
    EXPECT_TRUE(report.ok()) << w.name << ": " << w.dest << ": " << report.status().ToString();
  }

  // Puts the destination into `state` (absent, or the bytes of old_file).
  void Prepare(const Writer& w, const FileState& state, const std::string& old_bytes) {
    unlink(w.dest.c_str());
    if (state) WriteFile(w.dest, old_bytes);
  }

  // The kill loop of one writer.
  Counts KillRepeatedly(const Writer& w, std::mt19937_64& rng) {
    const auto [new_state, duration] = Reference(w);
    const std::string old_bytes = ReadFile(w.old_file);
    std::uniform_real_distribution<double> delay(0.0, duration);
    const std::string dest_dir = w.dest.substr(0, w.dest.rfind('/'));
    const std::string dest_name = w.dest.substr(w.dest.rfind('/') + 1);
    Counts counts;
    for (int i = 0; i < w.kills; ++i) {
      const FileState& before = w.previous[i % w.previous.size()];
      // Every fourth run is killed the moment it starts writing its output, so
      // each writer is certainly interrupted mid-write, whatever the machine's
      // speed; the others at a random moment of the whole operation.
      const KillAt when = i % 4 == 3 ? KillAt::kFirstWrite : KillAt::kDelay;
      const double d = when == KillAt::kFirstWrite ? 5 * duration + 5 : delay(rng);
      Prepare(w, before, old_bytes);
      const Outcome outcome = RunAndKill(w.argv, env_, d, when, w.dest);
      if (!outcome.exited) ++counts.kills;
      if (outcome.mid_write) ++counts.mid_write;
      const FileState after = StateOf(w.dest);
      const std::string what = w.name + " run " + std::to_string(i) +
                               (when == KillAt::kFirstWrite
                                    ? std::string(" killed at its first write")
                                    : " after " + std::to_string(d) + " s (of " +
                                          std::to_string(duration) + " s)");
      if (outcome.exited && !outcome.exited_ok) {
        ADD_FAILURE() << what << ": the writer failed on its own before the kill";
      }
      if (outcome.mid_write) {
        EXPECT_EQ(after, before) << what << ": killed while writing, the destination changed";
      }
      if (outcome.exited_ok) {
        ++counts.finished;
        EXPECT_EQ(after, FileState(new_state)) << what << ": exited 0, but the output is not the "
                                               << "complete archive";
      }
      if (after == before) {
        ++counts.unchanged;
      } else if (after == FileState(new_state)) {
        ++counts.complete;
        if (i % 5 == 0) ExpectValid(w);  // same bytes as the reference, verified above
      } else {
        ADD_FAILURE() << what << ": the destination is neither its previous state ("
                      << before.value_or("absent") << ") nor the complete archive ("
                      << new_state << ") but " << after.value_or("absent");
      }
      for (const std::string& temp : EntriesWithPrefix(dest_dir, "." + dest_name + ".tmp.")) {
        ++counts.stale_temps;
        unlink((dest_dir + "/" + temp).c_str());
      }
      // What the writer's next run would sweep a minute later (scratch_dir.h):
      // every scratch directory a killed writer left is unlocked. (A compiler
      // child forked just before the kill shares the lock until its exec, so
      // the sweep is retried for a moment.)
      for (const char* prefix : {"mlf-export-", "mlf-build-", "mlf-upgrade-"}) {
        for (int attempt = 0; attempt < 50; ++attempt) {
          counts.stale_scratch += RemoveStaleScratchDirs(tmpdir_, prefix, /*min_age_seconds=*/0);
          if (EntriesWithPrefix(tmpdir_, prefix).empty()) break;
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        EXPECT_EQ(EntriesWithPrefix(tmpdir_, prefix), std::vector<std::string>{})
            << what << ": a scratch directory is still locked 5 s after the kill";
      }
    }
    // The kills must have landed: most runs while running (the delays are
    // within the operation's shortest duration), and at least one run of
    // every writer while it was writing the destination.
    EXPECT_GE(counts.kills, w.kills / 2) << w.name << ": too few runs were still running at the kill";
    EXPECT_GE(counts.mid_write, 1) << w.name << ": no run was killed while writing its output";
    std::printf("%-12s %2d runs, %2d killed (%d mid-write): %2d unchanged, %2d complete (%2d "
                "exited 0); left behind: %2d %s temp files, %d scratch dirs in TMPDIR "
                "(operation: %.3f s)\n",
                w.name.c_str(), w.kills, counts.kills, counts.mid_write, counts.unchanged,
                counts.complete, counts.finished,
                counts.stale_temps, ("." + dest_name + ".tmp.*").c_str(), counts.stale_scratch,
                duration);
    RecordProperty(w.name + "_stale_temps", counts.stale_temps);
    RecordProperty(w.name + "_stale_scratch_dirs", counts.stale_scratch);
    return counts;
  }

  std::string dir_;
  std::string tmpdir_;
  std::vector<std::string> env_;
};

// A YAML model with a 2048 x 4096 float32 random parameter (32 MiB): export
// spends its time generating, hashing and writing it.
std::string BigYamlModel() {
  return "mlf_model: 1\n"
         "name: big_dense\n"
         "inputs:\n"
         "  - {name: x, dtype: float32, shape: [1, 4096]}\n"
         "parameters:\n"
         "  w: {dtype: float32, shape: [2048, 4096], random: {seed: 1, distribution: uniform, "
         "low: -0.01, high: 0.01}}\n"
         "  b: {dtype: float32, shape: [2048], fill: 0}\n"
         "nodes:\n"
         "  - {op: Gemm, inputs: [x, w, b], outputs: [y], attrs: {transB: 1}}\n"
         "outputs: [y]\n";
}

std::string RunfilesPath(const std::string& path) {
  return std::string(std::getenv("TEST_SRCDIR")) + "/mlfkit/" + path;
}

TEST_F(CrashSafetyTest, KilledWritersLeaveTheOldOrTheCompleteArchive) {
  std::mt19937_64 rng(kSeed);
  const std::string mlf = MlfBinary();
  const std::string out = dir_ + "/out";
  MakeDirs(out);

  // A small valid archive: the "existing file" that export and pack replace.
  const std::string old_archive = dir_ + "/old.tar";
  {
    CommandResult r = RunCommand({mlf, "export", RunfilesPath("examples/tiny_cnn/model.yaml"),
                                  "-o", old_archive, "--no-host-lib"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const FileState old_state = StateOf(old_archive);
  const std::vector<FileState> absent_or_old = {std::nullopt, old_state};

  // --- mlf export: a 32 MiB model without host library, and mnist_mlp with one ---
  const std::string big_yaml = dir_ + "/big.yaml";
  WriteFile(big_yaml, BigYamlModel());
  Writer export_big("export", {mlf, "export", big_yaml, "-o", out + "/big.tar", "--no-host-lib"},
                    out + "/big.tar", absent_or_old, old_archive, 20);
  Writer export_mnist("export+cc",
                      {mlf, "export", RunfilesPath("examples/mnist_mlp/model.yaml"), "-o",
                       out + "/mnist.tar"},
                      out + "/mnist.tar", absent_or_old, old_archive, 8);

  // --- mlf pack: a directory in MLF layout with a 64 MiB parameter blob ---
  const std::string tree = dir_ + "/tree";
  {
    testing::FixtureOptions fixture;
    fixture.param_bytes = 64 << 20;
    Result<ModuleArtifacts> m = testing::MakeFixture("big_params", "default", fixture);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    ExportOptions options;
    options.build_host_library = false;
    const std::string staged = dir_ + "/staged.tar";
    ASSERT_TRUE(testing::WriteFixtureArchive({*m}, staged, options).ok());
    CommandResult r = RunCommand({mlf, "unpack", staged, "-o", tree});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    unlink(staged.c_str());
  }
  Writer pack("pack", {mlf, "pack", tree, "-o", out + "/packed.tar"}, out + "/packed.tar",
              absent_or_old, old_archive, 20);

  Counts total;
  auto add = [&](const Counts& c) {
    total.kills += c.kills;
    total.mid_write += c.mid_write;
    total.stale_temps += c.stale_temps;
    total.stale_scratch += c.stale_scratch;
  };
  add(KillRepeatedly(export_big, rng));
  add(KillRepeatedly(export_mnist, rng));
  add(KillRepeatedly(pack, rng));

  // --- mlf sign, in place, on the 64 MiB archive (a copy of pack's output) ---
  CommandResult keygen = RunCommand({mlf, "keygen", "-o", dir_ + "/release"});
  ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  const std::string unsigned_copy = dir_ + "/unsigned.tar";
  {
    CommandResult r = RunCommand({mlf, "pack", tree, "-o", unsigned_copy}, Deterministic(tmpdir_));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  Writer sign("sign", {mlf, "sign", out + "/signed.tar", "--key", dir_ + "/release.key"},
              out + "/signed.tar", {StateOf(unsigned_copy)}, unsigned_copy, 20);
  sign.public_key_pem = ReadFile(dir_ + "/release.pub");
  // The reference run signs in place: start it from the unsigned archive too.
  WriteFile(sign.dest, ReadFile(unsigned_copy));
  add(KillRepeatedly(sign, rng));

  // --- mlf upgrade: a TVM archive (metadata 7) to version 8, host library included ---
  const std::string tvm_archive = dir_ + "/tvm.tar";
  tvm_testing::WriteTvmArchive(tvm_archive, tvm_testing::MultiV7());
  Writer upgrade("upgrade", {mlf, "upgrade", tvm_archive, "-o", out + "/upgraded.tar"},
                 out + "/upgraded.tar", absent_or_old, old_archive, 12);
  add(KillRepeatedly(upgrade, rng));

  std::printf("total: %d kills, %d mid-write; left behind %d temp files next to destinations and %d scratch "
              "directories in TMPDIR (each unlocked: swept as the next writer sweeps it)\n",
              total.kills, total.mid_write, total.stale_temps, total.stale_scratch);
}

}  // namespace
}  // namespace mlf
