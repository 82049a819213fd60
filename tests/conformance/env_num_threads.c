/* OMP_NUM_THREADS: run once per value by the harness, which passes the
   expected nthreads-var per nesting level in CONF_EXPECT_THREADS ("3",
   "4,2"), or nothing for a value the spec leaves to the implementation
   (such as 0): then the program only checks that it runs and that the value
   is >= 1. Malformed values are env_num_threads_invalid's. */
#include "check.h"

int main(void) {
  const char *expect = getenv("CONF_EXPECT_THREADS");
  int want[2] = {0, 0};
  if (expect && *expect) {
    char *end;
    want[0] = (int)strtol(expect, &end, 10);
    want[1] = *end == ',' ? (int)strtol(end + 1, NULL, 10) : want[0];
  }
  int max = omp_get_max_threads();
  if (want[0])
    CHECK_EQ("omp_get_max_threads()", max, want[0]);
  else
    CHECK(max >= 1, "omp_get_max_threads() = %d", max);

  omp_set_max_active_levels(2);
  int outer = 0, inner = 0, inner_max = 0;
#pragma omp parallel
  {
#pragma omp single
    {
      outer = omp_get_num_threads();
      inner_max = omp_get_max_threads(); /* nthreads-var of level 1 */
    }
    if (omp_get_thread_num() == 0) {
#pragma omp parallel
#pragma omp single
      inner = omp_get_num_threads();
    }
  }
  if (want[0]) {
    CHECK_EQ("default team size", outer, want[0]);
    CHECK_EQ("omp_get_max_threads() inside the region", inner_max, want[1]);
    CHECK_EQ("default nested team size", inner, want[1]);
  } else {
    CHECK(outer >= 1 && inner >= 1, "team sizes %d / %d", outer, inner);
  }
  return conf_end();
}
