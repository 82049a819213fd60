/* OMP_MAX_ACTIVE_LEVELS: CONF_EXPECT_LEVELS is the value
   omp_get_max_active_levels() must return; nesting to that depth forks real
   teams and one level deeper is serialized. */
#include "check.h"

static int depth_team[5];

static void nest(int level, int max) {
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 0 && omp_get_ancestor_thread_num(1) == 0 &&
        (level < 2 || omp_get_ancestor_thread_num(2) == 0)) {
      depth_team[level] = omp_get_num_threads();
      if (level < max)
        nest(level + 1, max);
    }
  }
}

int main(void) {
  long want = conf_env_long("CONF_EXPECT_LEVELS", 1);
  CHECK_EQ("omp_get_max_active_levels()", omp_get_max_active_levels(), want);
  int depth = want + 1 < 4 ? (int)want + 1 : 4;
  nest(1, depth);
  for (int l = 1; l <= depth; l++)
    CHECK(depth_team[l] == (l <= want ? 2 : 1), "team at level %d: %d threads, want %d", l,
          depth_team[l], l <= want ? 2 : 1);
  return conf_end();
}
