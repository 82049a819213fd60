/* Nested parallel regions: an outer team of OUTER threads, each opening R
 * inner regions of INNER threads one after the other. Each inner region does
 * a little work per thread, meets at a barrier, then reads what every other
 * member wrote before it (so a barrier that lets a thread through early is
 * caught), and ends. Reported: the wall time of the whole nest and the time
 * per inner region as each outer thread sees it (time_s / R).
 *
 * On a runtime that gives every inner thread a kernel thread, OUTER x INNER
 * threads share the cores; Bobbin runs the inner teams as fibers on the
 * workers the program already has.
 *
 * usage: nested [small|medium|large|R] [INNER] [OUTER]
 *   R = 200 / 1000 / 5000 inner regions per outer thread; INNER = 8; OUTER = 2 */
#include "bench.h"

enum { MAX_TEAM = 256, WORK = 200 };

struct slot {
  long v;
  char pad[64 - sizeof(long)];
};

/* A little work whose result depends on its inputs. */
static long spin_work(long seed) {
  long x = seed;
  for (int i = 0; i < WORK; i++)
    x = x * 6364136223846793005L + 1442695040888963407L;
  return x;
}

/* One inner region; returns 0 when every member saw every other's value. */
static int inner_region(int inner, int outer_id, int round) {
  struct slot vals[MAX_TEAM];
  int bad = 0, size = 0;
#pragma omp parallel num_threads(inner) shared(vals, bad, size)
  {
    int me = omp_get_thread_num(), n = omp_get_num_threads();
    vals[me].v = spin_work(outer_id * 1000003L + round * 131L + me);
#pragma omp barrier
    for (int t = 0; t < n; t++)
      if (vals[t].v != spin_work(outer_id * 1000003L + round * 131L + t)) {
#pragma omp atomic write
        bad = 1;
      }
    if (me == 0)
      size = n;
  }
  return bad || size < 1;
}

int main(int argc, char **argv) {
  static const long presets[3] = {200, 1000, 5000};
  long rounds = bench_size_arg(argc, argv, 1, presets, presets[0], "R");
  int inner = (int)bench_long_arg(argc, argv, 2, 8, "INNER");
  int outer = (int)bench_long_arg(argc, argv, 3, 2, "OUTER");
  if (inner > MAX_TEAM) {
    fprintf(stderr, "%s: INNER must be at most %d\n", argv[0], MAX_TEAM);
    return 2;
  }
  omp_set_max_active_levels(2);
  int threads = bench_team_size();
  /* warm-up: the runtime's threads for the nest exist before timing */
  int bad = 0;
#pragma omp parallel num_threads(outer) reduction(| : bad)
  bad |= inner_region(inner, omp_get_thread_num(), 0);

  int got_outer = 0, min_inner = inner;
  double t0 = bench_now();
#pragma omp parallel num_threads(outer) reduction(| : bad) reduction(min : min_inner)
  {
#pragma omp single
    got_outer = omp_get_num_threads();
    int id = omp_get_thread_num();
    for (long r = 1; r <= rounds; r++)
      bad |= inner_region(inner, id, (int)r);
    /* what this runtime gave an inner region here (spec 12.1.1: a runtime
       may give fewer threads than asked only with dyn-var true) */
#pragma omp parallel num_threads(inner)
#pragma omp single
    {
      int n = omp_get_num_threads();
      if (n < min_inner)
        min_inner = n;
    }
  }
  double t = bench_now() - t0;
  if (bad)
    fprintf(stderr, "nested: a member read a value its team had not written yet\n");
  if (got_outer != outer)
    fprintf(stderr, "nested: note: the outer team has %d threads, not %d\n", got_outer, outer);
  bench_result("nested", !bad,
               "rounds=%ld inner=%d outer=%d got_outer=%d got_inner=%d threads=%d time_s=%.6f "
               "us_per_region=%.3f",
               rounds, inner, outer, got_outer, min_inner, threads, t, 1e6 * t / (double)rounds);
  return bad ? 1 : 0;
}
