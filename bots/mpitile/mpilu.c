/* Distributed tile LU with partial pivoting (P A = L U) over MPI ranks, with
 * OpenMP tasks inside each rank:
 *
 *  - the n x n matrix is cut into nb x nb tiles spread 2D block-cyclically
 *    over a p x q grid of ranks: tile (i, j) lives on rank
 *    (i mod p) q + (j mod q); a rank holds its tiles of each of its tile
 *    columns as one column block (its tile rows i = myrow, myrow + p, ...);
 *  - the panel of step k (tiles k .. nt of column k, on the p ranks of
 *    process column k mod q) is factored in a task that opens a NESTED
 *    parallel region of P threads on each of those ranks: they split the
 *    rank's rows and meet at a hand-written spin barrier (atomics and
 *    sched_yield, no runtime call) twice per column and twice per stripe of
 *    32 columns. With p > 1 the pivot search is distributed: per column,
 *    member 0 combines the members' candidates and the p ranks agree on
 *    the pivot with one MPI_Allreduce of a reduction of their own, which
 *    carries the pivot's row and the row it displaces to every rank,
 *    while the other members wait at the spin barrier. Every rank of the
 *    panel keeps the pivot rows, so each solves the stripe's rows of the
 *    panel's right part itself before its rows' product;
 *  - with q > 1 the factored panel and its pivots go along each process row
 *    (a task calling MPI_Isend / MPI_Waitall on the panel's rank, one
 *    calling MPI_Recv on each other); with p > 1 each other column's row
 *    swaps are a task exchanging the displaced rows between process rows,
 *    and U's tile (k, j), solved on process row k mod p, goes down its
 *    process column by a task on each side; all communication tasks, the
 *    panel with p > 1 included, are chained in one global order on every
 *    rank (mpitile.h argues why that cannot deadlock);
 *  - each rank updates its tiles right of the panel: per column the step's
 *    row swaps, the triangular solve of tile (k, j) with the panel's unit
 *    lower triangle on the row that holds it, and a task per tile below for
 *    its dgemm (depend in: the panel's tile and U's tile, inout: the tile),
 *    so that the panel of step k+1 starts as soon as its column's tiles are
 *    updated (look-ahead); the swaps on columns left of the panel are tasks
 *    of their own.
 *
 * A rank waiting in MPI while its nested panel team spins, and a panel
 * team whose member 0 is inside MPI while the others spin, are what the
 * gang scheduler and the MPI waits on fibers (ult/mpi_wait.cpp) are for.
 *
 * Check: rank 0 gathers L, U and the pivots and computes
 * |P A x - L (U x)|_inf / (n eps |A|_inf |x|_inf); verified below 10.
 *
 * usage: mpirun -np R mpilu [small|medium|large|n] [nb] [P] [p]
 *   n = 512 / 2048 / 4096; nb = 128 up to n = 1024, else 256; P = the panel
 *   team's size (default: the outer team's); p = the grid's rows (default:
 *   the largest divisor of R not above sqrt(R)).
 * MPITILE_TIMEOUT=s: after s seconds, print what is hung and exit 3. */
#include <cblas.h>
#include <limits.h>

#include "mpitile.h"
#include "spin_barrier.h"

static int n, nb, nt, P, p, q, myrow, mycol;
static int lt;         /* this rank's tile rows: i = myrow, myrow + p, ... < nt */
static int lm;         /* lt nb: the rows of its column blocks */
static double **C;     /* C[j]: its tiles of column j (lm x nb, ld lm) if j mod q == mycol, else NULL */
static double **Lk;    /* Lk[k]: step k's panel as received (its tile rows >= k, ld their rows), then nb pivots */
static double **Ub;    /* Ub[k nt + j]: U's tile (k, j) sent or received (nb x nb, ld nb), p > 1 */
static int *piv;       /* piv[r]: the row swapped with row r at its step (global), on every rank */
static int chain;      /* orders this rank's communication tasks */
static MPI_Comm colcomm; /* this process column's ranks, ranked by process row */
static double *top;    /* the panel's pivot rows (nb x nb, ld nb): row c is the pivot row of column c */
static double *prow;   /* the pivot row (nb), p = 1 */
/* p > 1: a member's pivot candidate as the panel's reduction carries it:
   |value|, its global row (1e300: none), whether this rank holds the
   column's own row, the candidate's row, the column's row (3 + 2 nb). */
static double *pmsg, *pres;
static MPI_Datatype pivot_type;
static MPI_Op pivot_op;
static const unsigned seed = 11;
enum { kMaxGrid = 64 }; /* process rows and columns, at most (the requests of one exchange) */

static int prow_of(long g) { return (int)((g / nb) % p); } /* the process row holding global row g */
static int tiles_of_row(int r) { return (nt - r + p - 1) / p; }
/* Process row r's first local tile at or after global tile k. */
static int first_tile(int r, int k) { return k <= r ? 0 : (k - r + p - 1) / p; }
static long local_row(long g) { return (g / nb) / p * nb + g % nb; } /* for a global row held here */
static double *tile(int i, int j) { return C[j] + (size_t)(i / p) * nb; } /* ld lm */
static double a_elem(long r, long c) { return mt_element(seed, r, c); }

/* The reduction of pivot candidates: the largest |value|, ties to the
   lowest row, with its row; and the column's own row from the rank that
   holds it. Commutative and associative. */
static void pivot_max(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  size_t span = 3 + 2 * (size_t)nb;
  for (int e = 0; e < *len; e++) {
    const double *a = (const double *)in + (size_t)e * span;
    double *b = (double *)inout + (size_t)e * span;
    if (a[0] > b[0] || (a[0] == b[0] && a[1] < b[1])) {
      b[0] = a[0], b[1] = a[1];
      memcpy(b + 3, a + 3, sizeof(double) * (size_t)nb);
    }
    if (a[2] > 0) {
      b[2] = 1;
      memcpy(b + 3 + nb, a + 3 + nb, sizeof(double) * (size_t)nb);
    }
  }
}

/* ---- the panel: a nested team with its own spin barrier ---------------- */

static const int ib = 32; /* the panel's inner blocking */

/* Factors this rank's part of step k's panel: a (ld lm) holds its m rows
   of tile rows >= k, the first nb of them tile k's on its process row
   (diag). Writes the pivots' global rows to piv[k nb .. k nb + nb) and the
   pivot rows to top. The members split the rows. The panel goes in stripes
   of ib columns: within a stripe, column by column (the pivot search, the
   swap, scaling and a rank-1 update of the stripe's columns); after it,
   member 0 solves the stripe's rows of the columns right of it with the
   stripe's unit lower triangle (dtrsm, on top) and each member updates its
   rows of those columns with one rank-ib product (dgemm). */
static void panel(double *a, int m, int k) {
  spin_barrier bar = {0, 0, {0}};
  struct cand cand[64];
  int members_req = P < 64 ? P : 64, diag = myrow == k % p, first = first_tile(myrow, k);
  long r0 = (long)k * nb;
#pragma omp parallel num_threads(members_req) shared(bar, cand)
  {
    int me = omp_get_thread_num(), members = omp_get_num_threads(), sense = 0;
    int lo = (int)((long)m * me / members), hi = (int)((long)m * (me + 1) / members);
    for (int s0 = 0; s0 < nb; s0 += ib) {
      int w = nb - s0 < ib ? nb - s0 : ib, s1 = s0 + w; /* the stripe: columns s0 .. s1 */
      for (int c = s0; c < s1; c++) {
        struct cand best = {-1.0, -1, {0}};
        int from = diag && c > lo ? c : lo;
        for (int r = from; r < hi; r++) {
          double v = fabs(a[(size_t)c * lm + r]);
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
          long gc = r0 + c, pr; /* the global rows: the column's and its pivot's */
          const double *pivot_row, *displaced; /* rows pr and gc before the swap */
          if (p == 1) {
            pr = g.row < 0 ? gc : r0 + g.row;
            for (int cc = 0; cc < nb; cc++)
              prow[cc] = a[(size_t)cc * lm + (pr - r0)];
            pivot_row = prow, displaced = NULL;
          } else {
            /* One reduction agrees on the pivot and carries its row and
               the row it displaces (local row r is global row
               ((first + r / nb) p + myrow) nb + r % nb). */
            double *mine = pmsg;
            mine[0] = g.v;
            mine[1] = g.row < 0 ? 1e300 : (double)(((long)(first + g.row / nb) * p + myrow) * nb + g.row % nb);
            mine[2] = diag;
            for (int cc = 0; cc < nb; cc++) {
              mine[3 + cc] = g.row < 0 ? 0.0 : a[(size_t)cc * lm + g.row];
              mine[3 + nb + cc] = diag ? a[(size_t)cc * lm + c] : 0.0;
            }
            MPI_Allreduce(mine, pres, 1, pivot_type, pivot_op, colcomm);
            pr = (long)pres[1];
            pivot_row = pres + 3, displaced = pres + 3 + nb;
          }
          if (pr != gc) { /* rows gc (tile k, on the diagonal's process row) and pr trade places */
            if (prow_of(pr) == myrow) {
              long lpr = local_row(pr) - (long)first * nb; /* in a */
              for (int cc = 0; cc < nb; cc++)
                a[(size_t)cc * lm + lpr] = displaced ? displaced[cc] : a[(size_t)cc * lm + c];
            }
            if (diag)
              for (int cc = 0; cc < nb; cc++)
                a[(size_t)cc * lm + c] = pivot_row[cc];
          }
          for (int cc = 0; cc < nb; cc++)
            top[(size_t)cc * nb + c] = pivot_row[cc];
          piv[gc] = (int)pr;
        }
        spin_wait(&bar, members, &sense);
        double d = top[(size_t)c * nb + c];
        int below = diag && c + 1 > lo ? c + 1 : lo;
        for (int r = below; r < hi; r++)
          a[(size_t)c * lm + r] /= d;
        for (int cc = c + 1; cc < s1; cc++) {
          double u = top[(size_t)cc * nb + c];
          double *dst = a + (size_t)cc * lm, *l = a + (size_t)c * lm;
          for (int r = below; r < hi; r++)
            dst[r] -= l[r] * u;
        }
      }
      if (s1 == nb)
        break;
      spin_wait(&bar, members, &sense);
      if (me == 0) {
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, w, nb - s1, 1.0,
                    top + (size_t)s0 * nb + s0, nb, top + (size_t)s1 * nb + s0, nb);
        if (diag)
          for (int cc = s1; cc < nb; cc++)
            memcpy(a + (size_t)cc * lm + s0, top + (size_t)cc * nb + s0, sizeof(double) * (size_t)w);
      }
      spin_wait(&bar, members, &sense);
      int from = diag && s1 > lo ? s1 : lo;
      if (hi > from)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, hi - from, nb - s1, w, -1.0,
                    a + (size_t)s0 * lm + from, lm, top + (size_t)s1 * nb + s0, nb, 1.0,
                    a + (size_t)s1 * lm + from, lm);
    }
  }
}

/* ---- the update of one column by step k's panel ------------------------ */

/* Step k's row swaps on this rank's rows of column j (ld lm). With p > 1
   the rows they displace across process rows are exchanged: the swaps are
   composed into where each touched row's content comes from, each rank
   packs what it holds for the others and writes what it receives. */
static void swap_rows(int j, int k) {
  double *col = C[j];
  long r0 = (long)k * nb;
  if (p == 1) {
    for (long r = r0; r < r0 + nb; r++)
      if (piv[r] != r)
        for (int c = 0; c < nb; c++) {
          double t = col[(size_t)c * lm + r];
          col[(size_t)c * lm + r] = col[(size_t)c * lm + piv[r]];
          col[(size_t)c * lm + piv[r]] = t;
        }
    return;
  }
  long *dst = malloc(sizeof(long) * 2 * (size_t)nb), *src = malloc(sizeof(long) * 2 * (size_t)nb);
  int touched = 0;
  for (long r = r0; r < r0 + nb; r++) {
    if (piv[r] == r)
      continue;
    int a = -1, b = -1;
    for (int t = 0; t < touched; t++) {
      if (dst[t] == r)
        a = t;
      if (dst[t] == piv[r])
        b = t;
    }
    if (a < 0)
      a = touched, dst[touched] = src[touched] = r, touched++;
    if (b < 0)
      b = touched, dst[touched] = src[touched] = piv[r], touched++;
    long t = src[a];
    src[a] = src[b], src[b] = t;
  }
  /* Row dst[t] now takes what row src[t] held. */
  double *held = malloc(sizeof(double) * (size_t)nb * (size_t)(touched + 1));
  double *out = malloc(sizeof(double) * (size_t)nb * (size_t)(touched + 1));
  double *in = malloc(sizeof(double) * (size_t)nb * (size_t)(touched + 1));
  for (int t = 0; t < touched; t++)
    if (dst[t] != src[t] && prow_of(src[t]) == myrow)
      for (int c = 0; c < nb; c++)
        held[(size_t)t * nb + c] = col[(size_t)c * lm + local_row(src[t])];
  MPI_Request req[2 * kMaxGrid];
  int nreq = 0, sent = 0, recvd = 0;
  int *recv_at = malloc(sizeof(int) * (size_t)p);
  for (int r = 0; r < p; r++) {
    recv_at[r] = recvd;
    if (r == myrow)
      continue;
    int ns = 0, nr = 0;
    for (int t = 0; t < touched; t++) {
      if (dst[t] == src[t])
        continue;
      if (prow_of(src[t]) == myrow && prow_of(dst[t]) == r)
        memcpy(out + (size_t)(sent + ns++) * nb, held + (size_t)t * nb, sizeof(double) * (size_t)nb);
      if (prow_of(src[t]) == r && prow_of(dst[t]) == myrow)
        nr++;
    }
    int peer = r * q + mycol;
    if (nr)
      MPI_Irecv(in + (size_t)recvd * nb, nr * nb, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &req[nreq++]);
    if (ns)
      MPI_Isend(out + (size_t)sent * nb, ns * nb, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &req[nreq++]);
    sent += ns, recvd += nr;
  }
  MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
  for (int t = 0; t < touched; t++) {
    if (dst[t] == src[t] || prow_of(dst[t]) != myrow)
      continue;
    int from = prow_of(src[t]);
    const double *v = from == myrow ? held + (size_t)t * nb : in + (size_t)recv_at[from]++ * nb;
    for (int c = 0; c < nb; c++)
      col[(size_t)c * lm + local_row(dst[t])] = v[c];
  }
  free(dst), free(src), free(held), free(out), free(in), free(recv_at);
}

/* Tile (i, j) -= L_ik U_kj. */
static void update_tile(double *t, const double *l, int ldl, const double *u, int ldu) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, nb, nb, nb, -1.0, l, ldl, u, ldu, 1.0, t, lm);
}

/* The panel of step k as the other ranks of its process row see it: their
   rows of tile rows >= k, then its nb pivots (as doubles), in one message. */
static int panel_rows(int k) { return (tiles_of_row(myrow) - first_tile(myrow, k)) * nb; }
static size_t panel_doubles(int k) { return (size_t)panel_rows(k) * (size_t)nb + (size_t)nb; }

static void factor(void) {
  for (int k = 0; k < nt; k++) {
    int kc = k % q, diag = myrow == k % p, first = first_tile(myrow, k), m = panel_rows(k);
    int *pk = piv + (size_t)k * nb;
    (void)pk;
    double *l; /* this rank's rows of the panel (tile rows >= k), ld ldl */
    int ldl;
    if (kc == mycol) {
      double *col = C[k];
      l = col + (size_t)first * nb, ldl = lm;
      /* With p > 1 the panel calls MPI: one of the chain's exchanges. */
      if (p > 1) {
#pragma omp task depend(iterator(t = first : lt), inout : col[t * nb]) depend(out : pk[0]) depend(inout : chain) \
    firstprivate(l, k, m) priority(2)
        panel(l, m, k);
      } else {
#pragma omp task depend(iterator(t = first : lt), inout : col[t * nb]) depend(out : pk[0]) firstprivate(l, k, m) \
    priority(2)
        panel(l, m, k);
      }
      if (q > 1) {
        double *buf = Lk[k];
#pragma omp task depend(iterator(t = first : lt), in : col[t * nb]) depend(in : pk[0]) depend(inout : chain) \
    firstprivate(l, buf, k, m) priority(1)
        {
          for (int c = 0; c < nb; c++)
            memcpy(buf + (size_t)c * m, l + (size_t)c * lm, sizeof(double) * (size_t)m);
          for (int i = 0; i < nb; i++)
            buf[(size_t)m * nb + i] = piv[(size_t)k * nb + i];
          MPI_Request req[kMaxGrid];
          int nreq = 0;
          for (int s = 0; s < q; s++)
            if (s != mycol)
              MPI_Isend(buf, (int)panel_doubles(k), MPI_DOUBLE, myrow * q + s, 1, MPI_COMM_WORLD, &req[nreq++]);
          MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        }
      }
    } else {
      double *buf = Lk[k];
      l = buf, ldl = m;
#pragma omp task depend(out : buf[0], pk[0]) depend(inout : chain) firstprivate(buf, k, m, kc) priority(1)
      {
        MPI_Recv(buf, (int)panel_doubles(k), MPI_DOUBLE, myrow * q + kc, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < nb; i++)
          piv[(size_t)k * nb + i] = (int)buf[(size_t)m * nb + i];
      }
    }
    /* The panel's rank reads the panel in place, each update the tile it
       needs (a later step's swaps on this column wait for those reads);
       the others read the received copy, one object. A column's tiles are
       dependence objects of their own (the address of their first
       element): the swaps take this rank's tiles k .. nt of the column,
       the solve tile k, each product one tile, so the column of step k+1's
       panel is ready as soon as its own tiles are updated. */
    int inplace = kc == mycol;
    double *lsrc = inplace ? C[k] + (size_t)first * nb : Lk[k];
    (void)lsrc; /* gcc 12 counts no use in a depend clause (nor li's below) */
    for (int j = mycol; j < nt; j += q) {
      if (j == k)
        continue;
      double *col = C[j];
      (void)col;
      if (first < lt) { /* rows of this rank take part in step k's swaps */
        if (p > 1) {
#pragma omp task depend(in : pk[0]) depend(iterator(t = first : lt), inout : col[t * nb]) depend(inout : chain) \
    firstprivate(j, k) priority(j == k + 1)
          swap_rows(j, k);
        } else {
#pragma omp task depend(in : pk[0]) depend(iterator(t = first : lt), inout : col[t * nb]) firstprivate(j, k) \
    priority(j == k + 1)
          swap_rows(j, k);
        }
      }
      if (j < k)
        continue;
      double *u = diag ? tile(k, j) : Ub[(size_t)k * nt + (size_t)j];
      int ldu = diag ? lm : nb;
      int below = first_tile(myrow, k + 1) < lt; /* this rank has tiles below tile k */
      if (diag) {
        double *lkk = lsrc; /* tile k's rows come first on the diagonal's process row */
        (void)lkk;
#pragma omp task depend(in : lkk[0]) depend(inout : u[0]) firstprivate(u, l, ldl) priority(j == k + 1)
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, nb, nb, 1.0, l, ldl, u, lm);
        if (p > 1) {
          double *pack = Ub[(size_t)k * nt + (size_t)j];
#pragma omp task depend(in : u[0]) depend(inout : chain) firstprivate(u, pack, k) priority(j == k + 1)
          {
            MPI_Request req[kMaxGrid];
            int nreq = 0;
            for (int c = 0; c < nb; c++)
              memcpy(pack + (size_t)c * nb, u + (size_t)c * lm, sizeof(double) * (size_t)nb);
            for (int r = 0; r < p; r++)
              if (r != myrow && first_tile(r, k + 1) < tiles_of_row(r))
                MPI_Isend(pack, nb * nb, MPI_DOUBLE, r * q + mycol, 3, MPI_COMM_WORLD, &req[nreq++]);
            MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
          }
        }
      } else if (below) {
#pragma omp task depend(out : u[0]) depend(inout : chain) firstprivate(u, k) priority(j == k + 1)
        MPI_Recv(u, nb * nb, MPI_DOUBLE, (k % p) * q + mycol, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      for (int i = k + 1; i < nt; i++) {
        if (i % p != myrow)
          continue;
        double *li = l + (size_t)(i / p - first) * nb, *t = tile(i, j);
        double *dep = inplace ? li : Lk[k];
        (void)dep;
#pragma omp task depend(in : dep[0], u[0]) depend(inout : t[0]) firstprivate(t, li, ldl, u, ldu) \
    priority(j == k + 1)
        update_tile(t, li, ldl, u, ldu);
      }
    }
  }
}

/* Rank 0 gathers the factors and checks P A x = L (U x). */
static int check(double *residual) {
  if (mt_rank != 0) {
    for (int j = mycol; j < nt; j += q)
      if (lm)
        MPI_Send(C[j], lm * nb, MPI_DOUBLE, 0, j, MPI_COMM_WORLD);
    return mt_verdict(residual);
  }
  size_t nn = (size_t)n * (size_t)n;
  double *F = malloc(nn * sizeof(double));
  double *blk = malloc(sizeof(double) * (size_t)n * nb);
  for (int j = 0; j < nt; j++)
    for (int r = 0; r < p; r++) {
      int from = r * q + j % q, rows = tiles_of_row(r) * nb;
      if (!rows)
        continue;
      const double *b = blk;
      if (from == 0)
        b = C[j];
      else
        MPI_Recv(blk, rows * nb, MPI_DOUBLE, from, j, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int c = 0; c < nb; c++)
        for (int lr = 0; lr < rows; lr++)
          F[((size_t)j * nb + c) * n + (size_t)((lr / nb) * p + r) * nb + lr % nb] = b[(size_t)c * rows + lr];
    }
  free(blk);
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
  omp_set_max_active_levels(2);
  int threads = bench_team_size();
  P = (int)bench_long_arg(argc, argv, 3, threads, "P");
  p = mt_grid_rows(argc, argv, 4);
  if (n % nb || p < 1 || mt_ranks % p || nb > 4096 || p > kMaxGrid || mt_ranks / p > kMaxGrid) {
    if (mt_rank == 0)
      fprintf(stderr, "mpilu: nb (at most 4096) must divide n, and p the number of ranks (%d), with at most %d rows and columns\n",
              mt_ranks, kMaxGrid);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  q = mt_ranks / p;
  myrow = mt_rank / q, mycol = mt_rank % q;
  nt = n / nb;
  lt = tiles_of_row(myrow), lm = lt * nb;
  MPI_Comm_split(MPI_COMM_WORLD, mycol, myrow, &colcomm);

  C = calloc((size_t)nt, sizeof *C);
  Lk = calloc((size_t)nt, sizeof *Lk);
  Ub = calloc((size_t)nt * (size_t)nt, sizeof *Ub);
  piv = malloc(sizeof(int) * (size_t)n);
  top = malloc(sizeof(double) * (size_t)nb * nb);
  prow = malloc(sizeof(double) * (size_t)nb);
  pmsg = malloc(sizeof(double) * (3 + 2 * (size_t)nb));
  pres = malloc(sizeof(double) * (3 + 2 * (size_t)nb));
  MPI_Type_contiguous(3 + 2 * nb, MPI_DOUBLE, &pivot_type);
  MPI_Type_commit(&pivot_type);
  MPI_Op_create(pivot_max, 1, &pivot_op);
  for (int j = 0; j < nt; j++) {
    if (j % q == mycol && lm) {
      C[j] = malloc(sizeof(double) * (size_t)lm * nb);
      for (int c = 0; c < nb; c++)
        for (int lr = 0; lr < lm; lr++)
          C[j][(size_t)c * lm + lr] = a_elem((long)((lr / nb) * p + myrow) * nb + lr % nb, (long)j * nb + c);
    }
    if (q > 1) { /* the panel's rank packs its panel there to send it */
      Lk[j] = malloc(sizeof(double) * panel_doubles(j));
      memset(Lk[j], 0, sizeof(double) * panel_doubles(j));
    }
    if (p > 1 && j % q == mycol)
      for (int k = 0; k < j; k++) { /* U's tiles of this column: packed to send, or received */
        Ub[(size_t)k * nt + (size_t)j] = malloc(sizeof(double) * (size_t)nb * nb);
        memset(Ub[(size_t)k * nt + (size_t)j], 0, sizeof(double) * (size_t)nb * nb);
      }
  }

  double s = mt_timed(factor);

  double residual;
  int ok = check(&residual);
  if (mt_rank == 0) {
    double gf = 2.0 * n * n * n / 3.0 / s * 1e-9;
    printf("mpilu: n=%d nb=%d grid %dx%d ranks x %d threads, panel team %d: %.3f s, %.2f GFLOP/s, residual %.3g\n", n,
           nb, p, q, threads, P, s, gf, residual);
    bench_result("mpilu", ok, "n=%d nb=%d ranks=%d threads=%d time_s=%.6f gflops=%.3f residual=%.3g", n, nb,
                 mt_ranks, threads, s, gf, residual);
  }
  for (int j = 0; j < nt; j++) {
    free(C[j]), free(Lk[j]);
    for (int k = 0; k < nt; k++)
      free(Ub[(size_t)k * nt + (size_t)j]);
  }
  free(C), free(Lk), free(Ub), free(piv), free(top), free(prow), free(pmsg), free(pres);
  MPI_Op_free(&pivot_op);
  MPI_Type_free(&pivot_type);
  MPI_Comm_free(&colcomm);
  MPI_Finalize();
  return ok ? 0 : 1;
}
