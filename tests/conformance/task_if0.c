/* if(0): the task is undeferred, so its body has completed when the task
   construct returns (also in a task, in a taskgroup and in a team of one);
   firstprivate values are captured at the construct; an undeferred task is
   not final (omp_in_final() == 0 unless an ancestor is final) and its own
   children are deferred and waited for by its own taskwait; if(1) and a
   runtime if expression behave like plain tasks. */
#include "check.h"

static void spin_a_little(void) {
  for (volatile int i = 0; i < 20000; i++)
    ;
}

static void undeferred_checks(const char *where) {
  for (int i = 0; i < 50; i++) {
    int done = 0, v = i, in_final = -1, kids = 0;
#pragma omp task if(0) firstprivate(v) shared(done, in_final, kids)
    {
      spin_a_little();
      in_final = omp_in_final();
      for (int k = 0; k < 3; k++) {
#pragma omp task shared(kids)
        {
          spin_a_little();
          __atomic_fetch_add(&kids, 1, __ATOMIC_RELAXED);
        }
      }
#pragma omp taskwait
      CHECK(__atomic_load_n(&kids, __ATOMIC_RELAXED) == 3,
            "%s: taskwait in an undeferred task: %d of 3 children done", where, kids);
      done = v + 1;
    }
    CHECK(done == i + 1, "%s: if(0) task %d had not finished when the construct returned (%d)",
          where, i, done);
    CHECK(in_final == 0, "%s: omp_in_final() in an if(0) task is %d", where, in_final);
  }
}

int main(void) {
  undeferred_checks("sequential part");
#pragma omp parallel
  {
#pragma omp single
    undeferred_checks("single");
    undeferred_checks("every thread");
#pragma omp single
#pragma omp task
    undeferred_checks("inside a task");
#pragma omp single
#pragma omp taskgroup
    undeferred_checks("inside a taskgroup");
  }
#pragma omp parallel num_threads(1)
  undeferred_checks("team of one");

  /* A runtime if expression: odd tasks undeferred, even ones deferred. */
  int runs = 0;
#pragma omp parallel
#pragma omp single
  for (int i = 0; i < 100; i++) {
    int done = 0;
#pragma omp task if(i % 2 == 0) shared(done, runs)
    {
      __atomic_fetch_add(&runs, 1, __ATOMIC_RELAXED);
      __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    }
    if (i % 2)
      CHECK(__atomic_load_n(&done, __ATOMIC_ACQUIRE), "if(%d %% 2 == 0) false: not undeferred", i);
#pragma omp taskwait
  }
  CHECK_EQ("tasks run under a runtime if expression", runs, 100);
  return conf_end();
}
