/* Many taskgroups: 100000 taskgroups one after another with a few tasks
   each; taskgroups nested 2000 deep inside one task chain; every thread
   opening taskgroups at once; taskgroups with task reductions, 20000 in
   a row. Counts are checked at every taskgroup's end. */
#include "stress.h"

enum { NGROUPS = 100000, NEST = 2000, NRED = 20000 };

static long nest(int depth) {
  long here = 0;
  if (depth == 0)
    return 0;
#pragma omp taskgroup
  {
#pragma omp task shared(here) firstprivate(depth)
    here = nest(depth - 1) + 1;
#pragma omp task
    ;
  }
  return here;
}

int main(void) {
  stress_begin("stress_taskgroups", 60);
  stress_phase("100000 taskgroups in a row", NGROUPS);
#pragma omp parallel
#pragma omp single
  for (long g = 0; g < NGROUPS; g++) {
    int done = 0;
#pragma omp taskgroup
    {
      for (int k = 0; k < 3; k++) {
#pragma omp task shared(done)
        __atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
      }
    }
    CHECK(done == 3, "taskgroup %ld ended with %d of 3 tasks", g, done);
    if (g % 10000 == 0)
      stress_progress(10000);
  }

  stress_phase("taskgroups nested 2000 deep", NEST);
  long depth = 0;
#pragma omp parallel
#pragma omp single
  depth = nest(NEST);
  CHECK_EQ("nested taskgroup depth", depth, NEST);

  stress_phase("taskgroups in every thread at once", 0);
#pragma omp parallel
  for (int g = 0; g < 5000; g++) {
    int done = 0;
#pragma omp taskgroup
    {
#pragma omp task shared(done)
      {
#pragma omp task shared(done)
        __atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
      }
    }
    CHECK(done == 2, "thread %d taskgroup %d ended with %d of 2", omp_get_thread_num(), g, done);
  }

  stress_phase("20000 taskgroups with task reductions", NRED);
#pragma omp parallel
#pragma omp single
  for (int g = 0; g < NRED; g++) {
    long sum = 0;
#pragma omp taskgroup task_reduction(+ : sum)
    {
      for (int k = 1; k <= 4; k++) {
#pragma omp task in_reduction(+ : sum) firstprivate(k)
        sum += k;
      }
    }
    CHECK(sum == 10, "reduction taskgroup %d: sum %ld", g, sum);
    if (g % 1000 == 0)
      stress_progress(1000);
  }
  return stress_end();
}
