#include "loader/host/thread_pool.h"

#include <chrono>

namespace mlf {
namespace {

// How long a thread spins for the next job (or for the workers to finish)
// before it sleeps: about the gap between two parallel regions of a model.
constexpr auto kSpin = std::chrono::microseconds(200);

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

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { Work(); });
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

void ThreadPool::Drain() {
  for (;;) {
    const int32_t i = next_.fetch_add(1, std::memory_order_relaxed);
    if (i >= n_) return;
    fn_(arg_, i);
  }
}

void ThreadPool::ParallelFor(TaskFn fn, void* arg, int32_t n) {
  if (workers_.empty() || n <= 1) {
    for (int32_t i = 0; i < n; ++i) fn(arg, i);
    return;
  }
  fn_ = fn;
  arg_ = arg;
  n_ = n;
  next_.store(0, std::memory_order_relaxed);
  pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  {
    // Under the lock, so a worker about to sleep cannot miss the new job.
    std::lock_guard<std::mutex> lock(mu_);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  Drain();
  // Every worker checks out (it may have found no task left), so none still
  // reads this job when the next one is written.
  auto all_out = [this] { return pending_.load(std::memory_order_acquire) == 0; };
  if (SpinUntil(all_out)) return;
  std::unique_lock<std::mutex> lock(mu_);
  finished_.wait(lock, all_out);
}

void ThreadPool::Work() {
  uint64_t seen = 0;
  for (;;) {
    uint64_t current = seen;
    auto moved = [&] {
      current = generation_.load(std::memory_order_acquire);
      return current != seen || stop_.load(std::memory_order_acquire);
    };
    if (!SpinUntil(moved)) {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, moved);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = current;
    Drain();
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mu_);
      finished_.notify_one();
    }
  }
}

}  // namespace mlf
