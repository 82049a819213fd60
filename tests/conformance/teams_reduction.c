/* A reduction on a host teams construct (5.2, teams and reduction
   clauses): each team's result is combined into the original variable,
   and the teams' combinations must not overlap. The combiner of this
   user-defined reduction reads its output, waits a little, then writes it,
   so two teams combining at once lose one team's part. Up to 8 teams of
   one thread (libomp 14 makes as many as there are processors), 50 times. */
#include "check.h"

static long slow_sum(long out, long in) {
  long r = out + in;
  for (volatile int i = 0; i < 200000; i++) {
  }
  return r;
}

#pragma omp declare reduction(slow : long : omp_out = slow_sum(omp_out, omp_in)) initializer(omp_priv = 0)

int main(void) {
  enum { NT = 8, ROUNDS = 50 };
  int lost = 0;
  for (int round = 0; round < ROUNDS; round++) {
    long sum = 0;
    int teams = 0;
#pragma omp teams num_teams(NT) thread_limit(1) reduction(slow : sum)
    {
      sum += omp_get_team_num() + 1;
      if (omp_get_team_num() == 0) teams = omp_get_num_teams();
    }
    if (sum != (long)teams * (teams + 1) / 2) ++lost;
  }
  CHECK(lost == 0, "teams reduction: %d of %d rounds lost a team's part", lost, (int)ROUNDS);
  return conf_end();
}
