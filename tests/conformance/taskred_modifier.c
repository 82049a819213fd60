/* The task modifier on reduction clauses (OpenMP 5.0): with
   reduction(task, +: x) on parallel, and on a worksharing loop, explicit
   tasks created in the region may take part through in_reduction; the
   result combines the implicit tasks' and the explicit tasks'
   contributions. clang 14 lowers the modifier to
   __kmpc_taskred_modifier_init / __kmpc_task_reduction_modifier_fini. */
#include "check.h"

int main(void) {
  int x = 0;
  double d = 0.5;
#pragma omp parallel num_threads(4) reduction(task, + : x, d)
  {
    x += 1; /* the implicit task's own part */
    for (int i = 0; i < 25; i++) {
#pragma omp task in_reduction(+ : x, d) firstprivate(i)
      {
        x += i;
        d += 0.25;
      }
    }
  }
  CHECK_EQ("parallel reduction(task, +)", x, 4 + 4 * (24 * 25 / 2));
  CHECK(d == 0.5 + 4 * 25 * 0.25, "parallel reduction(task, +) on double: %g", d);

  long y = 0;
#pragma omp parallel num_threads(4)
  {
#pragma omp for reduction(task, + : y) schedule(dynamic, 3)
    for (int i = 0; i < 100; i++) {
      y += 1;
#pragma omp task in_reduction(+ : y) firstprivate(i)
      y += i;
    }
  }
  CHECK_EQ("for reduction(task, +)", y, 100 + 99 * 100 / 2);
  return conf_end();
}
