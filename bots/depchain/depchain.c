/* depchain: the cost of task dependences (depend clauses).
 *
 *   chain  N tasks, each depend(inout: x) on one variable: a fully serial
 *          chain, so the time is the per-task cost of dependence tracking,
 *          release and wake-up of the successor (no parallelism to hide it).
 *   wide   W independent chains of length L over v[0..W): created row by row
 *          (for each step, one task per chain), so up to W tasks are ready at
 *          once and the runtime must keep all threads busy while it resolves
 *          the dependences.
 *
 * Each task does a few arithmetic operations on its variable, so the result
 * is a hash of the order in which the tasks of each chain ran: any reordering
 * within a chain (a missed dependence) changes it.
 *
 *   usage: depchain [small|medium|large] [chain|wide|both]
 *   presets     chain N      wide W x L
 *     small       20000      16 x 2000
 *     medium     200000      64 x 4000
 *     large     1000000     256 x 4000
 *
 * Prints RESULT lines named depchain-chain and depchain-wide. Verified
 * against the serial loop. */
#include "bench.h"

static inline uint64_t step(uint64_t v, long i) { return v * 0x100000001B3ULL ^ (uint64_t)i; }

static int run_chain(long n, int threads) {
  uint64_t ref = 1;
  for (long i = 0; i < n; i++) ref = step(ref, i);

  uint64_t x = 1;
  double t0 = bench_now();
#pragma omp parallel
  {
#pragma omp single
    for (long i = 0; i < n; i++) {
#pragma omp task depend(inout : x) firstprivate(i) shared(x)
      x = step(x, i);
    }
  }
  double time_s = bench_now() - t0;
  int ok = x == ref;
  if (!ok) fprintf(stderr, "depchain: chain result %016llx, expected %016llx\n", (unsigned long long)x,
                   (unsigned long long)ref);
  bench_result("depchain-chain", ok, "n=%ld threads=%d tasks=%ld time_s=%.6f tasks_per_s=%.0f", n, threads, n,
               time_s, (double)n / time_s);
  return ok;
}

static int run_wide(long w, long len, int threads) {
  uint64_t *v = malloc((size_t)w * sizeof *v), *ref = malloc((size_t)w * sizeof *v);
  if (!v || !ref) {
    fprintf(stderr, "depchain: out of memory\n");
    exit(2);
  }
  for (long c = 0; c < w; c++) v[c] = ref[c] = (uint64_t)c + 1;
  for (long s = 0; s < len; s++)
    for (long c = 0; c < w; c++) ref[c] = step(ref[c], s);

  double t0 = bench_now();
#pragma omp parallel
  {
#pragma omp single
    for (long s = 0; s < len; s++) {
      for (long c = 0; c < w; c++) {
#pragma omp task depend(inout : v[c]) firstprivate(s, c)
        v[c] = step(v[c], s);
      }
    }
  }
  double time_s = bench_now() - t0;
  long bad = 0;
  for (long c = 0; c < w; c++) bad += v[c] != ref[c];
  if (bad) fprintf(stderr, "depchain: %ld of %ld wide chains have the wrong result\n", bad, w);
  long tasks = w * len;
  bench_result("depchain-wide", bad == 0, "w=%ld l=%ld threads=%d tasks=%ld time_s=%.6f tasks_per_s=%.0f", w,
               len, threads, tasks, time_s, (double)tasks / time_s);
  free(v);
  free(ref);
  return bad == 0;
}

int main(int argc, char **argv) {
  static const long chain_n[3] = {20000, 200000, 1000000};
  static const long wide_w[3] = {16, 64, 256};
  static const long wide_l[3] = {2000, 4000, 4000};
  int p = 0;
  if (argc > 1 && (p = bench_preset_index(argv[1])) < 0) {
    fprintf(stderr, "usage: depchain [small|medium|large] [chain|wide|both]\n");
    return 2;
  }
  const char *mode = argc > 2 ? argv[2] : "both";
  int chain = !strcmp(mode, "chain") || !strcmp(mode, "both");
  int wide = !strcmp(mode, "wide") || !strcmp(mode, "both");
  if (!chain && !wide) {
    fprintf(stderr, "depchain: mode must be chain, wide or both, not '%s'\n", mode);
    return 2;
  }
  int threads = bench_team_size();
  int ok = 1;
  if (chain) ok &= run_chain(chain_n[p], threads);
  if (wide) ok &= run_wide(wide_w[p], wide_l[p], threads);
  return ok ? 0 : 1;
}
