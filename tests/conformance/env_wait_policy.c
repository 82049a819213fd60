/* OMP_WAIT_POLICY, KMP_BLOCKTIME and GOMP_SPINCOUNT (run once per value by
   the harness) change how idle threads wait, never what a program computes:
   regions separated by sleeps (so waiting threads go idle, spin or park),
   barriers and a reduction all still give the right answers. Under Bobbin,
   CONF_EXPECT_BLOCKTIME_MS is what kmp_get_blocktime() must then say (looked
   up by name: gcc's omp.h does not declare it), so a variable that is
   ignored shows. */
#include <dlfcn.h>
#include <time.h>

#include "check.h"

int main(void) {
  long want_bt = conf_env_long("CONF_EXPECT_BLOCKTIME_MS", -1);
  if (want_bt >= 0 && conf_env_long("CONF_EXPECT_BOBBIN", 0)) {
    int (*get_bt)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "kmp_get_blocktime");
    CHECK(get_bt != NULL, "kmp_get_blocktime not found");
    if (get_bt)
      CHECK_EQ("kmp_get_blocktime()", (long)get_bt(), want_bt);
  }
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
