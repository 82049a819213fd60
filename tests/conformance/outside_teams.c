/* Parallel regions opened by program threads other than the initial one,
   more such threads than processors, while the initial thread waits for
   them in pthread_join (outside the runtime). A runtime may let such a
   thread run its own team's members that nothing else has started yet
   when it reaches the region's end; it must not let one of them hold that
   thread while another member it started needs the thread back.

   - lock: in a team of 3, thread 1 takes an OpenMP lock that a plain
     thread keeps taking and releasing (so thread 1 often waits for it),
     then sets a flag; thread 2 waits for that flag in a spin loop of its
     own, outside the runtime. Thread 1 must get to run after its wait
     while thread 2 spins.
   - ring: in a team of 4, each thread waits in a spin loop for the next
     one to arrive, then all meet at a barrier.
   - nested: each thread of a team of 2 opens a nested team of 2; and in a
     team of 3, thread 1 opens a nested team of 2 and then sets a flag
     that thread 2 waits for in a spin loop of its own.
   - sums: many short regions with a reduction.
   The program has no thread-local data of its own (that gives such teams
   kernel threads instead, tests/faults' dlopen case). */
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "check.h"

enum { ROOTS = 6, ROUNDS = 30, SUM_ROUNDS = 300 };

static omp_lock_t lock;
static int stop_holder;
static int flag[ROOTS];

static uint64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void *holder(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&stop_holder, __ATOMIC_ACQUIRE)) {
    omp_set_lock(&lock);
    uint64_t until = now_us() + 200;
    while (now_us() < until) {
    }
    omp_unset_lock(&lock);
    sched_yield();
  }
  return NULL;
}

static void lock_rounds(int p) {
  for (int r = 1; r <= ROUNDS; r++) {
    int seen = 0;
#pragma omp parallel num_threads(3)
    {
      int t = omp_get_thread_num();
      if (t == 1) {
        omp_set_lock(&lock);
        __atomic_store_n(&flag[p], r, __ATOMIC_RELEASE);
        omp_unset_lock(&lock);
      } else if (t == 2) {
        while (__atomic_load_n(&flag[p], __ATOMIC_ACQUIRE) != r) {
        }
        seen = r;
      }
    }
    CHECK_EQ("lock round: the spinning thread saw its round", seen, r);
  }
}

static void ring_rounds(void) {
  for (int r = 0; r < ROUNDS; r++) {
    int arrived[4] = {0, 0, 0, 0};
    int after[4] = {0, 0, 0, 0};
#pragma omp parallel num_threads(4)
    {
      int t = omp_get_thread_num(), n = omp_get_num_threads();
      __atomic_store_n(&arrived[t], 1, __ATOMIC_RELEASE);
      while (!__atomic_load_n(&arrived[(t + 1) % n], __ATOMIC_ACQUIRE)) {
      }
#pragma omp barrier
      int all = 1;
      for (int i = 0; i < n; i++) all &= __atomic_load_n(&arrived[i], __ATOMIC_ACQUIRE);
      after[t] = all;
    }
    for (int t = 0; t < 4; t++) CHECK(after[t] == 1, "ring round %d: thread %d passed the barrier early", r, t);
  }
}

static void nested_rounds(void) {
  omp_set_max_active_levels(2);
  for (int r = 0; r < ROUNDS; r++) {
    int count = 0;
#pragma omp parallel num_threads(2) reduction(+ : count)
    {
      int outer = omp_get_thread_num();
#pragma omp parallel num_threads(2) reduction(+ : count)
      count += 1 + 10 * outer;
    }
    CHECK_EQ("nested round: members counted", count, 2 + 2 * 11);
  }
  for (int r = 1; r <= ROUNDS; r++) {
    int done = 0, inner = 0, seen = 0;
#pragma omp parallel num_threads(3)
    {
      int t = omp_get_thread_num();
      if (t == 1) {
#pragma omp parallel num_threads(2) reduction(+ : inner)
        inner += 1;
        __atomic_store_n(&done, r, __ATOMIC_RELEASE);
      } else if (t == 2) {
        while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) != r) {
        }
        seen = r;
      }
    }
    CHECK_EQ("nested flag round: the inner team's members", inner, 2);
    CHECK_EQ("nested flag round: the spinning thread saw its round", seen, r);
  }
}

static void sum_rounds(int p) {
  for (int r = 0; r < SUM_ROUNDS; r++) {
    long s = 0;
    int ids = 0;
#pragma omp parallel for reduction(+ : s) reduction(| : ids) num_threads(2)
    for (int i = 0; i < 4000; i++) {
      s += i + p;
      ids |= 1 << omp_get_thread_num();
    }
    CHECK_EQ("sums: the loop's sum", s, 7998000L + 4000L * p);
    CHECK(ids == 3, "sums: thread numbers seen 0x%x, want 0x3", ids);
  }
}

static void *root(void *arg) {
  int p = (int)(intptr_t)arg;
  lock_rounds(p);
  ring_rounds();
  nested_rounds();
  sum_rounds(p);
  return NULL;
}

int main(void) {
  omp_init_lock(&lock);
  pthread_t h, th[ROOTS];
  CHECK(pthread_create(&h, NULL, holder, NULL) == 0, "cannot create the lock holder");
  for (int p = 0; p < ROOTS; p++)
    CHECK(pthread_create(&th[p], NULL, root, (void *)(intptr_t)p) == 0, "cannot create thread %d", p);
  for (int p = 0; p < ROOTS; p++) pthread_join(th[p], NULL);
  __atomic_store_n(&stop_holder, 1, __ATOMIC_RELEASE);
  pthread_join(h, NULL);
  omp_destroy_lock(&lock);
  return conf_end();
}
