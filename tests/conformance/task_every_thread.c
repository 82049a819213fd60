/* Tasks created by every thread at once: each implicit task creates tasks
   (which create tasks), its taskwait waits for its own children, its
   dependences order only its own children (each thread has its own
   sequence on one shared address), and the barrier completes all tasks of
   the team (a region with no taskwait at all, and the barrier inside it). */
#include "check.h"

enum { MAXT = 64, PER = 300 };

static int children_done[MAXT], grand_done[MAXT];
static int seqs[MAXT][PER];

int main(void) {
  int shared_addr = 0, nt = 1;
  (void)shared_addr;
#pragma omp parallel shared(nt)
  {
    int me = omp_get_thread_num();
#pragma omp single
    nt = omp_get_num_threads(); /* at most MAXT */
    for (int i = 0; i < PER; i++) {
#pragma omp task firstprivate(me)
      {
        __atomic_fetch_add(&children_done[me], 1, __ATOMIC_RELAXED);
#pragma omp task firstprivate(me)
        __atomic_fetch_add(&grand_done[me], 1, __ATOMIC_RELAXED);
      }
    }
#pragma omp taskwait
    CHECK(__atomic_load_n(&children_done[me], __ATOMIC_RELAXED) == PER,
          "thread %d: %d of %d children done after its taskwait", me, children_done[me], PER);
    /* Each implicit task is its own dependence domain: threads' sequences on
       the same address do not interleave wrongly within a thread. */
    int next = 0;
    for (int i = 0; i < PER; i++) {
#pragma omp task depend(inout : shared_addr) firstprivate(me, i) shared(next)
      {
        CHECK(next == i, "thread %d: dependent task %d ran after %d", me, i, next);
        seqs[me][i] = 1;
        next = i + 1;
      }
    }
#pragma omp barrier
    /* the barrier completes every task of the team, grandchildren included */
    for (int t = 0; t < nt; t++)
      CHECK(__atomic_load_n(&grand_done[t], __ATOMIC_RELAXED) == PER,
            "after the barrier: thread %d's grandchildren %d of %d done", t, grand_done[t], PER);
    CHECK_EQ("dependent tasks done after the barrier", next, PER);
  }
  int last = 0;
#pragma omp parallel
  for (int i = 0; i < PER; i++) {
#pragma omp task shared(last)
    __atomic_fetch_add(&last, 1, __ATOMIC_RELAXED);
  }
  CHECK_EQ("tasks done at the region's end", last, nt * PER);
  for (int t = 0; t < nt; t++)
    for (int i = 0; i < PER; i++)
      CHECK(seqs[t][i] == 1, "thread %d: dependent task %d did not run", t, i);
  return conf_end();
}
