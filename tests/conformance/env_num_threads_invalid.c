// LIBOMP14-DEFECT: a malformed OMP_NUM_THREADS ("abc", "3x", "2,-1", "-3", "") leaves nthreads-var uninitialised (omp_get_max_threads() returns garbage such as -864214231); the next region dies with "Out of heap memory" or an assertion failure.
/* A malformed OMP_NUM_THREADS: the spec leaves the behaviour to the
   implementation, so this only checks that the program runs and that
   nthreads-var and the teams it gives are >= 1 (run.py caps the address
   space for these runs, because a runtime that believes the garbage may try
   to allocate for billions of threads). */
#include "check.h"

int main(void) {
  int max = omp_get_max_threads();
  CHECK(max >= 1, "omp_get_max_threads() = %d", max);
  omp_set_max_active_levels(2);
  int outer = 0, inner = 0;
#pragma omp parallel
  {
#pragma omp single
    outer = omp_get_num_threads();
    if (omp_get_thread_num() == 0) {
#pragma omp parallel
#pragma omp single
      inner = omp_get_num_threads();
    }
  }
  CHECK(outer >= 1 && outer <= (max > 0 ? max : 1), "default team of %d with max threads %d",
        outer, max);
  CHECK(inner >= 1, "default nested team of %d", inner);
  return conf_end();
}
