/* single: exactly one thread runs the block at each encounter, the others
   wait at its implied barrier (or not, with nowait, then an explicit
   barrier); 200 consecutive singles in one region. */
#include "check.h"

int main(void) {
  enum { REPS = 200 };
  int count[REPS] = {0};
  int early = 0;
#pragma omp parallel num_threads(6)
  {
    for (int r = 0; r < REPS; r++) {
      if (r % 2) {
#pragma omp single
        count[r]++;
      } else {
#pragma omp single nowait
        __atomic_fetch_add(&count[r], 1, __ATOMIC_RELAXED);
#pragma omp barrier
      }
      if (__atomic_load_n(&count[r], __ATOMIC_RELAXED) != 1)
        __atomic_fetch_add(&early, 1, __ATOMIC_RELAXED);
    }
  }
  for (int r = 0; r < REPS; r++)
    CHECK(count[r] == 1, "single %d ran %d times", r, count[r]);
  CHECK_EQ("threads past a single's barrier before it ran", early, 0);

  /* single inside a nested (serialized) region and in a team of one. */
  int in_one = 0;
#pragma omp parallel num_threads(1)
  {
#pragma omp single
    in_one++;
  }
  CHECK_EQ("single in a team of one", in_one, 1);
  return conf_end();
}
