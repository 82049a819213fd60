/* libomp's hidden helper threads: the task of `target nowait` (here, with
   no device, the host version of the region) runs on a hidden helper
   thread, whose global thread id is 1..n (LIBOMP_NUM_HIDDEN_HELPER_THREADS,
   8 by default), while the team's threads have 0 or ids above n. It is
   still a task of its creator: a dependence orders it with the team's
   tasks, and taskwait and the region's end wait for it. With
   LIBOMP_USE_HIDDEN_HELPER_TASK=false (CONF_EXPECT_HELPERS=0) the target
   tasks run on the team's threads. */
#include "check.h"

extern int __kmpc_global_thread_num(void *);

#define TARGETS 16

int main(void) {
  const char *env = getenv("CONF_EXPECT_HELPERS");
  int helpers = env ? atoi(env) : 8;
  int target_gtid[TARGETS], team_gtid[4] = {-1, -1, -1, -1};
  int seen[TARGETS], late = -1, n = 0;
  for (int i = 0; i < TARGETS; i++)
    target_gtid[i] = seen[i] = -1;
#pragma omp parallel num_threads(4)
  {
    team_gtid[omp_get_thread_num()] = __kmpc_global_thread_num(NULL);
#pragma omp single
    {
      n = omp_get_num_threads();
      for (int i = 0; i < TARGETS; i++) {
        int *slot = &target_gtid[i];
#pragma omp target nowait map(tofrom : slot[0:1]) depend(out : target_gtid[i])
        slot[0] = __kmpc_global_thread_num(NULL);
#pragma omp task depend(in : target_gtid[i]) shared(target_gtid, seen)
        seen[i] = target_gtid[i];
      }
#pragma omp taskwait
    }
    /* Left to the region's end: the barrier waits for it. */
#pragma omp single nowait
    {
      int *slot = &late;
#pragma omp target nowait map(tofrom : slot[0:1])
      slot[0] = __kmpc_global_thread_num(NULL);
    }
  }
  CHECK_EQ("team size", n, 4);
  for (int i = 0; i < n; i++)
    CHECK(team_gtid[i] == 0 || team_gtid[i] > helpers, "thread %d of the team has global id %d, want 0 or above %d", i,
          team_gtid[i], helpers);
  for (int i = 0; i < TARGETS; i++) {
    int g = target_gtid[i];
    CHECK_EQ("the task depending on the target task saw its result", seen[i], g);
    if (helpers > 0) {
      CHECK(g >= 1 && g <= helpers, "target task %d ran on global id %d, want a hidden helper (1 to %d)", i, g, helpers);
    } else {
      int on_team = 0;
      for (int k = 0; k < n; k++)
        on_team |= g == team_gtid[k];
      CHECK(on_team, "target task %d ran on global id %d, not a thread of the team", i, g);
    }
  }
  CHECK(late >= 0, "the region ended before its last target task ran");
  return conf_end();
}
