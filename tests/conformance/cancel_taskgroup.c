/* cancel taskgroup and cancellation point taskgroup (5.2, cancellation constructs). In
   a taskgroup: a task that cancels it (with an out dependence), two tasks
   already running that wait in cancellation points, and six tasks that
   depend on the canceller, so they can only begin after the cancel; each
   of those opens with a cancellation point (a task not yet begun "may be
   discarded", so the point is what the spec guarantees). With cancellation
   on, nothing after a cancel or cancellation point runs, and the taskgroup
   still ends; the next taskgroup runs whole. Four threads and at most three
   tasks ready at once, so the canceller always gets a thread. */
#include "cancel.h"

int main(void) {
  int on = cancel_expected();
  int finished = 0, dependents = 0, done = 0, timeouts = 0, next = 0;
  int token CONF_UNUSED = 0; /* only named by depend clauses, which gcc 12 does not count as a use */
#pragma omp parallel num_threads(4)
#pragma omp single
  {
#pragma omp taskgroup
    {
#pragma omp task depend(out : token) shared(done, finished)
      {
#pragma omp cancel taskgroup
        SET(done);
        BUMP(finished);
      }
      for (int k = 0; k < 2; k++) {
#pragma omp task shared(done, timeouts, finished)
        {
          SPIN_UNTIL_CANCELLED(taskgroup, done, timeouts);
          BUMP(finished);
        }
      }
      for (int k = 0; k < 6; k++) {
#pragma omp task depend(in : token) shared(dependents)
        {
#pragma omp cancellation point taskgroup
          BUMP(dependents);
        }
      }
    }
    /* a new taskgroup is not cancelled */
#pragma omp taskgroup
    {
      for (int k = 0; k < 8; k++) {
#pragma omp task shared(next)
        {
#pragma omp cancellation point taskgroup
          BUMP(next);
        }
      }
    }
  }
  CHECK_EQ("tasks that waited 5 s for cancellation", timeouts, 0);
  CHECK_EQ("tasks that reached their end (canceller and waiters)", finished, on ? 0 : 3);
  CHECK_EQ("tasks begun after the cancel that passed a cancellation point", dependents, on ? 0 : 6);
  CHECK_EQ("tasks of the next taskgroup", next, 8);
  return conf_end();
}
