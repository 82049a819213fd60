/* Nested teams that synchronise outside the runtime (shapes.h): an outer
 * team of OUTER threads, each opening R inner regions of INNER threads (with
 * dyn-var false, so exactly INNER) whose members meet ROUNDS times by one
 * shape after an omp barrier. One RESULT row per shape (syncshapes-<shape>),
 * the wall time of the whole nest; verified when every member took part in
 * every round of every region. With more OpenMP threads than cores, a
 * kernel-thread runtime relies on the OS to time-slice the waiters; Bobbin
 * runs the members as fibers and its progress monitor (ult/monitor.cpp)
 * gives a region that needs it kernel threads of its own.
 *
 * usage: syncshapes [small|medium|large|R] [INNER] [OUTER] [SHAPES]
 *   R = 10 / 40 / 160 inner regions per outer thread; INNER = 4; OUTER = 2;
 *   SHAPES: comma-separated (default yield,flag,pipe,pthread,sem,condvar,epoll,futex).
 *   The pause-only spin barrier (spin) and the one polling with a system
 *   call (call) are opt-in: once kernel threads outnumber the cores, each
 *   of their rounds waits for the OS to run every spinner; so is timedcond
 *   (condvar with timed waits). */
#include "bench.h"

#include "shapes.h"

enum { ROUNDS = 20 };

int main(int argc, char **argv) {
  static const long presets[3] = {10, 40, 160};
  long regions = bench_size_arg(argc, argv, 1, presets, presets[0], "R");
  int inner = (int)bench_long_arg(argc, argv, 2, 4, "INNER");
  int outer = (int)bench_long_arg(argc, argv, 3, 2, "OUTER");
  const char *list = argc > 4 ? argv[4] : "yield,flag,pipe,pthread,sem,condvar,epoll,futex";
  if (inner < 1 || inner > MAX_INNER) {
    fprintf(stderr, "%s: INNER must be 1..%d\n", argv[0], MAX_INNER);
    return 2;
  }
  omp_set_dynamic(0);
  omp_set_max_active_levels(2);
  int all_ok = 1;
  char *copy = strdup(list), *save = NULL;
  for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
    int shape = shape_by_name(name);
    if (shape < 0) {
      fprintf(stderr, "%s: unknown shape %s\n", argv[0], name);
      return 2;
    }
    int bad = 0;
    double t0 = bench_now();
#pragma omp parallel num_threads(outer) reduction(| : bad)
    {
      if (omp_get_num_threads() != outer) bad = 1;
      for (long r = 0; r < regions; r++) bad |= shape_region(shape, inner, ROUNDS);
    }
    double t = bench_now() - t0;
    char row[64];
    snprintf(row, sizeof row, "syncshapes-%s", name);
    bench_result(row, !bad, "regions=%ld inner=%d outer=%d rounds=%d time_s=%.6f", regions, inner, outer, ROUNDS, t);
    all_ok &= !bad;
  }
  free(copy);
  return all_ok ? 0 : 1;
}
