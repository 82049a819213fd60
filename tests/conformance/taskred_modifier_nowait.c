/* reduction(task, +: v) on nowait loops, one after another in one region,
   while thread 0 lags in the first: the other threads run ahead into the
   next loops, and each loop must still get its own reduction, combined only
   once every task of that loop is done. OpenMP 5.x forbids nowait on a
   construct with the task modifier and gcc 12 rejects it, but clang 14
   accepts and lowers it (no barrier after __kmpc_task_reduction_modifier_fini);
   Bobbin promises the result. libomp 14 mixes up consecutive loops'
   reductions (too large a sum in some loops), so this runs in the Bobbin
   modes only. */
#include <omp.h>

#include "check.h"

#define PRAGMA(x) _Pragma(#x)
/* More loops than Bobbin's runtime keeps in flight (4), so that the threads
   ahead wait for the lagging one to take its part. */
#define ROUND(v, k)                                                 \
  PRAGMA(omp for nowait schedule(static) reduction(task, + : v))    \
  for (int i = 0; i < 40; i++) {                                    \
    if ((k) == 0 && omp_get_thread_num() == 0 && i == 0) {          \
      double t0 = omp_get_wtime();                                  \
      while (omp_get_wtime() - t0 < 0.02) {                         \
      }                                                             \
    }                                                               \
    v += 1;                                                         \
    PRAGMA(omp task in_reduction(+ : v) firstprivate(i))            \
    {                                                               \
      v += i;                                                       \
      PRAGMA(omp task in_reduction(+ : v))                          \
      v += 1000;                                                    \
    }                                                               \
  }

int main(void) {
  for (int rep = 0; rep < 3; rep++) {
    long a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0;
#pragma omp parallel num_threads(4)
    {
      ROUND(a0, 0)
      ROUND(a1, 1)
      ROUND(a2, 2)
      ROUND(a3, 3)
      ROUND(a4, 4)
      ROUND(a5, 5)
    }
    long r[6] = {a0, a1, a2, a3, a4, a5};
    for (int k = 0; k < 6; k++) {
      CHECK(r[k] == 40 + 39 * 40 / 2 + 40 * 1000, "nowait for reduction(task, +), region %d, loop %d: %ld", rep, k,
            r[k]);
    }
  }
  return conf_end();
}
