/* Tile LU factorization with partial pivoting, shaped like a distributed
 * dense linear algebra library's node-level code:
 *
 *  - the matrix (n x n, column-major) is cut into nb-wide tile columns;
 *  - the panel of step k (tile column k, rows k*nb..n) is factored by a
 *    NESTED parallel region of P threads that split its rows and meet at a
 *    hand-written spin barrier (atomics only, no runtime call) twice per
 *    column: once to pick the pivot, once before the rank-1 update; the
 *    panel goes in stripes of ib columns (the rank-1 updates stay within
 *    the stripe, then a triangular solve and one rank-ib update bring the
 *    panel's columns right of it up to date), and the pivot row and the
 *    stripe's block of U reach the other threads through contiguous
 *    workspaces, as in a tile library's threaded panel;
 *  - the trailing update at step k is a task per tile column j (the panel's
 *    row swaps and a triangular solve with its unit lower triangle: depend
 *    in: column k, inout: column j) and a task per tile (i, j) below it (the
 *    matrix product: depend in: column k, in: column j), so the panel of
 *    step k+1 starts as soon as its column is updated (look-ahead) while the
 *    rest of step k's updates still run;
 *  - the swaps of later steps are applied to the columns left of them at the
 *    end, as the reference does.
 *
 * The panel runs inside a task, so its inner team must be scheduled while
 * the other threads of the outer team are busy with update tasks: a runtime
 * that multiplexes the inner team on fewer kernel threads without running
 * its members together never gets past the spin barrier; one that gives it
 * fresh kernel threads oversubscribes the cores.
 *
 * Check: the same tile algorithm run sequentially (one thread, no tasks)
 * must give the same pivots and the same factors (every element goes
 * through the same operations in the same order, and the pivot search
 * breaks ties by the lowest row), and the residual
 * |P A x - L (U x)|_inf / (n eps |A|_inf |x|_inf) for a random x must be
 * small.
 *
 * usage: tilelu [small|medium|large|n] [nb] [P] [ib]
 *   n = 512 / 1024 / 2048; nb = 128; P = the outer team's size; ib = 16
 * LU_TIMEOUT=s: after s seconds, print what is hung (and Bobbin's gang
 * stacks when it is the runtime) and exit 3. */
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include "bench.h"
#include "spin_barrier.h"

static int n, nb, nt, P;
static double *A;  /* the matrix being factored, column-major, lda = n */
static int *ipiv;  /* ipiv[r] = the row swapped with row r (global indices) */
#define AT(M, r, c) ((M)[(size_t)(c) * (size_t)n + (size_t)(r)])

/* ---- the panel: rows k*nb..n of tile column k -------------------------- */

/* What member 0 hands the others: the pivot row's part within the current
   stripe (for the rank-1 updates) and, after each stripe, the block of U
   right of it (for the rank-ib update), each copied into one contiguous
   buffer, as a tile library's panel broadcasts them: read in place, a row
   of a column-major panel is one cache line per column. */
struct panel_share {
  double top_row[64];
  double top_block[]; /* ib x (nb - ib) at most, column-major, ld = ib */
};

static int ib = 16; /* the inner blocking of the panel */

/* Factors columns c0..c0+w of rows c0..n, rows split among `members`
   threads, member `me` of which is the caller. The panel goes in stripes
   of ib columns: within a stripe, column by column (pivot search, swap,
   scaling, rank-1 update of the stripe's columns only); after it, member 0
   solves the stripe's rows of the columns right of it with the stripe's
   unit lower triangle, and every member updates its rows of those columns
   with one rank-ib product. */
static void panel_rows(int c0, int w, int me, int members, spin_barrier *bar, struct cand *cand,
                       struct panel_share *sh, int *sense) {
  int rows = n - c0;
  int lo = c0 + (int)((long)rows * me / members), hi = c0 + (int)((long)rows * (me + 1) / members);
  for (int s0 = 0; s0 < w; s0 += ib) {
    int kb = w - s0 < ib ? w - s0 : ib;
    int send = c0 + s0 + kb; /* one past the stripe's last column */
    for (int j = s0; j < s0 + kb; j++) {
      int c = c0 + j; /* the global column, and the row of its diagonal */
      struct cand best = {-1.0, -1, {0}};
      for (int r = lo > c ? lo : c; r < hi; r++) {
        double v = fabs(AT(A, r, c));
        if (v > best.v) /* strict: ties keep the lower row */
          best.v = v, best.row = r;
      }
      cand[me] = best;
      spin_wait(bar, members, sense);
      if (me == 0) {
        struct cand g = cand[0];
        for (int t = 1; t < members; t++)
          if (cand[t].v > g.v)
            g = cand[t];
        int p = g.row < 0 ? c : g.row;
        ipiv[c] = p;
        if (p != c)
          for (int cc = c0; cc < c0 + w; cc++) {
            double tmp = AT(A, c, cc);
            AT(A, c, cc) = AT(A, p, cc);
            AT(A, p, cc) = tmp;
          }
        for (int cc = c + 1; cc < send; cc++)
          sh->top_row[cc - c - 1] = AT(A, c, cc);
      }
      spin_wait(bar, members, sense);
      double piv = AT(A, c, c);
      int rlo = lo > c + 1 ? lo : c + 1;
      if (piv != 0.0)
        for (int r = rlo; r < hi; r++)
          AT(A, r, c) /= piv;
      for (int cc = c + 1; cc < send; cc++) {
        double u = sh->top_row[cc - c - 1];
        for (int r = rlo; r < hi; r++)
          AT(A, r, cc) -= AT(A, r, c) * u;
      }
      /* the next column's search reads only this member's rows; the swap
         after it is behind the next barrier */
    }
    int right = c0 + w - send; /* the panel's columns right of the stripe */
    if (right == 0)
      break;
    spin_wait(bar, members, sense); /* the stripe's L is complete */
    if (me == 0) {
      int d = c0 + s0; /* the stripe's diagonal block: rows and columns d..send */
      for (int cc = send; cc < c0 + w; cc++)
        for (int p = 0; p < kb; p++) {
          double u = AT(A, d + p, cc);
          for (int r = p + 1; r < kb; r++)
            AT(A, d + r, cc) -= AT(A, d + r, d + p) * u;
        }
      for (int cc = send; cc < c0 + w; cc++)
        for (int p = 0; p < kb; p++)
          sh->top_block[(size_t)(cc - send) * (size_t)kb + (size_t)p] = AT(A, d + p, cc);
    }
    spin_wait(bar, members, sense);
    int glo = lo > send ? lo : send;
    for (int cc = send; cc < c0 + w; cc++)
      for (int p = 0; p < kb; p++) {
        double u = sh->top_block[(size_t)(cc - send) * (size_t)kb + (size_t)p];
        for (int r = glo; r < hi; r++)
          AT(A, r, cc) -= AT(A, r, c0 + s0 + p) * u;
      }
    /* the next stripe's first search reads this member's rows, updated here */
  }
  spin_wait(bar, members, sense); /* the panel is done before anyone leaves */
}

static void panel(int k, int nested) {
  int c0 = k * nb, w = n - c0 < nb ? n - c0 : nb;
  struct panel_share *sh = malloc(sizeof *sh + sizeof(double) * (size_t)ib * (size_t)nb);
  spin_barrier bar = {0, 0, {0}};
  if (!nested) {
    struct cand cand[1];
    int sense = 0;
    panel_rows(c0, w, 0, 1, &bar, cand, sh, &sense);
    free(sh);
    return;
  }
  struct cand cand[64];
#pragma omp parallel num_threads(P) shared(bar, cand)
  {
    int sense = 0, members = omp_get_num_threads();
    panel_rows(c0, w, omp_get_thread_num(), members > 64 ? 1 : members, &bar, cand, sh, &sense);
  }
  free(sh);
}

/* ---- the trailing update at step k ------------------------------------ */

/* Tile column j at step k, rows of the panel's block: the panel's swaps
   (which reach every row below too), then U(k, j) = L(k, k)^-1 A(k, j) with
   L unit lower triangular. */
static void swap_solve(int k, int j) {
  int c0 = k * nb, w = n - c0 < nb ? n - c0 : nb;
  int j0 = j * nb, wj = n - j0 < nb ? n - j0 : nb;
  for (int r = c0; r < c0 + w; r++) /* in order */
    if (ipiv[r] != r)
      for (int cc = j0; cc < j0 + wj; cc++) {
        double tmp = AT(A, r, cc);
        AT(A, r, cc) = AT(A, ipiv[r], cc);
        AT(A, ipiv[r], cc) = tmp;
      }
  for (int cc = j0; cc < j0 + wj; cc++)
    for (int p = 0; p < w; p++) {
      double u = AT(A, c0 + p, cc);
      for (int r = p + 1; r < w; r++)
        AT(A, c0 + r, cc) -= AT(A, c0 + r, c0 + p) * u;
    }
}

/* Tile (i, j) at step k, i, j > k: A(i, j) -= L(i, k) U(k, j). */
static void gemm(int k, int i, int j) {
  int c0 = k * nb, w = n - c0 < nb ? n - c0 : nb;
  int i0 = i * nb, wi = n - i0 < nb ? n - i0 : nb;
  int j0 = j * nb, wj = n - j0 < nb ? n - j0 : nb;
  for (int cc = j0; cc < j0 + wj; cc++)
    for (int p = 0; p < w; p++) {
      double u = AT(A, c0 + p, cc);
      for (int r = i0; r < i0 + wi; r++)
        AT(A, r, cc) -= AT(A, r, c0 + p) * u;
    }
}

/* The swaps of step k applied to the tile columns left of it. */
static void left_swaps(void) {
  for (int k = 1; k < nt; k++) {
    int c0 = k * nb, w = n - c0 < nb ? n - c0 : nb;
    for (int r = c0; r < c0 + w; r++)
      if (ipiv[r] != r)
        for (int cc = 0; cc < c0; cc++) {
          double tmp = AT(A, r, cc);
          AT(A, r, cc) = AT(A, ipiv[r], cc);
          AT(A, ipiv[r], cc) = tmp;
        }
  }
}

static void factor_sequential(void) {
  for (int k = 0; k < nt; k++) {
    panel(k, 0);
    for (int j = k + 1; j < nt; j++) {
      swap_solve(k, j);
      for (int i = k + 1; i < nt; i++)
        gemm(k, i, j);
    }
  }
  left_swaps();
}

static void factor_tasks(void) {
  /* One dependence address per tile column: the panel and the swaps and
     solve write it (inout), the products of that step read it (in: they
     write disjoint tiles), so the next writer waits for all of them. */
  char *col = calloc((size_t)nt, 1);
#pragma omp parallel
#pragma omp single
  for (int k = 0; k < nt; k++) {
#pragma omp task firstprivate(k) depend(inout : col[k])
    panel(k, 1);
    for (int j = k + 1; j < nt; j++) {
#pragma omp task firstprivate(k, j) depend(in : col[k]) depend(inout : col[j])
      swap_solve(k, j);
      for (int i = k + 1; i < nt; i++) {
#pragma omp task firstprivate(k, i, j) depend(in : col[k], col[j])
        gemm(k, i, j);
      }
    }
  }
  left_swaps();
  free(col);
}

/* |P A x - L (U x)|_inf / (n eps |A|_inf |x|_inf), with A0 the original. */
static double residual(const double *A0) {
  double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n),
         *z = malloc(sizeof(double) * (size_t)n);
  unsigned s = 12345;
  double xmax = 0, anorm = 0;
  for (int i = 0; i < n; i++) {
    s = s * 1103515245u + 12345u;
    x[i] = (double)(s >> 8) / (double)(1u << 24) - 0.5;
    xmax = fmax(xmax, fabs(x[i]));
  }
  for (int i = 0; i < n; i++) {
    double row = 0;
    for (int c = 0; c < n; c++)
      row += fabs(AT(A0, i, c));
    anorm = fmax(anorm, row);
  }
  for (int i = 0; i < n; i++) { /* y = U x */
    double acc = 0;
    for (int c = i; c < n; c++)
      acc += AT(A, i, c) * x[c];
    y[i] = acc;
  }
  for (int i = 0; i < n; i++) { /* z = L y */
    double acc = y[i];
    for (int c = 0; c < i; c++)
      acc += AT(A, i, c) * y[c];
    z[i] = acc;
  }
  for (int i = 0; i < n; i++) { /* y = A0 x, then P y */
    double acc = 0;
    for (int c = 0; c < n; c++)
      acc += AT(A0, i, c) * x[c];
    y[i] = acc;
  }
  for (int r = 0; r < n; r++)
    if (ipiv[r] != r) {
      double tmp = y[r];
      y[r] = y[ipiv[r]];
      y[ipiv[r]] = tmp;
    }
  double err = 0;
  for (int i = 0; i < n; i++)
    err = fmax(err, fabs(y[i] - z[i]));
  free(x), free(y), free(z);
  return err / ((double)n * DBL_EPSILON * anorm * xmax);
}

int main(int argc, char **argv) {
  static const long presets[3] = {512, 1024, 2048};
  n = (int)bench_size_arg(argc, argv, 1, presets, presets[0], "n");
  nb = (int)bench_long_arg(argc, argv, 2, 128, "nb");
  if (nb > n)
    nb = n;
  ib = (int)bench_long_arg(argc, argv, 4, 16, "ib");
  if (ib < 1 || ib > 64) {
    fprintf(stderr, "tilelu: ib must be 1..64\n");
    return 2;
  }
  nt = (n + nb - 1) / nb;
  bench_watchdog("LU_TIMEOUT", "tilelu did not finish in LU_TIMEOUT seconds");
  omp_set_max_active_levels(2);
  int threads = bench_team_size();
  P = (int)bench_long_arg(argc, argv, 3, threads, "P");

  size_t bytes = sizeof(double) * (size_t)n * (size_t)n;
  double *A0 = malloc(bytes), *Aseq = malloc(bytes);
  A = malloc(bytes);
  ipiv = malloc(sizeof(int) * (size_t)n);
  int *ipiv_seq = malloc(sizeof(int) * (size_t)n);
  unsigned s = 2024;
  for (size_t i = 0; i < (size_t)n * (size_t)n; i++) {
    s = s * 1103515245u + 12345u;
    A0[i] = (double)(s >> 8) / (double)(1u << 24) - 0.5; /* no diagonal dominance: pivots move */
  }

  memcpy(A, A0, bytes);
  double t0 = bench_now();
  factor_sequential();
  double serial_s = bench_now() - t0;
  memcpy(Aseq, A, bytes);
  memcpy(ipiv_seq, ipiv, sizeof(int) * (size_t)n);

  memcpy(A, A0, bytes);
  t0 = bench_now();
  factor_tasks();
  double t = bench_now() - t0;

  int ok = 1, swaps = 0;
  for (int r = 0; r < n; r++) {
    swaps += ipiv[r] != r;
    if (ipiv[r] != ipiv_seq[r] && ok) {
      fprintf(stderr, "tilelu: pivot of row %d is %d, the sequential run chose %d\n", r, ipiv[r],
              ipiv_seq[r]);
      ok = 0;
    }
  }
  double diff = 0;
  for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
    diff = fmax(diff, fabs(A[i] - Aseq[i]));
  if (diff != 0.0) {
    fprintf(stderr, "tilelu: the factors differ from the sequential run's by up to %g\n", diff);
    ok = 0;
  }
  double res = residual(A0);
  if (!(res < 50.0)) {
    fprintf(stderr, "tilelu: scaled residual %g (want < 50)\n", res);
    ok = 0;
  }
  double flops = 2.0 / 3.0 * (double)n * (double)n * (double)n;
  bench_result("tilelu", ok,
               "n=%d nb=%d ib=%d panel_threads=%d threads=%d swaps=%d residual=%.3f time_s=%.6f "
               "gflops=%.3f serial_s=%.6f speedup=%.3f",
               n, nb, ib, P, threads, swaps, res, t, flops / t * 1e-9, serial_s, serial_s / t);
  free(A0), free(Aseq), free(A), free(ipiv), free(ipiv_seq);
  return ok ? 0 : 1;
}
