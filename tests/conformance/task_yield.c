/* taskyield: a task scheduling point that loses no task and keeps the
   yielding task's state; a task that waits with taskyield for its own
   child (which the yield may run: a tied task may only start descendants,
   and the child is one) finishes; a thread that yields in its implicit task
   while waiting for a flag another thread sets finishes. libomp 14 and
   Bobbin both run queued tasks at taskyield; the spec does not require it
   (a yield may do nothing), so the waits are bounded and report a failure
   instead of hanging. */
#include "check.h"

enum { NTASK = 40 };

static int yield_until(int *flag, const char *what) {
  double t0 = omp_get_wtime();
  while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
#pragma omp taskyield
    if (omp_get_wtime() - t0 > 10.0) {
      CHECK(0, "still waiting after 10 s: %s", what);
      return 0;
    }
  }
  return 1;
}

int main(void) {
  int finished = 0, ready = 0;
#pragma omp parallel
  {
#pragma omp single
    for (int t = 0; t < NTASK; t++) {
#pragma omp task firstprivate(t) shared(finished)
      {
        int child_done = 0, local = t * 7;
#pragma omp task shared(child_done)
        __atomic_store_n(&child_done, 1, __ATOMIC_RELEASE);
        yield_until(&child_done, "a task for its child");
#pragma omp taskyield
        CHECK(local == t * 7, "task %d: local %d after taskyield", t, local);
        __atomic_fetch_add(&finished, 1, __ATOMIC_RELAXED);
      }
    }
    /* implicit tasks: thread 0 sets the flag the others yield on */
    if (omp_get_thread_num() == 0) {
      for (volatile int i = 0; i < 100000; i++)
        ;
      __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
    } else {
      yield_until(&ready, "an implicit task for another thread's flag");
    }
  }
  CHECK_EQ("tasks that waited with taskyield for their child", finished, NTASK);
  return conf_end();
}
