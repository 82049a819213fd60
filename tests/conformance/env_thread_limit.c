/* OMP_THREAD_LIMIT: CONF_EXPECT_LIMIT is what omp_get_thread_limit()
   returns; no team, however many threads it asks for, exceeds it, and
   nested teams together stay within it. */
#include "check.h"

int main(void) {
  long want = conf_env_long("CONF_EXPECT_LIMIT", 0);
  int limit = omp_get_thread_limit();
  if (want)
    CHECK_EQ("omp_get_thread_limit()", limit, want);
  int n = 0;
#pragma omp parallel num_threads(8)
#pragma omp single
  n = omp_get_num_threads();
  CHECK(n >= 1 && n <= limit, "num_threads(8) with thread limit %d: team of %d", limit, n);

  /* thread-limit-var bounds the threads of the contention group at any one
     time. The outer team's n1 threads stay in it while an inner team runs
     (working or waiting at a barrier), so an inner team may add at most
     limit - n1 threads besides its primary thread. */
  omp_set_max_active_levels(2);
  int n1 = 0, inner_max = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    n1 = omp_get_num_threads();
#pragma omp parallel num_threads(4)
#pragma omp single
    {
      int m = omp_get_num_threads();
#pragma omp critical
      inner_max = m > inner_max ? m : inner_max;
    }
  }
  CHECK(n1 >= 1 && n1 <= limit, "outer team of %d with thread limit %d", n1, limit);
  CHECK(inner_max >= 1 && inner_max <= limit - n1 + 1,
        "nested team of %d inside a team of %d with thread limit %d", inner_max, n1, limit);
  return conf_end();
}
