// ThreadPool: an executor's intra-op threads (docs/design.md, "Host loader").
//
// Created once with the executor (never per run): threads - 1 workers, and
// the thread that calls ParallelFor works too. ParallelFor(fn, arg, n) runs
// fn(arg, i) for every i in [0, n) and returns when all have returned: the
// mlf_parallel_for_fn of mlf/model_abi.h that generated code receives in its
// run context (Callback). It allocates nothing.
//
// Task i belongs to thread i % threads (the caller is thread 0, worker w is
// thread w), so a kernel that cuts its output into one task per thread finds
// task k's part of every layer on the same core, where the layer before left
// it (docs/design.md, "Data stays on its core"): with tasks claimed first
// come, first served, a spinning worker took the caller's task 0 in about
// half of MobileNetV2's regions and each such layer read its input from the
// other core. A thread runs its own tasks first, one claim at a time, then
// takes the others' unclaimed ones, so the caller never waits for a worker
// that has not woken up: on a busy machine it runs the tasks itself (no
// slower than one thread) instead of waiting a scheduler slice per parallel
// region. Workers wait for work by spinning briefly (a kernel's next
// parallel region follows within microseconds), then on a condition
// variable.
//
// One ParallelFor at a time per pool: an executor runs on one thread at a
// time, and generated code does not nest parallel regions.
#ifndef MLFKIT_LOADER_HOST_THREAD_POOL_H_
#define MLFKIT_LOADER_HOST_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace mlf {

class ThreadPool {
 public:
  using TaskFn = void (*)(void* arg, int32_t task);

  // `threads` >= 1 in all (the caller's thread included).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  void ParallelFor(TaskFn fn, void* arg, int32_t n);
  // ParallelFor of the ThreadPool `pool`, with mlf_parallel_for_fn's signature.
  static void Callback(void* pool, TaskFn fn, void* arg, int32_t n);

 private:
  void Work(int self);
  void Drain(int self);
  void RunShare(int owner, uint64_t job);

  // Thread k's share of the current job: generation << 40 | next unclaimed
  // index i of its tasks k + i * threads. On a cache line of its own, as the
  // owner claims from it while others may look.
  struct alignas(64) Share {
    std::atomic<uint64_t> word{0};
  };

  std::vector<std::thread> workers_;
  std::vector<Share> shares_;
  std::mutex mu_;
  std::condition_variable wake_, finished_;
  std::atomic<bool> stop_{false};
  // The current job: generation (24 bits) and task count (20 bits) in one
  // word. The shares are reset before the word is published (release), and a
  // task is claimed by one compare-and-swap on its owner's share that also
  // proves the job is still the current one (the share's generation is the
  // job's); fn_ and arg_ are written before the word is published and read
  // only by a thread holding a claimed task, and a job does not end (done_ ==
  // n) before every claimed task has run.
  std::atomic<uint64_t> job_{0};
  TaskFn fn_ = nullptr;
  void* arg_ = nullptr;
  std::atomic<int32_t> done_{0};
};

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_THREAD_POOL_H_
