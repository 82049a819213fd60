/* OMP_MAX_TASK_PRIORITY sets max-task-priority-var: omp_get_max_task_priority()
   returns it (0 when unset) as the program's very first OpenMP call, before
   anything has started the runtime, inside a region and in a task, and
   after the region. CONF_EXPECT_PRIORITY=n. */
#include "check.h"

/* In a function of its own: clang calls __kmpc_global_thread_num (which
   starts the runtime) on entry to a function that has a parallel region. */
__attribute__((noinline)) static void regions(int want) {
  int in_region = -1, in_task = -1;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    in_region = omp_get_max_task_priority();
#pragma omp task shared(in_task)
    in_task = omp_get_max_task_priority();
  }
  CHECK_EQ("omp_get_max_task_priority() in a region", in_region, want);
  CHECK_EQ("omp_get_max_task_priority() in a task", in_task, want);
}

int main(void) {
  int want = (int)conf_env_long("CONF_EXPECT_PRIORITY", 0);
  CHECK_EQ("omp_get_max_task_priority() as the first call", omp_get_max_task_priority(), want);
  regions(want);
  CHECK_EQ("omp_get_max_task_priority() after a region", omp_get_max_task_priority(), want);
  return conf_end();
}
