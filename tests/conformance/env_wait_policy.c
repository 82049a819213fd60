/* OMP_WAIT_POLICY and KMP_BLOCKTIME (run once per value by the harness)
   change how idle threads wait, never what a program computes: regions
   separated by sleeps (so waiting threads go idle, spin or park), barriers
   and a reduction all still give the right answers. */
#include <time.h>

#include "check.h"

int main(void) {
  struct timespec pause = {0, 5 * 1000 * 1000};
  long total = 0;
  for (int r = 0; r < 20; r++) {
    long sum = 0;
    int phase_bad = 0;
    int slot[4] = {0};
#pragma omp parallel num_threads(4) reduction(+ : sum, phase_bad)
    {
      int t = omp_get_thread_num();
      for (int p = 1; p <= 3; p++) {
        __atomic_store_n(&slot[t], p, __ATOMIC_RELAXED);
#pragma omp barrier
        for (int u = 0; u < 4; u++)
          phase_bad += __atomic_load_n(&slot[u], __ATOMIC_RELAXED) != p;
#pragma omp barrier
      }
#pragma omp for schedule(dynamic)
      for (int i = 0; i < 100; i++)
        sum += i;
    }
    CHECK_EQ("reduction", sum, 4950);
    CHECK_EQ("barrier phase errors", phase_bad, 0);
    total += sum;
    if (r % 4 == 0)
      nanosleep(&pause, NULL); /* longer than a short blocktime */
  }
  CHECK_EQ("total", total, 20 * 4950);
  return conf_end();
}
