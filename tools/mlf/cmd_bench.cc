// mlf bench: latency percentiles and throughput of a module on this host.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "artifact/base/display_text.h"
#include "tools/mlf/command.h"
#include "tools/mlf/model_io.h"
#include "tools/mlf/progress.h"

namespace mlf::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kUsage[] =
    "usage: mlf bench ARCHIVE [--module M] [--iterations N] [--warmup W] [--threads T]\n"
    "                 [--isa NAME] [--executors E] [--key NAME.pub] [--require-signature]\n"
    "                 [--json]\n\n"
    "Runs a module repeatedly on random inputs (seed 0) and reports per-run latency\n"
    "percentiles (p50, p90, p99) and throughput. With E executors, each has its own\n"
    "thread on the one loaded library, as a server would; each run of each uses T\n"
    "threads.\n\n"
    "options:\n"
    "  --iterations N        timed runs per executor (default 1000)\n"
    "  --warmup W            untimed runs per executor first (default 10)\n"
    MLF_EXECUTION_FLAGS_HELP
    "  --executors E         executors running at once, one thread each (default 1)\n"
    "  --json                print a JSON report\n";

struct BenchConfig {
  std::string module;
  uint64_t iterations = 1000, warmup = 10, executors = 1;
  ExecutorOptions execution;
};

struct BenchResult {
  std::vector<double> latencies_us;  // every timed run of every thread
  double wall_seconds = 0;
  double open_ms = 0;
  std::string code_origin;
  int threads_used = 1;  // per run (1 for code without a run context)
  std::string kernel_isa = "auto";
};

// What an executor ended up with (the same for every executor).
struct ExecutorFacts {
  int threads = 1;
  std::string kernel_isa;
};

// One thread's work: its own executor, warm-up, then timed runs.
Status BenchThread(const ModelLibrary& lib, const BenchConfig& config, std::atomic<bool>& go,
                   std::atomic<uint64_t>& runs_done, std::vector<double>* latencies, ExecutorFacts* facts) {
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<AotExecutor> exec, lib.CreateExecutor(config.module, config.execution));
  facts->threads = exec->threads();
  facts->kernel_isa = exec->kernel_isa();
  MLF_RETURN_IF_ERROR(SetRandomInputs(*exec, std::vector<bool>(exec->num_inputs(), false), 0));
  for (uint64_t i = 0; i < config.warmup; ++i) MLF_RETURN_IF_ERROR(exec->Run());
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
  return result;
}

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const size_t index = static_cast<size_t>(p / 100.0 * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(index, sorted.size() - 1)];
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
}

Result<BenchConfig> ConfigFromArgs(const ParsedArgs& args) {
  BenchConfig c;
  MLF_ASSIGN_OR_RETURN(c.iterations, ParseUnsigned("iterations", args.Get("iterations", "1000")));
  MLF_ASSIGN_OR_RETURN(c.warmup, ParseUnsigned("warmup", args.Get("warmup", "10")));
  MLF_ASSIGN_OR_RETURN(c.executors, ParseUnsigned("executors", args.Get("executors", "1")));
  if (c.iterations == 0) return InvalidArgument("--iterations must be at least 1");
  if (c.executors == 0 || c.executors > 256) return InvalidArgument("--executors must be between 1 and 256");
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
  Print(*config, *result, args.Has("json"));
  return kExitOk;
}

std::vector<FlagSpec> BenchFlags() {
  std::vector<FlagSpec> flags = {{"module", true, false, ""},  {"iterations", true, false, ""},
                                 {"warmup", true, false, ""},  {"executors", true, false, ""},
                                 {"json", false, false, ""}};
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
