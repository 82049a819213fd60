/* One member's part of flag_pipeline's ring (flag_pipeline.c): member me
   of size spins, with a flush in the loop, until member me - 1 has set its
   flag for round r (member 0: the last member, for round r - 1), then sets
   its own; member 0 writes the round to *round for the timeout's report. */
#ifndef BOBBIN_FLAG_RING_H
#define BOBBIN_FLAG_RING_H

typedef void (*flag_ring_fn)(volatile int *flag, volatile int *round, int me, int size, int rounds);

static inline void flag_ring_member(volatile int *flag, volatile int *round, int me, int size, int rounds) {
  for (int r = 1; r <= rounds; r++) {
    if (me == 0) *round = r;
    int prev = me == 0 ? size - 1 : me - 1, want = me == 0 ? r - 1 : r;
    while (flag[prev] < want) {
#pragma omp flush
    }
    flag[me] = r;
#pragma omp flush
  }
}

#endif
