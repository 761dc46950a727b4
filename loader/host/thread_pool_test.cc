#include "loader/host/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace mlf {
namespace {

struct Record {
  std::vector<std::atomic<int>> runs;
  std::vector<std::thread::id> by;
  explicit Record(int n) : runs(n), by(n) {}
};

void Mark(void* arg, int32_t i) {
  Record* r = static_cast<Record*>(arg);
  r->runs[i].fetch_add(1);
  r->by[i] = std::this_thread::get_id();
  std::this_thread::sleep_for(std::chrono::microseconds(50));
}

// Every task runs exactly once per call, over many calls (each call's tasks
// done before it returns), whatever the thread and task counts.
TEST(ThreadPoolTest, RunsEveryTaskOnceAndReturnsWhenAllAreDone) {
  for (int threads : {1, 2, 3, 4}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (int n : {0, 1, 2, 3, 7, 64}) {
      for (int round = 0; round < 5; ++round) {
        Record r(n);
        ThreadPool::Callback(&pool, Mark, &r, n);
        for (int i = 0; i < n; ++i) EXPECT_EQ(r.runs[i].load(), 1) << threads << " " << n << " " << i;
      }
    }
  }
}

// With 4 threads, tasks run on more than one thread: the thread that takes
// task 0 waits (up to 10 s, for a loaded machine) until another thread has
// run a task, which only a worker can do while it waits.
struct Meeting {
  std::atomic<bool> other{false};
  std::atomic<bool> met{false};
};

void Meet(void* arg, int32_t i) {
  Meeting* m = static_cast<Meeting*>(arg);
  if (i != 0) {
    m->other.store(true);
    return;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!m->other.load() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  m->met.store(m->other.load());
}

TEST(ThreadPoolTest, TasksRunOnSeveralThreads) {
  ThreadPool pool(4);
  Meeting m;
  pool.ParallelFor(Meet, &m, 8);
  EXPECT_TRUE(m.met.load());
}

// Task k of `threads` tasks runs on thread k in every call: the caller runs
// task 0 and each worker the same task each time, so a kernel's cut finds
// its part of the layer before on its core. Each task waits (up to 10 s)
// until all have started, so no thread can run two of them and none can run
// another's: a pool that hands tasks first come, first served fails this
// whenever a worker takes task 0 or two workers swap.
struct Gathering {
  std::atomic<int> started{0};
  std::vector<std::thread::id> by;
  explicit Gathering(int n) : by(n) {}
};

void Gather(void* arg, int32_t i) {
  Gathering* g = static_cast<Gathering*>(arg);
  g->by[i] = std::this_thread::get_id();
  g->started.fetch_add(1);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (g->started.load() < static_cast<int>(g->by.size()) &&
         std::chrono::steady_clock::now() < until) {
    std::this_thread::yield();
  }
}

TEST(ThreadPoolTest, TaskKRunsOnThreadKInEveryCall) {
  for (int threads : {2, 3, 4}) {
    ThreadPool pool(threads);
    Gathering first(threads);
    pool.ParallelFor(Gather, &first, threads);
    EXPECT_EQ(first.by[0], std::this_thread::get_id()) << threads;
    for (int round = 0; round < 20; ++round) {
      Gathering g(threads);
      pool.ParallelFor(Gather, &g, threads);
      for (int k = 0; k < threads; ++k) {
        EXPECT_EQ(g.by[k], first.by[k]) << threads << " threads, round " << round << ", task " << k;
      }
    }
    for (int k = 1; k < threads; ++k) EXPECT_NE(first.by[k], first.by[0]) << threads << " " << k;
  }
}

// A thread takes another's unclaimed tasks: of 4 tasks on 2 threads the
// worker owns 1 and 3; task 1 waits (up to 10 s) for task 3, so 3 runs only
// if the caller takes it (or, when the caller took 1, the worker runs 3).
struct Handover {
  std::atomic<bool> third{false};
  std::atomic<bool> met{false};
};

void HandOver(void* arg, int32_t i) {
  Handover* h = static_cast<Handover*>(arg);
  if (i == 3) h->third.store(true);
  if (i != 1) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!h->third.load() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  h->met.store(h->third.load());
}

TEST(ThreadPoolTest, IdleThreadsTakeOthersUnclaimedTasks) {
  ThreadPool pool(2);
  for (int round = 0; round < 5; ++round) {
    Handover h;
    pool.ParallelFor(HandOver, &h, 4);
    EXPECT_TRUE(h.met.load()) << round;
  }
}

// One thread: no workers; the tasks run in order on the caller's thread.
TEST(ThreadPoolTest, OneThreadRunsInOrderOnTheCaller) {
  ThreadPool pool(1);
  std::vector<int> order;
  pool.ParallelFor([](void* arg, int32_t i) { static_cast<std::vector<int>*>(arg)->push_back(i); },
                   &order, 5);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

}  // namespace
}  // namespace mlf
