/* mutexinoutset siblings created by an explicit task: the closing barrier of
   the region waits for every one of them, tasks on one cell never overlap,
   and none is lost. Up to 1000 rounds of 400 tasks over 24 cells, checking
   the count of finished tasks after each region; the first loss ends the
   program.
   Not run on stock libomp: libomp 14 loses such tasks (the region's closing
   barrier returns while some have not run, and they never run in that
   region), but in anything from half the rounds to none of 1000 depending
   on the machine's load, so it cannot be a dependable expected failure. */
#include "check.h"

enum { NCELL = 24, NTASK = 400, ROUNDS = 1000 };

static int cell[NCELL], inside[NCELL];
static long done;

static void body(int c) {
  int n = __atomic_add_fetch(&inside[c], 1, __ATOMIC_ACQ_REL);
  CHECK(n == 1, "%d mutexinoutset tasks on cell %d ran at the same time", n, c);
  int old = cell[c];
  for (volatile int i = 0; i < 1000; i++)
    ;
  cell[c] = old + 1; /* an overlap loses an update */
  __atomic_sub_fetch(&inside[c], 1, __ATOMIC_ACQ_REL);
  __atomic_fetch_add(&done, 1, __ATOMIC_SEQ_CST);
}

int main(void) {
  for (int r = 0; r < ROUNDS; r++) {
    done = 0;
    for (int c = 0; c < NCELL; c++)
      cell[c] = 0;
#pragma omp parallel
#pragma omp single
#pragma omp task
    for (int t = 0; t < NTASK; t++) {
      int c = (t * 7) % NCELL;
#pragma omp task firstprivate(c) depend(mutexinoutset : cell[c])
      body(c);
    }
    long seen = __atomic_load_n(&done, __ATOMIC_SEQ_CST);
    if (seen != NTASK) { /* what was lost may still run: stop here */
      CHECK(0, "round %d: %ld of %d tasks had finished when the region ended", r, seen, NTASK);
      break;
    }
    for (int c = 0; c < NCELL; c++) {
      int want = 0;
      for (int t = 0; t < NTASK; t++)
        want += (t * 7) % NCELL == c;
      CHECK(cell[c] == want, "round %d: cell %d got %d updates, want %d", r, c, cell[c], want);
    }
  }
  return conf_end();
}
