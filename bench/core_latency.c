/* core_latency: the time one cache line takes to go from CPU 0 to CPU 1 and
 * back (bench/README.md, "Two threads and the VM's core placement").
 *
 * Two threads, pinned to CPUs 0 and 1, pass a flag in one cache line back
 * and forth; the figure is nanoseconds per round trip, the least of 300
 * batches of 2,000 (the least, so that a batch in which another process
 * took a CPU does not count). On the 2-core VMs issue 13 measures on it is
 * about 80-110 ns at some times and 380-440 ns at others (the host moves the
 * VM's cores), and kernels that split a layer between two threads gain much
 * less at the higher figure: print it beside a two-thread benchmark.
 *
 * Usage: core_latency [CPU_A CPU_B]   (default 0 1); prints one integer. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { kTrips = 2000, kBatches = 300 };

static _Alignas(64) atomic_int turn;

/* The second CPU's side: answers each serve by handing the line back. */
static void* Answer(void* arg) {
  int i;
  (void)arg;
  for (i = 0; i < kTrips * kBatches; ++i) {
    while (atomic_load_explicit(&turn, memory_order_acquire) != 1) {
    }
    atomic_store_explicit(&turn, 0, memory_order_release);
  }
  return NULL;
}

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int Pin(pthread_attr_t* attr, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (attr != NULL) return pthread_attr_setaffinity_np(attr, sizeof set, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

int main(int argc, char** argv) {
  const int a = argc == 3 ? atoi(argv[1]) : 0, b = argc == 3 ? atoi(argv[2]) : 1;
  pthread_attr_t attr;
  pthread_t other;
  double best = 0;
  int batch, i;
  if (argc != 1 && argc != 3) {
    fprintf(stderr, "usage: core_latency [CPU_A CPU_B]\n");
    return 2;
  }
  /* The answering thread is pinned before it starts: created on CPU a, it
   * could wait there behind this thread's spinning. */
  pthread_attr_init(&attr);
  if (Pin(&attr, b) != 0 || pthread_create(&other, &attr, Answer, NULL) != 0 || Pin(NULL, a) != 0) {
    fprintf(stderr, "core_latency: cannot run threads on CPUs %d and %d\n", a, b);
    return 1;
  }
  for (batch = 0; batch < kBatches; ++batch) {
    const double start = Now();
    double per_trip;
    for (i = 0; i < kTrips; ++i) {
      atomic_store_explicit(&turn, 1, memory_order_release);
      while (atomic_load_explicit(&turn, memory_order_acquire) != 0) {
      }
    }
    per_trip = (Now() - start) / kTrips;
    if (batch == 0 || per_trip < best) best = per_trip;
  }
  pthread_join(other, NULL);
  printf("%.0f\n", best);
  return 0;
}
