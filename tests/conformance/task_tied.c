/* tied tasks: a tied task resumes on the thread that started it after every
   task scheduling point in it (creating a task, taskyield, taskwait,
   taskgroup end), and its children are all complete when its taskwait
   returns; also for tied tasks nested in tied tasks. */
#include "check.h"

enum { NTASKS = 200, NCHILD = 4 };

static int ran[NTASKS];
static int child_ran[NTASKS][NCHILD];

static void spin_a_little(void) {
  for (volatile int i = 0; i < 3000; i++)
    ;
}

static void tied_body(int t) {
  int me = omp_get_thread_num();
  for (int c = 0; c < NCHILD; c++) {
#pragma omp task firstprivate(t, c)
    {
      int my = omp_get_thread_num();
      spin_a_little();
#pragma omp taskyield
      CHECK_EQ("nested tied task: thread after taskyield", omp_get_thread_num(), my);
      __atomic_fetch_add(&child_ran[t][c], 1, __ATOMIC_RELAXED);
    }
  }
  CHECK_EQ("tied task: thread after creating children", omp_get_thread_num(), me);
#pragma omp taskyield
  CHECK_EQ("tied task: thread after taskyield", omp_get_thread_num(), me);
#pragma omp taskwait
  CHECK_EQ("tied task: thread after taskwait", omp_get_thread_num(), me);
  for (int c = 0; c < NCHILD; c++)
    CHECK(__atomic_load_n(&child_ran[t][c], __ATOMIC_RELAXED) == 1,
          "task %d: child %d ran %d times before its parent's taskwait returned", t, c,
          child_ran[t][c]);
#pragma omp taskgroup
  {
#pragma omp task
    spin_a_little();
  }
  CHECK_EQ("tied task: thread after taskgroup", omp_get_thread_num(), me);
  __atomic_fetch_add(&ran[t], 1, __ATOMIC_RELAXED);
}

int main(void) {
#pragma omp parallel
#pragma omp single
  for (int t = 0; t < NTASKS; t++) {
#pragma omp task firstprivate(t)
    tied_body(t);
  }
  for (int t = 0; t < NTASKS; t++)
    CHECK(ran[t] == 1, "task %d ran %d times", t, ran[t]);
  return conf_end();
}
