/* schedule(runtime) follows omp_set_schedule(): for each kind and chunk
   (static 0/1/7, dynamic 1/5, guided 1/4, auto, monotonic dynamic/guided)
   omp_get_schedule() returns what was set and a schedule(runtime) loop keeps
   the promises of that schedule (see loops.h). */
#define SCHED schedule(runtime)
#include "loops.h"

int main(void) {
  static const struct {
    omp_sched_t kind;
    int chunk;
  } cases[] = {
      {omp_sched_static, 0},  {omp_sched_static, 1},  {omp_sched_static, 7},
      {omp_sched_dynamic, 1}, {omp_sched_dynamic, 5}, {omp_sched_guided, 1},
      {omp_sched_guided, 4},  {omp_sched_auto, 0},
      {(omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic), 3},
      {(omp_sched_t)(omp_sched_guided | omp_sched_monotonic), 2},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0] && !conf_has_failed(); c++) {
    omp_set_schedule(cases[c].kind, cases[c].chunk);
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    CHECK(kind == cases[c].kind, "omp_get_schedule kind %#x after setting %#x", (unsigned)kind,
          (unsigned)cases[c].kind);
    if (cases[c].chunk >= 1 && cases[c].kind != omp_sched_auto)
      CHECK(chunk == cases[c].chunk, "omp_get_schedule chunk %d after setting %d", chunk,
            cases[c].chunk);
    struct conf_expect e = conf_expect_for(cases[c].kind, cases[c].chunk);
    conf_loops(&e);
  }
  return conf_end();
}
