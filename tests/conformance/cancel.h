/* cancel.h: what the cancel_* programs share.
 *
 * CONF_EXPECT_CANCEL is 1 when the run sets OMP_CANCELLATION=true, else 0
 * (cancel-var is false unless OMP_CANCELLATION says true). With cancellation off
 * a cancel construct does nothing, so every test below must also end, with
 * all the work done: the thread that would cancel sets a flag instead once
 * it is past the cancel, and the others wait for either.
 */
#ifndef CONF_CANCEL_H
#define CONF_CANCEL_H

#include <sched.h>
#include <unistd.h>

#include "check.h"

/* A wait that cancellation must end: loop on `cancellation point KIND` until
   `flag` is set (cancellation off) or CANCEL_DEADLINE seconds pass (a
   failure, counted in `timeouts`). Only a thread of a top-level team spins,
   each on its own OpenMP thread, as check.h's rules allow. */
#define CANCEL_DEADLINE 5.0
#define SPIN_UNTIL_CANCELLED(KIND, flag, timeouts)                             \
  do {                                                                         \
    double conf_t0_ = omp_get_wtime();                                         \
    while (!__atomic_load_n(&(flag), __ATOMIC_ACQUIRE)) {                      \
      CONF_PRAGMA(omp cancellation point KIND)                                 \
      if (omp_get_wtime() - conf_t0_ > CANCEL_DEADLINE) {                      \
        __atomic_fetch_add(&(timeouts), 1, __ATOMIC_RELAXED);                  \
        break;                                                                 \
      }                                                                        \
      sched_yield();                                                           \
    }                                                                          \
  } while (0)

#define BUMP(x) __atomic_fetch_add(&(x), 1, __ATOMIC_RELAXED)
#define SET(x) __atomic_store_n(&(x), 1, __ATOMIC_RELEASE)

/* omp_get_cancellation() is cancel-var; returns the expected value. */
static int cancel_expected(void) CONF_UNUSED;
static int cancel_expected(void) {
  int want = (int)conf_env_long("CONF_EXPECT_CANCEL", 0);
  CHECK_EQ("omp_get_cancellation()", omp_get_cancellation() != 0, want);
  return want;
}

#endif
