// archive_bench: the required benchmark (a program, not a timed test).
//
// Measured in one run, on one machine, on the same files:
//   pack:   mlf::PackDirectory(model dir -> uncompressed archive)
//           vs `tar cf <out> -C <model dir> .`
//   verify: mlf::VerifyArchive(archive) vs `sha256sum <archive>` (and
//           `openssl dgst -sha256 <archive>` when openssl is installed:
//           Debian's coreutils sha256sum does not use OpenSSL, so no SHA-NI).
// Goal (the issue): mlfkit reaches at least 0.9x the baseline's speed, i.e.
// ratio = baseline_seconds / mlfkit_seconds >= 0.9.
//
// fsync fairness: PackDirectory commits through AtomicFile (fsync of the file,
// rename, fsync of the directory); tar does not sync. The "fair" tar time is
// tar's run plus an fsync of its output and of the output directory, done
// here; the "raw" time is tar alone. Both ratios are reported.
//
// Method: a model directory in MLF layout is generated (valid v8 metadata.json,
// one module, file-storage parameters whose one float32 tensor covers the
// whole blob, a small C source; the blob is xorshift pseudo-random bytes so no
// layer can take a shortcut on zeros). Inputs are written back to disk and
// read once to warm the page cache; one untimed pack + tar round warms the
// output side. Then, for --repeat rounds, pack and tar run back to back
// (alternating which goes first), then verify, sha256sum and openssl (also
// alternating). Outputs are deleted and the file system synced between
// measurements, outside the timed regions. tar runs with its defaults (10 KiB
// records), as `tar cf` would. The best (minimum) time of each operation is
// compared; min/median/max show the spread, next to each operation's CPU
// seconds (user + system, getrusage), which are less sensitive to other load
// than wall time. Finally verify must reject the archive with one byte flipped
// (so it really hashes); the byte is restored for --keep.
//
// Usage: archive_bench [--dir DIR] [--size-mib N] [--repeat N] [--json] [--keep]
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "artifact/archive/pack.h"
#include "artifact/archive/verify.h"

extern char** environ;

namespace {

constexpr char kModule[] = "bench";
constexpr uint64_t kMiB = 1ull << 20;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kGoal = 0.9;

// The work directory, removed on exit (also on failure) unless --keep.
std::string g_cleanup;

void RemoveTree(const std::string& root);

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "archive_bench: %s\n", what.c_str());
  if (!g_cleanup.empty()) RemoveTree(g_cleanup);
  std::exit(1);
}

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

double Now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// ------------------------------------------------------------------ options --

struct Options {
  std::string dir;  // parent of the work directory; empty = /tmp
  uint64_t size_mib = 1024;
  int repeat = 3;
  bool json_only = false;
  bool keep = false;
};

void Usage(FILE* out) {
  std::fprintf(out,
               "usage: archive_bench [--dir DIR] [--size-mib N] [--repeat N] [--json] [--keep]\n"
               "\n"
               "Measures mlfkit pack against `tar cf` and mlfkit verify against `sha256sum`\n"
               "(and `openssl dgst -sha256`) on the same files; goal: ratio >= %.1f.\n"
               "\n"
               "  --dir DIR       create the work directory (a fresh archive_bench.XXXXXX) in DIR;\n"
               "                  default /tmp. Inputs and outputs share its file system.\n"
               "  --size-mib N    parameter blob size in MiB (default 1024)\n"
               "  --repeat N      rounds; the best time of each operation counts (default 3)\n"
               "  --json          print only the machine-readable JSON line\n"
               "  --keep          keep the work directory (model/ and the last archive)\n",
               kGoal);
}

uint64_t ParseCount(const char* flag, const char* v, uint64_t min) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (errno != 0 || end == v || *end != '\0' || n < min || v[0] == '-') {
    Die(std::string(flag) + " needs an integer >= " + std::to_string(min) + ", got '" + v + "'");
  }
  return n;
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) Die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      Usage(stdout);
      std::exit(0);
    } else if (a == "--dir") {
      o.dir = value();
    } else if (a == "--size-mib") {
      o.size_mib = ParseCount("--size-mib", value(), 1);
    } else if (a == "--repeat") {
      o.repeat = static_cast<int>(std::min<uint64_t>(ParseCount("--repeat", value(), 1), 1000));
    } else if (a == "--json") {
      o.json_only = true;
    } else if (a == "--keep") {
      o.keep = true;
    } else {
      Usage(stderr);
      Die("unknown argument '" + a + "'");
    }
  }
  return o;
}

// -------------------------------------------------------------------- files --

void MakeDir(const std::string& path) {
  if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) Die(Errno("cannot create " + path));
}

void WriteSmallFile(const std::string& path, const std::string& data) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << data;
  f.close();
  if (!f) Die("cannot write " + path);
}

// `bytes` pseudo-random bytes (xorshift64*), written in 8 MiB chunks.
void WriteRandomFile(const std::string& path, uint64_t bytes) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) Die(Errno("cannot create " + path));
  std::vector<uint64_t> buf(8 * kMiB / sizeof(uint64_t));
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (uint64_t done = 0; done < bytes;) {
    for (uint64_t& w : buf) {
      x ^= x >> 12;
      x ^= x << 25;
      x ^= x >> 27;
      w = x * 0x2545F4914F6CDD1Dull;
    }
    const size_t want = static_cast<size_t>(std::min<uint64_t>(bytes - done, buf.size() * 8));
    const char* p = reinterpret_cast<const char*>(buf.data());
    for (size_t off = 0; off < want;) {
      const ssize_t n = write(fd, p + off, want - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) Die(Errno("cannot write " + path));
      off += static_cast<size_t>(n);
    }
    done += want;
  }
  if (close(fd) != 0) Die(Errno("cannot write " + path));
}

// Reads a file once so its pages are cached (and returns its size).
uint64_t WarmFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) Die(Errno("cannot open " + path));
  std::vector<char> buf(4 * kMiB);
  uint64_t total = 0;
  for (;;) {
    const ssize_t n = read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) Die(Errno("cannot read " + path));
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
  }
  close(fd);
  return total;
}

// Writes back everything dirty on the work directory's file system, so each
// measurement starts without another one's pending writeback.
void SyncFs(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) Die(Errno("cannot open " + dir));
  if (syncfs(fd) != 0) Die(Errno("syncfs " + dir));
  close(fd);
}

void FsyncPath(const std::string& path, bool directory) {
  const int fd = open(path.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) Die(Errno("cannot open " + path));
  if (fsync(fd) != 0) Die(Errno("fsync " + path));
  close(fd);
}

void RemoveIfExists(const std::string& path) {
  if (unlink(path.c_str()) != 0 && errno != ENOENT) Die(Errno("cannot remove " + path));
}

void RemoveTree(const std::string& root) {
  nftw(
      root.c_str(),
      [](const char* p, const struct stat*, int, struct FTW*) { return remove(p) == 0 ? 0 : -1; },
      16, FTW_DEPTH | FTW_PHYS);
}

// The model directory: metadata.json, one C source, parameters/<mod>.bin.
uint64_t CreateModel(const std::string& model, uint64_t blob_bytes) {
  MakeDir(model);
  MakeDir(model + "/codegen");
  MakeDir(model + "/codegen/host");
  MakeDir(model + "/codegen/host/src");
  MakeDir(model + "/parameters");
  const std::string mod = kModule;
  const std::string src_name = "codegen/host/src/" + mod + "_lib0.c";
  const std::string param_name = "parameters/" + mod + ".bin";
  const std::string source =
      "// archive_bench: placeholder generated source.\n"
      "#include <stdint.h>\n"
      "int32_t tvmgen_" + mod + "_run(const float* x, float* y) {\n"
      "  for (int i = 0; i < 4; ++i) y[i] = x[i] > 0 ? x[i] : 0;\n"
      "  return 0;\n"
      "}\n";
  const std::string n = std::to_string(blob_bytes);
  const std::string elems = std::to_string(blob_bytes / 4);
  const std::string metadata =
      "{\n"
      "  \"version\": 8,\n"
      "  \"generator\": {\"name\": \"mlfkit\", \"version\": \"0.1.0\"},\n"
      "  \"export_datetime\": \"1970-01-01 00:00:00Z\",\n"
      "  \"modules\": {\n"
      "    \"" + mod + "\": {\n"
      "      \"model_name\": \"" + mod + "\", \"style\": \"full-model\", \"executors\": [\"aot\"],\n"
      "      \"interface_api\": \"c\", \"abi_version\": 1,\n"
      "      \"target\": {\"kind\": \"c\", \"host_triple\": \"x86_64-linux-gnu\"},\n"
      "      \"source\": {\"format\": \"c\"},\n"
      "      \"inputs\": [{\"name\": \"x\", \"c_name\": \"x\", \"dtype\": \"float32\", "
      "\"shape\": [1, 4], \"size_bytes\": 16}],\n"
      "      \"outputs\": [{\"name\": \"y\", \"c_name\": \"y\", \"dtype\": \"float32\", "
      "\"shape\": [1, 4], \"size_bytes\": 16}],\n"
      "      \"memory\": {\"workspace_size_bytes\": 0, \"constants_size_bytes\": " + n +
      ", \"io_size_bytes\": 32, \"alignment_bytes\": 64},\n"
      "      \"parameters\": {\"storage\": \"file\", \"path\": \"" + param_name + "\",\n"
      "                     \"tensors\": [{\"name\": \"w0\", \"dtype\": \"float32\", "
      "\"shape\": [" + elems + "], \"offset\": 0, \"size_bytes\": " + n + "}]},\n"
      "      \"sources\": [\"" + src_name + "\"]\n"
      "    }\n"
      "  }\n"
      "}\n";
  WriteSmallFile(model + "/metadata.json", metadata);
  WriteSmallFile(model + "/" + src_name, source);
  WriteRandomFile(model + "/" + param_name, blob_bytes);
  return metadata.size() + source.size() + blob_bytes;
}

// ------------------------------------------------------------- subprocesses --

bool OnPath(const std::string& tool) {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(ss, dir, ':');) {
    if (!dir.empty() && access((dir + "/" + tool).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// Runs argv (PATH lookup, no shell) with stdout to /dev/null; dies unless it exits 0.
void Run(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) Die("cannot run " + args[0] + ": " + std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) Die(Errno("waitpid " + args[0]));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    Die(args[0] + " failed (status " + std::to_string(status) + ")");
  }
}

// -------------------------------------------------------------- statistics --

struct Series {
  std::vector<double> s;
  double Min() const { return *std::min_element(s.begin(), s.end()); }
  double Max() const { return *std::max_element(s.begin(), s.end()); }
  double Median() const {
    std::vector<double> v = s;
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
  }
};

std::string Fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string JsonSeries(const Series& x) {
  std::string out = "[";
  for (size_t i = 0; i < x.s.size(); ++i) out += (i ? "," : "") + Fmt("%.4f", x.s[i]);
  return out + "]";
}

// CPU seconds (user + system) of this process or of its waited-for children.
double CpuSeconds(int who) {
  rusage ru{};
  getrusage(who, &ru);
  auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
  return sec(ru.ru_utime) + sec(ru.ru_stime);
}

// Wall and CPU time of one operation.
struct Timer {
  explicit Timer(int who) : who(who), wall0(Now()), cpu0(CpuSeconds(who)) {}
  double Wall() const { return Now() - wall0; }
  double Cpu() const { return CpuSeconds(who) - cpu0; }
  int who;
  double wall0, cpu0;
};

double LoadAverage() {
  double l[1] = {0};
  return getloadavg(l, 1) == 1 ? l[0] : -1;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = ParseArgs(argc, argv);
  const uint64_t blob_bytes = opt.size_mib * kMiB;
  auto say = [&](const std::string& line) {
    if (!opt.json_only) std::fprintf(stderr, "%s\n", line.c_str());
  };

  // Work directory: a fresh mkdtemp inside --dir (default /tmp).
  const std::string parent = opt.dir.empty() ? "/tmp" : opt.dir;
  if (!opt.dir.empty()) MakeDir(parent);
  std::string tmpl = parent + "/archive_bench.XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) Die(Errno("cannot create a work directory in " + parent));
  const std::string work = tmpl;
  if (!opt.keep) g_cleanup = work;
  const std::string model = work + "/model";
  const std::string out_dir = work + "/out";
  MakeDir(out_dir);
  const std::string archive = out_dir + "/model.mlf.tar";
  const std::string tar_out = out_dir + "/model.tar";

  const bool have_openssl = OnPath("openssl");
  for (const char* tool : {"tar", "sha256sum"}) {
    if (!OnPath(tool)) Die(std::string(tool) + " is not on PATH");
  }

  const double load_start = LoadAverage();
  say("archive_bench: generating a " + std::to_string(opt.size_mib) + " MiB model in " + model);
  const double gen_start = Now();
  const uint64_t input_bytes = CreateModel(model, blob_bytes);
  SyncFs(work);
  for (const char* f : {"metadata.json", "codegen/host/src/bench_lib0.c", "parameters/bench.bin"}) {
    WarmFile(model + "/" + f);
  }
  say("archive_bench: generated, written back and cached in " + Fmt("%.1f", Now() - gen_start) +
      " s; " + std::to_string(opt.repeat) + " rounds");

  Series pack, tar_raw, tar_fair, verify, sha, ossl;              // wall seconds
  Series pack_cpu, tar_cpu, verify_cpu, sha_cpu, ossl_cpu;        // CPU seconds (user + sys)
  uint64_t archive_bytes = 0;
  mlf::PackOptions pack_options;  // uncompressed, mtime 0

  auto run_pack = [&] {
    RemoveIfExists(archive);
    SyncFs(work);
    const Timer t(RUSAGE_SELF);
    mlf::Result<mlf::Metadata> r = mlf::PackDirectory(model, archive, pack_options);
    pack.s.push_back(t.Wall());
    pack_cpu.s.push_back(t.Cpu());
    if (!r.ok()) Die("pack failed: " + r.status().ToString());
  };
  auto run_tar = [&] {
    RemoveIfExists(tar_out);
    SyncFs(work);
    const Timer t(RUSAGE_CHILDREN);
    Run({"tar", "cf", tar_out, "-C", model, "."});
    tar_raw.s.push_back(t.Wall());
    tar_cpu.s.push_back(t.Cpu());
    FsyncPath(tar_out, false);
    FsyncPath(out_dir, true);
    tar_fair.s.push_back(t.Wall());
    RemoveIfExists(tar_out);
  };
  auto run_verify = [&] {
    const Timer t(RUSAGE_SELF);
    mlf::Result<mlf::VerifyReport> r = mlf::VerifyArchive(archive, mlf::VerifyOptions{});
    verify.s.push_back(t.Wall());
    verify_cpu.s.push_back(t.Cpu());
    if (!r.ok()) Die("verify failed: " + r.status().ToString());
    if (r->data_bytes < blob_bytes) Die("verify saw fewer bytes than the parameter blob");
  };
  auto run_sha = [&] {
    const Timer t(RUSAGE_CHILDREN);
    Run({"sha256sum", archive});
    sha.s.push_back(t.Wall());
    sha_cpu.s.push_back(t.Cpu());
  };
  auto run_ossl = [&] {
    const Timer t(RUSAGE_CHILDREN);
    Run({"openssl", "dgst", "-sha256", archive});
    ossl.s.push_back(t.Wall());
    ossl_cpu.s.push_back(t.Cpu());
  };

  // One untimed round of both writers first: the first 1-2 GiB of page cache a
  // process writes after boot is markedly slower on this kind of VM (fresh
  // guest memory is faulted in by the host), which would otherwise land on
  // whichever writer runs first.
  run_pack();
  run_tar();
  pack = tar_raw = tar_fair = pack_cpu = tar_cpu = Series{};
  say("archive_bench: warm-up round done");

  for (int round = 0; round < opt.repeat; ++round) {
    const bool flip = round % 2 == 1;  // alternate who goes first
    if (flip) {
      run_tar();
      run_pack();
    } else {
      run_pack();
      run_tar();
    }
    archive_bytes = WarmFile(archive);  // cached already; make sure
    SyncFs(work);
    std::vector<std::function<void()>> hashers = {run_verify, run_sha};
    if (have_openssl) hashers.push_back(run_ossl);
    if (flip) std::reverse(hashers.begin(), hashers.end());
    for (auto& h : hashers) h();
    say("archive_bench: round " + std::to_string(round + 1) + ": pack " +
        Fmt("%.3f", pack.s.back()) + " s, tar " + Fmt("%.3f", tar_raw.s.back()) + " s (+fsync " +
        Fmt("%.3f", tar_fair.s.back()) + " s), verify " + Fmt("%.3f", verify.s.back()) +
        " s, sha256sum " + Fmt("%.3f", sha.s.back()) + " s" +
        (have_openssl ? ", openssl " + Fmt("%.3f", ossl.s.back()) + " s" : std::string()));
  }
  const double load_end = LoadAverage();

  // Guard against measuring a shortcut: verify must notice one flipped byte
  // in the middle of the parameter data (and sha256sum reads every byte).
  {
    const int fd = open(archive.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) Die(Errno("cannot open " + archive));
    const off_t mid = static_cast<off_t>(archive_bytes / 2);
    unsigned char b = 0;
    if (pread(fd, &b, 1, mid) != 1) Die(Errno("cannot read " + archive));
    b ^= 0x01;
    if (pwrite(fd, &b, 1, mid) != 1) Die(Errno("cannot write " + archive));
    if (mlf::VerifyArchive(archive, mlf::VerifyOptions{}).ok()) {
      Die("verify accepted an archive with a flipped parameter byte: the figures are invalid");
    }
    b ^= 0x01;
    if (pwrite(fd, &b, 1, mid) != 1) Die(Errno("cannot write " + archive));
    close(fd);
  }

  struct Row {
    const char* op;
    const char* key;
    const Series* mine;
    const char* base_name;
    const Series* base;
    double bytes;
    // CPU seconds, for rows where both sides do the same work in one thread
    // (verify vs hashers): a ratio less sensitive to other load.
    const Series* mine_cpu;
    const Series* base_cpu;
    double CpuRatio() const { return base_cpu->Min() / mine_cpu->Min(); }
  };
  std::vector<Row> rows = {
      {"pack", "pack_vs_tar_fsync", &pack, "tar cf + fsync", &tar_fair,
       static_cast<double>(input_bytes), nullptr, nullptr},
      {"pack", "pack_vs_tar_raw", &pack, "tar cf (no fsync)", &tar_raw,
       static_cast<double>(input_bytes), nullptr, nullptr},
      {"verify", "verify_vs_sha256sum", &verify, "sha256sum", &sha,
       static_cast<double>(archive_bytes), &verify_cpu, &sha_cpu},
  };
  if (have_openssl) {
    rows.push_back({"verify", "verify_vs_openssl", &verify, "openssl dgst -sha256", &ossl,
                    static_cast<double>(archive_bytes), &verify_cpu, &ossl_cpu});
  }

  if (!opt.json_only) {
    char line[256];
    std::printf("\narchive_bench: %llu MiB parameter blob, best of %d rounds, %ld cores, "
                "load average %.2f -> %.2f\n",
                static_cast<unsigned long long>(opt.size_mib), opt.repeat,
                sysconf(_SC_NPROCESSORS_ONLN), load_start, load_end);
    std::printf("ratio = baseline seconds / mlfkit seconds, best wall times (>= %.1f meets the "
                "goal);\ncpu ratio = the same with CPU seconds, for single-threaded pairs\n\n",
                kGoal);
    std::printf("%-7s %9s %7s  %-20s %9s %7s %7s  %-8s %9s\n", "op", "mlfkit s", "GiB/s",
                "baseline", "base s", "GiB/s", "ratio", "goal 0.9", "cpu ratio");
    for (const Row& r : rows) {
      const double m = r.mine->Min(), b = r.base->Min();
      std::snprintf(line, sizeof line, "%-7s %9.3f %7.2f  %-20s %9.3f %7.2f %7.2f  %-8s %9s",
                    r.op, m, r.bytes / kGiB / m, r.base_name, b, r.bytes / kGiB / b, b / m,
                    b / m >= kGoal ? "met" : "NOT met",
                    r.mine_cpu ? Fmt("%.2f", r.CpuRatio()).c_str() : "-");
      std::printf("%s\n", line);
    }
    std::printf("\nspread over %d rounds, seconds: wall min / median / max; CPU (user+sys) "
                "min / median\n", opt.repeat);
    auto spread = [&](const char* name, const Series& x, const Series* cpu) {
      std::printf("  %-22s %6.3f / %6.3f / %6.3f", name, x.Min(), x.Median(), x.Max());
      if (cpu) std::printf("   cpu %6.3f / %6.3f", cpu->Min(), cpu->Median());
      std::printf("\n");
    };
    spread("mlfkit pack", pack, &pack_cpu);
    spread("tar cf", tar_raw, &tar_cpu);
    spread("tar cf + fsync", tar_fair, nullptr);
    spread("mlfkit verify", verify, &verify_cpu);
    spread("sha256sum", sha, &sha_cpu);
    if (have_openssl) spread("openssl dgst -sha256", ossl, &ossl_cpu);
    std::printf("\n");
  }

  // One machine-readable line.
  std::string j = "{\"bench\":\"archive\",\"size_mib\":" + std::to_string(opt.size_mib) +
                  ",\"input_bytes\":" + std::to_string(input_bytes) +
                  ",\"archive_bytes\":" + std::to_string(archive_bytes) +
                  ",\"rounds\":" + std::to_string(opt.repeat) +
                  ",\"cores\":" + std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) +
                  ",\"load_start\":" + Fmt("%.2f", load_start) +
                  ",\"load_end\":" + Fmt("%.2f", load_end) + ",\"goal\":" + Fmt("%.1f", kGoal) +
                  ",\"seconds\":{\"pack\":" + JsonSeries(pack) + ",\"tar\":" + JsonSeries(tar_raw) +
                  ",\"tar_fsync\":" + JsonSeries(tar_fair) + ",\"verify\":" + JsonSeries(verify) +
                  ",\"sha256sum\":" + JsonSeries(sha);
  if (have_openssl) j += ",\"openssl\":" + JsonSeries(ossl);
  j += "},\"cpu_seconds\":{\"pack\":" + JsonSeries(pack_cpu) + ",\"tar\":" + JsonSeries(tar_cpu) +
       ",\"verify\":" + JsonSeries(verify_cpu) + ",\"sha256sum\":" + JsonSeries(sha_cpu);
  if (have_openssl) j += ",\"openssl\":" + JsonSeries(ossl_cpu);
  j += "},\"ratios\":{";
  for (size_t i = 0; i < rows.size(); ++i) {
    j += (i ? "," : "") + std::string("\"") + rows[i].key +
         "\":" + Fmt("%.3f", rows[i].base->Min() / rows[i].mine->Min());
  }
  j += "},\"cpu_ratios\":{";
  bool first = true;
  for (const Row& r : rows) {
    if (!r.mine_cpu) continue;
    j += (first ? "\"" : ",\"") + std::string(r.key) + "\":" + Fmt("%.3f", r.CpuRatio());
    first = false;
  }
  j += "}}";
  std::printf("%s\n", j.c_str());
  std::fflush(stdout);

  if (opt.keep) {
    say("archive_bench: kept " + work);
  } else {
    RemoveTree(work);
  }
  return 0;
}
