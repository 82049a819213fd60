/* Worksharing loops outside any parallel region (the initial thread's team
   of one) with dynamic, guided and runtime schedules, one after another,
   more of them than any runtime keeps loop buffers for (libgomp's for-1:
   the second such loop waited forever for its buffer). Each runs every
   iteration once. */
#include "check.h"

static int hits[1000];

static void run(int kind, int n) {
  if (kind == 0) {
#pragma omp for schedule(dynamic, 7)
    for (int i = 0; i < n; i++)
      hits[i]++;
  } else if (kind == 1) {
#pragma omp for schedule(guided, 5)
    for (int i = 0; i < n; i++)
      hits[i]++;
  } else {
#pragma omp for schedule(runtime)
    for (int i = 0; i < n; i++)
      hits[i]++;
  }
}

int main(void) {
  omp_set_schedule(omp_sched_dynamic, 2);
  for (int round = 0; round < 20; round++) {
    int n = 100 + 37 * round;
    for (int i = 0; i < n; i++)
      hits[i] = 0;
    run(round % 3, n);
    for (int i = 0; i < n; i++)
      if (hits[i] != 1) {
        CHECK(0, "loop %d (kind %d): iteration %d ran %d times", round, round % 3, i, hits[i]);
        break;
      }
  }
  /* and with the same loops inside a region afterwards */
  for (int i = 0; i < 300; i++)
    hits[i] = 0;
#pragma omp parallel num_threads(2)
  run(0, 300);
  long total = 0;
  for (int i = 0; i < 300; i++)
    total += hits[i];
  CHECK_EQ("iterations of a dynamic loop in a region after them", total, 300);
  return conf_end();
}
