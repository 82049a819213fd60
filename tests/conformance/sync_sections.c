/* sections: each section runs exactly once, also with more sections than
   threads; lastprivate takes the value of the lexically last section; nowait
   lets threads leave without a barrier (checked after an explicit one);
   `parallel sections` as a combined construct. */
#include "check.h"

int main(void) {
  int hits[7] = {0};
  int last = -1;
  int ran_by[7];
  for (int rep = 0; rep < 50; rep++) {
    memset(hits, 0, sizeof hits);
#pragma omp parallel num_threads(3)
    {
#pragma omp sections lastprivate(last)
      {
#pragma omp section
        { hits[0]++; last = 0; ran_by[0] = omp_get_thread_num(); }
#pragma omp section
        { hits[1]++; last = 1; ran_by[1] = omp_get_thread_num(); }
#pragma omp section
        { hits[2]++; last = 2; ran_by[2] = omp_get_thread_num(); }
#pragma omp section
        { hits[3]++; last = 3; ran_by[3] = omp_get_thread_num(); }
#pragma omp section
        { hits[4]++; last = 4; ran_by[4] = omp_get_thread_num(); }
#pragma omp section
        { hits[5]++; last = 5; ran_by[5] = omp_get_thread_num(); }
#pragma omp section
        { hits[6]++; last = 6; ran_by[6] = omp_get_thread_num(); }
      }
      /* implied barrier: all sections are done */
      for (int s = 0; s < 7; s++)
        CHECK(hits[s] == 1, "rep %d: after the barrier section %d ran %d times", rep, s, hits[s]);
    }
    CHECK(last == 6, "lastprivate after sections: %d, want 6", last);
    for (int s = 0; s < 7; s++)
      CHECK(ran_by[s] >= 0 && ran_by[s] < 3, "section %d ran on thread %d", s, ran_by[s]);
  }

  /* nowait, then two sections regions back to back. */
  int x = 0, y = 0, z = 0;
#pragma omp parallel num_threads(4)
  {
#pragma omp sections nowait
    {
#pragma omp section
      x = 1;
#pragma omp section
      y = 2;
    }
#pragma omp barrier
#pragma omp sections
    {
#pragma omp section
      z = x + y;
    }
  }
  CHECK(x == 1 && y == 2 && z == 3, "sections nowait: x=%d y=%d z=%d", x, y, z);

  /* parallel sections with a single section on a big team. */
  int once = 0;
#pragma omp parallel sections num_threads(8)
  {
#pragma omp section
    __atomic_fetch_add(&once, 1, __ATOMIC_RELAXED);
  }
  CHECK_EQ("parallel sections with one section: runs", once, 1);
  return conf_end();
}
