/* taskyield: a task scheduling point that loses no task and keeps the
   yielding task's state. A task waiting with taskyield for its own child
   finishes: in rounds of fewer such tasks than threads, so a thread is
   always free to run the children even if taskyield does nothing (the
   spec lets it; libgomp's does nothing). In the Bobbin modes also with
   far more waiting tasks than threads: every wait in Bobbin is a
   scheduling point that runs ready work (runtime/HACKING.md), so the
   yields themselves must run the children. An implicit task yielding
   while waiting for another thread's flag finishes. Waits are bounded and
   report a failure instead of hanging. */
#include "check.h"

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

static int finished;

static void waiting_task(int t) {
  int child_done = 0, local = t * 7;
#pragma omp task shared(child_done)
  __atomic_store_n(&child_done, 1, __ATOMIC_RELEASE);
  yield_until(&child_done, "a task for its child");
#pragma omp taskyield
  CHECK(local == t * 7, "task %d: local %d after taskyield", t, local);
  __atomic_fetch_add(&finished, 1, __ATOMIC_RELAXED);
}

int main(void) {
  int ready = 0, want = 0, bobbin = (int)conf_env_long("CONF_EXPECT_BOBBIN", 0);
#pragma omp parallel shared(want)
  {
#pragma omp single
    {
      int per_round = omp_get_num_threads() - 1; /* one thread stays free */
      for (int round = 0; round < 20; round++) {
        for (int t = 0; t < per_round; t++) {
#pragma omp task firstprivate(t)
          waiting_task(t);
        }
#pragma omp taskwait
      }
      want = 20 * per_round;
      if (bobbin) {
        for (int t = 0; t < 40; t++) {
#pragma omp task firstprivate(t)
          waiting_task(t);
        }
        want += 40;
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
  CHECK_EQ("tasks that waited with taskyield for their child", finished, want);
  return conf_end();
}
