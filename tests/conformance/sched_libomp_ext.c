/* libomp's run-time schedule extensions, which clang-built programs reach
   through OMP_SCHEDULE and omp_set_schedule: `trapezoidal` (libomp's
   kmp_sched_trapezoidal, kind 101: chunks shrinking linearly from half an
   even share down to the chunk size) and `static_steal` (libomp's
   nonmonotonic dynamic, reported as dynamic). The harness passes
   CONF_SET_SCHEDULE=kind,chunk to set it through the API first, and
   CONF_EXPECT_SCHEDULE=kind,chunk (numbers) for what omp_get_schedule must
   then return; a schedule(runtime) loop must run every iteration once with
   every shape and team size (loops.h), and under static_steal in runs of at
   least the chunk. (Trapezoidal chunks are not held to the chunk size:
   libomp's go below it when half an even share is smaller; Bobbin's never
   do.) */
#define SCHED schedule(runtime)
#include "loops.h"

int main(void) {
  const char *set = getenv("CONF_SET_SCHEDULE");
  if (set && *set) {
    int k = 0, c = 0;
    CHECK(sscanf(set, "%d,%d", &k, &c) == 2, "CONF_SET_SCHEDULE %s", set);
    omp_set_schedule((omp_sched_t)k, c);
  }
  omp_sched_t kind;
  int chunk;
  omp_get_schedule(&kind, &chunk);
  const char *expect = getenv("CONF_EXPECT_SCHEDULE");
  int want_kind = 0, want_chunk = 0;
  CHECK(expect && sscanf(expect, "%d,%d", &want_kind, &want_chunk) == 2, "CONF_EXPECT_SCHEDULE missing");
  CHECK((int)kind == want_kind, "omp_get_schedule kind %d, want %d", (int)kind, want_kind);
  CHECK(chunk == want_chunk, "omp_get_schedule chunk %d, want %d", chunk, want_chunk);
  struct conf_expect e = {0, 0, (int)kind == 101 ? 0 : chunk, 0};
  conf_loops(&e);
  return conf_end();
}
