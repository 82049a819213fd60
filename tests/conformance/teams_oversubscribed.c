// LIBOMP14-DEFECT: num_teams(n) with n above the number of processors gives only as many teams as processors (2 of 4 on a 2-core machine), though since OpenMP 5.1 an upper bound alone is also the lower bound; libomp 14 predates that rule.
/* num_teams(4) thread_limit(2) on a machine that may have fewer cores than
   the 8 threads that could run: still exactly 4 teams (5.1 and later: an upper
   bound alone is also the lower bound), numbered 0..3, each once; a parallel
   region in each team has 1..2 threads (the spec lets a runtime give fewer
   than the limit), all at level 1 and in their team. */
#include "check.h"

int main(void) {
  int seen[4] = {0}, nteams = -1, inner_bad = 0, inner_min = 99;
#pragma omp teams num_teams(4) thread_limit(2)
  {
    int t = omp_get_team_num();
    if (t == 0)
      nteams = omp_get_num_teams();
    if (t >= 0 && t < 4)
      __atomic_fetch_add(&seen[t], 1, __ATOMIC_RELAXED);
#pragma omp parallel num_threads(2)
    {
      int n = omp_get_num_threads();
      if (n < 1 || n > 2 || omp_get_level() != 1 || omp_get_team_num() != t)
        __atomic_fetch_add(&inner_bad, 1, __ATOMIC_RELAXED);
      if (omp_get_thread_num() == 0)
        __atomic_fetch_min(&inner_min, n, __ATOMIC_RELAXED);
    }
  }
  CHECK_EQ("omp_get_num_teams() for num_teams(4)", nteams, 4);
  for (int t = 0; t < 4; t++)
    CHECK(seen[t] == 1, "team %d ran %d times, want once (%d teams)", t, seen[t], nteams);
  CHECK_EQ("threads of the inner regions with a wrong size, level or team", inner_bad, 0);
  printf("smallest parallel region in a team: %d threads\n", inner_min);
  return conf_end();
}
