/* max-active-levels 1: a nested region is inactive. Its team has one thread
   (thread number 0), omp_get_level() still increments, omp_get_active_level()
   does not, omp_in_parallel() stays true (an enclosing region is active). */
#include "check.h"

int main(void) {
  omp_set_max_active_levels(1);
  CHECK_EQ("omp_get_max_active_levels()", omp_get_max_active_levels(), 1);
  int inner_runs = 0;
#pragma omp parallel num_threads(4)
  {
    int outer = omp_get_thread_num();
#pragma omp parallel num_threads(4)
    {
      __atomic_fetch_add(&inner_runs, 1, __ATOMIC_RELAXED);
      CHECK_EQ("inner omp_get_num_threads()", omp_get_num_threads(), 1);
      CHECK_EQ("inner omp_get_thread_num()", omp_get_thread_num(), 0);
      CHECK_EQ("inner omp_get_level()", omp_get_level(), 2);
      CHECK_EQ("inner omp_get_active_level()", omp_get_active_level(), 1);
      CHECK_EQ("inner omp_in_parallel()", omp_in_parallel(), 1);
      CHECK_EQ("inner omp_get_ancestor_thread_num(1)", omp_get_ancestor_thread_num(1), outer);
      CHECK_EQ("inner omp_get_team_size(1)", omp_get_team_size(1), 4);
      CHECK_EQ("inner omp_get_team_size(2)", omp_get_team_size(2), 1);
#pragma omp barrier
    }
  }
  CHECK_EQ("inner regions run (one per outer thread)", inner_runs, 4);
  return conf_end();
}
