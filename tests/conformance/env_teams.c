/* OMP_NUM_TEAMS and OMP_TEAMS_THREAD_LIMIT (5.1 and later) set
   nteams-var and teams-thread-limit-var: omp_get_max_teams() and
   omp_get_teams_thread_limit() report them (CONF_EXPECT_TEAMS,
   CONF_EXPECT_TEAMS_LIMIT; both 0 when unset, CONF_EXPECT_TEAMS_UNSET), a
   teams construct without clauses makes 1 to nteams-var teams, and a parallel region in a team has at most
   teams-thread-limit-var threads. (omp_get_thread_limit() in such a team:
   teams_thread_limit_var.c.) */
#include "check.h"

int main(void) {
  long want_teams = conf_env_long("CONF_EXPECT_TEAMS", 0), want_limit = conf_env_long("CONF_EXPECT_TEAMS_LIMIT", 0);
  if (want_teams)
    CHECK_EQ("omp_get_max_teams()", omp_get_max_teams(), want_teams);
  if (want_limit)
    CHECK_EQ("omp_get_teams_thread_limit()", omp_get_teams_thread_limit(), want_limit);
  if (conf_env_long("CONF_EXPECT_TEAMS_UNSET", 0)) {
    /* Neither variable set: both ICVs keep their initial value, zero (5.2 table 2.1). */
    CHECK_EQ("omp_get_max_teams() with OMP_NUM_TEAMS unset", omp_get_max_teams(), 0);
    CHECK_EQ("omp_get_teams_thread_limit() with OMP_TEAMS_THREAD_LIMIT unset", omp_get_teams_thread_limit(), 0);
  }
  int n = -1, seen = 0, inner_max = 0;
#pragma omp teams
  {
    if (omp_get_team_num() == 0)
      n = omp_get_num_teams();
    __atomic_fetch_add(&seen, 1, __ATOMIC_RELAXED);
#pragma omp parallel num_threads(4)
    if (omp_get_thread_num() == 0)
      __atomic_fetch_max(&inner_max, omp_get_num_threads(), __ATOMIC_RELAXED);
  }
  CHECK(n >= 1 && (!want_teams || n <= want_teams), "teams without clauses: %d teams, nteams-var %ld", n, want_teams);
  CHECK_EQ("teams that ran", seen, n);
  if (want_limit)
    CHECK(inner_max >= 1 && inner_max <= want_limit, "parallel num_threads(4) in a team: %d threads, limit %ld",
          inner_max, want_limit);
  return conf_end();
}
