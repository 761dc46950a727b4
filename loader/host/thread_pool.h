// ThreadPool: an executor's intra-op threads (docs/design.md, "Host loader").
//
// Created once with the executor (never per run): threads - 1 workers, and
// the thread that calls ParallelFor works too. ParallelFor(fn, arg, n) runs
// fn(arg, i) for every i in [0, n) and returns when all have returned: the
// mlf_parallel_for_fn of mlf/model_abi.h that generated code receives in its
// run context (Callback). It allocates nothing. Workers wait for work by
// spinning briefly (a kernel's next parallel region follows within
// microseconds), then on a condition variable.
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
  void Work();
  void Drain();

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_, finished_;
  std::atomic<bool> stop_{false};
  // The current job: written before generation_ moves on (release), read by
  // workers after they see it move (acquire), not written again before every
  // worker has checked out of it (pending_).
  TaskFn fn_ = nullptr;
  void* arg_ = nullptr;
  int32_t n_ = 0;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int32_t> next_{0};
  std::atomic<int> pending_{0};
};

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_THREAD_POOL_H_
