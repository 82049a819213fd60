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
#include "check.h"
#include "place_mask.h"

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
