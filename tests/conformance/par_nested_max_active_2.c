/* max-active-levels 2: levels 1 and 2 fork real teams, level 3 is
   serialized (team of 1, level 3, active level 2). */
#include "check.h"

int main(void) {
  omp_set_max_active_levels(2);
  CHECK_EQ("omp_get_max_active_levels()", omp_get_max_active_levels(), 2);
  int l2 = 0, l3 = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp parallel num_threads(2)
    {
      __atomic_fetch_add(&l2, 1, __ATOMIC_RELAXED);
      CHECK_EQ("level-2 omp_get_num_threads()", omp_get_num_threads(), 2);
      CHECK_EQ("level-2 omp_get_active_level()", omp_get_active_level(), 2);
      int t2 = omp_get_thread_num();
#pragma omp parallel num_threads(3)
      {
        __atomic_fetch_add(&l3, 1, __ATOMIC_RELAXED);
        CHECK_EQ("level-3 omp_get_num_threads()", omp_get_num_threads(), 1);
        CHECK_EQ("level-3 omp_get_level()", omp_get_level(), 3);
        CHECK_EQ("level-3 omp_get_active_level()", omp_get_active_level(), 2);
        CHECK_EQ("level-3 omp_get_ancestor_thread_num(2)", omp_get_ancestor_thread_num(2), t2);
        CHECK_EQ("level-3 omp_get_ancestor_thread_num(3)", omp_get_ancestor_thread_num(3), 0);
      }
    }
  }
  CHECK_EQ("level-2 implicit tasks", l2, 4);
  CHECK_EQ("level-3 implicit tasks", l3, 4);
  return conf_end();
}
