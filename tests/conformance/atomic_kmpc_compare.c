/* libomp's OpenMP 5.1 `atomic compare` entry points (__kmpc_atomic_bool_N_cas,
 * _val_N_cas and their _cpt forms, N = 1, 2, 4, 8), the generic
 * __kmpc_atomic_N (N = 1, 2, 4, 8, 10, 16, 20, 32: x = f(x, e) with the
 * compiler's own combiner) and __kmpc_atomic_start/end, called directly.
 * One call at a time against the construct's meaning, then from every thread
 * of a team at once against the serial result.
 *
 *   bool_N_cas:     r = x == e; if (r) x = d; return r
 *   val_N_cas:      v = x; if (v == e) x = d; return v
 *   bool_N_cas_cpt: as bool_N_cas; on failure *pv = x (untouched on success)
 *   val_N_cas_cpt:  as val_N_cas; *pv = x after
 */
#include <complex.h>

#include "check.h"
#include "kmpc_atomic.h"

#define L ((kmpc_ident *)0)
#define ITERS 3000
#define TURNS 20

#define COMPARE_SERIAL(n, T)                                                                           \
  {                                                                                                    \
    T x = 10, v = 0;                                                                                   \
    CHECK(!__kmpc_atomic_bool_##n##_cas(L, gtid, &x, 11, 12) && x == 10, "bool_" #n "_cas: no-op changed x"); \
    CHECK(__kmpc_atomic_bool_##n##_cas(L, gtid, &x, 10, 12) && x == 12, "bool_" #n "_cas: x = %lld",   \
          (long long)x);                                                                               \
    CHECK_EQ("val_" #n "_cas (no-op)", __kmpc_atomic_val_##n##_cas(L, gtid, &x, 10, 13), 12);          \
    CHECK_EQ("val_" #n "_cas (no-op): x", x, 12);                                                      \
    CHECK_EQ("val_" #n "_cas", __kmpc_atomic_val_##n##_cas(L, gtid, &x, 12, -13), 12);                 \
    CHECK_EQ("val_" #n "_cas: x", x, -13);                                                             \
    v = 77;                                                                                            \
    CHECK(!__kmpc_atomic_bool_##n##_cas_cpt(L, gtid, &x, 5, 6, &v), "bool_" #n "_cas_cpt succeeded");  \
    CHECK(x == -13 && v == -13, "bool_" #n "_cas_cpt (no-op): x = %lld, v = %lld", (long long)x,        \
          (long long)v);                                                                               \
    v = 77;                                                                                            \
    CHECK(__kmpc_atomic_bool_##n##_cas_cpt(L, gtid, &x, -13, 6, &v), "bool_" #n "_cas_cpt failed");    \
    CHECK(x == 6 && v == 77, "bool_" #n "_cas_cpt: x = %lld, v = %lld (v must stay)", (long long)x,     \
          (long long)v);                                                                               \
    CHECK_EQ("val_" #n "_cas_cpt (no-op)", __kmpc_atomic_val_##n##_cas_cpt(L, gtid, &x, 5, 9, &v), 6); \
    CHECK(x == 6 && v == 6, "val_" #n "_cas_cpt (no-op): x = %lld, v = %lld", (long long)x, (long long)v); \
    CHECK_EQ("val_" #n "_cas_cpt", __kmpc_atomic_val_##n##_cas_cpt(L, gtid, &x, 6, 9, &v), 6);         \
    CHECK(x == 9 && v == 9, "val_" #n "_cas_cpt: x = %lld, v = %lld", (long long)x, (long long)v);     \
  }

/* Combiners as a compiler emits them: out = a op b. */
static void add_char(void *out, void *a, void *b) { *(char *)out = (char)(*(char *)a + *(char *)b); }
static void mul_short(void *out, void *a, void *b) { *(short *)out = (short)(*(short *)a * *(short *)b); }
static void add_int(void *out, void *a, void *b) { *(int *)out = *(int *)a + *(int *)b; }
static void add_double(void *out, void *a, void *b) { *(double *)out = *(double *)a + *(double *)b; }
static void add_ldouble(void *out, void *a, void *b) {
  *(long double *)out = *(long double *)a + *(long double *)b;
}
struct pair {
  long long lo, hi; /* kept equal: a torn update shows */
};
static void add_pair(void *out, void *a, void *b) {
  struct pair *o = out, *x = a, *y = b;
  o->lo = x->lo + y->lo;
  o->hi = x->hi + y->hi;
}
struct twenty {
  int w[5];
};
static void add_twenty(void *out, void *a, void *b) {
  for (int i = 0; i < 5; i++)
    ((struct twenty *)out)->w[i] = ((struct twenty *)a)->w[i] + ((struct twenty *)b)->w[i];
}
static void add_cmplx10(void *out, void *a, void *b) { *(cmplx10 *)out = *(cmplx10 *)a + *(cmplx10 *)b; }

static void serial(void) {
  int gtid = __kmpc_global_thread_num(L);
  COMPARE_SERIAL(1, char)
  COMPARE_SERIAL(2, short)
  COMPARE_SERIAL(4, int)
  COMPARE_SERIAL(8, long long)

  char c = 100, ce = 100;
  __kmpc_atomic_1(L, gtid, &c, &ce, add_char);
  CHECK_EQ("__kmpc_atomic_1", c, (char)200);
  short s = 300, se = -3;
  __kmpc_atomic_2(L, gtid, &s, &se, mul_short);
  CHECK_EQ("__kmpc_atomic_2", s, -900);
  int i = 5, ie = 6;
  __kmpc_atomic_4(L, gtid, &i, &ie, add_int);
  CHECK_EQ("__kmpc_atomic_4", i, 11);
  double d = 1.5, de = 2.25;
  __kmpc_atomic_8(L, gtid, &d, &de, add_double);
  CHECK(d == 3.75, "__kmpc_atomic_8: %g", d);
  long double ld = 1.5L, lde = 0.25L;
  __kmpc_atomic_10(L, gtid, &ld, &lde, add_ldouble);
  CHECK(ld == 1.75L, "__kmpc_atomic_10: %Lg", ld);
  struct pair p = {1, 1}, pe = {2, 2};
  __kmpc_atomic_16(L, gtid, &p, &pe, add_pair);
  CHECK(p.lo == 3 && p.hi == 3, "__kmpc_atomic_16: %lld %lld", p.lo, p.hi);
  struct twenty t = {{1, 2, 3, 4, 5}}, te = {{1, 1, 1, 1, 1}};
  __kmpc_atomic_20(L, gtid, &t, &te, add_twenty);
  CHECK(t.w[0] == 2 && t.w[4] == 6, "__kmpc_atomic_20: %d .. %d", t.w[0], t.w[4]);
  cmplx10 z = 1 + 2 * I, ze = 3 - I;
  __kmpc_atomic_32(L, gtid, &z, &ze, add_cmplx10);
  CHECK(z == 4 + I, "__kmpc_atomic_32: %Lg%+Lgi", creall(z), cimagl(z));
}

static void concurrent(void) {
  int nthreads = 0;
  int counter4 = 0, flag_turns = 0;
  long long counter8 = 0;
  short counter2 = 0;
  int generic4 = 0;
  double generic8 = 0;
  long double generic10 = 0;
  struct pair generic16 = {0, 0};
  cmplx10 generic32 = 0;
  long long bracketed = 0;
#pragma omp parallel
  {
#pragma omp single
    nthreads = omp_get_num_threads();
    int gtid = __kmpc_global_thread_num(L);
    for (int k = 0; k < ITERS; k++) {
      /* increments as compare-and-swap retry loops */
      int seen = __kmpc_atomic_val_4_cas(L, gtid, &counter4, 0, 0);
      for (;;) {
        int found = __kmpc_atomic_val_4_cas(L, gtid, &counter4, seen, seen + 1);
        if (found == seen)
          break;
        seen = found;
      }
      long long v8 = counter8;
      while (!__kmpc_atomic_bool_8_cas_cpt(L, gtid, &counter8, v8, v8 + 2, &v8)) {
      }
      short v2 = 0;
      while (!__kmpc_atomic_bool_2_cas(L, gtid, &counter2, v2, (short)(v2 + 1)))
        v2 = __kmpc_atomic_val_2_cas(L, gtid, &counter2, 0, 0);
      int one = 1;
      __kmpc_atomic_4(L, gtid, &generic4, &one, add_int);
      double half = 0.5;
      __kmpc_atomic_8(L, gtid, &generic8, &half, add_double);
      long double quarter = 0.25L;
      __kmpc_atomic_10(L, gtid, &generic10, &quarter, add_ldouble);
      struct pair step = {1, 1};
      __kmpc_atomic_16(L, gtid, &generic16, &step, add_pair);
      cmplx10 zstep = 1 - I;
      __kmpc_atomic_32(L, gtid, &generic32, &zstep, add_cmplx10);
      __kmpc_atomic_start();
      bracketed += 3; /* a plain read-modify-write inside the bracket */
      __kmpc_atomic_end();
    }
    /* strict turns through val_4_cas_cpt: thread i moves the token from i to
       i + 1 (mod team), TURNS rounds */
    int me = omp_get_thread_num();
    for (int round = 0; round < TURNS; round++) {
      int want = round * nthreads + me, v = 0;
      while (__kmpc_atomic_val_4_cas_cpt(L, gtid, &flag_turns, want, want + 1, &v) != want) {
      }
      CHECK(v == want + 1, "val_4_cas_cpt: v = %d after a successful compare, want %d", v, want + 1);
    }
  }
  long long n = (long long)nthreads * ITERS;
  CHECK_EQ("val_4_cas increments", counter4, n);
  CHECK_EQ("bool_8_cas_cpt increments", counter8, 2 * n);
  CHECK_EQ("bool_2_cas increments (wrapping)", counter2, (short)n);
  CHECK_EQ("token turns", flag_turns, (long long)nthreads * (TURNS));
  CHECK_EQ("__kmpc_atomic_4", generic4, n);
  CHECK(generic8 == 0.5 * n, "__kmpc_atomic_8: %g", generic8);
  CHECK(generic10 == 0.25L * n, "__kmpc_atomic_10: %Lg", generic10);
  CHECK(generic16.lo == n && generic16.hi == n, "__kmpc_atomic_16: %lld %lld", generic16.lo, generic16.hi);
  CHECK(generic32 == n - n * I, "__kmpc_atomic_32: %Lg%+Lgi", creall(generic32), cimagl(generic32));
  CHECK_EQ("__kmpc_atomic_start/end", bracketed, 3 * n);
}

int main(void) {
  serial();
  concurrent();
  return conf_end();
}
