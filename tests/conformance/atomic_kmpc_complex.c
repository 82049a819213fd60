/* libomp's __kmpc_atomic_* entry points for complex numbers (cmplx4, 8 and
 * 10: float, double and long double _Complex), called directly: add, sub,
 * mul, div with their capture and reverse forms, float complex with a double
 * complex operand, read, write and swap; cmplx4's captures and swap return
 * through a pointer argument (libomp's convention for that type). One call
 * at a time against C's `x = x op e` (operands chosen so that every result
 * is exact), then every thread of a team at once against the serial result:
 * cmplx4 aligned to 8 bytes (lock-free) and at an odd multiple of 4 (the
 * lock), cmplx8 and cmplx10 (the lock).
 */
#include <complex.h>

#include "check.h"
#include "kmpc_atomic.h"

#define L ((kmpc_ident *)0)
#define ITERS 3000
#define NAME(t, op) "__kmpc_atomic_" #t "_" #op
#define RE(z) ((double)__real__(z))
#define IM(z) ((double)__imag__(z))

#define ADD X + E
#define SUB X - E
#define RSUB E - X
#define MUL X *E
#define DIV X / E
#define RDIV E / X

/* {x, e} pairs: sums, products and quotients all exact. */
static const long double pairs[][4] = {
    {1, 2, 3, -1}, {5, 5, 1, 2}, {-4, 0, 0.5L, 0.5L}, {0.25L, -8, 2, 0}, {3, -1, 1, 2}};

#define Z(T, re, im) ((T)((re) + (im) * (T)I))

/* Captures returned (cmplx8, cmplx10). */
#define SERIAL(t, T, op, opname, expr)                                                                 \
  for (unsigned i_ = 0; i_ < sizeof pairs / sizeof pairs[0]; i_++) {                                  \
    const T X = Z(T, pairs[i_][0], pairs[i_][1]), E = Z(T, pairs[i_][2], pairs[i_][3]);                \
    const T want = (T)(expr);                                                                          \
    T x = X;                                                                                           \
    __kmpc_atomic_##t##_##op(L, gtid, &x, E);                                                          \
    CHECK(x == want, "%s: x = %g%+gi, want %g%+gi", NAME(t, op), RE(x), IM(x), RE(want), IM(want));    \
    for (int flag = 0; flag < 2; flag++) {                                                             \
      x = X;                                                                                           \
      T got = __kmpc_atomic_##t##_##opname(L, gtid, &x, E, flag);                                      \
      CHECK(x == want && got == (flag ? want : X), "%s(flag %d) = %g%+gi, x = %g%+gi", NAME(t, opname), \
            flag, RE(got), IM(got), RE(x), IM(x));                                                     \
    }                                                                                                  \
  }
/* Captures through the pointer (cmplx4). */
#define SERIAL4(op, opname, expr)                                                                      \
  for (unsigned i_ = 0; i_ < sizeof pairs / sizeof pairs[0]; i_++) {                                  \
    const cmplx4 X = Z(cmplx4, pairs[i_][0], pairs[i_][1]), E = Z(cmplx4, pairs[i_][2], pairs[i_][3]); \
    const cmplx4 want = (cmplx4)(expr);                                                                \
    cmplx4 x = X, got;                                                                                 \
    __kmpc_atomic_cmplx4_##op(L, gtid, &x, E);                                                         \
    CHECK(x == want, "%s: x = %g%+gi, want %g%+gi", NAME(cmplx4, op), RE(x), IM(x), RE(want), IM(want)); \
    for (int flag = 0; flag < 2; flag++) {                                                             \
      x = X;                                                                                           \
      got = 99;                                                                                        \
      __kmpc_atomic_cmplx4_##opname(L, gtid, &x, E, &got, flag);                                       \
      CHECK(x == want && got == (flag ? want : X), "%s(flag %d) = %g%+gi, x = %g%+gi",                 \
            NAME(cmplx4, opname), flag, RE(got), IM(got), RE(x), IM(x));                               \
    }                                                                                                  \
  }

#define ACCESS(t, T)                                                                                   \
  {                                                                                                    \
    T x = Z(T, -5, 2);                                                                                 \
    T r = __kmpc_atomic_##t##_rd(L, gtid, &x);                                                         \
    CHECK(r == Z(T, -5, 2), NAME(t, rd) " read %g%+gi", RE(r), IM(r));                                 \
    __kmpc_atomic_##t##_wr(L, gtid, &x, Z(T, 4, -3));                                                  \
    CHECK(x == Z(T, 4, -3), NAME(t, wr) " wrote %g%+gi", RE(x), IM(x));                                \
    T old = __kmpc_atomic_##t##_swp(L, gtid, &x, Z(T, 1, 1));                                          \
    CHECK(old == Z(T, 4, -3) && x == Z(T, 1, 1), NAME(t, swp) " returned %g%+gi", RE(old), IM(old));   \
  }

#define COMPLEX(t, T)                                                                                  \
  SERIAL(t, T, add, add_cpt, ADD)                                                                      \
  SERIAL(t, T, sub, sub_cpt, SUB)                                                                      \
  SERIAL(t, T, sub_rev, sub_cpt_rev, RSUB)                                                             \
  SERIAL(t, T, mul, mul_cpt, MUL)                                                                      \
  SERIAL(t, T, div, div_cpt, DIV)                                                                      \
  SERIAL(t, T, div_rev, div_cpt_rev, RDIV)                                                             \
  ACCESS(t, T)

#define MIXED(op, cop)                                                                                 \
  for (unsigned i_ = 0; i_ < sizeof pairs / sizeof pairs[0]; i_++) {                                  \
    cmplx4 x = Z(cmplx4, pairs[i_][0], pairs[i_][1]);                                                  \
    cmplx8 e = Z(cmplx8, pairs[i_][2], pairs[i_][3]);                                                  \
    const cmplx4 want = (cmplx4)((cmplx8)x cop e);                                                     \
    __kmpc_atomic_cmplx4_##op##_cmplx8(L, gtid, &x, e);                                                \
    CHECK(x == want, "%s: x = %g%+gi, want %g%+gi", NAME(cmplx4, op##_cmplx8), RE(x), IM(x), RE(want), \
          IM(want));                                                                                   \
  }

static void serial(void) {
  int gtid = __kmpc_global_thread_num(L);
  SERIAL4(add, add_cpt, ADD)
  SERIAL4(sub, sub_cpt, SUB)
  SERIAL4(sub_rev, sub_cpt_rev, RSUB)
  SERIAL4(mul, mul_cpt, MUL)
  SERIAL4(div, div_cpt, DIV)
  SERIAL4(div_rev, div_cpt_rev, RDIV)
  {
    cmplx4 x = Z(cmplx4, -5, 2), r = __kmpc_atomic_cmplx4_rd(L, gtid, &x), old = 0;
    CHECK(r == x, "cmplx4_rd read %g%+gi", RE(r), IM(r));
    __kmpc_atomic_cmplx4_wr(L, gtid, &x, Z(cmplx4, 4, -3));
    CHECK(x == Z(cmplx4, 4, -3), "cmplx4_wr wrote %g%+gi", RE(x), IM(x));
    __kmpc_atomic_cmplx4_swp(L, gtid, &x, Z(cmplx4, 1, 1), &old);
    CHECK(old == Z(cmplx4, 4, -3) && x == Z(cmplx4, 1, 1), "cmplx4_swp gave %g%+gi", RE(old), IM(old));
  }
  COMPLEX(cmplx8, cmplx8)
  COMPLEX(cmplx10, cmplx10)
  MIXED(add, +)
  MIXED(sub, -)
  MIXED(mul, *)
  MIXED(div, /)
}

/* A float complex at an odd multiple of 4 bytes: not 8-byte aligned. */
struct odd {
  float pad;
  cmplx4 z;
} __attribute__((aligned(8)));

static void concurrent(void) {
  int nthreads = 0;
  cmplx4 sum4 __attribute__((aligned(8))) = 0, turn4 = 3 + 4 * I;
  struct odd odd = {0, 0};
  cmplx8 sum8 = 0;
  cmplx10 sum10 = 0, turn10 = 1;
  int torn = 0;
  cmplx8 flip8 = 1 + I;
#pragma omp parallel
  {
#pragma omp single
    nthreads = omp_get_num_threads();
    int gtid = __kmpc_global_thread_num(L);
    int me = omp_get_thread_num();
    for (int k = 0; k < ITERS; k++) {
      __kmpc_atomic_cmplx4_add(L, gtid, &sum4, 1 + 2 * I);
      __kmpc_atomic_cmplx4_add_cmplx8(L, gtid, &odd.z, 2 - I);
      __kmpc_atomic_cmplx4_mul(L, gtid, &turn4, I); /* a quarter turn: exact */
      __kmpc_atomic_cmplx8_sub(L, gtid, &sum8, -1 - 3 * I);
      __kmpc_atomic_cmplx10_add(L, gtid, &sum10, 0.5L + (cmplx10)I);
      cmplx10 before = __kmpc_atomic_cmplx10_mul_cpt(L, gtid, &turn10, -(cmplx10)I, 0);
      (void)before;
      if (me % 2 == 0)
        __kmpc_atomic_cmplx8_wr(L, gtid, &flip8, (k & 1) ? 2 + 2 * I : 1 + I);
      else {
        cmplx8 r = __kmpc_atomic_cmplx8_rd(L, gtid, &flip8);
        if (__real__ r != __imag__ r)
          __atomic_store_n(&torn, 1, __ATOMIC_RELAXED);
      }
    }
  }
  long long n = (long long)nthreads * ITERS;
  CHECK(sum4 == Z(cmplx4, n, 2 * n), "cmplx4_add: %g%+gi, want %lld%+lldi", RE(sum4), IM(sum4), n, 2 * n);
  CHECK(odd.z == Z(cmplx4, 2 * n, -n), "cmplx4_add_cmplx8 (not 8-byte aligned): %g%+gi", RE(odd.z), IM(odd.z));
  static const cmplx4 turns[4] = {3 + 4 * I, -4 + 3 * I, -3 - 4 * I, 4 - 3 * I};
  CHECK(turn4 == turns[n % 4], "cmplx4_mul by i, %lld times: %g%+gi", n, RE(turn4), IM(turn4));
  CHECK(sum8 == Z(cmplx8, n, 3 * n), "cmplx8_sub: %g%+gi", RE(sum8), IM(sum8));
  CHECK(sum10 == Z(cmplx10, 0.5L * n, n), "cmplx10_add: %g%+gi", RE(sum10), IM(sum10));
  static const cmplx10 turns10[4] = {1, -(cmplx10)I, -1, (cmplx10)I};
  CHECK(turn10 == turns10[n % 4], "cmplx10_mul_cpt by -i: %g%+gi", RE(turn10), IM(turn10));
  CHECK(!torn, "cmplx8_rd saw a value that was never written");
}

int main(void) {
  serial();
  concurrent();
  return conf_end();
}
