/* parallel if(false): the region runs on a team of one thread; it is an
   inactive region, so omp_get_level() counts it but omp_get_active_level()
   and omp_in_parallel() do not. if(parallel: true) forks normally. */
#include "check.h"

int main(void) {
  int n = -1, tid = -1, level = -1, active = -1, inpar = -1, count = 0;
  int volatile no = 0, yes = 1;
#pragma omp parallel if(no) num_threads(4)
  {
    __atomic_fetch_add(&count, 1, __ATOMIC_RELAXED);
    n = omp_get_num_threads();
    tid = omp_get_thread_num();
    level = omp_get_level();
    active = omp_get_active_level();
    inpar = omp_in_parallel();
  }
  CHECK_EQ("if(0): threads that ran the region", count, 1);
  CHECK_EQ("if(0): omp_get_num_threads()", n, 1);
  CHECK_EQ("if(0): omp_get_thread_num()", tid, 0);
  CHECK_EQ("if(0): omp_get_level()", level, 1);
  CHECK_EQ("if(0): omp_get_active_level()", active, 0);
  CHECK_EQ("if(0): omp_in_parallel()", inpar, 0);

  count = 0;
#pragma omp parallel if(parallel: yes) num_threads(4)
  {
    __atomic_fetch_add(&count, 1, __ATOMIC_RELAXED);
#pragma omp single
    {
      n = omp_get_num_threads();
      active = omp_get_active_level();
      inpar = omp_in_parallel();
    }
  }
  CHECK_EQ("if(1): threads that ran the region", count, 4);
  CHECK_EQ("if(1): omp_get_num_threads()", n, 4);
  CHECK_EQ("if(1): omp_get_active_level()", active, 1);
  CHECK_EQ("if(1): omp_in_parallel()", inpar, 1);

  /* An inactive region inside an active one: level 2, active level 1. */
  int bad = 0;
#pragma omp parallel num_threads(3)
  {
#pragma omp parallel if(no) num_threads(3)
    {
      if (omp_get_num_threads() != 1 || omp_get_level() != 2 || omp_get_active_level() != 1 ||
          !omp_in_parallel())
        __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
    }
  }
  CHECK_EQ("if(0) nested in an active region: threads with wrong team size/level/active level", bad, 0);
  return conf_end();
}
