/* Loops with 0, 1 and 2 iterations on a team of 16 (more threads than
   iterations) under every schedule kind: each iteration once, the rest of
   the team passes through, and the implied barrier still holds. */
#include "check.h"

#define TINY(SCHED_)                                                           \
  do {                                                                         \
    for (int trips = 0; trips <= 2; trips++) {                                 \
      int count[2] = {0, 0}, after = 0;                                        \
      CONF_PRAGMA(omp parallel num_threads(16))                                \
      {                                                                        \
        CONF_PRAGMA(omp for SCHED_)                                            \
        for (int i = 0; i < trips; i++)                                        \
          __atomic_fetch_add(&count[i], 1, __ATOMIC_RELAXED);                  \
        /* implied barrier: every iteration is done */                         \
        if (__atomic_load_n(&count[0], __ATOMIC_RELAXED) != (trips > 0) ||     \
            __atomic_load_n(&count[1], __ATOMIC_RELAXED) != (trips > 1))       \
          __atomic_fetch_add(&after, 1, __ATOMIC_RELAXED);                     \
      }                                                                        \
      CHECK(count[0] == (trips > 0) && count[1] == (trips > 1),                \
            #SCHED_ " with %d iterations: counts %d %d", trips, count[0], count[1]); \
      CHECK(after == 0, #SCHED_ " with %d iterations: %d threads passed the barrier early", trips, \
            after);                                                            \
    }                                                                          \
  } while (0)

int main(void) {
  TINY(schedule(static));
  TINY(schedule(static, 1));
  TINY(schedule(static, 7));
  TINY(schedule(dynamic));
  TINY(schedule(dynamic, 5));
  TINY(schedule(guided));
  TINY(schedule(guided, 4));
  TINY(schedule(auto));
  TINY(schedule(runtime));
  TINY(ordered schedule(dynamic));

  /* A 64-bit loop with one iteration. */
  unsigned long long hits = 0;
#pragma omp parallel for num_threads(16) schedule(dynamic) reduction(+ : hits)
  for (unsigned long long i = 1ULL << 50; i < (1ULL << 50) + 1; i++)
    hits++;
  CHECK_EQ("64-bit loop with one iteration", hits, 1);
  return conf_end();
}
