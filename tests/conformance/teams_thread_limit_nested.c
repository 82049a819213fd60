// LIBOMP14-DEFECT: in a team with thread_limit(6), after a region of 16 threads cut to 9 by OMP_THREAD_LIMIT=9, a region of 6 gets 4 threads, even with KMP_TEAMS_THREAD_LIMIT=16.
/* thread-limit-var bounds the threads of a contention group alive at once,
   nested regions included (5.2: thread-limit-var, teams construct). With
   OMP_THREAD_LIMIT=9 and dyn-var false: a region of 8 gets 8 threads, one
   of 16 at most 9. In a team of a teams construct with thread_limit(6) (a
   contention group of its own): regions of 3 and 6 get them, one of 8 at
   most 6, and three nested levels of 5 x 5 x 2 never have more than 6
   threads in their innermost regions at once (each holds its place a
   millisecond, so the threads overlap). */
#include <unistd.h>

#include "check.h"

static int in_region, most;

static void hold_a_place(void) {
  int v = __atomic_add_fetch(&in_region, 1, __ATOMIC_ACQ_REL);
  int m = __atomic_load_n(&most, __ATOMIC_RELAXED);
  while (v > m && !__atomic_compare_exchange_n(&most, &m, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  usleep(1000);
  __atomic_sub_fetch(&in_region, 1, __ATOMIC_ACQ_REL);
}

int main(void) {
  omp_set_dynamic(0);
  omp_set_max_active_levels(4);
  long limit = conf_env_long("CONF_EXPECT_THREAD_LIMIT", 9);
  CHECK_EQ("omp_get_thread_limit()", omp_get_thread_limit(), (int)limit);
  int n8 = 0, n16 = 0;
#pragma omp parallel num_threads(8)
#pragma omp single
  n8 = omp_get_num_threads();
  CHECK_EQ("threads of a region of 8 under OMP_THREAD_LIMIT=9", n8, 8);
#pragma omp parallel num_threads(16)
#pragma omp single
  n16 = omp_get_num_threads();
  CHECK(n16 >= 1 && n16 <= limit, "a region of 16 under OMP_THREAD_LIMIT=%ld got %d threads", limit, n16);

  int n3 = 0, n6 = 0, n8t = 0, tl = 0;
#pragma omp teams num_teams(1) thread_limit(6)
  {
#pragma omp parallel num_threads(3)
#pragma omp single
    {
      n3 = omp_get_num_threads();
      tl = omp_get_thread_limit();
    }
#pragma omp parallel num_threads(6)
#pragma omp single
    n6 = omp_get_num_threads();
#pragma omp parallel num_threads(8)
#pragma omp single
    n8t = omp_get_num_threads();
#pragma omp parallel num_threads(5)
#pragma omp parallel num_threads(5)
#pragma omp parallel num_threads(2)
    hold_a_place();
  }
  CHECK(tl >= 1 && tl <= 6, "omp_get_thread_limit() in a team with thread_limit(6): %d", tl);
  if (tl == 6) {
    CHECK_EQ("threads of a region of 3 in the team", n3, 3);
    CHECK_EQ("threads of a region of 6 in the team", n6, 6);
  }
  CHECK(n8t >= 1 && n8t <= tl, "a region of 8 in a team with thread-limit-var %d got %d threads", tl, n8t);
  CHECK(most >= 1 && most <= tl, "%d threads at once in nested regions of a team with thread-limit-var %d", most, tl);
  return conf_end();
}
