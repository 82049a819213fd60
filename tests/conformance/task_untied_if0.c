// LIBOMP14-DEFECT: an untied if(0) task with a task scheduling point in it aborts with "Assertion failure at kmp_tasking.cpp(1571): taskdata->td_last_tied"
/* untied and undeferred: clang 14 calls the entry of an if(0) untied task
   directly; at its first task scheduling point the entry re-submits the task
   (__kmpc_omp_task on itself) and returns, so the runtime must still finish
   the remaining parts before __kmpc_omp_task_complete_if0 returns: the task
   is undeferred, so its whole body has run when the construct returns. */
#include "check.h"

int main(void) {
#pragma omp parallel
#pragma omp single
  for (int i = 0; i < 20; i++) {
    int parts = 0, child = 0;
#pragma omp task untied if(0) shared(parts, child)
    {
      parts = 1;
#pragma omp taskyield
      parts = 2;
#pragma omp task shared(child)
      child = 1;
      parts = 3;
#pragma omp taskwait
      CHECK(child == 1, "round %d: the child of an untied if(0) task had not run at its taskwait", i);
      parts = 4;
    }
    CHECK(parts == 4, "round %d: untied if(0) task stopped after part %d when its construct returned",
          i, parts);
  }
  return conf_end();
}
