/* A bound thread keeps its place's processors while it spins in its own
   code for other threads of its team. A nested team wider than the
   processors whose members wait for each other with a user spin barrier
   needs them all running: a runtime that runs OpenMP threads on fewer
   kernel threads must run a member that has not started on another one,
   or take a spinning member off its kernel thread for a while and run
   another, maybe bound to another place. Either way each member's mask must
   be its place's, also as soon as a spinning member comes back, without a
   call into the runtime in between: each member compares its processor mask
   with its place's in the spin loop itself. Only when binding is on. */
#include <sched.h>

#include "check.h"

static int g_checked;

static void check_mask(const char *where, int round) {
  int place = omp_get_place_num();
  if (place < 0) return;
  int n = omp_get_place_num_procs(place);
  int ids[CPU_SETSIZE];
  if (n <= 0 || n > CPU_SETSIZE) return;
  omp_get_place_proc_ids(place, ids);
  cpu_set_t want, got;
  CPU_ZERO(&want);
  for (int i = 0; i < n; i++) CPU_SET(ids[i], &want);
  CHECK(sched_getaffinity(0, sizeof got, &got) == 0, "sched_getaffinity failed");
  CHECK(CPU_EQUAL(&want, &got), "%s, round %d, level %d, thread %d: bound to place %d (%d processors from %d) "
        "but runs on a mask of %d processors that is not that place's",
        where, round, omp_get_level(), omp_get_thread_num(), place, n, ids[0], CPU_COUNT(&got));
  __atomic_fetch_add(&g_checked, 1, __ATOMIC_RELAXED);
}

int main(void) {
  omp_set_max_active_levels(2);
  /* Twice as many outer threads as processors: with close binding at the
     first level, a worker runs an outer thread of a place it was not first
     pinned to. */
  int outer = 2 * omp_get_num_procs(), inner = 4;
  if (outer > 16) outer = 16;
#pragma omp parallel num_threads(outer)
  {
    for (int r = 0; r < 3; r++) {
      int arrived = 0;
#pragma omp parallel num_threads(inner) shared(arrived)
      {
        int n = omp_get_num_threads();
        check_mask("member at the start", r);
        /* Past the barrier every member has started, so that a spinning
           member can only be taken off its kernel thread for a while, not
           moved. */
#pragma omp barrier
        for (int phase = 1; phase <= 3; phase++) {
          __atomic_fetch_add(&arrived, 1, __ATOMIC_ACQ_REL);
          long spins = 0;
          while (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) < phase * n) {
            if ((++spins & 63) == 0) check_mask("member spinning", r);
          }
          check_mask("member past the spin", r);
        }
      }
    }
  }
  const char *bind = getenv("OMP_PROC_BIND");
  if (bind && strcmp(bind, "false") != 0)
    CHECK(g_checked > 0, "OMP_PROC_BIND=%s but no thread had a place", bind);
  return conf_end();
}
