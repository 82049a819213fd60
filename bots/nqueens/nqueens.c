/* nqueens: count the placements of N non-attacking queens, BOTS-style.
 *
 * Row by row, each safe column of the current row becomes a task that owns a
 * copy of the board so far (as in BOTS nqueens "manual cutoff"): tasks down
 * to depth CUTOFF, plain recursion below it. Each task writes its count into
 * its parent's per-column slot; the parent sums them after taskwait, so there
 * is no shared counter. Irregular: subtrees differ wildly in size.
 *
 *   usage: nqueens [small|medium|large|N] [CUTOFF]
 *   presets: small N=11, medium N=13, large N=14; CUTOFF default 4
 *
 * Verified against the serial search, which also counts the tasks the
 * parallel version creates. */
#include "bench.h"

#define MAX_N 20

static int g_n, g_cutoff;

/* Whether a queen may go at (row j, column i) given a[0..j). */
static int ok(int j, int i, const char *a) {
  for (int r = 0; r < j; r++) {
    int c = a[r];
    if (c == i || c - i == j - r || i - c == j - r) return 0;
  }
  return 1;
}

static long search_serial(int j, char *a) {
  if (j == g_n) return 1;
  long count = 0;
  for (int i = 0; i < g_n; i++) {
    if (!ok(j, i, a)) continue;
    a[j] = (char)i;
    count += search_serial(j + 1, a);
  }
  return count;
}

/* The reference: the same search, counting the tasks search_task creates. */
static long search_reference(int j, char *a, long *tasks) {
  if (j == g_n) return 1;
  long count = 0;
  for (int i = 0; i < g_n; i++) {
    if (!ok(j, i, a)) continue;
    a[j] = (char)i;
    if (j < g_cutoff) ++*tasks;
    count += search_reference(j + 1, a, tasks);
  }
  return count;
}

static long search_task(int j, const char *a) {
  if (j == g_n) return 1;
  long counts[MAX_N];
  for (int i = 0; i < g_n; i++) {
    counts[i] = 0;
    if (!ok(j, i, a)) continue;
    if (j < g_cutoff) {
#pragma omp task firstprivate(i) shared(counts)
      {
        char b[MAX_N];
        memcpy(b, a, (size_t)j); /* a stays alive: this frame waits below */
        b[j] = (char)i;
        counts[i] = search_task(j + 1, b);
      }
    } else {
      char b[MAX_N];
      memcpy(b, a, (size_t)j);
      b[j] = (char)i;
      counts[i] = search_serial(j + 1, b);
    }
  }
#pragma omp taskwait
  long total = 0;
  for (int i = 0; i < g_n; i++) total += counts[i];
  return total;
}

int main(int argc, char **argv) {
  static const long presets[3] = {11, 13, 14};
  g_n = (int)bench_size_arg(argc, argv, 1, presets, presets[0], "N");
  g_cutoff = (int)bench_long_arg(argc, argv, 2, 4, "CUTOFF");
  if (g_n > MAX_N) {
    fprintf(stderr, "nqueens: N=%d is too large (at most %d)\n", g_n, MAX_N);
    return 2;
  }
  int threads = bench_team_size();

  char board[MAX_N];
  long tasks = 0;
  double t0 = bench_now();
  long ref = search_reference(0, board, &tasks);
  double serial_s = bench_now() - t0;

  long result = 0;
  t0 = bench_now();
#pragma omp parallel
  {
#pragma omp single
    result = search_task(0, board);
  }
  double time_s = bench_now() - t0;

  int verified = result == ref;
  if (!verified) fprintf(stderr, "nqueens: %ld solutions, expected %ld\n", result, ref);
  bench_result("nqueens", verified,
               "n=%d cutoff=%d threads=%d solutions=%ld tasks=%ld time_s=%.6f tasks_per_s=%.0f serial_s=%.6f "
               "speedup=%.3f",
               g_n, g_cutoff, threads, result, tasks, time_s, (double)tasks / time_s, serial_s,
               serial_s / time_s);
  return verified ? 0 : 1;
}
