/* stencil: a moldable 2D Jacobi stencil, after the ARMS experiments.
 *
 * An N x N grid of doubles, its border held fixed, swept T times by the
 * 5-point Jacobi update (each interior point becomes the mean of its four
 * neighbours, read from the previous sweep's grid). The grid is cut into S
 * strips of rows; the update of one strip in one sweep is a task, which
 * depends on the previous sweep's update of that strip and of the strips
 * above and below it (their border rows are its halo), so the DAG is a band
 * S tasks wide and T deep: its parallelism is S. Each task opens a nested
 * parallel region over its strip's rows: a moldable task, whose width the
 * runtime may choose when dyn-var is true. The kernel is memory-bound (4
 * loads and a store per 4 flops, the two grids far larger than the caches
 * at the default size).
 *
 *   usage: stencil [N] [T] [S] [W|all]   (defaults 2048 40 2 all)
 *   W: the width each task asks for (num_threads); all asks for the number
 *   of processors; BENCH_WIDTH, when set, overrides W (bench.h). Fixed
 *   widths: W = 1, 2, ... with OMP_DYNAMIC=false; the model: W = all with
 *   OMP_DYNAMIC=true (or Bobbin's BOBBIN_MOLD=on).
 *
 * Verification: the same sweeps run serially first; the grids must be
 * bitwise equal (each point's arithmetic is the same whatever the width or
 * the order of the tasks the dependences allow). */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static long g_n;

/* Rows [r0, r1) of dst from src, width threads. */
static void sweep_rows(double *dst, const double *src, long r0, long r1, int width) {
  long n = g_n;
#pragma omp parallel for num_threads(width) schedule(static)
  for (long r = r0; r < r1; r++) {
    double *d = dst + r * n;
    const double *s = src + r * n;
    if (r == 0 || r == n - 1) {
      memcpy(d, s, sizeof(double) * (size_t)n);
      continue;
    }
    d[0] = s[0];
    for (long c = 1; c < n - 1; c++) d[c] = 0.25 * ((s[c - n] + s[c + n]) + (s[c - 1] + s[c + 1]));
    d[n - 1] = s[n - 1];
  }
}

static void grid_init(double *g, long n) {
  for (long r = 0; r < n; r++)
    for (long c = 0; c < n; c++)
      g[r * n + c] = (r == 0 || c == 0) ? 1.0 : (r == n - 1 || c == n - 1) ? 0.5 : (double)((r * 7 + c * 3) % 11) / 11.0;
}

int main(int argc, char **argv) {
  long n = bench_long_arg(argc, argv, 1, 2048, "N");
  int t = (int)bench_long_arg(argc, argv, 2, 40, "T");
  int s = (int)bench_long_arg(argc, argv, 3, 2, "S");
  int w = bench_width_arg(argc, argv, 4);
  if (n < 3 || s < 1 || s > n || t < 1) {
    fprintf(stderr, "usage: stencil [N >= 3] [T] [S <= N] [W|all]\n");
    return 2;
  }
  g_n = n;
  int width = w ? w : omp_get_num_procs();
  omp_set_max_active_levels(2);
  size_t bytes = sizeof(double) * (size_t)n * (size_t)n;
  double *grid[2] = {malloc(bytes), malloc(bytes)}, *ref[2] = {malloc(bytes), malloc(bytes)};
  long *row0 = malloc(sizeof(long) * (size_t)(s + 1));
  char *token = calloc(2 * (size_t)s, 1); /* token[q * s + k]: strip k of grid q */
  if (!grid[0] || !grid[1] || !ref[0] || !ref[1] || !row0 || !token) {
    fprintf(stderr, "stencil: out of memory\n");
    return 2;
  }
  for (int k = 0; k <= s; k++) row0[k] = n * k / s;
  grid_init(grid[0], n);
  grid_init(ref[0], n);
  memcpy(grid[1], grid[0], bytes); /* first touch of both grids, as the serial sweeps do */
  memcpy(ref[1], ref[0], bytes);
  for (int step = 0; step < t; step++)
    for (int k = 0; k < s; k++) sweep_rows(ref[(step + 1) % 2], ref[step % 2], row0[k], row0[k + 1], 1);

  double t0 = bench_now();
#pragma omp parallel
#pragma omp single
  for (int step = 0; step < t; step++)
    for (int k = 0; k < s; k++) {
      int q = step % 2;
      /* The halo: strips k - 1 and k + 1 of the grid read (clamped at the edges). */
      char *in_up = &token[q * s + (k > 0 ? k - 1 : k)], *in_here = &token[q * s + k],
           *in_down = &token[q * s + (k < s - 1 ? k + 1 : k)], *out = &token[(1 - q) * s + k];
      double *dst = grid[1 - q], *src = grid[q];
      long r0 = row0[k], r1 = row0[k + 1];
#pragma omp task depend(in : in_up[0], in_here[0], in_down[0]) depend(out : out[0]) firstprivate(dst, src, r0, r1)
      sweep_rows(dst, src, r0, r1, width);
      (void)in_up, (void)in_here, (void)in_down, (void)out; /* named only by depend clauses, which gcc does not count */
    }
  double time_s = bench_now() - t0;

  int ok = memcmp(grid[t % 2], ref[t % 2], bytes) == 0;
  double gbs = 2.0 * (double)bytes * t / time_s / 1e9; /* a grid read and one written per sweep */
  bench_result("stencil", ok, "n=%ld t=%d strips=%d width=%d threads=%d dynamic=%d time_s=%.6f gbytes_s=%.3f", n, t, s,
               w, bench_team_size(), omp_get_dynamic(), time_s, gbs);
  free(grid[0]);
  free(grid[1]);
  free(ref[0]);
  free(ref[1]);
  free(row0);
  free(token);
  return ok ? 0 : 1;
}
