/* cancel for and cancellation point for (5.2, cancellation constructs), built once per
   schedule (SCHED). The thread that runs iteration 0 cancels the loop; every
   other iteration waits in a cancellation point, so with cancellation on no
   iteration reaches its end, no thread starts a second iteration (a thread
   only leaves its first one through cancellation), and every thread goes on
   after the loop: cancel for ends the loop, not the region. The next loop
   in the same region runs whole. With cancellation off every iteration
   runs. (A dynamic loop after a cancelled one: cancel_for_reuse.c.) */
#include "cancel.h"

#ifndef SCHED
#define SCHED schedule(static)
#endif
#define N 40

int main(void) {
  int on = cancel_expected();
  int started = 0, finished = 0, after = 0, second = 0, done = 0, timeouts = 0;
#pragma omp parallel num_threads(4)
  {
    CONF_PRAGMA(omp for SCHED)
    for (int i = 0; i < N; i++) {
      BUMP(started);
      if (i == 0) {
#pragma omp cancel for
        SET(done);
      } else {
        SPIN_UNTIL_CANCELLED(for, done, timeouts);
      }
      BUMP(finished);
    }
    BUMP(after);
#pragma omp for schedule(static)
    for (int i = 0; i < N; i++)
      BUMP(second);
  }
  CHECK_EQ("iterations that waited 5 s for cancellation", timeouts, 0);
  CHECK_EQ("iterations that reached their end", finished, on ? 0 : N);
  if (on)
    CHECK(started >= 1 && started <= 4, "%d iterations started after the loop was cancelled; want 1..4 (one per thread)",
          started);
  CHECK_EQ("threads after the cancelled loop", after, 4);
  CHECK_EQ("iterations of the next loop", second, N);

  /* a static loop with `cancel for if(i == 0)` and a cancellation point first */
  int ran = 0;
  done = 0;
#pragma omp parallel num_threads(4)
  {
#pragma omp for schedule(static)
    for (int i = 0; i < N; i++) {
#pragma omp cancellation point for
#pragma omp cancel for if (i == 0)
      if (i == 0) {
        SET(done);
      } else {
        SPIN_UNTIL_CANCELLED(for, done, timeouts);
      }
      BUMP(ran);
    }
  }
  CHECK_EQ("iterations of the second cancelled loop that reached their end", ran, on ? 0 : N);
  CHECK_EQ("iterations of the second loop that waited 5 s", timeouts, 0);
  return conf_end();
}
