/* A bound thread stays on its place's processors for the whole region,
   also after it opened nested regions and waited in them while members
   bound to other places ran (an implementation that runs OpenMP threads on
   fewer kernel threads may pin a kernel thread to a member's place; the
   thread it ran before must get its own place back). Each outer thread and
   each member compares its processor mask (sched_getaffinity) with its
   place's processors (omp_get_place_proc_ids) at the start, after a barrier
   and, for the outer threads, after every nested region. Only when binding
   is on (a place number >= 0). */
#include "check.h"
#include "place_mask.h"

int main(void) {
  omp_set_max_active_levels(2);
  int outer = omp_get_max_threads();
  if (outer < 2) outer = 2;
#pragma omp parallel num_threads(outer)
  {
    check_mask("outer thread at the start", 0);
#pragma omp barrier
    check_mask("outer thread after a barrier", 0);
    for (int r = 1; r <= 4; r++) {
#pragma omp parallel num_threads(r % 2 ? 3 : 2)
      {
        check_mask("member at the start", r);
        double x = 0;
        for (int i = 0; i < 20000; i++) x += i;
        CHECK(x > 0, "the loop summed %g", x);
#pragma omp barrier
        check_mask("member after a barrier", r);
      }
      check_mask("outer thread after a nested region", r);
    }
  }
  /* With binding asked for, the checks must have run. */
  const char *bind = getenv("OMP_PROC_BIND");
  if (bind && strcmp(bind, "false") != 0)
    CHECK(g_checked > 0, "OMP_PROC_BIND=%s but no thread had a place", bind);
  return conf_end();
}
