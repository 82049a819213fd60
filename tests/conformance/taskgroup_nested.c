/* taskgroup waits for descendants, not only children: tasks three levels
   deep, created late (after their parents did some work) are complete when
   the taskgroup ends; nested taskgroups each wait for their own part (the
   inner one inside a task, and inside the outer one directly); a taskgroup
   need not wait for tasks created before it (nothing checks that it does
   not) and those complete by the region's end; taskgroups in every
   thread at once, and in a recursion. */
#include "check.h"

static void spin(int n) {
  for (volatile int i = 0; i < n; i++)
    ;
}

static void tree(int depth, int *count) {
  spin(2000);
  __atomic_fetch_add(count, 1, __ATOMIC_RELAXED);
  if (depth == 0)
    return;
  for (int k = 0; k < 3; k++) {
#pragma omp task firstprivate(depth)
    tree(depth - 1, count);
  }
  /* no taskwait: the parent finishes before its children */
}

static int rec(int depth) { /* a taskgroup per level of a recursion */
  if (depth == 0)
    return 1;
  int a = 0, b = 0;
#pragma omp taskgroup
  {
#pragma omp task shared(a)
    a = rec(depth - 1);
#pragma omp task shared(b)
    b = rec(depth - 1);
  }
  return a + b;
}

static int before; /* tasks of a tree started before the taskgroups */

int main(void) {
#pragma omp parallel
  {
#pragma omp single
    {
      int count = 0;
#pragma omp taskgroup
      {
#pragma omp task shared(count)
        tree(3, &count); /* 1 + 3 + 9 + 27 */
      }
      CHECK_EQ("descendants done at the taskgroup's end", count, 40);

      int outer = 0, inner = 0, in_task = 0;
#pragma omp task
      tree(2, &before); /* outside both groups */
#pragma omp taskgroup
      {
#pragma omp task shared(outer)
        tree(2, &outer);
#pragma omp taskgroup
        {
#pragma omp task shared(inner)
          tree(3, &inner);
        }
        CHECK_EQ("inner taskgroup: its descendants done", inner, 40);
#pragma omp task shared(in_task)
        {
          int mine = 0;
#pragma omp taskgroup
          {
#pragma omp task shared(mine)
            tree(2, &mine);
          }
          CHECK_EQ("taskgroup inside a task: its descendants done", mine, 13);
          __atomic_fetch_add(&in_task, mine, __ATOMIC_RELAXED);
        }
      }
      CHECK_EQ("outer taskgroup: its descendants done", outer, 13);
      CHECK_EQ("outer taskgroup: the task with its own taskgroup done", in_task, 13);
#pragma omp taskwait
      /* its descendants may still be adding: an atomic read */
      CHECK(__atomic_load_n(&before, __ATOMIC_RELAXED) >= 1,
            "the task created before the taskgroups not done after taskwait");
      CHECK_EQ("recursion with a taskgroup per level", rec(8), 256);
    }
    int mine = 0;
#pragma omp taskgroup
    {
#pragma omp task shared(mine)
      tree(3, &mine);
    }
    CHECK_EQ("every thread's own taskgroup", mine, 40);
  }
  CHECK_EQ("tree started before the taskgroups: done by the region's end", before, 13);
  return conf_end();
}
