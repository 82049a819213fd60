/* Host teams (5.2, teams construct): num_teams(n) makes exactly n teams (5.1 and later:
   an upper bound alone is also the lower bound), numbered 0..n-1, each run
   by one initial thread at level 0 (omp_get_level() 0, omp_in_parallel()
   false, one thread, thread number 0) whose thread-limit-var is the
   thread_limit clause. A parallel region inside a team is level 1, has
   between 1 and thread_limit threads, and its threads still report their
   team's number and the league size. Two teams of one thread each fit on
   any machine, so these counts hold on every runtime
   (teams_oversubscribed.c asks for more). */
#include "check.h"

int main(void) {
  int seen[2] = {0, 0}, nteams = -1, bad = 0;
#pragma omp teams num_teams(2) thread_limit(1)
  {
    int t = omp_get_team_num();
    if (t == 0)
      nteams = omp_get_num_teams();
    if (t >= 0 && t < 2)
      __atomic_fetch_add(&seen[t], 1, __ATOMIC_RELAXED);
    else
      __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
    CHECK_EQ("omp_get_level() in a teams region", omp_get_level(), 0);
    CHECK_EQ("omp_get_active_level() in a teams region", omp_get_active_level(), 0);
    CHECK_EQ("omp_in_parallel() in a teams region", omp_in_parallel(), 0);
    CHECK_EQ("omp_get_num_threads() in a teams region", omp_get_num_threads(), 1);
    CHECK_EQ("omp_get_thread_num() in a teams region", omp_get_thread_num(), 0);
    CHECK(omp_get_thread_limit() == 1, "omp_get_thread_limit() with thread_limit(1) = %d", omp_get_thread_limit());
    int inner = 0;
#pragma omp parallel num_threads(2)
    {
      CHECK_EQ("omp_get_level() in a parallel region in a team", omp_get_level(), 1);
      CHECK_EQ("omp_get_team_num() in a parallel region in a team", omp_get_team_num(), t);
      CHECK_EQ("omp_get_num_teams() in a parallel region in a team", omp_get_num_teams(), 2);
      if (omp_get_thread_num() == 0)
        inner = omp_get_num_threads();
    }
    CHECK_EQ("threads of a parallel region in a team with thread_limit(1)", inner, 1);
  }
  CHECK_EQ("omp_get_num_teams() for num_teams(2)", nteams, 2);
  CHECK(seen[0] == 1 && seen[1] == 1 && bad == 0, "team numbers: team 0 ran %d times, team 1 %d, %d out of range",
        seen[0], seen[1], bad);

  /* one team with room for a parallel region of two */
  int inner = 0, levels_ok = 0, one = -1;
#pragma omp teams num_teams(1) thread_limit(2)
  {
    one = omp_get_num_teams();
#pragma omp parallel num_threads(2)
    {
      if (omp_get_level() == 1 && omp_get_team_num() == 0)
        __atomic_fetch_add(&levels_ok, 1, __ATOMIC_RELAXED);
      if (omp_get_thread_num() == 0)
        inner = omp_get_num_threads();
    }
    CHECK_EQ("omp_get_level() back in the team", omp_get_level(), 0);
  }
  CHECK_EQ("omp_get_num_teams() for num_teams(1)", one, 1);
  CHECK(inner >= 1 && inner <= 2, "parallel num_threads(2) in a team with thread_limit(2): %d threads", inner);
  CHECK_EQ("threads at level 1 in team 0", levels_ok, inner);

  /* no clauses: at least one team, at most nteams-var when that is set */
  int n = 0;
#pragma omp teams
  if (omp_get_team_num() == 0)
    n = omp_get_num_teams();
  CHECK(n >= 1, "teams without num_teams: %d teams", n);
  if (omp_get_max_teams() > 0)
    CHECK(n <= omp_get_max_teams(), "teams without num_teams: %d teams, omp_get_max_teams() = %d", n,
          omp_get_max_teams());

  /* outside any teams region: one team, number 0 */
  CHECK_EQ("omp_get_num_teams() outside teams", omp_get_num_teams(), 1);
  CHECK_EQ("omp_get_team_num() outside teams", omp_get_team_num(), 0);
  return conf_end();
}
