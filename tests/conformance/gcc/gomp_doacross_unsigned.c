/* doacross over an unsigned variable starting at 0: the sink i - 1 of the
   first iteration wraps around to the largest value, outside the iteration
   space, and must be ignored (spec 15.9.6). Stock libgomp 12 waits for it
   forever (README.md: a known libgomp defect); Bobbin ignores it. */
#include "check.h"

int main(void) {
  static int line[200];
  int bad = 0;
  unsigned long long done = 0;
#pragma omp parallel num_threads(3)
#pragma omp for ordered(1) schedule(static, 4)
  for (unsigned long long i = 0; i < 200; i++) {
#pragma omp ordered depend(sink : i - 1)
    if (i > 0 && __atomic_load_n(&line[i - 1], __ATOMIC_ACQUIRE) == 0)
      bad = 1;
    __atomic_store_n(&line[i], 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
#pragma omp ordered depend(source)
  }
  CHECK(!bad, "an iteration ran before its sink");
  CHECK_EQ("iterations of the doacross loop", done, 200);
  return conf_end();
}
