// LIBOMP14-DEFECT: after `cancel for` ends a dynamically scheduled loop, the next loop with that schedule (even in a later region) is broken: schedule(dynamic) aborts with "Assertion failure at kmp_dispatch.cpp(403): pr->steal_flag == THIEF", monotonic:dynamic and guided never run the first iterations.
/* A loop with schedule SCHED cancelled by `cancel for` (OMP_CANCELLATION
   true), then loops with the same schedule, in the same region and in the
   next ones: each of those runs every iteration exactly once (a cancelled
   loop leaves nothing behind for the next). */
#include "cancel.h"

#ifndef SCHED
#define SCHED schedule(dynamic)
#endif
#define N 40

static int hits[N];

static void check_once(const char *what) {
  for (int i = 0; i < N; i++) {
    CHECK(hits[i] == 1, "%s: iteration %d ran %d times, want once", what, i, hits[i]);
    hits[i] = 0;
  }
}

int main(void) {
  CHECK(cancel_expected(), "this test needs OMP_CANCELLATION=true");
  int done = 0, timeouts = 0;
  for (int round = 0; round < 3; round++) {
#pragma omp parallel num_threads(4)
    {
      CONF_PRAGMA(omp for SCHED)
      for (int i = 0; i < N; i++) {
        if (i == 0) {
#pragma omp cancel for
          SET(done);
        } else {
          SPIN_UNTIL_CANCELLED(for, done, timeouts);
        }
      }
      CONF_PRAGMA(omp for SCHED)
      for (int i = 0; i < N; i++)
        BUMP(hits[i]);
    }
    check_once("the loop after a cancelled one, same region");
#pragma omp parallel num_threads(4)
    {
      CONF_PRAGMA(omp for SCHED)
      for (int i = 0; i < N; i++)
        BUMP(hits[i]);
    }
    check_once("the loop in the next region");
    done = 0;
  }
  CHECK_EQ("iterations that waited 5 s for cancellation", timeouts, 0);
  return conf_end();
}
