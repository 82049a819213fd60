/* cancel taskgroup (CONF_EXPECT_CANCEL says whether OMP_CANCELLATION is
   true). Two threads: task B loops on `cancellation point taskgroup`; task
   A waits until B runs, creates 50 tasks C and cancels the taskgroup. With
   cancellation on, A ends at its cancel, B leaves through its cancellation
   point, and the C tasks, which no thread could start before the cancel
   (one thread is in A, the other spins in B), are discarded. The spec says
   tasks not yet started "may be discarded"; libomp 14 and Bobbin both
   discard them, and this test relies on it. With cancellation off the
   cancel does nothing: A carries on, B leaves its loop normally and every C
   runs. `cancel taskgroup if(0)` never cancels, and a later taskgroup is
   not affected by an earlier cancellation. */
#include "check.h"

static int b_started, a_after_cancel, b_after_loop, c_ran, later_ran;

static int waited_too_long(double t0, const char *what) {
  if (omp_get_wtime() - t0 < 10.0)
    return 0;
  CHECK(0, "still waiting after 10 s: %s", what);
  return 1;
}

int main(void) {
  int cancel = (int)conf_env_long("CONF_EXPECT_CANCEL", 0), zero = 0;
  CHECK_EQ("omp_get_cancellation()", omp_get_cancellation(), cancel);
  for (int round = 0; round < 5; round++) {
    b_started = a_after_cancel = b_after_loop = c_ran = later_ran = 0;
    int if0_after = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp taskgroup
      {
#pragma omp task /* B */
        {
          __atomic_store_n(&b_started, 1, __ATOMIC_RELEASE);
          double t0 = omp_get_wtime();
          for (;;) {
#pragma omp cancellation point taskgroup
            if (__atomic_load_n(&a_after_cancel, __ATOMIC_ACQUIRE) ||
                waited_too_long(t0, "B: neither cancelled nor told to stop"))
              break;
          }
          __atomic_store_n(&b_after_loop, 1, __ATOMIC_RELEASE);
        }
#pragma omp task /* A */
        {
          double t0 = omp_get_wtime();
          while (!__atomic_load_n(&b_started, __ATOMIC_ACQUIRE) && !waited_too_long(t0, "A: for B to start"))
            ;
          for (int i = 0; i < 50; i++) {
#pragma omp task
            __atomic_fetch_add(&c_ran, 1, __ATOMIC_RELAXED);
          }
#pragma omp cancel taskgroup
          __atomic_store_n(&a_after_cancel, 1, __ATOMIC_RELEASE);
        }
      }
      /* a later taskgroup runs normally; if(0) never cancels */
#pragma omp taskgroup
      {
        for (int i = 0; i < 20; i++) {
#pragma omp task
          __atomic_fetch_add(&later_ran, 1, __ATOMIC_RELAXED);
        }
#pragma omp task shared(if0_after, zero)
        {
#pragma omp cancel taskgroup if(zero)
          if0_after = 1;
        }
      }
    }
    CHECK(a_after_cancel == !cancel, "round %d: A %s its cancel", round,
          a_after_cancel ? "continued after" : "stopped at");
    CHECK(b_after_loop == !cancel, "round %d: B %s", round,
          b_after_loop ? "left its loop normally" : "left at its cancellation point");
    CHECK(c_ran == (cancel ? 0 : 50), "round %d: %d of 50 tasks created before the cancel ran", round, c_ran);
    CHECK(later_ran == 20 && if0_after == 1, "round %d: later taskgroup: %d of 20 ran, if(0) cancel: %d",
          round, later_ran, if0_after);
  }
  return conf_end();
}
