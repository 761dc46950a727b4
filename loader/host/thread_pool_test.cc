#include "loader/host/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
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
  // Long enough that one thread cannot take every task before the others wake.
  std::this_thread::sleep_for(std::chrono::microseconds(200));
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

// With 4 threads and tasks that take a while, more than one thread works.
TEST(ThreadPoolTest, TasksRunOnSeveralThreads) {
  ThreadPool pool(4);
  Record r(32);
  pool.ParallelFor(Mark, &r, 32);
  std::set<std::thread::id> ids(r.by.begin(), r.by.end());
  EXPECT_GT(ids.size(), 1u);
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
