/* cancel parallel and cancellation point parallel (5.2, cancellation constructs). With
   cancellation on, the thread that cancels goes to the end of the region at
   once, and the others leave at their next cancellation point; with it off,
   both constructs do nothing. `if(0)` on cancel never cancels. A nested
   region's cancel ends only the nested team. The next region is not
   cancelled. */
#include "cancel.h"

int main(void) {
  int on = cancel_expected();
  int past_cancel = 0, past_point = 0, at_end = 0, done = 0, timeouts = 0;
#pragma omp parallel num_threads(4)
  {
    if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
      BUMP(past_cancel);
      SET(done);
    } else {
      SPIN_UNTIL_CANCELLED(parallel, done, timeouts);
      BUMP(past_point);
    }
    BUMP(at_end);
  }
  CHECK_EQ("threads that waited 5 s for cancellation", timeouts, 0);
  CHECK_EQ("threads past `cancel parallel`", past_cancel, on ? 0 : 1);
  CHECK_EQ("threads past `cancellation point parallel`", past_point, on ? 0 : 3);
  CHECK_EQ("threads at the end of the cancelled region", at_end, on ? 0 : 4);

  /* cancel with if(false) does not cancel */
  int ran = 0;
#pragma omp parallel num_threads(4)
  {
    int no = omp_get_thread_num() < 0; /* false, but not a constant */
#pragma omp cancel parallel if (no)
#pragma omp cancellation point parallel
    BUMP(ran);
  }
  CHECK_EQ("threads past `cancel parallel if(0)`", ran, 4);

  /* a nested region's cancel ends the nested team only */
  omp_set_max_active_levels(2);
  int inner_end = 0, outer_end = 0, inner_threads = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp parallel num_threads(2)
    {
      BUMP(inner_threads);
      if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
      }
#pragma omp barrier
      BUMP(inner_end);
    }
    BUMP(outer_end);
  }
  CHECK_EQ("outer threads after their nested regions were cancelled", outer_end, 2);
  CHECK_EQ("nested threads past the barrier after their thread 0 cancelled", inner_end, on ? 0 : inner_threads);

  /* the next region runs whole, barriers included */
  int whole = 0;
#pragma omp parallel num_threads(4)
  {
#pragma omp barrier
#pragma omp cancellation point parallel
    BUMP(whole);
  }
  CHECK_EQ("threads at the end of the next region", whole, 4);
  return conf_end();
}
