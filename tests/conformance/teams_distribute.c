/* distribute in host teams (5.2, distribute constructs): every iteration runs exactly once
   across the league; dist_schedule(static, c) deals chunks of c iterations
   to the teams round-robin in team-number order; dist_schedule(static)
   gives each team at most one chunk, in team order, of nearly equal size;
   distribute parallel for runs each iteration once on a thread of its
   team's parallel region (level 1, at most thread_limit threads). Two teams
   of at most two threads, which any runtime can form. (schedule(static, 1)
   on the loop part: teams_distribute_chunk1.c.) */
#include "check.h"

#define N 103
#define NT 2
static int team_of[N], count[N], level_of[N];

static void reset(void) {
  for (int i = 0; i < N; i++)
    team_of[i] = -1, count[i] = 0, level_of[i] = -1;
}

static void check_once(const char *what) {
  for (int i = 0; i < N; i++)
    CHECK(count[i] == 1, "%s: iteration %d ran %d times", what, i, count[i]);
}

int main(void) {
  reset();
#pragma omp teams distribute num_teams(NT)
  for (int i = 0; i < N; i++) {
    count[i]++;
    team_of[i] = omp_get_team_num();
  }
  check_once("teams distribute");

  for (int c = 1; c <= 8; c += 7) {
    reset();
#pragma omp teams num_teams(NT)
#pragma omp distribute dist_schedule(static, c)
    for (int i = 0; i < N; i++) {
      count[i]++;
      team_of[i] = omp_get_team_num();
    }
    check_once("distribute dist_schedule(static, c)");
    for (int i = 0; i < N; i++)
      CHECK(team_of[i] == (i / c) % NT, "dist_schedule(static, %d): iteration %d ran in team %d, want %d", c, i,
            team_of[i], (i / c) % NT);
  }

  reset();
#pragma omp teams num_teams(NT)
#pragma omp distribute dist_schedule(static)
  for (int i = 0; i < N; i++) {
    count[i]++;
    team_of[i] = omp_get_team_num();
  }
  check_once("distribute dist_schedule(static)");
  for (int i = 1; i < N; i++)
    CHECK(team_of[i] >= team_of[i - 1], "dist_schedule(static): iteration %d in team %d after team %d (one chunk per team, in team order)",
          i, team_of[i], team_of[i - 1]);
  int size0 = 0;
  for (int i = 0; i < N; i++)
    size0 += team_of[i] == 0;
  CHECK(size0 == N / NT || size0 == (N + NT - 1) / NT, "dist_schedule(static): team 0 got %d of %d iterations", size0, N);

  /* distribute parallel for: composite, each team's chunk run by its threads */
  reset();
  int max_threads = 0;
#pragma omp teams num_teams(NT) thread_limit(2)
#pragma omp distribute parallel for dist_schedule(static, 4) schedule(static)
  for (int i = 0; i < N; i++) {
    __atomic_fetch_add(&count[i], 1, __ATOMIC_RELAXED);
    team_of[i] = omp_get_team_num();
    level_of[i] = omp_get_level();
    __atomic_fetch_max(&max_threads, omp_get_num_threads(), __ATOMIC_RELAXED);
  }
  check_once("distribute parallel for");
  for (int i = 0; i < N; i++) {
    CHECK(team_of[i] == (i / 4) % NT, "distribute parallel for dist_schedule(static, 4): iteration %d in team %d, want %d",
          i, team_of[i], (i / 4) % NT);
    CHECK(level_of[i] == 1, "distribute parallel for: iteration %d at level %d, want 1", i, level_of[i]);
  }
  CHECK(max_threads >= 1 && max_threads <= 2, "distribute parallel for with thread_limit(2): teams of %d threads",
        max_threads);

  /* a reduction across the league */
  long sum = 0;
#pragma omp teams distribute parallel for num_teams(NT) reduction(+ : sum)
  for (int i = 0; i < N; i++)
    sum += i;
  CHECK_EQ("teams distribute parallel for reduction(+)", sum, (long)N * (N - 1) / 2);
  return conf_end();
}
