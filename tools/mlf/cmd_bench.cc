// mlf bench: latency percentiles and throughput of a module on this host.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "artifact/base/display_text.h"
#include "loader/host/operator_profile.h"
#include "tools/mlf/command.h"
#include "tools/mlf/model_io.h"
#include "tools/mlf/progress.h"
#include "tools/mlf/table.h"

namespace mlf::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kUsage[] =
    "usage: mlf bench ARCHIVE [--module M] [--iterations N] [--warmup W] [--threads T]\n"
    "                 [--isa NAME] [--executors E] [--key NAME.pub] [--require-signature]\n"
    "                 [--profile] [--json]\n\n"
    "Runs a module repeatedly on random inputs (seed 0) and reports per-run latency\n"
    "percentiles (p50, p90, p99) and throughput. With E executors, each has its own\n"
    "thread on the one loaded library, as a server would; each run of each uses T\n"
    "threads.\n\n"
    "With --profile, the module is compiled from the archive's sources with a timer\n"
    "around each operator (same flags, two clock reads more per operator) and the\n"
    "report adds each operator's mean time per run and its share of the mean run,\n"
    "at the chosen --threads: an operator's time lasts until its last task ends.\n\n"
    "options:\n"
    "  --iterations N        timed runs per executor (default 1000)\n"
    "  --warmup W            untimed runs per executor first (default 10)\n"
    MLF_EXECUTION_FLAGS_HELP
    "  --executors E         executors running at once, one thread each (default 1)\n"
    "  --profile             time each operator too (one executor)\n"
    "  --json                print a JSON report\n";

struct BenchConfig {
  std::string module;
  uint64_t iterations = 1000, warmup = 10, executors = 1;
  bool profile = false;
  ExecutorOptions execution;
};

struct BenchResult {
  std::vector<double> latencies_us;  // every timed run of every thread
  double wall_seconds = 0;
  double open_ms = 0;
  std::string code_origin;
  int threads_used = 1;  // per run (1 for code without a run context)
  std::string kernel_isa = "auto";
  std::vector<OperatorTime> operators;  // --profile: totals over the timed runs
  std::vector<OperatorInfo> operator_info;  // the metadata's, same order
};

// What an executor ended up with (the same for every executor).
struct ExecutorFacts {
  int threads = 1;
  std::string kernel_isa;
  std::vector<OperatorTime> operators;  // --profile
};

// --profile: the operator times of an executor's timed runs, or why there
// are none.
Result<std::vector<OperatorTime>> ProfileOf(const AotExecutor& exec) {
  const OperatorProfile* profile = exec.operator_profile();
  if (profile == nullptr) {
    return FailedPrecondition("module '" + exec.module_name() +
                              "' cannot be profiled: its code was not compiled by mlfkit (a TVM module)");
  }
  for (const OperatorTime& t : profile->totals()) {
    if (t.calls > 0) return profile->totals();
  }
  return FailedPrecondition("module '" + exec.module_name() +
                            "' timed no operator: its code has no MLF_PROFILE hooks (it was exported "
                            "before mlfkit wrote them); export the model again with this mlfkit");
}

// One thread's work: its own executor, warm-up, then timed runs.
Status BenchThread(const ModelLibrary& lib, const BenchConfig& config, std::atomic<bool>& go,
                   std::atomic<uint64_t>& runs_done, std::vector<double>* latencies, ExecutorFacts* facts) {
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<AotExecutor> exec, lib.CreateExecutor(config.module, config.execution));
  facts->threads = exec->threads();
  facts->kernel_isa = exec->kernel_isa();
  MLF_RETURN_IF_ERROR(SetRandomInputs(*exec, std::vector<bool>(exec->num_inputs(), false), 0));
  for (uint64_t i = 0; i < config.warmup; ++i) MLF_RETURN_IF_ERROR(exec->Run());
  exec->ResetOperatorProfile();
  while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
  latencies->reserve(config.iterations);
  for (uint64_t i = 0; i < config.iterations; ++i) {
    const auto start = Clock::now();
    Status s = exec->Run();
    const auto end = Clock::now();
    if (!s.ok()) return s;
    latencies->push_back(std::chrono::duration<double, std::micro>(end - start).count());
    runs_done.fetch_add(1, std::memory_order_relaxed);
  }
  if (config.profile) {
    MLF_ASSIGN_OR_RETURN(facts->operators, ProfileOf(*exec));
  }
  return Status::Ok();
}

Result<BenchResult> Bench(const ModelLibrary& lib, const BenchConfig& config) {
  BenchResult result;
  std::vector<std::vector<double>> per_thread(config.executors);
  std::vector<Status> statuses(config.executors);
  std::vector<ExecutorFacts> facts(config.executors);
  std::atomic<bool> go{false};
  std::atomic<uint64_t> runs_done{0}, threads_done{0};
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < config.executors; ++t) {
    threads.emplace_back([&, t] {
      statuses[t] = BenchThread(lib, config, go, runs_done, &per_thread[t], &facts[t]);
      threads_done.fetch_add(1, std::memory_order_release);
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let warm-ups finish
  const auto start = Clock::now();
  go.store(true, std::memory_order_release);
  // Progress on a terminal while the threads run (Progress draws nothing
  // elsewhere); the main thread only polls, so it takes no core from them.
  Progress progress("bench", Progress::Units::kRuns);
  const uint64_t total = config.iterations * config.executors;
  while (threads_done.load(std::memory_order_acquire) < config.executors) {
    progress.Update(runs_done.load(std::memory_order_relaxed), total);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (std::thread& th : threads) th.join();
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (uint64_t t = 0; t < config.executors; ++t) {
    MLF_RETURN_IF_ERROR(statuses[t]);
    result.latencies_us.insert(result.latencies_us.end(), per_thread[t].begin(), per_thread[t].end());
  }
  std::sort(result.latencies_us.begin(), result.latencies_us.end());
  result.threads_used = facts[0].threads;
  result.kernel_isa = facts[0].kernel_isa;
  result.operators = std::move(facts[0].operators);
  return result;
}

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const size_t index = static_cast<size_t>(p / 100.0 * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(index, sorted.size() - 1)];
}

// One operator's line of a profile.
struct ProfileRow {
  size_t index = 0;
  std::string name, ops;
  double mean_us = 0, share = 0;  // per run; of the mean run
};

std::vector<ProfileRow> ProfileRows(const BenchResult& r, double mean_run_us) {
  std::vector<ProfileRow> rows;
  const double runs = static_cast<double>(r.latencies_us.size());
  for (size_t i = 0; i < r.operators.size(); ++i) {
    ProfileRow row;
    row.index = i;
    if (i < r.operator_info.size()) {
      row.name = r.operator_info[i].name;
      for (const std::string& op : r.operator_info[i].ops) row.ops += (row.ops.empty() ? "" : "+") + op;
    }
    row.mean_us = static_cast<double>(r.operators[i].nanoseconds) / 1000.0 / runs;
    row.share = mean_run_us > 0 ? row.mean_us / mean_run_us : 0;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string Fixed(double v, int decimals) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(decimals);
  out << v;
  return out.str();
}

// The operators' table, then the part of the mean run outside them (the
// run function's own work: setting up, copying outputs, the timer).
void PrintProfile(const std::vector<ProfileRow>& rows, double mean_run_us, int threads) {
  std::cout << "operators    mean us per run and share of the mean run, " << threads << " thread"
            << (threads == 1 ? "" : "s") << "\n";
  Table table({"#", "operator", "ops", "mean us", "share"});
  double inside = 0;
  for (const ProfileRow& row : rows) {
    table.AddRow({std::to_string(row.index), row.name, row.ops, Fixed(row.mean_us, 2), Fixed(100 * row.share, 1) + "%"});
    inside += row.mean_us;
  }
  table.Print(std::cout, "  ");
  std::cout << "outside operators " << Fixed(mean_run_us - inside, 2) << " us\n";
}

void Print(const BenchConfig& config, const BenchResult& r, bool json) {
  const double runs = static_cast<double>(r.latencies_us.size());
  double mean = 0;
  for (double v : r.latencies_us) mean += v / runs;
  const double throughput = r.wall_seconds > 0 ? runs / r.wall_seconds : 0;
  if (json) {
    nlohmann::json j = {{"module", config.module},
                        {"threads", config.execution.threads},
                        {"threads_used", r.threads_used},
                        {"kernel_isa", r.kernel_isa},
                        {"executors", config.executors},
                        {"iterations", config.iterations}, {"runs", r.latencies_us.size()},
                        {"open_ms", r.open_ms},            {"code_origin", r.code_origin},
                        {"latency_us", {{"min", r.latencies_us.front()},
                                        {"p50", Percentile(r.latencies_us, 50)},
                                        {"p90", Percentile(r.latencies_us, 90)},
                                        {"p99", Percentile(r.latencies_us, 99)},
                                        {"max", r.latencies_us.back()},
                                        {"mean", mean}}},
                        {"throughput_per_s", throughput}};
    if (config.profile) {
      nlohmann::json ops = nlohmann::json::array();
      double inside = 0;
      for (const ProfileRow& row : ProfileRows(r, mean)) {
        ops.push_back({{"index", row.index}, {"name", row.name}, {"ops", row.ops},
                       {"mean_us", row.mean_us}, {"share", row.share}});
        inside += row.mean_us;
      }
      j["operators"] = ops;
      j["outside_operators_us"] = mean - inside;
    }
    PrintJsonReport(j);
    return;
  }
  std::cout << "module " << DisplayText(config.module) << ": " << r.latencies_us.size() << " runs on "
            << r.threads_used << " thread" << (r.threads_used == 1 ? "" : "s")
            << (config.executors > 1 ? " in each of " + std::to_string(config.executors) + " executors" : "")
            << " (open "
            << r.open_ms << " ms, code from " << r.code_origin << ")\n"
            << "latency us   min " << r.latencies_us.front() << "  p50 "
            << Percentile(r.latencies_us, 50) << "  p90 " << Percentile(r.latencies_us, 90)
            << "  p99 " << Percentile(r.latencies_us, 99) << "  max " << r.latencies_us.back()
            << "  mean " << mean << "\nthroughput   " << throughput << " runs/s\n";
  if (config.profile) PrintProfile(ProfileRows(r, mean), mean, r.threads_used);
}

Result<BenchConfig> ConfigFromArgs(const ParsedArgs& args) {
  BenchConfig c;
  MLF_ASSIGN_OR_RETURN(c.iterations, ParseUnsigned("iterations", args.Get("iterations", "1000")));
  MLF_ASSIGN_OR_RETURN(c.warmup, ParseUnsigned("warmup", args.Get("warmup", "10")));
  MLF_ASSIGN_OR_RETURN(c.executors, ParseUnsigned("executors", args.Get("executors", "1")));
  if (c.iterations == 0) return InvalidArgument("--iterations must be at least 1");
  if (c.executors == 0 || c.executors > 256) return InvalidArgument("--executors must be between 1 and 256");
  c.profile = args.Has("profile");
  if (c.profile && c.executors > 1) return InvalidArgument("--profile times one executor; leave out --executors");
  MLF_ASSIGN_OR_RETURN(c.execution, ExecutorOptionsFromArgs(args));
  return c;
}

int RunBench(const ParsedArgs& args) {
  int code = kExitOk;
  if (!ExpectPositionals("bench", args, 1, 1, &code)) return code;
  Result<BenchConfig> config = ConfigFromArgs(args);
  if (!config.ok()) return ReportUsageError("bench", config.status().message());
  Status isa = CheckIsaFlag(config->execution);
  if (!isa.ok()) return ReportFailure(isa);
  Result<LoadOptions> options = LoadOptionsFromArgs(args);
  if (!options.ok()) return ReportFailure(options.status());
  options->profile_operators = config->profile;
  const auto start = Clock::now();
  Result<std::shared_ptr<ModelLibrary>> lib = ModelLibrary::Open(args.positionals()[0], *options);
  if (!lib.ok()) return ReportFailure(lib.status());
  const double open_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  Result<std::string> module = SelectModule(**lib, args.Get("module"));
  if (!module.ok()) return ReportFailure(module.status());
  config->module = *module;
  Result<BenchResult> result = Bench(**lib, *config);
  if (!result.ok()) return ReportFailure(result.status());
  result->open_ms = open_ms;
  result->code_origin = (*lib)->code_origin(*module);
  result->operator_info = (*lib)->metadata().modules.at(*module).operators;
  Print(*config, *result, args.Has("json"));
  return kExitOk;
}

std::vector<FlagSpec> BenchFlags() {
  std::vector<FlagSpec> flags = {{"module", true, false, ""},  {"iterations", true, false, ""},
                                 {"warmup", true, false, ""},  {"executors", true, false, ""},
                                 {"profile", false, false, ""}, {"json", false, false, ""}};
  for (const FlagSpec& f : TrustFlags()) flags.push_back(f);
  for (const FlagSpec& f : ExecutionFlags()) flags.push_back(f);
  return flags;
}

}  // namespace

const Command& BenchCommand() {
  static const Command command{"bench", "measure latency percentiles and throughput", kUsage,
                               BenchFlags(), RunBench};
  return command;
}

}  // namespace mlf::cli
