/* omp_set_num_teams / omp_get_max_teams and omp_set_teams_thread_limit /
   omp_get_teams_thread_limit (5.1 and later): the setters change nteams-var and
   teams-thread-limit-var, the getters read them back; a teams construct
   without num_teams makes between 1 and nteams-var teams, and in one
   without thread_limit a parallel region has at most teams-thread-limit-var
   threads; the clauses override the ICVs and leave them unchanged.
   (omp_get_thread_limit() in such a team: teams_thread_limit_var.c.) */
#include "check.h"

static void league(int *nteams, int *inner) {
  *nteams = *inner = -1;
#pragma omp teams
  if (omp_get_team_num() == 0) {
    *nteams = omp_get_num_teams();
#pragma omp parallel num_threads(4)
    if (omp_get_thread_num() == 0)
      *inner = omp_get_num_threads();
  }
}

int main(void) {
  CHECK(omp_get_max_teams() >= 0, "omp_get_max_teams() at start = %d", omp_get_max_teams());
  CHECK(omp_get_teams_thread_limit() >= 0, "omp_get_teams_thread_limit() at start = %d",
        omp_get_teams_thread_limit());

  omp_set_num_teams(2);
  CHECK_EQ("omp_get_max_teams() after omp_set_num_teams(2)", omp_get_max_teams(), 2);
  omp_set_teams_thread_limit(1);
  CHECK_EQ("omp_get_teams_thread_limit() after omp_set_teams_thread_limit(1)", omp_get_teams_thread_limit(), 1);
  int n, inner;
  league(&n, &inner);
  CHECK(n >= 1 && n <= 2, "teams with nteams-var 2: %d teams", n);
  CHECK_EQ("parallel num_threads(4) in a team with teams-thread-limit-var 1", inner, 1);

  omp_set_num_teams(1);
  omp_set_teams_thread_limit(2);
  CHECK_EQ("omp_get_max_teams() after omp_set_num_teams(1)", omp_get_max_teams(), 1);
  CHECK_EQ("omp_get_teams_thread_limit() after omp_set_teams_thread_limit(2)", omp_get_teams_thread_limit(), 2);
  league(&n, &inner);
  CHECK_EQ("teams with nteams-var 1", n, 1);
  CHECK(inner >= 1 && inner <= 2, "parallel num_threads(4) in a team with teams-thread-limit-var 2: %d threads",
        inner);

  /* clauses win over the ICVs */
  int m = -1, l = -1;
#pragma omp teams num_teams(2) thread_limit(1)
  if (omp_get_team_num() == 0) {
    m = omp_get_num_teams();
    l = omp_get_thread_limit();
  }
  CHECK_EQ("num_teams(2) with nteams-var 1", m, 2);
  CHECK_EQ("omp_get_thread_limit() with thread_limit(1)", l, 1);
  /* the ICVs are unchanged by the clauses */
  CHECK_EQ("omp_get_max_teams() after a num_teams clause", omp_get_max_teams(), 1);
  CHECK_EQ("omp_get_teams_thread_limit() after a thread_limit clause", omp_get_teams_thread_limit(), 2);
  return conf_end();
}
