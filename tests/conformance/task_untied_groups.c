/* untied tasks and the taskgroups they open. clang 14 splits an untied
   task's body at each task scheduling point (a task creation, taskyield,
   taskwait, a taskloop) and runs the next part later, possibly on another
   thread. A taskgroup opened in one part and ended in a later one belongs to
   the task, not to the thread that ran the part that opened it: its end must
   wait for exactly the tasks created inside it, and the taskgroups must nest
   per task. Shapes: the initial implicit task (no parallel region) with one
   untied task whose loop of taskgroups each holds a task running a taskloop
   (with and without a priority on the inner task); many untied tasks in a
   team, each with nested taskgroups across parts; a taskgroup with a task
   reduction inside an untied task (not built by clang 14, below). */
#include "check.h"

static long loop_of_groups(int prio) {
  long counter = 0;
#pragma omp task untied shared(counter) firstprivate(prio)
  {
    for (int i = 0; i < 4; ++i) {
      long before = __atomic_load_n(&counter, __ATOMIC_RELAXED);
#pragma omp taskgroup
      {
#pragma omp task shared(counter) priority(prio)
        {
#pragma omp taskloop grainsize(3) shared(counter)
          for (int j = 0; j < 34; ++j) {
#pragma omp atomic
            counter += j;
          }
        }
      }
      CHECK(__atomic_load_n(&counter, __ATOMIC_RELAXED) == before + 561,
            "iteration %d: the taskgroup ended before its task (counter %ld, want %ld)", i,
            __atomic_load_n(&counter, __ATOMIC_RELAXED), before + 561);
    }
  }
#pragma omp taskwait
  return counter;
}

enum { NTASKS = 40 };
static int inner_done[NTASKS], outer_done[NTASKS];

static void outer_work(int t) {
  for (volatile int s = 0; s < 2000; s++)
    ;
  __atomic_fetch_add(&outer_done[t], 1, __ATOMIC_RELAXED);
}

int main(void) {
  /* The initial implicit task, no parallel region. */
  CHECK_EQ("initial task, untied, 4 taskgroups", loop_of_groups(0), 2244);
  CHECK_EQ("initial task, untied, 4 taskgroups, priority", loop_of_groups(2), 2244);

  /* A team: each untied task opens an outer taskgroup, creates tasks in it,
     yields, opens an inner one, creates more, and checks at each end that
     exactly its own tasks have completed. */
  int finished = 0;
#pragma omp parallel shared(finished)
  {
    long total = loop_of_groups(1);
    CHECK_EQ("in a team, untied, 4 taskgroups", total, 2244);
#pragma omp barrier
#pragma omp single
    for (int t = 0; t < NTASKS; t++) {
#pragma omp task untied firstprivate(t) shared(finished)
      {
#pragma omp taskgroup
        {
          /* No loops around the task constructs: clang 14 loses a loop's
             counter between the parts of an untied task when several loops
             create tasks (the task re-runs the same part forever). */
#pragma omp task firstprivate(t)
          outer_work(t);
#pragma omp task firstprivate(t)
          outer_work(t);
#pragma omp taskyield
#pragma omp task firstprivate(t)
          outer_work(t);
#pragma omp taskgroup
          {
#pragma omp task firstprivate(t)
            {
#pragma omp task firstprivate(t)
              __atomic_fetch_add(&inner_done[t], 1, __ATOMIC_RELAXED);
              __atomic_fetch_add(&inner_done[t], 1, __ATOMIC_RELAXED);
            }
#pragma omp taskyield
#pragma omp task firstprivate(t)
            {
#pragma omp task firstprivate(t)
              __atomic_fetch_add(&inner_done[t], 1, __ATOMIC_RELAXED);
              __atomic_fetch_add(&inner_done[t], 1, __ATOMIC_RELAXED);
            }
          }
          CHECK(__atomic_load_n(&inner_done[t], __ATOMIC_RELAXED) == 4,
                "task %d: the inner taskgroup ended with %d of 4 descendants done", t,
                __atomic_load_n(&inner_done[t], __ATOMIC_RELAXED));
#pragma omp taskyield
        }
        CHECK(__atomic_load_n(&outer_done[t], __ATOMIC_RELAXED) == 3,
              "task %d: the outer taskgroup ended with %d of 3 tasks done", t,
              __atomic_load_n(&outer_done[t], __ATOMIC_RELAXED));
        __atomic_fetch_add(&finished, 1, __ATOMIC_RELAXED);
      }
    }
  }
  CHECK_EQ("untied tasks with nested taskgroups finished", finished, NTASKS);

  /* A task reduction whose taskgroup spans parts of an untied task. clang
     14 crashes compiling a task_reduction inside an untied task (in its
     optimizer, at every -O level), so only other compilers build it. */
#if !defined(__clang__) || __clang_major__ >= 15
  long sum = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp task untied shared(sum)
    {
#pragma omp taskgroup task_reduction(+ : sum)
      {
        for (int i = 1; i <= 100; i++) {
#pragma omp task in_reduction(+ : sum) firstprivate(i)
          sum += i;
        }
#pragma omp taskyield
        for (int i = 101; i <= 200; i++) {
#pragma omp task in_reduction(+ : sum) firstprivate(i)
          sum += i;
        }
      }
      CHECK_EQ("task reduction over an untied task's parts", sum, 20100);
    }
  }
  CHECK_EQ("task reduction after the region", sum, 20100);
#endif
  return conf_end();
}
