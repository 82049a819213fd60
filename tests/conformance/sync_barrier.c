/* barrier: no thread starts phase p+1 before every thread finished phase p.
   Each thread writes its phase number into its slot, and after the barrier
   reads every slot; teams of 2, 5, 8 and 16 (more threads than cores), and a
   barrier inside nested teams. */
#include "check.h"

#define PHASES 200
#define MAXT 16

static int slot[MAXT];

static void phases(int n) {
  int wrong = 0;
#pragma omp parallel num_threads(n)
  {
    int t = omp_get_thread_num();
    for (int p = 1; p <= PHASES; p++) {
      __atomic_store_n(&slot[t], p, __ATOMIC_RELAXED);
#pragma omp barrier
      for (int u = 0; u < n; u++)
        if (__atomic_load_n(&slot[u], __ATOMIC_RELAXED) != p)
          __atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED);
#pragma omp barrier
    }
  }
  CHECK(wrong == 0, "team of %d: %d reads saw another phase across a barrier", n, wrong);
}

int main(void) {
  phases(2);
  phases(5);
  phases(8);
  phases(16);

  omp_set_max_active_levels(2);
  int wrong = 0;
#pragma omp parallel num_threads(2)
  {
    int inner[3];
#pragma omp parallel num_threads(3) shared(inner)
    {
      int t = omp_get_thread_num();
      for (int p = 1; p <= 50; p++) {
        __atomic_store_n(&inner[t], p, __ATOMIC_RELAXED);
#pragma omp barrier
        for (int u = 0; u < 3; u++)
          if (__atomic_load_n(&inner[u], __ATOMIC_RELAXED) != p)
            __atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED);
#pragma omp barrier
      }
    }
  }
  CHECK(wrong == 0, "nested teams: %d reads saw another phase across a barrier", wrong);
  return conf_end();
}
