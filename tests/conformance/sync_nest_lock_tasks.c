// LIBOMP14-DEFECT: nestable locks are owned by threads, not tasks: in a serialized region or an undeferred task on the owner's thread omp_test_nest_lock returns the next count instead of 0
/* Nestable locks are owned by tasks (OpenMP 3.0 on; 5.2 section 18.9): a
   new implicit task (a serialized parallel region on the owner's own
   thread) or an explicit task (undeferred, so on the same thread) does not
   own the lock its creator holds, so omp_test_nest_lock gives it 0, and
   the creator's nesting count goes on where it was. A task that takes the
   lock itself owns it, nests, and frees it before it ends. */
#include "check.h"

int main(void) {
  omp_nest_lock_t l;
  omp_init_nest_lock(&l);
  CHECK_EQ("omp_test_nest_lock on a free lock", omp_test_nest_lock(&l), 1);
  CHECK_EQ("omp_test_nest_lock by its owner", omp_test_nest_lock(&l), 2);

  int in_serialized = -1;
#pragma omp parallel if (0)
  in_serialized = omp_test_nest_lock(&l);
  CHECK_EQ("omp_test_nest_lock in a serialized region (another implicit task)", in_serialized, 0);

  int in_task = -1;
#pragma omp task if (0) shared(in_task, l)
  in_task = omp_test_nest_lock(&l);
  CHECK_EQ("omp_test_nest_lock in an undeferred task", in_task, 0);

  CHECK_EQ("omp_test_nest_lock by its owner afterwards", omp_test_nest_lock(&l), 3);
  for (int i = 0; i < 3; i++)
    omp_unset_nest_lock(&l);

  /* A task owns what it takes, and nests on it. */
  int first = -1, second = -1;
#pragma omp task if (0) shared(first, second, l)
  {
    first = omp_test_nest_lock(&l);
    second = omp_test_nest_lock(&l);
    omp_unset_nest_lock(&l);
    omp_unset_nest_lock(&l);
  }
  CHECK_EQ("a task's first omp_test_nest_lock", first, 1);
  CHECK_EQ("a task's second omp_test_nest_lock", second, 2);
  CHECK_EQ("omp_test_nest_lock after the task freed it", omp_test_nest_lock(&l), 1);
  omp_unset_nest_lock(&l);
  omp_destroy_nest_lock(&l);
  return conf_end();
}
