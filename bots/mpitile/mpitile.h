/* What the distributed tile factorizations (mpichol.c, mpilu.c, mpiqr.c) share:
 * MPI start-up with MPI_THREAD_MULTIPLE, the process grid, a matrix whose
 * every element any rank can compute on its own, the single BLAS thread,
 * the watchdog, and the RESULT line (printed by rank 0 only).
 *
 * Communication is done by tasks that call blocking MPI (MPI_Send and
 * MPI_Recv) and are chained on one dependence object per rank, in the same
 * global order on every rank. That is what keeps the programs free of
 * deadlock on every runtime and at every thread count, one thread per rank
 * included: take the first exchange, in that order, that has not completed
 * everywhere. Every earlier one has, so on each rank taking part its task
 * is ready as soon as its data is; a receiver's needs nothing more, and a
 * sender's data depends only on earlier exchanges and on local tasks, which
 * the sender's threads run since at most one of them (the one in the
 * chain) is inside MPI, and its chain has not reached a later exchange. */
#ifndef BOBBIN_BOTS_MPITILE_H
#define BOBBIN_BOTS_MPITILE_H

#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include "bench.h"

static int mt_rank, mt_ranks;

/* Uniform in [-0.5, 0.5), a function of (seed, r, c) alone: every rank
   generates its own tiles, and rank 0 the whole matrix for the check. */
static inline double mt_element(unsigned seed, long r, long c) {
  uint64_t x = ((uint64_t)seed << 48) ^ ((uint64_t)r << 24) ^ (uint64_t)c;
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return (double)(x >> 11) / 9007199254740992.0 - 0.5;
}

/* OpenBLAS runs its kernels on one thread inside each task (the program's
   parallelism is the tasks'); a BLAS without the call is single-threaded. */
extern void openblas_set_num_threads(int) __attribute__((weak));

static inline void mt_init(int *argc, char ***argv) {
  int provided;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mt_ranks);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (mt_rank == 0)
      fprintf(stderr, "%s: this MPI gives thread level %d, not MPI_THREAD_MULTIPLE\n", (*argv)[0], provided);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (openblas_set_num_threads)
    openblas_set_num_threads(1);
  bench_watchdog("MPITILE_TIMEOUT", "the factorization did not finish in MPITILE_TIMEOUT seconds");
}

/* Max over the ranks of each rank's elapsed time between two barriers is
   what the caller's t1 - t0 is, since the barrier ends together. */
static inline double mt_sync_now(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  return bench_now();
}

/* The check's reference: a random x (seed xseed), y = A x for the matrix
   whose element (r, c) is elem(r, c), |A|_inf and |x|_inf. The caller frees
   *x and *y. */
static inline void mt_reference(double (*elem)(long, long), long n, unsigned xseed, double **x, double **y,
                                double *anorm, double *xmax) {
  *x = malloc(sizeof(double) * (size_t)n);
  *y = malloc(sizeof(double) * (size_t)n);
  *xmax = 0, *anorm = 0;
  for (long i = 0; i < n; i++) {
    (*x)[i] = mt_element(xseed, i, 0);
    *xmax = fmax(*xmax, fabs((*x)[i]));
  }
  for (long r = 0; r < n; r++) {
    double row = 0, s = 0;
    for (long c = 0; c < n; c++) {
      double v = elem(r, c);
      row += fabs(v);
      s += v * (*x)[c];
    }
    (*y)[r] = s;
    *anorm = fmax(*anorm, row);
  }
}

/* Seconds `factor` takes, run by one thread of a parallel region whose
   others take its tasks, between barriers of all ranks. */
static inline double mt_timed(void (*factor)(void)) {
  double t0 = mt_sync_now();
#pragma omp parallel
#pragma omp single
  factor();
  return mt_sync_now() - t0;
}

/* Every rank's verdict: rank 0's residual (computed there) below 10. */
static inline int mt_verdict(double *residual) {
  MPI_Bcast(residual, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return *residual < 10.0;
}

/* The grid's rows p: argv[index] if given, else the largest divisor of the
   rank count not above its square root (1 x 2 for 2 ranks, 2 x 2 for 4). */
static inline int mt_grid_rows(int argc, char **argv, int index) {
  int p = 1;
  for (int d = 1; d * d <= mt_ranks; d++)
    if (mt_ranks % d == 0)
      p = d;
  return (int)bench_long_arg(argc, argv, index, p, "p");
}

/* n (a preset or a number, argv[1]) and the tile size nb (argv[2]). */
static inline void mt_sizes(int argc, char **argv, int *n, int *nb) {
  static const long presets[3] = {512, 2048, 4096};
  *n = (int)bench_size_arg(argc, argv, 1, presets, presets[0], "n");
  *nb = (int)bench_long_arg(argc, argv, 2, *n <= 1024 ? 128 : 256, "nb");
}

/* Rank 0 assembles the (nt nb) x (nt nb) column-major matrix of the tiles
   on and below the diagonal (lower) or on and above it (!lower), the
   diagonal tiles cut to that triangle, from tiles[i nt + j] (nb x nb, held
   by rank owner(i, j)); the other ranks send theirs. Returns the matrix on
   rank 0 (the caller frees it), NULL on the others. */
static inline double *mt_gather_triangle(double **tiles, int nt, int nb, int (*owner)(int, int), int lower) {
  size_t tb = (size_t)nb * (size_t)nb, n = (size_t)nt * (size_t)nb;
  if (mt_rank != 0) {
    for (int i = 0; i < nt; i++)
      for (int j = lower ? 0 : i; j <= (lower ? i : nt - 1); j++)
        if (owner(i, j) == mt_rank)
          MPI_Send(tiles[(size_t)i * nt + j], (int)tb, MPI_DOUBLE, 0, i * nt + j, MPI_COMM_WORLD);
    return NULL;
  }
  double *m = calloc(n * n, sizeof(double)), *tile = malloc(tb * sizeof(double));
  for (int i = 0; i < nt; i++)
    for (int j = lower ? 0 : i; j <= (lower ? i : nt - 1); j++) {
      const double *t = tiles[(size_t)i * nt + j];
      if (owner(i, j) != 0) {
        MPI_Recv(tile, (int)tb, MPI_DOUBLE, owner(i, j), i * nt + j, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        t = tile;
      }
      for (int c = 0; c < nb; c++)
        for (int r = 0; r < nb; r++)
          if (i != j || (lower ? r >= c : r <= c))
            m[((size_t)j * nb + c) * n + (size_t)i * nb + r] = t[(size_t)c * nb + r];
    }
  free(tile);
  return m;
}

/* |y - z|_inf / (n eps |A|_inf |x|_inf), the scaled residual the checks use. */
static inline double mt_scaled(const double *y, const double *z, long n, double anorm, double xmax) {
  double err = 0;
  for (long i = 0; i < n; i++)
    err = fmax(err, fabs(y[i] - z[i]));
  return err / ((double)n * DBL_EPSILON * anorm * xmax);
}

#endif
