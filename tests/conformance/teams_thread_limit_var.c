// LIBOMP14-DEFECT: in a teams region without thread_limit, omp_get_thread_limit() returns 2147483647 though teams-thread-limit-var (omp_set_teams_thread_limit or OMP_TEAMS_THREAD_LIMIT) is set; the parallel regions in the team do respect the limit.
/* A teams construct without thread_limit, with teams-thread-limit-var set
   (by OMP_TEAMS_THREAD_LIMIT, CONF_EXPECT_TEAMS_LIMIT, then by
   omp_set_teams_thread_limit): each team is a contention group whose
   thread-limit-var, which omp_get_thread_limit() returns, is at most
   teams-thread-limit-var (5.2, teams construct and OMP_TEAMS_THREAD_LIMIT); with a thread_limit clause it
   is at most the clause's value. */
#include "check.h"

static int limit_in_team(void) {
  int l = -1;
#pragma omp teams num_teams(1)
  l = omp_get_thread_limit();
  return l;
}

int main(void) {
  long env = conf_env_long("CONF_EXPECT_TEAMS_LIMIT", 0);
  if (env > 0) {
    int l = limit_in_team();
    CHECK(l >= 1 && l <= env, "omp_get_thread_limit() in a team with OMP_TEAMS_THREAD_LIMIT=%ld: %d", env, l);
  }
  omp_set_teams_thread_limit(1);
  int l = limit_in_team();
  CHECK(l == 1, "omp_get_thread_limit() in a team after omp_set_teams_thread_limit(1): %d", l);
  int c = -1;
#pragma omp teams num_teams(1) thread_limit(2)
  c = omp_get_thread_limit();
  CHECK(c >= 1 && c <= 2, "omp_get_thread_limit() in a team with thread_limit(2): %d", c);
  return conf_end();
}
