/* doacross loops whose dependence space is empty. gcc passes the runtime one
   count per ordered dimension but stops writing them at the first zero
   count (the loop has no iteration, and libgomp reads no further): the
   counts after it are whatever the stack held. The runtime must not read
   them. Checked twice: through the entry point itself, with a huge value
   after the zero count (what stack garbage can be), and through gcc's own
   lowering of collapse(2) ordered(4) loops of zero iterations at run time,
   after a call that leaves large values on the stack. More threads than
   cores: the members are fibers on shared workers, whose stacks hold
   other members' frames. */
#include <stdbool.h>

#include "check.h"

bool GOMP_loop_doacross_static_start(unsigned ncounts, long *counts, long chunk, long *istart, long *iend);
bool GOMP_loop_static_next(long *istart, long *iend);
void GOMP_loop_end_nowait(void);

static volatile int zero = 0;

/* Leaves large values in the stack below the caller's frame. */
__attribute__((noinline)) static long poison_stack(void) {
  volatile long junk[512];
  for (int i = 0; i < 512; i++) junk[i] = 0x7654321076543210L + i;
  return junk[zero];
}

int main(void) {
  int ran = 0, direct_ran = 0;
#pragma omp parallel num_threads(8) reduction(+ : ran, direct_ran)
  {
    /* The entry point: counts {2, 0, huge}, the third never written by gcc. */
    long counts[3] = {2, 0, 0x7000000000000000L};
    long lo, hi;
    if (GOMP_loop_doacross_static_start(3, counts, 0, &lo, &hi)) {
      do
        direct_ran += (int)(hi - lo);
      while (GOMP_loop_static_next(&lo, &hi));
    }
    GOMP_loop_end_nowait();
    for (int round = 0; round < 20; round++) {
      (void)poison_stack();
      int i, j, k, l;
#pragma omp for collapse(2) ordered(4) nowait
      for (i = 0; i < zero + 1; i++)
        for (j = zero + 1; j >= 0; j--)
          for (k = 0; k < zero; k++)
            for (l = 0; l < zero + 2; l++) {
#pragma omp ordered depend(source)
#pragma omp ordered depend(sink : i - 2, j + 2, k - 2, l)
              ran++;
            }
    }
  }
  /* The direct call's space is empty too, but its first dimension (the
     loop the runtime hands out) has 2 iterations, as libgomp gives them. */
  CHECK_EQ("iterations handed out for counts {2, 0, ...}", direct_ran, 2);
  CHECK_EQ("iterations of loops with an empty dimension", ran, 0);
  return conf_end();
}
