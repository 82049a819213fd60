/* Two million empty tasks: from one producer (single) while the other
   threads take them, then from every thread at once, then from one
   producer with a taskwait every 1000 tasks. Each run counts every task. */
#include "stress.h"

enum { NTASKS = 2000000 };

static long ran;

static void empty(void) { __atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED); }

int main(void) {
  stress_begin("stress_many_tasks", 60);

  stress_phase("2M tasks from one producer", NTASKS);
  ran = 0;
#pragma omp parallel
#pragma omp single
  for (long i = 0; i < NTASKS; i++) {
#pragma omp task
    empty();
    if (i % 65536 == 0)
      stress_progress(65536);
  }
  CHECK_EQ("tasks run (one producer)", ran, NTASKS);

  stress_phase("2M tasks from every thread", NTASKS);
  ran = 0;
#pragma omp parallel
  {
    int n = omp_get_num_threads(), me = omp_get_thread_num();
    long mine = NTASKS / n + (me < NTASKS % n);
    for (long i = 0; i < mine; i++) {
#pragma omp task
      empty();
      if (i % 65536 == 0)
        stress_progress(65536);
    }
  }
  CHECK_EQ("tasks run (every thread)", ran, NTASKS);

  stress_phase("2M tasks, taskwait every 1000", NTASKS);
  ran = 0;
#pragma omp parallel
#pragma omp single
  for (long i = 0; i < NTASKS; i++) {
#pragma omp task
    empty();
    if (i % 1000 == 999) {
#pragma omp taskwait
      CHECK(__atomic_load_n(&ran, __ATOMIC_RELAXED) == i + 1, "taskwait after %ld tasks: %ld ran", i + 1, ran);
      stress_progress(1000);
    }
  }
  CHECK_EQ("tasks run (taskwait every 1000)", ran, NTASKS);
  return stress_end();
}
