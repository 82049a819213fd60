// LIBOMP14-DEFECT: a thread that leaves a dynamically scheduled loop through `cancel for` keeps its dispatch buffer, so the eighth such loop in a region waits forever (libomp has 7 buffers); where the loop ends at __kmpc_cancel_barrier, that barrier also reports the loop's cancellation as the region's, and the threads skip the rest of the region.
/* Many loops with schedule SCHED cancelled by `cancel for`, one after another
   in one region: more of them than a runtime keeps loop buffers for (8 in
   Bobbin, 7 in libomp), so a thread that never let go of a cancelled loop's
   buffer would wait forever for it to serve a later loop. The first
   iteration to start cancels its loop (whichever it is), every other one
   waits in a cancellation point, so with cancellation on a thread starts at
   most one iteration per loop; with cancellation off every iteration runs.
   Then a loop with a static schedule runs each iteration once. Twice: in a
   region where each loop ends at a plain barrier (clang's __kmpc_barrier),
   and in one that also holds a `cancel parallel` that never runs (the loop
   ends at __kmpc_cancel_barrier). A watchdog turns a hang into a failure.
   (One cancelled loop, then another with the same schedule:
   cancel_for_reuse.c.) */
#include <signal.h>

#include "cancel.h"

#ifndef SCHED
#define SCHED schedule(dynamic)
#endif
#define LOOPS 50
#define N 24

static int first[LOOPS], done[LOOPS], hits[N];

#define CANCELLED_LOOP(k, timeouts, ran)                            \
  CONF_PRAGMA(omp for SCHED)                                        \
  for (int i = 0; i < N; i++) {                                     \
    BUMP(ran);                                                      \
    if (__atomic_exchange_n(&first[k], 1, __ATOMIC_ACQ_REL) == 0) { \
      CONF_PRAGMA(omp cancel for)                                   \
      SET(done[k]);                                                 \
    } else {                                                        \
      SPIN_UNTIL_CANCELLED(for, done[k], timeouts);                 \
    }                                                               \
  }

/* The program takes well under a second; one that still runs after
   WATCHDOG seconds waits for something that will not happen. */
#define WATCHDOG 10
static void watchdog(int sig) {
  static const char msg[] = "FAIL cancel_for_many.c: still running after 10 s: a thread waits for a loop "
                            "buffer that a cancelled loop never released\n";
  (void)sig;
  if (write(1, msg, sizeof msg - 1) < 0) _exit(2);
  _exit(1);
}

static void reset(void) {
  for (int k = 0; k < LOOPS; k++)
    first[k] = done[k] = 0;
}

static void check_once(const char *what) {
  for (int i = 0; i < N; i++) {
    CHECK(hits[i] == 1, "%s: iteration %d of the static loop ran %d times, want once", what, i, hits[i]);
    hits[i] = 0;
  }
}

int main(void) {
  signal(SIGALRM, watchdog);
  alarm(WATCHDOG);
  int on = cancel_expected();
  int timeouts = 0, ran = 0, never = conf_env_long("CONF_NEVER_SET", 0) != 0;

  /* Each cancelled loop ends at a plain barrier. */
  reset();
#pragma omp parallel num_threads(4)
  {
    for (int k = 0; k < LOOPS; k++) {
      CANCELLED_LOOP(k, timeouts, ran)
    }
#pragma omp for schedule(static)
    for (int i = 0; i < N; i++)
      BUMP(hits[i]);
  }
  check_once("plain barriers");
  CHECK(on ? ran <= LOOPS * 4 : ran == LOOPS * N, "plain barriers: %d iterations started in %d loops of %d", ran,
        LOOPS, N);

  /* The region holds a cancel parallel, so each loop ends at a cancellable barrier. */
  reset();
  ran = 0;
#pragma omp parallel num_threads(4)
  {
    for (int k = 0; k < LOOPS; k++) {
      CANCELLED_LOOP(k, timeouts, ran)
    }
    if (never) {
#pragma omp cancel parallel
    }
#pragma omp for schedule(static)
    for (int i = 0; i < N; i++)
      BUMP(hits[i]);
  }
  check_once("cancellable barriers");
  CHECK(on ? ran <= LOOPS * 4 : ran == LOOPS * N, "cancellable barriers: %d iterations started in %d loops of %d",
        ran, LOOPS, N);
  CHECK_EQ("iterations that waited 5 s for cancellation", timeouts, 0);
  return conf_end();
}
