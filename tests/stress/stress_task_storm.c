/* Tasks creating tasks from every thread at once: every thread of the team
   grows its own random task tree (fixed seeds; fan-out 0-4, depth up to
   12) where nodes end with taskwait, with a taskgroup, or with nothing;
   ten rounds, each checked against the node count computed sequentially.
   Then every thread creates tasks that migrate (created in one thread's
   list, run wherever) and themselves create tasks, without any wait
   until the barrier. */
#include "stress.h"

enum { ROUNDS = 10, MAXDEPTH = 12 };

static unsigned next_rand(unsigned *s) { return *s = *s * 1103515245u + 12345u, *s >> 8; }

/* Nodes of the tree grown from seed s (the same walk as grow()). */
static long count(unsigned s, int depth) {
  long n = 1;
  int fan = depth >= MAXDEPTH ? 0 : (int)(next_rand(&s) % 5);
  for (int k = 0; k < fan; k++)
    n += count(s * 31u + (unsigned)k, depth + 1);
  return n;
}

static long grown;

static void grow(unsigned s, int depth) {
  __atomic_fetch_add(&grown, 1, __ATOMIC_RELAXED);
  int fan = depth >= MAXDEPTH ? 0 : (int)(next_rand(&s) % 5);
  int how = (int)(s % 3);
  if (how == 1) {
#pragma omp taskgroup
    for (int k = 0; k < fan; k++) {
#pragma omp task firstprivate(s, k, depth)
      grow(s * 31u + (unsigned)k, depth + 1);
    }
    return;
  }
  for (int k = 0; k < fan; k++) {
#pragma omp task firstprivate(s, k, depth)
    grow(s * 31u + (unsigned)k, depth + 1);
  }
  if (how == 0) {
#pragma omp taskwait
  }
}

static long spread_ran;

int main(void) {
  stress_begin("stress_task_storm", 60);
  stress_phase("random task trees from every thread", ROUNDS);
  for (int round = 0; round < ROUNDS; round++) {
    long want = 0;
    int nthreads = 1;
    grown = 0;
#pragma omp parallel
    {
#pragma omp single
      nthreads = omp_get_num_threads();
      grow(1000u * (unsigned)round + (unsigned)omp_get_thread_num(), 0);
    }
    for (int t = 0; t < nthreads; t++)
      want += count(1000u * (unsigned)round + (unsigned)t, 0);
    CHECK(grown == want, "round %d: %ld tree nodes ran, want %ld", round, grown, want);
    stress_progress(1);
  }

  stress_phase("tasks creating tasks, no waits until the barrier", 200000);
#pragma omp parallel
  for (int i = 0; i < 20000; i++) {
#pragma omp task
    {
      for (int k = 0; k < 9; k++) {
#pragma omp task
        __atomic_fetch_add(&spread_ran, 1, __ATOMIC_RELAXED);
      }
      __atomic_fetch_add(&spread_ran, 1, __ATOMIC_RELAXED);
      stress_progress(10);
    }
  }
  int n = 0;
#pragma omp parallel
#pragma omp single
  n = omp_get_num_threads();
  CHECK_EQ("tasks run before the barrier ended", spread_ran, 20000L * 10 * n);
  return stress_end();
}
