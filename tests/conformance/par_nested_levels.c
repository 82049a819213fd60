/* Three active nested levels (max-active-levels 3): omp_get_level,
   omp_get_active_level, omp_get_ancestor_thread_num and omp_get_team_size at
   every level, including level 0 and out-of-range levels. */
#include "check.h"

int main(void) {
  omp_set_max_active_levels(3);
  CHECK(omp_get_max_active_levels() == 3 || omp_get_max_active_levels() == omp_get_supported_active_levels(),
        "omp_get_max_active_levels() = %d after setting 3", omp_get_max_active_levels());
  int visits = 0;
#pragma omp parallel num_threads(2)
  {
    int t1 = omp_get_thread_num();
#pragma omp parallel num_threads(3)
    {
      int t2 = omp_get_thread_num();
#pragma omp parallel num_threads(2)
      {
        int t3 = omp_get_thread_num();
        __atomic_fetch_add(&visits, 1, __ATOMIC_RELAXED);
        CHECK_EQ("omp_get_level() at level 3", omp_get_level(), 3);
        CHECK_EQ("omp_get_active_level() at level 3", omp_get_active_level(), 3);
        CHECK_EQ("omp_get_num_threads() at level 3", omp_get_num_threads(), 2);
        CHECK_EQ("omp_get_ancestor_thread_num(0)", omp_get_ancestor_thread_num(0), 0);
        CHECK_EQ("omp_get_ancestor_thread_num(1)", omp_get_ancestor_thread_num(1), t1);
        CHECK_EQ("omp_get_ancestor_thread_num(2)", omp_get_ancestor_thread_num(2), t2);
        CHECK_EQ("omp_get_ancestor_thread_num(3)", omp_get_ancestor_thread_num(3), t3);
        CHECK_EQ("omp_get_ancestor_thread_num(4)", omp_get_ancestor_thread_num(4), -1);
        CHECK_EQ("omp_get_ancestor_thread_num(-1)", omp_get_ancestor_thread_num(-1), -1);
        CHECK_EQ("omp_get_team_size(0)", omp_get_team_size(0), 1);
        CHECK_EQ("omp_get_team_size(1)", omp_get_team_size(1), 2);
        CHECK_EQ("omp_get_team_size(2)", omp_get_team_size(2), 3);
        CHECK_EQ("omp_get_team_size(3)", omp_get_team_size(3), 2);
        CHECK_EQ("omp_get_team_size(4)", omp_get_team_size(4), -1);
        CHECK_EQ("omp_get_team_size(-1)", omp_get_team_size(-1), -1);
        CHECK_EQ("omp_in_parallel() at level 3", omp_in_parallel(), 1);
      }
      CHECK_EQ("omp_get_level() back at level 2", omp_get_level(), 2);
      CHECK_EQ("omp_get_thread_num() back at level 2", omp_get_thread_num(), t2);
      CHECK_EQ("omp_get_num_threads() back at level 2", omp_get_num_threads(), 3);
    }
    CHECK_EQ("omp_get_level() back at level 1", omp_get_level(), 1);
    CHECK_EQ("omp_get_thread_num() back at level 1", omp_get_thread_num(), t1);
  }
  CHECK_EQ("level-3 implicit tasks", visits, 2 * 3 * 2);
  CHECK_EQ("omp_get_level() at level 0", omp_get_level(), 0);
  CHECK_EQ("omp_get_team_size(0) at level 0", omp_get_team_size(0), 1);
  CHECK_EQ("omp_get_ancestor_thread_num(0) at level 0", omp_get_ancestor_thread_num(0), 0);
  return conf_end();
}
