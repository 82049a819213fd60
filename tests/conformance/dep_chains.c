/* Dependence chains with results fixed by the order the spec imposes,
   compared with a sequential run: a 2000-task inout chain computing a
   non-commutative hash; a Gauss-Seidel sweep where task (s, i) has
   inout(u[i]) and in(u[i-1], u[i+1]), so each update must see the new left
   neighbour and the old right one; blocks named by array sections (the
   section's base address) with out -> in -> inout along rows; and an out
   that must wait for all readers before it (write after read). */
#include "check.h"

enum { NCHAIN = 2000, NU = 40, NSWEEP = 20, NB = 8, BS = 16 };

static unsigned long long u[NU], want_u[NU];
static long blk[NB][BS];

static void gs_step(unsigned long long *v, int i) {
  unsigned long long l = i > 0 ? v[i - 1] : 7, r = i < NU - 1 ? v[i + 1] : 11;
  v[i] = (v[i] * 3 + l * 5 + r) % 1000000007ull;
}

int main(void) {
  unsigned long long h = 1469598103934665603ull, want_h = h;
  for (int i = 0; i < NCHAIN; i++)
    want_h = (want_h ^ (unsigned)i) * 1099511628211ull;
  for (int i = 0; i < NU; i++)
    u[i] = want_u[i] = (unsigned)i * 17u;
  for (int s = 0; s < NSWEEP; s++)
    for (int i = 0; i < NU; i++)
      gs_step(want_u, i);

#pragma omp parallel
#pragma omp single
  {
    for (int i = 0; i < NCHAIN; i++) {
#pragma omp task depend(inout : h) firstprivate(i) shared(h)
      h = (h ^ (unsigned)i) * 1099511628211ull;
    }
    for (int s = 0; s < NSWEEP; s++)
      for (int i = 0; i < NU; i++) {
        int l = i > 0 ? i - 1 : i, r = i < NU - 1 ? i + 1 : i;
#pragma omp task depend(inout : u[i]) depend(in : u[l], u[r]) firstprivate(i)
        gs_step(u, i);
      }
    /* rows of blocks: block k is written, then read by a checker, then
       updated in place using block k-1 */
    for (int k = 0; k < NB; k++) {
#pragma omp task depend(out : blk[k][0:BS]) firstprivate(k)
      for (int j = 0; j < BS; j++)
        blk[k][j] = k * 100 + j;
#pragma omp task depend(in : blk[k][0:BS]) firstprivate(k)
      for (int j = 0; j < BS; j++)
        CHECK(blk[k][j] == k * 100 + j, "block %d[%d] = %ld before its update", k, j, blk[k][j]);
      if (k > 0) {
#pragma omp task depend(inout : blk[k][0:BS]) depend(in : blk[k - 1][0:BS]) firstprivate(k)
        for (int j = 0; j < BS; j++)
          blk[k][j] += blk[k - 1][j];
      }
    }
    /* write after read: the out waits for all 20 readers */
    int war = 0, readers = 0;
    for (int i = 0; i < 20; i++) {
#pragma omp task depend(in : war) shared(readers)
      {
        for (volatile int j = 0; j < 5000; j++)
          ;
        __atomic_fetch_add(&readers, 1, __ATOMIC_RELAXED);
      }
    }
#pragma omp task depend(out : war) shared(readers, war)
    war = __atomic_load_n(&readers, __ATOMIC_RELAXED);
#pragma omp taskwait
    CHECK_EQ("readers done before the writer after them", war, 20);
  }
  CHECK(h == want_h, "inout chain: hash %llx, want %llx (a link ran out of order)", h, want_h);
  for (int i = 0; i < NU; i++)
    CHECK(u[i] == want_u[i], "Gauss-Seidel: u[%d] = %llu, want %llu", i, u[i], want_u[i]);
  for (int k = 0; k < NB; k++)
    for (int j = 0; j < BS; j++) {
      long want = 0;
      for (int q = 0; q <= k; q++)
        want += q * 100 + j;
      CHECK(blk[k][j] == want, "block %d[%d] = %ld, want %ld", k, j, blk[k][j], want);
    }
  return conf_end();
}
