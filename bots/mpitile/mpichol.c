/* Distributed tile Cholesky (A = L L^T, lower) over MPI ranks, with OpenMP
 * tasks inside each rank, shaped like a distributed dense linear algebra
 * library's node-level code:
 *
 *  - the n x n symmetric positive definite matrix is cut into nb x nb tiles,
 *    spread 2D block-cyclically over a p x q grid of ranks: tile (i, j)
 *    lives on rank (i mod p) q + (j mod q);
 *  - each rank builds one task graph over the tiles it holds: at step k the
 *    diagonal tile's factorization (LAPACKE_dpotrf), the triangular solves
 *    of the tiles below it (dtrsm), and the trailing update (dsyrk on the
 *    diagonal, dgemm elsewhere), with depend clauses over tiles, so step
 *    k+1 starts while step k's updates still run;
 *  - a factored tile of column k reaches the ranks whose updates or solves
 *    read it through a task that calls blocking MPI_Send on its owner and a
 *    task that calls blocking MPI_Recv on each of those ranks, into a copy
 *    with the tile's place in the graph. Those tasks are chained, in one
 *    order on every rank (mpitile.h argues why that cannot deadlock), and
 *    overlap with the computing tasks.
 *
 * Check: rank 0 gathers L and computes |A x - L (L^T x)|_inf /
 * (n eps |A|_inf |x|_inf) for a random x; verified when it is below 10.
 *
 * usage: mpirun -np R mpichol [small|medium|large|n] [nb] [p]
 *   n = 512 / 2048 / 4096; nb = 128 up to n = 1024, else 256; p = the grid's
 *   rows (default: the largest divisor of R not above sqrt(R)).
 * MPITILE_TIMEOUT=s: after s seconds, print what is hung and exit 3. */
#include <cblas.h>
#include <lapacke.h>

#include "mpitile.h"

static int n, nb, nt, p, q;
static double **T; /* T[i * nt + j]: tile (i, j), held or received; NULL otherwise */
static int chain;  /* the dependence object that orders this rank's communication tasks */
static const unsigned seed = 7;

static int owner(int i, int j) { return (i % p) * q + (j % q); }
#define TILE(i, j) T[(size_t)(i) * (size_t)nt + (size_t)(j)]

/* Whether rank r reads tile (i, k) of column k (i >= k) after it is factored. */
static int needs(int r, int i, int k) {
  if (owner(i, k) == r)
    return 1;
  if (i == k) { /* the solves below the diagonal read it */
    for (int a = k + 1; a < nt; a++)
      if (owner(a, k) == r)
        return 1;
    return 0;
  }
  for (int b = k + 1; b <= i; b++) /* updates of row i: (i, b) reads (i, k) */
    if (owner(i, b) == r)
      return 1;
  for (int a = i; a < nt; a++) /* updates of column i: (a, i) reads (i, k) */
    if (owner(a, i) == r)
      return 1;
  return 0;
}

/* Element (r, c) of the SPD matrix: symmetric, with n added on the diagonal. */
static double a_elem(long r, long c) {
  double v = r >= c ? mt_element(seed, r, c) : mt_element(seed, c, r);
  return r == c ? v + n : v;
}

static void fill_tile(double *t, int i, int j) {
  for (int c = 0; c < nb; c++)
    for (int r = 0; r < nb; r++)
      t[(size_t)c * nb + r] = a_elem((long)i * nb + r, (long)j * nb + c);
}

/* The owner's side of one exchange: tile (i, k) to every rank that reads it. */
static void send_tile(int i, int k) {
  double *t = TILE(i, k);
#pragma omp task depend(in : t[0]) depend(inout : chain) firstprivate(i, k, t)
  for (int s = 0; s < mt_ranks; s++)
    if (s != mt_rank && needs(s, i, k))
      MPI_Send(t, nb * nb, MPI_DOUBLE, s, i * nt + k, MPI_COMM_WORLD);
}

static void recv_tile(int i, int k) {
  double *t = TILE(i, k);
  int from = owner(i, k);
#pragma omp task depend(out : t[0]) depend(inout : chain) firstprivate(i, k, t, from)
  MPI_Recv(t, nb * nb, MPI_DOUBLE, from, i * nt + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void exchange(int i, int k) {
  if (owner(i, k) == mt_rank) {
    for (int s = 0; s < mt_ranks; s++)
      if (s != mt_rank && needs(s, i, k)) {
        send_tile(i, k);
        return;
      }
  } else if (needs(mt_rank, i, k)) {
    recv_tile(i, k);
  }
}

static void factor(void) {
  for (int k = 0; k < nt; k++) {
    if (owner(k, k) == mt_rank) {
      double *d = TILE(k, k);
#pragma omp task depend(inout : d[0]) firstprivate(d) priority(2)
      LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', nb, d, nb);
    }
    exchange(k, k);
    for (int i = k + 1; i < nt; i++)
      if (owner(i, k) == mt_rank) {
        double *d = TILE(k, k), *t = TILE(i, k);
#pragma omp task depend(in : d[0]) depend(inout : t[0]) firstprivate(d, t) priority(1)
        cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, nb, nb, 1.0, d, nb, t,
                    nb);
      }
    for (int i = k + 1; i < nt; i++)
      exchange(i, k);
    for (int j = k + 1; j < nt; j++)
      for (int i = j; i < nt; i++) {
        if (owner(i, j) != mt_rank)
          continue;
        double *a = TILE(i, k), *b = TILE(j, k), *c = TILE(i, j);
        if (i == j) {
#pragma omp task depend(in : a[0]) depend(inout : c[0]) firstprivate(a, c)
          cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, nb, nb, -1.0, a, nb, 1.0, c, nb);
        } else {
#pragma omp task depend(in : a[0], b[0]) depend(inout : c[0]) firstprivate(a, b, c)
          cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, nb, nb, nb, -1.0, a, nb, b, nb, 1.0, c, nb);
        }
      }
  }
}

/* Rank 0 gathers L (the lower tiles) and checks A x = L (L^T x). */
static int check(double *residual) {
  double *L = mt_gather_triangle(T, nt, nb, owner, 1);
  if (!L)
    return mt_verdict(residual);
  double *x, *y, xmax, anorm;
  mt_reference(a_elem, n, seed + 1, &x, &y, &anorm, &xmax);
  double *w = calloc((size_t)n, sizeof(double)), *z = calloc((size_t)n, sizeof(double));
  for (long c = 0; c < n; c++) /* w = L^T x */
    for (long r = c; r < n; r++)
      w[c] += L[(size_t)c * (size_t)n + (size_t)r] * x[r];
  for (long c = 0; c < n; c++) /* z = L w */
    for (long r = c; r < n; r++)
      z[r] += L[(size_t)c * (size_t)n + (size_t)r] * w[c];
  *residual = mt_scaled(y, z, n, anorm, xmax);
  free(L), free(x), free(y), free(w), free(z);
  return mt_verdict(residual);
}

int main(int argc, char **argv) {
  mt_init(&argc, &argv);
  mt_sizes(argc, argv, &n, &nb);
  p = mt_grid_rows(argc, argv, 3);
  if (n % nb || mt_ranks % p) {
    if (mt_rank == 0)
      fprintf(stderr, "mpichol: nb must divide n and p the number of ranks (%d)\n", mt_ranks);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  q = mt_ranks / p;
  nt = n / nb;
  int threads = bench_team_size();

  size_t tb = (size_t)nb * (size_t)nb;
  T = calloc((size_t)nt * (size_t)nt, sizeof *T);
  for (int j = 0; j < nt; j++)
    for (int i = j; i < nt; i++)
      if (owner(i, j) == mt_rank || needs(mt_rank, i, j)) {
        TILE(i, j) = malloc(tb * sizeof(double));
        if (owner(i, j) == mt_rank)
          fill_tile(TILE(i, j), i, j);
        else
          memset(TILE(i, j), 0, tb * sizeof(double)); /* touched before timing, as the held tiles */
      }

  double s = mt_timed(factor);

  double residual;
  int ok = check(&residual);
  if (mt_rank == 0) {
    printf("mpichol: n=%d nb=%d grid %dx%d ranks x %d threads: %.3f s, %.2f GFLOP/s, residual %.3g\n", n, nb,
           p, q, threads, s, (double)n * n * n / 3.0 / s * 1e-9, residual);
    bench_result("mpichol", ok, "n=%d nb=%d ranks=%d threads=%d time_s=%.6f gflops=%.3f residual=%.3g", n, nb,
                 mt_ranks, threads, s, (double)n * n * n / 3.0 / s * 1e-9, residual);
  }
  for (size_t i = 0; i < (size_t)nt * (size_t)nt; i++)
    free(T[i]);
  free(T);
  MPI_Finalize();
  return ok ? 0 : 1;
}
