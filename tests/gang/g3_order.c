/* Sub-gangs and the gang order (G3, scheduler/README.md). Outer thread 1
   opens gang B, whose master opens sub-gang D; D's body is one omp barrier.
   Meanwhile outer thread 0 opens an empty gang A, reserved after B and
   before D. No user-written synchronisation at all.

   With keys ordered by (nest level, gang id), D came after A although B,
   which waits for D, comes before A: worker 0 held D's member back because
   A was active there, worker 1 held A's member back because B was active
   there, and the program hung. Keys ordered by the path of gang ids put D
   right after B, before A. The sleeps only make that interleaving likely;
   the test must pass whatever the timing.

   usage: g3_order (GANG_ROUNDS: repetitions, default 3) */
#include "gang.h"

static long g_done, g_in_a;

int main(void) {
  gang_watch("a sub-gang ordered after a later gang one level up (G3)", 20, &g_done);
  int rounds = getenv("GANG_ROUNDS") ? atoi(getenv("GANG_ROUNDS")) : 3;
  omp_set_max_active_levels(3);
  for (int r = 0; r < rounds; r++) {
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 1) {
#pragma omp parallel num_threads(2) /* B */
        {
          if (omp_get_thread_num() == 0) {
            usleep(100000);
#pragma omp parallel num_threads(2) /* D, inside B */
            {
#pragma omp barrier
            }
            __atomic_fetch_add(&g_done, 1, __ATOMIC_RELAXED);
          }
        }
      } else {
        usleep(50000);
#pragma omp parallel num_threads(2) /* A: after B, before D */
        {
          /* Not empty: clang -O2 forks no region for an empty body. */
          __atomic_fetch_add(&g_in_a, 1, __ATOMIC_RELAXED);
        }
        __atomic_fetch_add(&g_done, 1, __ATOMIC_RELAXED);
      }
    }
  }
  if (g_done != 2L * rounds) GANG_FAIL("%ld regions completed, expected %ld", g_done, 2L * rounds);
  printf("ok: %d rounds of a sub-gang forked around a later gang\n", rounds);
  return 0;
}
