/* parallel num_threads(n): a team of exactly n (dyn-var is false), thread
   numbers 0..n-1 each once, omp_get_num_threads() == n on every thread,
   omp_in_parallel() true inside and false outside; the default team takes
   nthreads-var (OMP_NUM_THREADS=4 from the harness). */
#include "check.h"

#define MAX 64

static void team_of(int n) {
  int seen[MAX] = {0};
  int sizes[MAX] = {0};
  int in_par[MAX] = {0};
#pragma omp parallel num_threads(n)
  {
    int t = omp_get_thread_num();
    if (t >= 0 && t < MAX) {
      __atomic_fetch_add(&seen[t], 1, __ATOMIC_RELAXED);
      sizes[t] = omp_get_num_threads();
      in_par[t] = omp_in_parallel();
    } else {
      CHECK(0, "num_threads(%d): thread number %d", n, t);
    }
  }
  for (int t = 0; t < MAX; t++) {
    CHECK(seen[t] == (t < n), "num_threads(%d): thread %d seen %d times", n, t, seen[t]);
    if (t < n) {
      CHECK(sizes[t] == n, "num_threads(%d): thread %d sees omp_get_num_threads() = %d", n, t, sizes[t]);
      /* A team of one is an inactive region: omp_in_parallel() is false. */
      CHECK(in_par[t] == (n > 1), "num_threads(%d): omp_in_parallel() = %d", n, in_par[t]);
    }
  }
}

int main(void) {
  CHECK_EQ("omp_in_parallel() outside", omp_in_parallel(), 0);
  CHECK_EQ("omp_get_num_threads() outside", omp_get_num_threads(), 1);
  CHECK_EQ("omp_get_thread_num() outside", omp_get_thread_num(), 0);
  for (int n = 1; n <= 9; n++)
    team_of(n);
  int volatile computed = 2;
  team_of(computed * 3); /* num_threads from an expression */

  int def = 0;
  long want = conf_env_long("CONF_EXPECT_THREADS", 4);
#pragma omp parallel
  {
#pragma omp single
    def = omp_get_num_threads();
  }
  CHECK_EQ("default team size", def, want);
  return conf_end();
}
