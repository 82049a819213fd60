/* ICVs belong to a task's data environment: omp_set_num_threads,
   omp_set_dynamic and omp_set_schedule in an explicit task change that
   task's values, and its creator's values are unchanged when the task ends
   (libgomp's icv-1). The task starts with its creator's values. */
#include "check.h"

int main(void) {
  omp_set_num_threads(4);
  omp_set_dynamic(0);
  omp_set_schedule(omp_sched_dynamic, 3);
  int in_task = -1, after_task = -1, task_sched_chunk = -1;
  omp_sched_t task_kind = 0;
#pragma omp parallel num_threads(1) shared(in_task, after_task, task_kind, task_sched_chunk)
  {
    omp_set_num_threads(6);
#pragma omp task if (0) shared(in_task, task_kind, task_sched_chunk)
    {
      in_task = omp_get_max_threads();
      omp_set_num_threads(3);
      omp_set_schedule(omp_sched_guided, 7);
      omp_set_dynamic(1);
      omp_get_schedule(&task_kind, &task_sched_chunk);
      CHECK_EQ("omp_get_max_threads() after the task's omp_set_num_threads(3)", omp_get_max_threads(), 3);
      CHECK_EQ("omp_get_dynamic() after the task's omp_set_dynamic(1)", omp_get_dynamic(), 1);
    }
    after_task = omp_get_max_threads();
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    CHECK(k == omp_sched_dynamic && c == 3, "run-sched-var after the task: kind %d chunk %d, want dynamic, 3", (int)k, c);
    CHECK_EQ("omp_get_dynamic() after the task", omp_get_dynamic(), 0);
  }
  CHECK_EQ("omp_get_max_threads() in the task (its creator's)", in_task, 6);
  CHECK(task_kind == omp_sched_guided && task_sched_chunk == 7, "the task's run-sched-var: kind %d chunk %d",
        (int)task_kind, task_sched_chunk);
  CHECK_EQ("omp_get_max_threads() in the creator after the task", after_task, 6);
  CHECK_EQ("omp_get_max_threads() in the initial task", omp_get_max_threads(), 4);

  /* Deferred tasks, on any thread of a team: none leaks its setting. */
  int leaked = 0;
#pragma omp parallel num_threads(2) reduction(+ : leaked)
  {
#pragma omp single
    for (int i = 0; i < 40; i++) {
#pragma omp task
      omp_set_num_threads(9 + i);
    }
#pragma omp taskwait
#pragma omp barrier
    leaked += omp_get_max_threads() != 4;
  }
  CHECK_EQ("threads whose ICVs a deferred task changed", leaked, 0);
  return conf_end();
}
