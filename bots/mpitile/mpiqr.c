/* Distributed tile QR (A = Q R) over MPI ranks, with OpenMP tasks inside
 * each rank, reduced the way distributed dense linear algebra libraries do
 * it: a flat tree within each rank, then a tree across the ranks.
 *
 *  - the n x n matrix is cut into nb x nb tiles spread 2D block-cyclically
 *    over a p x q grid of ranks: tile (i, j) lives on rank
 *    (i mod p) q + (j mod q);
 *  - at step k each rank of process column k mod q factors its tiles of
 *    column k at or below row k: LAPACK's dgeqrt on its first one (its
 *    "top"), then dtpqrt on each further one against the top's R; the
 *    reflectors (V in the tile, T beside it) go along its process row, and
 *    every rank of that row applies them to its tiles right of the panel
 *    (dgemqrt on its top row's tile, dtpmqrt on each further row's), a
 *    task per tile;
 *  - with p > 1 the tops' R factors are then reduced onto row k's rank,
 *    one process row after the other: the other rank sends its R, row k's
 *    rank eliminates it against tile (k, k) (dtpqrt of two triangles)
 *    and sends those reflectors along its process row; for each column
 *    right of the panel, the other row's top tile travels to the rank of
 *    tile (k, j), is updated there together with it (dtpmqrt) and comes
 *    back;
 *  - every transfer is a task calling blocking MPI_Send or MPI_Recv, and
 *    all of them are chained in one global order on every rank (mpitile.h
 *    argues why that cannot deadlock); the computing tasks depend on tiles
 *    only, so step k+1's panel starts as soon as its column is updated.
 *
 * Check: A^T A = R^T R for the R on and above the diagonal, so rank 0
 * gathers R and computes |A^T (A x) - R^T (R x)|_inf /
 * (n eps |A|_1 |A|_inf |x|_inf) for a random x; verified below 10.
 *
 * usage: mpirun -np R mpiqr [small|medium|large|n] [nb] [p]
 *   n = 512 / 2048 / 4096; nb = 128 up to n = 1024, else 256; p = the
 *   grid's rows (default: the largest divisor of R not above sqrt(R)).
 * MPITILE_TIMEOUT=s: after s seconds, print what is hung and exit 3. */
#include <lapacke.h>

#include "mpitile.h"

static int n, nb, nt, p, q, myrow, mycol;
static const int ib = 32; /* the kernels' inner blocking: T is ib x nb */
static double **A;        /* A[i nt + j]: tile (i, j), held, or a panel tile's reflectors as received */
static double **Tf;       /* Tf[i nt + k]: the T of panel tile (i, k), computed or received */
static double **Rb, **Tb; /* [k p + r]: step k's reduction of process row r's top (V, T), p > 1 */
static double **Buf;      /* Buf[r nt + j]: process row r's top tile of column j, visiting for an update */
static int chain;         /* orders this rank's communication tasks */
static const unsigned seed = 13;
enum { kVT, kR, kRT, kUp, kDown, kKinds };

#define TILE(i, j) A[(size_t)(i) * (size_t)nt + (size_t)(j)]
#define TF(i, k) Tf[(size_t)(i) * (size_t)nt + (size_t)(k)]
#define RB(k, r) Rb[(size_t)(k) * (size_t)p + (size_t)(r)]
#define TB(k, r) Tb[(size_t)(k) * (size_t)p + (size_t)(r)]
#define BUF(r, j) Buf[(size_t)(r) * (size_t)nt + (size_t)(j)]

static int rank_of(int row, int col) { return row * q + col; }
static int owner(int i, int j) { return rank_of(i % p, j % q); }
/* Process row r's first tile row at or below row k; nt if none. */
static int top_of(int r, int k) {
  int i = k + ((r - k % p) % p + p) % p;
  return i < nt ? i : nt;
}
/* Whether process column c holds a tile column right of k. */
static int cols_after(int c, int k) {
  for (int j = k + 1; j < nt; j++)
    if (j % q == c)
      return 1;
  return 0;
}
static int tag(int kind, int k, int x) { return (k * (nt > p ? nt : p) + x) * kKinds + kind; }
static double a_elem(long r, long c) { return mt_element(seed, r, c); }

static double *work(void) { return malloc(sizeof(double) * (size_t)ib * (size_t)nb); }

/* Blocking sends of a tile (and its T, when t is not NULL) from the rank
   at (row, from) to the ranks of that process row whose columns go on
   after k; the receivers' side is recv_vt. Both are chained. */
static void send_vt(double *v, double *t, int row, int from, int k, int kind, int x) {
#pragma omp task depend(in : v[0], t[0]) depend(inout : chain) firstprivate(v, t, row, from, k, kind, x)
  for (int c = 0; c < q; c++)
    if (c != from && cols_after(c, k)) {
      MPI_Send(v, nb * nb, MPI_DOUBLE, rank_of(row, c), tag(kind, k, x), MPI_COMM_WORLD);
      MPI_Send(t, ib * nb, MPI_DOUBLE, rank_of(row, c), tag(kind, k, x), MPI_COMM_WORLD);
    }
}

static void recv_vt(double *v, double *t, int row, int from, int k, int kind, int x) {
#pragma omp task depend(out : v[0], t[0]) depend(inout : chain) firstprivate(v, t, row, from, k, kind, x)
  {
    MPI_Recv(v, nb * nb, MPI_DOUBLE, rank_of(row, from), tag(kind, k, x), MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(t, ib * nb, MPI_DOUBLE, rank_of(row, from), tag(kind, k, x), MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

/* Reflectors (v, t) of process row `row`, computed on column `from`, to the
   rest of that row. */
static void share_vt(double *v, double *t, int row, int from, int k, int kind, int x) {
  if (myrow != row || q == 1)
    return;
  if (mycol == from) {
    for (int c = 0; c < q; c++)
      if (c != from && cols_after(c, k)) {
        send_vt(v, t, row, from, k, kind, x);
        return;
      }
  } else if (cols_after(mycol, k)) {
    recv_vt(v, t, row, from, k, kind, x);
  }
}

/* One tile between two ranks, a chained blocking task on each side. */
static void move_tile(double *from_t, double *to_t, int src, int dst, int t) {
  if (mt_rank == src) {
#pragma omp task depend(in : from_t[0]) depend(inout : chain) firstprivate(from_t, dst, t)
    MPI_Send(from_t, nb * nb, MPI_DOUBLE, dst, t, MPI_COMM_WORLD);
  } else if (mt_rank == dst) {
#pragma omp task depend(out : to_t[0]) depend(inout : chain) firstprivate(to_t, src, t)
    MPI_Recv(to_t, nb * nb, MPI_DOUBLE, src, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

/* Step k on this rank's tiles, in its process row: the panel if it holds
   column k, the reflectors' exchange, and the updates right of it. */
static void local_step(int k) {
  int c = k % q, top = top_of(myrow, k);
  if (mycol == c && top < nt) {
    double *d = TILE(top, k), *t = TF(top, k);
#pragma omp task depend(inout : d[0]) depend(out : t[0]) firstprivate(d, t) priority(2)
    {
      double *w = work();
      LAPACKE_dgeqrt_work(LAPACK_COL_MAJOR, nb, nb, ib, d, nb, t, ib, w);
      free(w);
    }
    for (int i = top + p; i < nt; i += p) {
      double *b = TILE(i, k), *tb = TF(i, k);
#pragma omp task depend(inout : d[0], b[0]) depend(out : tb[0]) firstprivate(d, b, tb) priority(2)
      {
        double *w = work();
        LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, nb, nb, 0, ib, d, nb, b, nb, tb, ib, w);
        free(w);
      }
    }
  }
  for (int r = 0; r < p; r++)
    for (int i = top_of(r, k); i < nt; i += p)
      share_vt(TILE(i, k), TF(i, k), r, c, k, kVT, i);
  if (top >= nt)
    return;
  for (int j = k + 1; j < nt; j++) {
    if (j % q != mycol)
      continue;
    double *v = TILE(top, k), *t = TF(top, k), *a = TILE(top, j);
#pragma omp task depend(in : v[0], t[0]) depend(inout : a[0]) firstprivate(v, t, a) priority(j == k + 1)
    {
      double *w = work();
      LAPACKE_dgemqrt_work(LAPACK_COL_MAJOR, 'L', 'T', nb, nb, nb, ib, v, nb, t, ib, a, nb, w);
      free(w);
    }
    for (int i = top + p; i < nt; i += p) {
      double *vi = TILE(i, k), *ti = TF(i, k), *b = TILE(i, j);
#pragma omp task depend(in : vi[0], ti[0]) depend(inout : a[0], b[0]) firstprivate(vi, ti, a, b) priority(j == k + 1)
      {
        double *w = work();
        LAPACKE_dtpmqrt_work(LAPACK_COL_MAJOR, 'L', 'T', nb, nb, nb, 0, ib, vi, nb, ti, ib, a, nb, b, nb, w);
        free(w);
      }
    }
  }
}

/* Step k across process rows (p > 1): each other row's top R, in turn,
   eliminated against tile (k, k) on row k's rank, and its reflectors
   applied to the pairs (tile (k, j), that row's top tile of column j). */
static void cross_step(int k) {
  int c = k % q, dr = k % p, d = rank_of(dr, c);
  for (int s = 1; s < p; s++) {
    int r = (dr + s) % p, top = top_of(r, k);
    if (top >= nt)
      continue;
    double *rb = RB(k, r), *tb = TB(k, r);
    move_tile(TILE(top, k), rb, rank_of(r, c), d, tag(kR, k, r));
    if (mt_rank == d) {
      double *kk = TILE(k, k);
#pragma omp task depend(inout : kk[0], rb[0]) depend(out : tb[0]) firstprivate(kk, rb, tb) priority(2)
      {
        for (int col = 0; col < nb; col++) /* below the diagonal: the sender's own reflectors */
          for (int row = col + 1; row < nb; row++)
            rb[(size_t)col * nb + row] = 0;
        double *w = work();
        LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, nb, nb, nb, ib, kk, nb, rb, nb, tb, ib, w);
        free(w);
      }
    }
    share_vt(rb, tb, dr, c, k, kRT, r);
    for (int j = k + 1; j < nt; j++) {
      int here = rank_of(dr, j % q), there = rank_of(r, j % q);
      if (mt_rank != here && mt_rank != there)
        continue;
      double *b = mt_rank == here ? BUF(r, j) : TILE(top, j);
      move_tile(TILE(top, j), b, there, here, tag(kUp, k, j));
      if (mt_rank == here) {
        double *a = TILE(k, j);
#pragma omp task depend(in : rb[0], tb[0]) depend(inout : a[0], b[0]) firstprivate(rb, tb, a, b) \
    priority(j == k + 1)
        {
          double *w = work();
          LAPACKE_dtpmqrt_work(LAPACK_COL_MAJOR, 'L', 'T', nb, nb, nb, nb, ib, rb, nb, tb, ib, a, nb, b, nb, w);
          free(w);
        }
      }
      move_tile(b, TILE(top, j), here, there, tag(kDown, k, j));
    }
  }
}

static void factor(void) {
  for (int k = 0; k < nt; k++) {
    local_step(k);
    cross_step(k);
  }
}

/* Rank 0 gathers R (tiles on and above the diagonal, the diagonal tiles'
   upper triangles) and checks A^T (A x) = R^T (R x). */
static int check(double *residual) {
  double *R = mt_gather_triangle(A, nt, nb, owner, 0);
  if (!R)
    return mt_verdict(residual);
  double *x, *y, xmax, anorm;
  mt_reference(a_elem, n, seed + 1, &x, &y, &anorm, &xmax);
  double *aty = calloc((size_t)n, sizeof(double)), *w = calloc((size_t)n, sizeof(double)),
         *z = calloc((size_t)n, sizeof(double)), anorm1 = 0;
  for (long c = 0; c < n; c++) { /* A^T y and |A|_1 */
    double s = 0, col = 0;
    for (long r = 0; r < n; r++) {
      double v = a_elem(r, c);
      s += v * y[r];
      col += fabs(v);
    }
    aty[c] = s;
    anorm1 = fmax(anorm1, col);
  }
  for (long c = 0; c < n; c++) /* w = R x */
    for (long r = 0; r <= c; r++)
      w[r] += R[(size_t)c * (size_t)n + (size_t)r] * x[c];
  for (long c = 0; c < n; c++) /* z = R^T w */
    for (long r = 0; r <= c; r++)
      z[c] += R[(size_t)c * (size_t)n + (size_t)r] * w[r];
  *residual = mt_scaled(aty, z, n, anorm * anorm1, xmax);
  free(R), free(x), free(y), free(aty), free(w), free(z);
  return mt_verdict(residual);
}

static double *zeroed(size_t doubles) {
  double *t = malloc(doubles * sizeof(double));
  memset(t, 0, doubles * sizeof(double)); /* touched before timing, as the held tiles */
  return t;
}

int main(int argc, char **argv) {
  mt_init(&argc, &argv);
  mt_sizes(argc, argv, &n, &nb);
  p = mt_grid_rows(argc, argv, 3);
  if (n % nb || nb < ib || p < 1 || mt_ranks % p) {
    if (mt_rank == 0)
      fprintf(stderr, "mpiqr: nb (at least %d) must divide n, and p the number of ranks (%d)\n", ib, mt_ranks);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  q = mt_ranks / p;
  myrow = mt_rank / q, mycol = mt_rank % q;
  nt = n / nb;
  int threads = bench_team_size();

  size_t tiles = (size_t)nt * (size_t)nt, tb = (size_t)nb * (size_t)nb;
  A = calloc(tiles, sizeof *A), Tf = calloc(tiles, sizeof *Tf);
  Rb = calloc((size_t)nt * (size_t)p, sizeof *Rb), Tb = calloc((size_t)nt * (size_t)p, sizeof *Tb);
  Buf = calloc((size_t)p * (size_t)nt, sizeof *Buf);
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nt; j++) {
      if (owner(i, j) == mt_rank) {
        TILE(i, j) = malloc(tb * sizeof(double));
        for (int c = 0; c < nb; c++)
          for (int r = 0; r < nb; r++)
            TILE(i, j)[(size_t)c * nb + r] = a_elem((long)i * nb + r, (long)j * nb + c);
      } else if (i >= j && i % p == myrow && cols_after(mycol, j)) { /* panel reflectors received */
        TILE(i, j) = zeroed(tb);
      }
      if (i >= j && TILE(i, j))
        TF(i, j) = zeroed((size_t)ib * nb);
    }
  for (int k = 0; k < nt; k++)
    for (int r = 0; r < p; r++)
      if (r != k % p && top_of(r, k) < nt && myrow == k % p) {
        RB(k, r) = zeroed(tb);
        TB(k, r) = zeroed((size_t)ib * nb);
      }
  for (int r = 0; r < p; r++)
    for (int j = 0; j < nt; j++)
      if (r != myrow && j % q == mycol)
        BUF(r, j) = zeroed(tb);

  double s = mt_timed(factor);

  double residual;
  int ok = check(&residual);
  if (mt_rank == 0) {
    double gf = 4.0 * n * n * n / 3.0 / s * 1e-9;
    printf("mpiqr: n=%d nb=%d grid %dx%d ranks x %d threads: %.3f s, %.2f GFLOP/s, residual %.3g\n", n, nb, p, q,
           threads, s, gf, residual);
    bench_result("mpiqr", ok, "n=%d nb=%d ranks=%d threads=%d time_s=%.6f gflops=%.3f residual=%.3g", n, nb,
                 mt_ranks, threads, s, gf, residual);
  }
  for (size_t i = 0; i < tiles; i++)
    free(A[i]), free(Tf[i]);
  for (size_t i = 0; i < (size_t)nt * (size_t)p; i++)
    free(Rb[i]), free(Tb[i]), free(Buf[i]);
  free(A), free(Tf), free(Rb), free(Tb), free(Buf);
  MPI_Finalize();
  return ok ? 0 : 1;
}
