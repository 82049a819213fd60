/* flag_pipeline's ring in a shared object, loaded with dlopen after the
   runtime has started (flag_pipeline.c says why). */
#include "flag_ring.h"

void flag_ring(volatile int *flag, volatile int *round, int me, int size, int rounds) {
  flag_ring_member(flag, round, me, size, rounds);
}
