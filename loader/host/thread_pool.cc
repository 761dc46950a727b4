#include "loader/host/thread_pool.h"

#include <chrono>

namespace mlf {
namespace {

// How long a thread spins for the next job (or for the tasks to finish)
// before it sleeps: about the gap between two parallel regions of a model.
constexpr auto kSpin = std::chrono::microseconds(200);

// The job word: generation << 40 | task count << 20. A share's word:
// generation << 40 | next index.
constexpr uint64_t kField = (uint64_t{1} << 20) - 1;
constexpr uint64_t kGenerations = (uint64_t{1} << 24) - 1;
inline uint64_t Generation(uint64_t word) { return word >> 40; }
inline uint64_t Count(uint64_t job) { return (job >> 20) & kField; }
inline uint64_t Next(uint64_t share) { return share & kField; }

inline void Pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until `done()` or kSpin has passed; whether done() held.
template <typename Done>
bool SpinUntil(Done done) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0;; ++i) {
    if (done()) return true;
    Pause();
    if ((i & 63) == 63 && std::chrono::steady_clock::now() >= until) return done();
  }
}

}  // namespace

ThreadPool::ThreadPool(int threads) : shares_(threads > 1 ? threads : 1) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { Work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true, std::memory_order_release);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::Callback(void* pool, TaskFn fn, void* arg, int32_t n) {
  static_cast<ThreadPool*>(pool)->ParallelFor(fn, arg, n);
}

// Claims and runs the unclaimed tasks of `owner`'s share of `job` (tasks
// owner, owner + threads, ...) while `job` is the current job.
void ThreadPool::RunShare(int owner, uint64_t job) {
  const uint64_t threads = shares_.size(), n = Count(job);
  const uint64_t tasks = n > static_cast<uint64_t>(owner) ? (n - owner + threads - 1) / threads : 0;
  std::atomic<uint64_t>& share = shares_[owner].word;
  uint64_t word = share.load(std::memory_order_acquire);
  for (;;) {
    if (Generation(word) != Generation(job) || Next(word) >= tasks) return;
    if (!share.compare_exchange_weak(word, word + 1, std::memory_order_acq_rel,
                                     std::memory_order_acquire)) {
      continue;
    }
    fn_(arg_, static_cast<int32_t>(owner + Next(word) * threads));
    if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == static_cast<int32_t>(n)) {
      std::lock_guard<std::mutex> lock(mu_);
      finished_.notify_all();
    }
    word = share.load(std::memory_order_acquire);
  }
}

// Runs thread `self`'s own tasks of the current job, then the others'
// unclaimed ones (a thread that has not come yet loses them).
void ThreadPool::Drain(int self) {
  const uint64_t job = job_.load(std::memory_order_acquire);
  const int threads = static_cast<int>(shares_.size());
  for (int i = 0; i < threads; ++i) RunShare((self + i) % threads, job);
}

void ThreadPool::ParallelFor(TaskFn fn, void* arg, int32_t n) {
  if (workers_.empty() || n <= 1 || static_cast<uint64_t>(n) > kField) {
    for (int32_t i = 0; i < n; ++i) fn(arg, i);
    return;
  }
  fn_ = fn;
  arg_ = arg;
  done_.store(0, std::memory_order_relaxed);
  {
    // Under the lock, so a worker about to sleep cannot miss the new job.
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t generation = (Generation(job_.load(std::memory_order_relaxed)) + 1) & kGenerations;
    for (Share& share : shares_) share.word.store(generation << 40, std::memory_order_relaxed);
    job_.store(generation << 40 | static_cast<uint64_t>(n) << 20, std::memory_order_release);
  }
  wake_.notify_all();
  Drain(0);
  auto all_done = [&] { return done_.load(std::memory_order_acquire) == n; };
  if (SpinUntil(all_done)) return;
  std::unique_lock<std::mutex> lock(mu_);
  finished_.wait(lock, all_done);
}

void ThreadPool::Work(int self) {
  uint64_t seen = 0;
  for (;;) {
    auto moved = [&] {
      return Generation(job_.load(std::memory_order_acquire)) != seen ||
             stop_.load(std::memory_order_acquire);
    };
    if (!SpinUntil(moved)) {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, moved);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = Generation(job_.load(std::memory_order_acquire));
    Drain(self);
  }
}

}  // namespace mlf
