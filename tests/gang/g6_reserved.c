/* Sub-gangs and reserved workers (G6, scheduler/README.md). Outer thread 0
   opens gang A; A's master opens sub-gang C before A's member has started
   (outer thread 1 is still busy in user code on the other worker). Both A
   and C meet at user spin barriers.

   When G6 looked only at started fibers, C's member was reserved on the
   worker where A's member was queued: A's member started there first and
   spun at A's barrier waiting for A's master, which spun in C waiting for
   C's member, queued behind it. G6 now counts reserved members and forking
   masters, so on two workers C gets one thread (OMP_DYNAMIC=true lets the
   runtime give fewer threads than asked). The sleep only makes that
   interleaving likely; the test must pass whatever the timing.

   usage: g6_reserved (GANG_ROUNDS: repetitions, default 3) */
#include "gang.h"

static long g_done;

int main(void) {
  gang_watch("a sub-gang reserved where its enclosing gang is queued (G6)", 20, &g_done);
  int rounds = getenv("GANG_ROUNDS") ? atoi(getenv("GANG_ROUNDS")) : 3;
  omp_set_max_active_levels(3);
  for (int r = 0; r < rounds; r++) {
    spin_barrier a = {0, 0}, c = {0, 0};
#pragma omp parallel num_threads(2) shared(a, c)
    {
      if (omp_get_thread_num() == 0) {
#pragma omp parallel num_threads(2) shared(a, c) /* A */
        {
          int sa = 0;
          if (omp_get_thread_num() == 0) {
#pragma omp parallel num_threads(2) shared(c) /* C, inside A */
            {
              int sc = 0;
              spin_wait(&c, omp_get_num_threads(), &sc);
            }
            __atomic_fetch_add(&g_done, 1, __ATOMIC_RELAXED);
          }
          spin_wait(&a, omp_get_num_threads(), &sa);
        }
      } else {
        usleep(200000); /* user code on outer thread 1's worker */
      }
    }
  }
  if (g_done != rounds) GANG_FAIL("%ld sub-gangs completed, expected %d", g_done, rounds);
  printf("ok: %d rounds of a sub-gang forked before its enclosing gang's member started\n", rounds);
  return 0;
}
