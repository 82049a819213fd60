/* The task modifier on reduction clauses (OpenMP 5.0): with
   reduction(task, op: x) on parallel, for or sections, explicit tasks created
   in the region take part through in_reduction, their descendants too; the
   result combines the implicit tasks' and the explicit tasks' contributions.
   Several types and operators, several tasks per thread, chains of
   in_reduction tasks, the same construct met again in one region (each
   meeting gets its own reduction). clang 14 lowers the modifier to
   __kmpc_taskred_modifier_init / __kmpc_task_reduction_modifier_fini, gcc 12
   to GOMP_parallel_reductions / GOMP_loop_start. The nowait form:
   taskred_modifier_nowait.c. */
#include <limits.h>
#include <omp.h>

#include "check.h"

int main(void) {
  int x = 0, nth = 0;
  double d = 1.0;
  unsigned long long bits = 0;
  long mx = LONG_MIN;
#pragma omp parallel num_threads(4) reduction(task, + : x) reduction(task, * : d) \
    reduction(task, | : bits) reduction(task, max : mx)
  {
    int t = omp_get_thread_num();
#pragma omp single
    nth = omp_get_num_threads();
    x += 1; /* the implicit task's own part */
    for (int i = 0; i < 8; i++) {
#pragma omp task in_reduction(+ : x) in_reduction(* : d) in_reduction(| : bits) in_reduction(max : mx) \
    firstprivate(i, t)
      {
        x += i;
        d *= 2.0;
        bits |= 1ull << (t * 8 + i);
        if (t * 100 + i > mx) mx = t * 100 + i;
#pragma omp task in_reduction(+ : x) /* a child names its parent's copy */
        {
          x += 1000;
#pragma omp task in_reduction(+ : x)
          x += 100000;
        }
      }
    }
  }
  CHECK_EQ("parallel reduction(task, +) on int", x, nth + nth * 28 + nth * 8 * 101000);
  CHECK(d == (double)(1ull << (nth * 8)), "parallel reduction(task, *) on double: %g", d);
  CHECK_EQ("parallel reduction(task, |) on unsigned long long", bits, (1ull << (nth * 8)) - 1);
  CHECK_EQ("parallel reduction(task, max) on long", mx, (long)((nth - 1) * 100 + 7));

  long y = 0, s = 0, p = 0;
  int lo = INT_MAX;
#pragma omp parallel num_threads(4)
  {
    for (int rep = 0; rep < 3; rep++) { /* one reduction per meeting */
#pragma omp for reduction(task, + : y) reduction(task, min : lo) schedule(dynamic, 3)
      for (int i = 0; i < 100; i++) {
        y += 1;
#pragma omp task in_reduction(+ : y) in_reduction(min : lo) firstprivate(i, rep)
        {
          y += i;
          if (1000 - i - 200 * rep < lo) lo = 1000 - i - 200 * rep;
        }
      }
    }
#pragma omp sections reduction(task, + : s)
    {
#pragma omp section
      for (int i = 0; i < 10; i++) {
#pragma omp task in_reduction(+ : s) firstprivate(i)
        s += i;
      }
#pragma omp section
      s += 100;
#pragma omp section
      {
#pragma omp task in_reduction(+ : s)
        s += 1000;
      }
    }
  }
  CHECK_EQ("for reduction(task, +), met 3 times", y, 3 * (100 + 99 * 100 / 2));
  CHECK_EQ("for reduction(task, min)", lo, 1000 - 99 - 400);
  CHECK_EQ("sections reduction(task, +)", s, 45 + 100 + 1000);

#pragma omp parallel for num_threads(4) reduction(task, + : p) schedule(static, 1)
  for (int i = 0; i < 20; i++) {
#pragma omp task in_reduction(+ : p) firstprivate(i)
    p += i;
  }
  CHECK_EQ("parallel for reduction(task, +)", p, 19 * 20 / 2);
  return conf_end();
}
