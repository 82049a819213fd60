/* omp_get_num_procs, omp_get_max_threads and omp_set_num_threads,
   omp_get_thread_limit: max-threads is nthreads-var of the current task
   (4 from OMP_NUM_THREADS in the harness) outside and inside regions;
   omp_set_num_threads changes it for the calling task only, and the next
   region's default team follows it. */
#include <sched.h>

#include "check.h"

int main(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    /* libomp counts the CPUs in the affinity mask; a drop-in must agree. */
    CHECK_EQ("omp_get_num_procs() vs the affinity mask", omp_get_num_procs(), CPU_COUNT(&set));
  CHECK(omp_get_num_procs() >= 1, "omp_get_num_procs() = %d", omp_get_num_procs());
  CHECK(omp_get_thread_limit() >= 1, "omp_get_thread_limit() = %d", omp_get_thread_limit());

  long want = conf_env_long("CONF_EXPECT_THREADS", 4);
  CHECK_EQ("omp_get_max_threads() at start", omp_get_max_threads(), want);
  int inside = -1;
#pragma omp parallel
  {
#pragma omp single
    inside = omp_get_max_threads();
  }
  CHECK_EQ("omp_get_max_threads() inside a region", inside, want);

  omp_set_num_threads(3);
  CHECK_EQ("omp_get_max_threads() after omp_set_num_threads(3)", omp_get_max_threads(), 3);
  int team = 0, inner_max = 0, changed = 0, unchanged = 0;
#pragma omp parallel
  {
#pragma omp single
    {
      team = omp_get_num_threads();
      inner_max = omp_get_max_threads();
    }
    /* thread 1 changes its own nthreads-var; the others keep 3 */
    if (omp_get_thread_num() == 1) {
      omp_set_num_threads(2);
      changed = omp_get_max_threads();
    }
#pragma omp barrier
    if (omp_get_thread_num() == 2)
      unchanged = omp_get_max_threads();
  }
  CHECK_EQ("default team after omp_set_num_threads(3)", team, 3);
  CHECK_EQ("omp_get_max_threads() inside", inner_max, 3);
  CHECK_EQ("omp_get_max_threads() after setting 2 in a thread", changed, 2);
  CHECK_EQ("another thread's omp_get_max_threads()", unchanged, 3);
  CHECK_EQ("the initial task's omp_get_max_threads() after the region", omp_get_max_threads(), 3);

  omp_set_num_threads(7); /* more than the cores on small machines */
  int big = 0;
#pragma omp parallel
#pragma omp single
  big = omp_get_num_threads();
  CHECK_EQ("default team after omp_set_num_threads(7)", big, 7);
  return conf_end();
}
