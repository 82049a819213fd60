/* cancel sections and cancellation point sections (5.2, cancellation constructs):
   section 0 cancels, the other three wait in cancellation points, so with
   cancellation on none reaches its end and every thread goes on after the
   construct; with it off all four run. (Four threads, four sections: each
   thread gets one, so the canceller is never queued behind a waiter.) */
#include "cancel.h"

int main(void) {
  int on = cancel_expected();
  int finished = 0, after = 0, done = 0, timeouts = 0, later = 0;
#pragma omp parallel num_threads(4)
  {
#pragma omp sections
    {
#pragma omp section
      {
#pragma omp cancel sections
        SET(done);
        BUMP(finished);
      }
#pragma omp section
      {
        SPIN_UNTIL_CANCELLED(sections, done, timeouts);
        BUMP(finished);
      }
#pragma omp section
      {
        SPIN_UNTIL_CANCELLED(sections, done, timeouts);
        BUMP(finished);
      }
#pragma omp section
      {
        SPIN_UNTIL_CANCELLED(sections, done, timeouts);
        BUMP(finished);
      }
    }
    BUMP(after);
    /* the next sections construct runs whole */
#pragma omp sections
    {
#pragma omp section
      BUMP(later);
#pragma omp section
      BUMP(later);
#pragma omp section
      {
#pragma omp cancellation point sections
        BUMP(later);
      }
    }
  }
  CHECK_EQ("sections that waited 5 s for cancellation", timeouts, 0);
  CHECK_EQ("sections that reached their end", finished, on ? 0 : 4);
  CHECK_EQ("threads after the cancelled sections", after, 4);
  CHECK_EQ("sections of the next construct", later, 3);
  return conf_end();
}
