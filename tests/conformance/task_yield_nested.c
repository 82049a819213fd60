/* taskyield in an implicit task with nothing to run, then a nested parallel
   region (with tasks, and without), many times: what a taskyield that found
   no task leaves behind (in Bobbin, a polling slot it withdraws before
   returning) must not outlive it into the nested team, whose join ran into
   it. Also a task created right after another thread's taskyield runs by
   the barrier. */
#include "check.h"

int main(void) {
  int ran = 0, want = 0;
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2) shared(ran, want)
  {
    /* The team's tasks exist from here on: a taskyield has lists to look at. */
#pragma omp task shared(ran)
    __atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED);
#pragma omp atomic
    want++;
#pragma omp taskwait
#pragma omp barrier
    for (int round = 0; round < 50; round++) {
#pragma omp taskyield
#pragma omp parallel num_threads(2) shared(ran, want)
      if (round % 2) { /* a nested team with tasks, and one without */
#pragma omp task shared(ran)
        __atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED);
#pragma omp atomic
        want++;
      }
#pragma omp taskyield
      if (omp_get_thread_num() == 1) {
#pragma omp task shared(ran)
        __atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED);
#pragma omp atomic
        want++;
      }
#pragma omp barrier
    }
  }
  CHECK_EQ("tasks run", ran, want);
  return conf_end();
}
