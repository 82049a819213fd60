/* place_mask.h: a bound thread compares its processor mask with its place's.
 *
 * check_mask(where, round) does nothing when the calling thread has no place
 * (binding off); otherwise it checks that sched_getaffinity gives exactly the
 * processors omp_get_place_proc_ids lists for omp_get_place_num(), and counts
 * the check in g_checked (so that a program run with binding on can check
 * that checks ran at all).
 */
#ifndef CONF_PLACE_MASK_H
#define CONF_PLACE_MASK_H

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

#endif
