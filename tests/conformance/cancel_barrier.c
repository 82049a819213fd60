/* Cancellable barriers (5.2, cancel construct: a barrier is a cancellation point):
   threads already waiting at an explicit barrier when another thread
   cancels the region leave it and go to the end of the region, though the
   cancelling thread never arrives. The same at the implicit barrier that
   ends a worksharing loop when the loop is cancelled, and at a barrier
   reached after the cancel. With cancellation off, the barrier completes as
   usual. */
#include "cancel.h"

int main(void) {
  int on = cancel_expected();
  int passed = 0, cancelled_by = 0;
#pragma omp parallel num_threads(4)
  {
    if (omp_get_thread_num() == 0) {
      usleep(50 * 1000); /* let the others reach the barrier first (not needed for correctness) */
      BUMP(cancelled_by);
#pragma omp cancel parallel
    }
#pragma omp barrier
    BUMP(passed);
  }
  CHECK_EQ("threads past the barrier of a cancelled region", passed, on ? 0 : 4);
  CHECK_EQ("the thread that cancels", cancelled_by, 1);

  /* cancel first, then the others reach the barrier */
  int late = 0, done = 0;
#pragma omp parallel num_threads(4)
  {
    if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
      SET(done);
    }
    while (!on && !__atomic_load_n(&done, __ATOMIC_ACQUIRE))
      sched_yield(); /* off: thread 0 still comes */
    if (on)
      usleep(20 * 1000);
#pragma omp barrier
    BUMP(late);
  }
  CHECK_EQ("threads past a barrier reached after the cancel", late, on ? 0 : 4);

  /* the implicit barrier of a cancelled loop */
  int iters = 0, after_loop = 0;
#pragma omp parallel num_threads(4)
  {
#pragma omp for schedule(static, 1)
    for (int i = 0; i < 4; i++) {
      if (i == 0) {
        usleep(50 * 1000); /* the others wait at the loop's barrier */
#pragma omp cancel for
      }
      BUMP(iters);
    }
    BUMP(after_loop);
  }
  CHECK_EQ("iterations that ran to the end", iters, on ? 3 : 4);
  CHECK_EQ("threads after a cancelled loop (cancel for ends only the loop)", after_loop, 4);

  /* no stale cancellation: a later barrier holds until all arrive */
  int arrived = 0, early = 0;
#pragma omp parallel num_threads(4)
  {
    if (omp_get_thread_num() == 3)
      usleep(20 * 1000);
    BUMP(arrived);
#pragma omp barrier
    if (__atomic_load_n(&arrived, __ATOMIC_RELAXED) != 4)
      BUMP(early);
  }
  CHECK_EQ("threads released before all arrived at a later barrier", early, 0);
  return conf_end();
}
