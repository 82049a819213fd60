/* The hand-written spin barrier of the nested panel teams (tilelu, mpilu):
 * atomics and sched_yield only, no runtime call, as tile libraries' panel
 * code has; and the pivot candidate each member posts before it. Header-only,
 * plain C (gnu11). */
#ifndef BOBBIN_BOTS_SPIN_BARRIER_H
#define BOBBIN_BOTS_SPIN_BARRIER_H

#include <sched.h>

typedef struct {
  int count, sense;
  char pad[56];
} spin_barrier;

/* Sense-reversing: each member keeps its own sense, starting at 0. */
static inline void spin_wait(spin_barrier *b, int members, int *local_sense) {
  *local_sense = !*local_sense;
  if (__atomic_add_fetch(&b->count, 1, __ATOMIC_ACQ_REL) == members) {
    __atomic_store_n(&b->count, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&b->sense, *local_sense, __ATOMIC_RELEASE);
  } else {
    unsigned polls = 0;
    while (__atomic_load_n(&b->sense, __ATOMIC_ACQUIRE) != *local_sense)
      if (++polls % 64 == 0)
        sched_yield(); /* as hand-written barriers do; never a fiber switch */
  }
}

/* A member's best pivot candidate: |value| and its row; one cache line. */
struct cand {
  double v;
  int row;
  char pad[52];
};

#endif
