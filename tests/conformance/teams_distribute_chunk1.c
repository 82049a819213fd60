// LIBOMP14-DEFECT: `distribute parallel for schedule(static, 1)` in teams whose parallel regions have one thread runs only one iteration per team chunk (102 of 103 iterations lost with one team of one thread); other chunk sizes work.
/* distribute parallel for with schedule(static, 1) on the loop part (5.2
   distribute parallel worksharing-loop): every iteration runs exactly once, in the team that
   dist_schedule(static, 4) gives it, whatever the size of the teams'
   parallel regions (thread_limit 1 and 2 here). */
#include "check.h"

#define N 103
static int count[N], team_of[N];

int main(void) {
  for (int limit = 1; limit <= 2; limit++) {
    for (int i = 0; i < N; i++)
      count[i] = 0, team_of[i] = -1;
#pragma omp teams num_teams(2) thread_limit(limit)
#pragma omp distribute parallel for dist_schedule(static, 4) schedule(static, 1)
    for (int i = 0; i < N; i++) {
      __atomic_fetch_add(&count[i], 1, __ATOMIC_RELAXED);
      team_of[i] = omp_get_team_num();
    }
    for (int i = 0; i < N; i++) {
      CHECK(count[i] == 1, "thread_limit(%d): iteration %d ran %d times", limit, i, count[i]);
      CHECK(count[i] != 1 || team_of[i] == (i / 4) % 2, "thread_limit(%d): iteration %d in team %d, want %d", limit,
            i, team_of[i], (i / 4) % 2);
    }
  }
  return conf_end();
}
