/* threadprivate persists across parallel regions when the team size stays
   the same and dyn-var is false, also for a team larger than the machine
   (4 threads per core, at least 8). The initial thread's copy is the original
   variable, seen by thread 0; other copies start with the static initializer.
   meson.build builds this file twice: with TLS, and with
   -fnoopenmp-use-tls (clang 14 spelling), where clang calls __kmpc_threadprivate_cached. */
#include "check.h"

static int tp = -1;
static double tp_arr[3] = {1.5, 2.5, 3.5};
#pragma omp threadprivate(tp, tp_arr)

int main(void) {
  int n = 4 * omp_get_num_procs();
  if (n < 8)
    n = 8;
  if (n > 64)
    n = 64;
  tp = 5; /* the initial thread's copy */
  int team = 0;
#pragma omp parallel num_threads(n)
  {
    int t = omp_get_thread_num();
    if (t == 0) {
      CHECK_EQ("thread 0 sees the initial thread's copy", tp, 5);
      team = omp_get_num_threads();
    } else {
      CHECK_EQ("a fresh threadprivate copy holds the initializer", tp, -1);
      CHECK(tp_arr[2] == 3.5, "fresh threadprivate array copy: %g, want 3.5", tp_arr[2]);
    }
    tp = 1000 + t;
    tp_arr[1] = t;
  }
  CHECK_EQ("team size", team, n);
  CHECK_EQ("initial thread's copy after the region", tp, 1000);
  for (int round = 0; round < 5; round++) {
#pragma omp parallel num_threads(n)
    {
      int t = omp_get_thread_num();
      CHECK(tp == 1000 + t + round, "round %d thread %d: threadprivate %d, want %d", round, t, tp,
            1000 + t + round);
      CHECK(tp_arr[1] == t, "round %d thread %d: threadprivate array %g", round, t, tp_arr[1]);
      int *addr = &tp;
#pragma omp barrier
      CHECK(addr == &tp, "thread %d: threadprivate address changed within a region", t);
      tp++;
    }
  }
  return conf_end();
}
