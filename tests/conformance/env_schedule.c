/* OMP_SCHEDULE: the harness runs this once per value and passes what
   omp_get_schedule() must return in CONF_EXPECT_SCHEDULE as
   "kind[,chunk][,monotonic]" (chunk "-" or absent: not checked); with no
   expectation (a malformed value) any valid kind is accepted. Then a
   schedule(runtime) loop must keep the promises of that schedule (loops.h). */
#define SCHED schedule(runtime)
#include "loops.h"

int main(void) {
  omp_sched_t kind;
  int chunk;
  omp_get_schedule(&kind, &chunk);
  unsigned base = (unsigned)kind & ~(unsigned)omp_sched_monotonic;
  CHECK(base >= omp_sched_static && base <= omp_sched_auto, "omp_get_schedule kind %#x",
        (unsigned)kind);
  const char *expect = getenv("CONF_EXPECT_SCHEDULE");
  if (expect && *expect) {
    static const char *names[] = {"", "static", "dynamic", "guided", "auto"};
    char buf[64];
    snprintf(buf, sizeof buf, "%s", expect);
    char *name = strtok(buf, ",");
    char *want_chunk = strtok(NULL, ",");
    char *mono = strtok(NULL, ",");
    CHECK(base < 5 && strcmp(names[base], name) == 0, "omp_get_schedule kind %s, want %s",
          base < 5 ? names[base] : "?", name);
    if (want_chunk && strcmp(want_chunk, "-") != 0)
      CHECK(chunk == atoi(want_chunk), "omp_get_schedule chunk %d, want %s", chunk, want_chunk);
    int is_mono = ((unsigned)kind & (unsigned)omp_sched_monotonic) != 0;
    CHECK(is_mono == (mono != NULL), "omp_get_schedule monotonic flag %d, want %d", is_mono,
          mono != NULL);
  }
  struct conf_expect e = conf_expect_for(kind, chunk);
  conf_loops(&e);
  return conf_end();
}
