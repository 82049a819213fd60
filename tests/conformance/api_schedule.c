/* omp_set_schedule / omp_get_schedule: every kind round-trips with its
   chunk, including the monotonic flag; run-sched-var is inherited by a
   region's implicit tasks, and a thread that changes it inside a region
   changes only its own. */
#include "check.h"

int main(void) {
  static const struct {
    omp_sched_t kind;
    int chunk;
  } cases[] = {
      {omp_sched_static, 3},  {omp_sched_static, 1},  {omp_sched_dynamic, 1},
      {omp_sched_dynamic, 9}, {omp_sched_guided, 4},  {omp_sched_guided, 1},
      {(omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic), 5},
      {(omp_sched_t)(omp_sched_static | omp_sched_monotonic), 2},
      {(omp_sched_t)(omp_sched_guided | omp_sched_monotonic), 6},
  };
  omp_sched_t kind;
  int chunk;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    omp_set_schedule(cases[c].kind, cases[c].chunk);
    omp_get_schedule(&kind, &chunk);
    CHECK(kind == cases[c].kind && chunk == cases[c].chunk,
          "omp_set_schedule(%#x, %d) then omp_get_schedule: (%#x, %d)", (unsigned)cases[c].kind,
          cases[c].chunk, (unsigned)kind, chunk);
  }
  /* auto ignores the chunk; a chunk below 1 means the kind's default. */
  omp_set_schedule(omp_sched_auto, 5);
  omp_get_schedule(&kind, &chunk);
  CHECK(kind == omp_sched_auto, "omp_get_schedule after auto: kind %#x", (unsigned)kind);
  omp_set_schedule(omp_sched_dynamic, 0);
  omp_get_schedule(&kind, &chunk);
  CHECK(kind == omp_sched_dynamic && chunk >= 1,
        "omp_set_schedule(dynamic, 0): (%#x, %d), want dynamic with the default chunk",
        (unsigned)kind, chunk);

  omp_set_schedule(omp_sched_guided, 4);
  int inherited_bad = 0, own_kind = 0, own_chunk = 0;
#pragma omp parallel num_threads(4) reduction(+ : inherited_bad)
  {
    omp_sched_t k;
    int ch;
    omp_get_schedule(&k, &ch);
    if (k != omp_sched_guided || ch != 4)
      inherited_bad++;
#pragma omp barrier
    if (omp_get_thread_num() == 3) {
      omp_set_schedule(omp_sched_dynamic, 11);
      omp_get_schedule(&k, &ch);
      own_kind = k;
      own_chunk = ch;
    }
#pragma omp barrier
    if (omp_get_thread_num() == 1) {
      omp_get_schedule(&k, &ch);
      if (k != omp_sched_guided || ch != 4)
        inherited_bad++;
    }
  }
  CHECK_EQ("threads that did not inherit (guided, 4)", inherited_bad, 0);
  CHECK(own_kind == omp_sched_dynamic && own_chunk == 11,
        "thread 3 after setting (dynamic, 11): (%#x, %d)", (unsigned)own_kind, own_chunk);
  omp_get_schedule(&kind, &chunk);
  CHECK(kind == omp_sched_guided && chunk == 4,
        "the initial task's schedule after the region: (%#x, %d)", (unsigned)kind, chunk);
  return conf_end();
}
