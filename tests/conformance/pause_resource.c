/* omp_pause_resource_all and omp_pause_resource (5.0 and later), ROUNDS
   times, alternating omp_pause_soft and omp_pause_hard: each returns 0 when
   called outside any region, and the runtime then resumes on its own: the
   next parallel region has the team it asks for, its tasks all run, a
   reduction is right, and nthreads-var survives a soft pause. A pause for a
   device that does not exist fails (non-zero). Under tests/asan the same
   program shows that the resources a pause releases are not leaked. */
#include "check.h"
#include "pause_region.h"

/* Address-space mappings and size (kB) of the process: fiber stacks are
   mmap'd, so a pause that forgets them leaks mappings that the leak checker
   (which tracks malloc) does not see. */
static void mappings(long *count, long *kb) {
  *count = *kb = 0;
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  while (f && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
      ++*count;
      *kb += (long)((hi - lo) >> 10);
    }
  }
  if (f)
    fclose(f);
}

#ifndef ROUNDS
#define ROUNDS 1000
#endif
#ifndef PAUSE
#define PAUSE 1 /* 0: the same regions without pausing (tests/asan's baseline) */
#endif

int main(void) {
  omp_set_num_threads(3);
  long maps0 = 0, kb0 = 0;
  for (int r = 0; r < ROUNDS && !conf_has_failed(); r++) {
    if (r == ROUNDS / 10)
      mappings(&maps0, &kb0);
    omp_pause_resource_t kind = pause_kind(r);
    int rc = PAUSE ? pause_round(r) : 0;
    CHECK(rc == 0, "round %d: %s(%s) returned %d", r, pause_call(r), kind == omp_pause_hard ? "omp_pause_hard" : "omp_pause_soft",
          rc);
    if (kind == omp_pause_soft || !PAUSE)
      CHECK(omp_get_max_threads() == 3, "round %d: omp_get_max_threads() after a soft pause: %d, want 3", r,
            omp_get_max_threads());
    else
      omp_set_num_threads(3); /* a hard pause may reset the ICVs */
    pause_region_t got = pause_region();
    int team = got.team, tasks = got.tasks;
    long f = got.fib, sum = got.sum;
    CHECK(team == 3, "round %d: team of %d after a pause, want 3", r, team);
    CHECK(tasks == 16, "round %d: %d of 16 tasks ran", r, tasks);
    CHECK(f == 55, "round %d: fib(10) by tasks = %ld", r, f);
    CHECK(sum == 6, "round %d: reduction over the team = %ld, want 6", r, sum);
  }
  if (ROUNDS >= 100) { /* the last 90% of the rounds must not grow the address space */
    long maps1, kb1;
    mappings(&maps1, &kb1);
    printf("mappings after round %d: %ld (%ld kB); after round %d: %ld (%ld kB)\n", ROUNDS / 10, maps0, kb0, ROUNDS,
           maps1, kb1);
    CHECK(maps1 - maps0 <= 64 && kb1 - kb0 <= 65536,
          "%d pauses grew the address space from %ld to %ld mappings, %ld to %ld kB", ROUNDS - ROUNDS / 10, maps0,
          maps1, kb0, kb1);
  }
  int bad = omp_pause_resource(omp_pause_soft, omp_get_num_devices() + 7);
  CHECK(bad != 0, "omp_pause_resource for device %d (there is no such device) returned 0", omp_get_num_devices() + 7);
  return conf_end();
}
