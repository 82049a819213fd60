/* Distributed tile LU with partial pivoting (P A = L U) over MPI ranks, with
 * OpenMP tasks inside each rank:
 *
 *  - the n x n matrix is cut into tile columns nb wide, spread cyclically
 *    over the ranks (a 1 x R grid of the 2D block-cyclic layout: column j
 *    lives on rank j mod R), each held as an n x nb block;
 *  - the panel of step k (rows k nb .. n of column k) is factored by its
 *    owner in a task that opens a NESTED parallel region of P threads: they
 *    split the rows and meet at a hand-written spin barrier (atomics and
 *    sched_yield, no runtime call) twice per column, once to pick the
 *    pivot, once before the rank-1 update, and twice per stripe of 32
 *    columns, around the solve that precedes the stripe's dgemm;
 *  - the factored panel and its pivots go to every other rank through a
 *    task that calls blocking MPI_Send on the owner and a task that calls
 *    blocking MPI_Recv on each other rank, chained in step order on every
 *    rank (mpitile.h argues why that cannot deadlock);
 *  - each rank then updates each of its columns right of the panel: a task
 *    for the step's row swaps and the triangular solve of the column's tile
 *    k with the panel's unit lower triangle (depend inout: the column's
 *    tiles k .. nt, through an iterator), and a task per tile below it for
 *    its dgemm (depend in: the panel and tile k, inout: the tile), so that
 *    the panel of step k+1 starts as soon as its column's tiles are updated
 *    (look-ahead); the swaps on its columns left of the panel are tasks of
 *    their own.
 *
 * A rank waiting in MPI while its nested panel team spins is what the
 * gang scheduler and the MPI waits on fibers (ult/mpi_wait.cpp) are for.
 *
 * Check: rank 0 gathers L, U and the pivots and computes
 * |P A x - L (U x)|_inf / (n eps |A|_inf |x|_inf); verified below 10.
 *
 * usage: mpirun -np R mpilu [small|medium|large|n] [nb] [P]
 *   n = 512 / 2048 / 4096; nb = 128 up to n = 1024, else 256; P = the panel
 *   team's size (default: the outer team's).
 * MPITILE_TIMEOUT=s: after s seconds, print what is hung and exit 3. */
#include <cblas.h>

#include "mpitile.h"
#include "spin_barrier.h"

static int n, nb, nt, P;
static double **C;     /* C[j]: tile column j (n x nb, ld n) if held here, else NULL */
static double **Lk;    /* Lk[k]: step k's factored panel, rows k nb .. n (ld n - k nb), received */
static int *piv;       /* piv[r]: the row swapped with row r at its step (global), on every rank */
static int chain;      /* orders this rank's communication tasks */
static const unsigned seed = 11;

static int owner(int j) { return j % mt_ranks; }
static double a_elem(long r, long c) { return mt_element(seed, r, c); }

/* ---- the panel: a nested team with its own spin barrier ---------------- */

static const int ib = 32; /* the panel's inner blocking */

/* Factors the m x nb panel a (ld lda) whose first row is global row r0;
   writes the pivots' global rows to piv[r0 .. r0 + nb). The members split
   the rows. The panel goes in stripes of ib columns: within a stripe,
   column by column (pivot search, a swap of whole panel rows by member 0,
   scaling and a rank-1 update of the stripe's columns); after it, member 0
   solves the stripe's rows of the columns right of it with the stripe's
   unit lower triangle (dtrsm), and each member updates its rows of those
   columns with one rank-ib product (dgemm). */
static void panel(double *a, int lda, int m, int r0) {
  spin_barrier bar = {0, 0, {0}};
  struct cand cand[64];
  int members_req = P < 64 ? P : 64;
#pragma omp parallel num_threads(members_req) shared(bar, cand)
  {
    int me = omp_get_thread_num(), members = omp_get_num_threads(), sense = 0;
    int lo = (int)((long)m * me / members), hi = (int)((long)m * (me + 1) / members);
    for (int s0 = 0; s0 < nb; s0 += ib) {
      int w = nb - s0 < ib ? nb - s0 : ib, s1 = s0 + w; /* the stripe: columns s0 .. s1 */
      for (int c = s0; c < s1; c++) {
        struct cand best = {-1.0, -1, {0}};
        for (int r = lo > c ? lo : c; r < hi; r++) {
          double v = fabs(a[(size_t)c * lda + r]);
          if (v > best.v) /* strict: ties keep the lower row */
            best.v = v, best.row = r;
        }
        cand[me] = best;
        spin_wait(&bar, members, &sense);
        if (me == 0) {
          struct cand g = cand[0];
          for (int t = 1; t < members; t++)
            if (cand[t].v > g.v)
              g = cand[t];
          int pr = g.row < 0 ? c : g.row;
          piv[r0 + c] = r0 + pr;
          if (pr != c)
            for (int cc = 0; cc < nb; cc++) {
              double t = a[(size_t)cc * lda + c];
              a[(size_t)cc * lda + c] = a[(size_t)cc * lda + pr];
              a[(size_t)cc * lda + pr] = t;
            }
        }
        spin_wait(&bar, members, &sense);
        double d = a[(size_t)c * lda + c];
        int from = lo > c + 1 ? lo : c + 1;
        for (int r = from; r < hi; r++)
          a[(size_t)c * lda + r] /= d;
        for (int cc = c + 1; cc < s1; cc++) {
          double u = a[(size_t)cc * lda + c];
          double *dst = a + (size_t)cc * lda, *l = a + (size_t)c * lda;
          for (int r = from; r < hi; r++)
            dst[r] -= l[r] * u;
        }
      }
      if (s1 == nb)
        break;
      spin_wait(&bar, members, &sense);
      if (me == 0)
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, w, nb - s1, 1.0,
                    a + (size_t)s0 * lda + s0, lda, a + (size_t)s1 * lda + s0, lda);
      spin_wait(&bar, members, &sense);
      int from = lo > s1 ? lo : s1;
      if (hi > from)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, hi - from, nb - s1, w, -1.0,
                    a + (size_t)s0 * lda + from, lda, a + (size_t)s1 * lda + s0, lda, 1.0,
                    a + (size_t)s1 * lda + from, lda);
    }
  }
}

/* ---- the update of one column by step k's panel ------------------------ */

/* Step k's row swaps on the nb columns of col (ld n). */
static void swap_rows(double *col, int k) {
  for (int r = k * nb; r < (k + 1) * nb; r++)
    if (piv[r] != r)
      for (int c = 0; c < nb; c++) {
        double t = col[(size_t)c * n + r];
        col[(size_t)c * n + r] = col[(size_t)c * n + piv[r]];
        col[(size_t)c * n + piv[r]] = t;
      }
}

/* The swaps, then U's tile (k, j) = L_kk^-1 A_kj. */
static void solve_top(double *col, const double *l, int ldl, int k) {
  swap_rows(col, k);
  cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, nb, nb, 1.0, l, ldl, col + k * nb,
              n);
}

/* Tile (i, j) -= L_ik U_kj. */
static void update_tile(double *col, const double *l, int ldl, int k, int i) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, nb, nb, nb, -1.0, l + (size_t)(i - k) * nb, ldl,
              col + k * nb, n, 1.0, col + i * nb, n);
}

/* The panel of step k as the other ranks see it: rows k nb .. n, then its
   nb pivots (as doubles), in one message. */
static size_t panel_doubles(int k) { return (size_t)(n - k * nb) * (size_t)nb + (size_t)nb; }

static void factor(void) {
  for (int k = 0; k < nt; k++) {
    int m = n - k * nb;
    double *l;
    int ldl;
    if (owner(k) == mt_rank) {
      double *col = C[k];
      l = col + k * nb, ldl = n;
#pragma omp task depend(iterator(t = k : nt), inout : col[t * nb]) firstprivate(col, k, m) priority(2)
      panel(col + k * nb, n, m, k * nb);
      if (mt_ranks > 1) {
        double *buf = Lk[k];
#pragma omp task depend(iterator(t = k : nt), in : col[t * nb]) depend(out : buf[0]) depend(inout : chain) \
    firstprivate(col, buf, k, m) priority(1)
        {
          for (int c = 0; c < nb; c++)
            memcpy(buf + (size_t)c * m, col + (size_t)c * n + k * nb, sizeof(double) * (size_t)m);
          for (int i = 0; i < nb; i++)
            buf[(size_t)m * nb + i] = piv[k * nb + i];
          for (int s = 0; s < mt_ranks; s++)
            if (s != mt_rank)
              MPI_Send(buf, (int)panel_doubles(k), MPI_DOUBLE, s, k, MPI_COMM_WORLD);
        }
      }
    } else {
      double *buf = Lk[k];
      l = buf, ldl = m;
#pragma omp task depend(out : buf[0]) depend(inout : chain) firstprivate(buf, k, m) priority(1)
      {
        MPI_Recv(buf, (int)panel_doubles(k), MPI_DOUBLE, owner(k), k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < nb; i++)
          piv[k * nb + i] = (int)buf[(size_t)m * nb + i];
      }
    }
    /* The owner's updates read the panel in place, each the tiles it
       needs (a later step's swaps on this column wait for those reads);
       the other ranks' read the received copy, one object. A column's
       tiles are dependence objects of their own (the address of their
       first element): the swaps and the solve take tiles k .. nt of the
       column, each product one tile, so the column of step k+1's panel is
       ready as soon as its own tiles are updated. */
    int mine = owner(k) == mt_rank;
    double *top = mine ? C[k] + k * nb : Lk[k];
    (void)top; /* gcc 12 counts no use in a depend clause (nor li's below) */
    for (int j = 0; j < nt; j++) {
      if (owner(j) != mt_rank || j == k)
        continue;
      double *col = C[j];
      if (j > k) {
#pragma omp task depend(in : top[0]) depend(iterator(t = k : nt), inout : col[t * nb]) \
    firstprivate(col, l, ldl, k) priority(j == k + 1)
        solve_top(col, l, ldl, k);
        for (int i = k + 1; i < nt; i++) {
          double *li = mine ? C[k] + i * nb : Lk[k];
          (void)li;
#pragma omp task depend(in : li[0], col[k * nb]) depend(inout : col[i * nb]) firstprivate(col, l, ldl, k, i) \
    priority(j == k + 1)
          update_tile(col, l, ldl, k, i);
        }
      } else {
#pragma omp task depend(in : top[0]) depend(iterator(t = k : nt), inout : col[t * nb]) firstprivate(col, k)
        swap_rows(col, k);
      }
    }
  }
}

/* Rank 0 gathers the factors and checks P A x = L (U x). */
static int check(double *residual) {
  if (mt_rank != 0) {
    for (int j = 0; j < nt; j++)
      if (owner(j) == mt_rank)
        MPI_Send(C[j], n * nb, MPI_DOUBLE, 0, j, MPI_COMM_WORLD);
    return mt_verdict(residual);
  }
  size_t nn = (size_t)n * (size_t)n;
  double *F = malloc(nn * sizeof(double));
  for (int j = 0; j < nt; j++) {
    double *dst = F + (size_t)j * nb * n;
    if (owner(j) == 0)
      memcpy(dst, C[j], sizeof(double) * (size_t)n * nb);
    else
      MPI_Recv(dst, n * nb, MPI_DOUBLE, owner(j), j, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  double *x, *y, xmax, anorm;
  mt_reference(a_elem, n, seed + 1, &x, &y, &anorm, &xmax);
  double *w = calloc((size_t)n, sizeof(double)), *z = calloc((size_t)n, sizeof(double));
  for (int r = 0; r < n; r++) /* y = P A x: the swaps in the order they were made */
    if (piv[r] != r) {
      double t = y[r];
      y[r] = y[piv[r]];
      y[piv[r]] = t;
    }
  for (long c = 0; c < n; c++) /* w = U x */
    for (long r = 0; r <= c; r++)
      w[r] += F[(size_t)c * n + r] * x[c];
  for (long c = 0; c < n; c++) { /* z = L w, unit diagonal */
    z[c] += w[c];
    for (long r = c + 1; r < n; r++)
      z[r] += F[(size_t)c * n + r] * w[c];
  }
  *residual = mt_scaled(y, z, n, anorm, xmax);
  free(F), free(x), free(y), free(w), free(z);
  return mt_verdict(residual);
}

int main(int argc, char **argv) {
  mt_init(&argc, &argv);
  mt_sizes(argc, argv, &n, &nb);
  if (n % nb) {
    if (mt_rank == 0)
      fprintf(stderr, "mpilu: nb must divide n\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  nt = n / nb;
  omp_set_max_active_levels(2);
  int threads = bench_team_size();
  P = (int)bench_long_arg(argc, argv, 3, threads, "P");

  C = calloc((size_t)nt, sizeof *C);
  Lk = calloc((size_t)nt, sizeof *Lk);
  piv = malloc(sizeof(int) * (size_t)n);
  for (int j = 0; j < nt; j++) {
    if (owner(j) == mt_rank) {
      C[j] = malloc(sizeof(double) * (size_t)n * nb);
      for (int c = 0; c < nb; c++)
        for (int r = 0; r < n; r++)
          C[j][(size_t)c * n + r] = a_elem(r, (long)j * nb + c);
    }
    if (mt_ranks > 1) { /* the owner packs its panel there to send it */
      Lk[j] = malloc(sizeof(double) * panel_doubles(j));
      memset(Lk[j], 0, sizeof(double) * panel_doubles(j));
    }
  }

  double s = mt_timed(factor);

  double residual;
  int ok = check(&residual);
  if (mt_rank == 0) {
    double gf = 2.0 * n * n * n / 3.0 / s * 1e-9;
    printf("mpilu: n=%d nb=%d %d ranks x %d threads, panel team %d: %.3f s, %.2f GFLOP/s, residual %.3g\n", n, nb,
           mt_ranks, threads, P, s, gf, residual);
    bench_result("mpilu", ok, "n=%d nb=%d ranks=%d threads=%d time_s=%.6f gflops=%.3f residual=%.3g", n, nb,
                 mt_ranks, threads, s, gf, residual);
  }
  for (int j = 0; j < nt; j++)
    free(C[j]), free(Lk[j]);
  free(C), free(Lk), free(piv);
  MPI_Finalize();
  return ok ? 0 : 1;
}
