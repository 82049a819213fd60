/* Tasks inside nested parallel regions (max-active-levels 2): outer teams
   whose threads create tasks, each opening an inner region whose threads
   create tasks again, with taskwait at both levels, taskgroups, and
   dependences inside the inner regions; repeated, with team sizes varying
   between rounds. Every task is counted and every inner region checks its
   own tasks. A nested team may get fewer threads than asked (Bobbin gives
   a gang no more members than workers), so the expected totals add up the
   team sizes actually given. */
#include "stress.h"

enum { ROUNDS = 60, OUTER_TASKS = 8, INNER_TASKS = 40 };

static long inner_ran, outer_ran, inner_want, outer_want;

static void inner_region(int round) {
#pragma omp parallel num_threads(2 + round % 3)
  {
    CHECK(omp_get_level() == 2 || omp_get_level() == 3,
          "round %d: inner region at level %d", round, omp_get_level());
    long mine = 0, x = 0;
    __atomic_fetch_add(&inner_want, INNER_TASKS, __ATOMIC_RELAXED);
#pragma omp taskgroup
    for (int i = 0; i < INNER_TASKS; i++) {
#pragma omp task shared(mine)
      {
        __atomic_fetch_add(&mine, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&inner_ran, 1, __ATOMIC_RELAXED);
      }
    }
    CHECK(mine == INNER_TASKS, "round %d: inner taskgroup ended with %ld of %d tasks", round, mine,
          INNER_TASKS);
    for (int i = 0; i < 10; i++) {
#pragma omp task depend(inout : x) shared(x) firstprivate(i)
      {
        CHECK(x == i, "round %d: inner dependence chain at %ld, want %d", round, x, i);
        x = i + 1;
      }
    }
#pragma omp taskwait
    CHECK(x == 10, "round %d: inner chain ended at %ld", round, x);
  }
}

int main(void) {
  stress_begin("stress_nested_tasks", 60);
  omp_set_max_active_levels(2);
  stress_phase("tasks opening nested regions", ROUNDS);
  for (int round = 0; round < ROUNDS; round++) {
#pragma omp parallel num_threads(2 + round % 2)
    {
      __atomic_fetch_add(&outer_want, OUTER_TASKS, __ATOMIC_RELAXED);
      for (int t = 0; t < OUTER_TASKS; t++) {
#pragma omp task firstprivate(round)
        {
          inner_region(round);
          __atomic_fetch_add(&outer_ran, 1, __ATOMIC_RELAXED);
        }
      }
#pragma omp taskwait
      /* and a region nested directly in the outer implicit task */
      inner_region(round);
    }
    stress_progress(1);
  }
  CHECK_EQ("outer tasks run", outer_ran, outer_want);
  CHECK_EQ("inner tasks run", inner_ran, inner_want);
  return stress_end();
}
