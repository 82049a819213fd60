/* libomp's __kmpc_atomic_* entry points for float, double and long double
 * (float4, float8, float10), called directly: add, sub, mul, div, min, max
 * with their capture and reverse forms, float with a double operand, read,
 * write and swap, one call at a time against C's `x = x op e`; then every
 * thread of a team at once (long double goes through the runtime's lock,
 * the others are lock-free), against the serial result.
 */
#include <math.h>

#include "check.h"
#include "kmpc_atomic.h"

#define L ((kmpc_ident *)0)
#define ITERS 3000
#define NAME(t, op) "__kmpc_atomic_" #t "_" #op

#define ADD X + E
#define SUB X - E
#define RSUB E - X
#define MUL X *E
#define DIV X / E
#define RDIV E / X
#define MAX X < E ? E : X
#define MIN X > E ? E : X

/* Equal, or both NaN. */
#define SAME(a, b) ((a) == (b) || (isnan(a) && isnan(b)))

#define SERIAL(t, T, op, pairs, expr)                                                                  \
  for (unsigned i_ = 0; i_ < sizeof pairs / sizeof pairs[0]; i_++) {                                   \
    const T X = (T)pairs[i_][0], E = (T)pairs[i_][1];                                                  \
    const T want = (T)(expr);                                                                          \
    T x = X;                                                                                           \
    __kmpc_atomic_##t##_##op(L, gtid, &x, E);                                                          \
    CHECK(SAME(x, want), "%s(%Lg, %Lg): x = %Lg, want %Lg", NAME(t, op), (long double)X,               \
          (long double)E, (long double)x, (long double)want);                                          \
    for (int flag = 0; flag < 2; flag++) {                                                             \
      x = X;                                                                                           \
      T got = __kmpc_atomic_##t##_##op##_cpt(L, gtid, &x, E, flag);                                    \
      CHECK(SAME(x, want) && SAME(got, flag ? want : X), "%s(%Lg, %Lg, flag %d) = %Lg, x = %Lg",       \
            NAME(t, op##_cpt), (long double)X, (long double)E, flag, (long double)got, (long double)x); \
    }                                                                                                  \
  }
#define SERIAL_REV(t, T, op, pairs, expr)                                                              \
  for (unsigned i_ = 0; i_ < sizeof pairs / sizeof pairs[0]; i_++) {                                   \
    const T X = (T)pairs[i_][0], E = (T)pairs[i_][1];                                                  \
    const T want = (T)(expr);                                                                          \
    T x = X;                                                                                           \
    __kmpc_atomic_##t##_##op##_rev(L, gtid, &x, E);                                                    \
    CHECK(SAME(x, want), "%s(%Lg, %Lg): x = %Lg, want %Lg", NAME(t, op##_rev), (long double)X,         \
          (long double)E, (long double)x, (long double)want);                                          \
    for (int flag = 0; flag < 2; flag++) {                                                             \
      x = X;                                                                                           \
      T got = __kmpc_atomic_##t##_##op##_cpt_rev(L, gtid, &x, E, flag);                                \
      CHECK(SAME(x, want) && SAME(got, flag ? want : X), "%s(%Lg, %Lg, flag %d) = %Lg, x = %Lg",       \
            NAME(t, op##_cpt_rev), (long double)X, (long double)E, flag, (long double)got,             \
            (long double)x);                                                                           \
    }                                                                                                  \
  }

static const long double arith[][2] = {{7.5L, 2.25L}, {-3.0L, 0.5L}, {1e10L, 3.0L}, {0.1L, 0.2L},
                                       {1.0L / 3, 3.0L}, {-0.0L, 0.0L}, {1e30L, 1e-30L}};
/* min and max write only when e is smaller / greater: a NaN e changes
   nothing, a NaN x stays. */
static const long double minmax[][2] = {{3, 5}, {5, 3}, {-1, 1}, {4, 4}, {NAN, 1}, {1, NAN}, {-INFINITY, 7}};

#define ACCESS(t, T)                                                                                   \
  {                                                                                                    \
    T x = (T)-5.25;                                                                                    \
    CHECK(__kmpc_atomic_##t##_rd(L, gtid, &x) == (T)-5.25, NAME(t, rd) " read the wrong value");       \
    __kmpc_atomic_##t##_wr(L, gtid, &x, (T)42.5);                                                      \
    CHECK(x == (T)42.5, NAME(t, wr) " wrote %Lg", (long double)x);                                     \
    T old = __kmpc_atomic_##t##_swp(L, gtid, &x, (T)-9.75);                                            \
    CHECK(old == (T)42.5 && x == (T)-9.75, NAME(t, swp) " returned %Lg, left %Lg", (long double)old,   \
          (long double)x);                                                                             \
  }

#define FLOAT(t, T)                                                                                    \
  SERIAL(t, T, add, arith, ADD)                                                                        \
  SERIAL(t, T, sub, arith, SUB)                                                                        \
  SERIAL_REV(t, T, sub, arith, RSUB)                                                                   \
  SERIAL(t, T, mul, arith, MUL)                                                                        \
  SERIAL(t, T, div, arith, DIV)                                                                        \
  SERIAL_REV(t, T, div, arith, RDIV)                                                                   \
  SERIAL(t, T, max, minmax, MAX)                                                                       \
  SERIAL(t, T, min, minmax, MIN)                                                                       \
  ACCESS(t, T)

/* float x, double e: x = (float)((double)x op e). */
#define MIXED(op, cop)                                                                                 \
  for (unsigned i_ = 0; i_ < sizeof arith / sizeof arith[0]; i_++) {                                   \
    float x = (float)arith[i_][0];                                                                     \
    double e = (double)arith[i_][1];                                                                   \
    const float want = (float)((double)x cop e);                                                       \
    __kmpc_atomic_float4_##op##_float8(L, gtid, &x, e);                                                \
    CHECK(SAME(x, want), "%s(%g, %g): x = %g, want %g", NAME(float4, op##_float8), (double)arith[i_][0], e, \
          (double)x, (double)want);                                                                    \
  }

static void serial(void) {
  int gtid = __kmpc_global_thread_num(L);
  FLOAT(float4, float)
  FLOAT(float8, double)
  FLOAT(float10, long double)
  MIXED(add, +)
  MIXED(sub, -)
  MIXED(mul, *)
  MIXED(div, /)
}

static void concurrent(void) {
  int nthreads = 0;
  float sum4 = 0;
  double sum8 = 0, max8 = -INFINITY, min8 = INFINITY;
  long double sum10 = 0, neg10 = 3.5L, flip10 = 1.0L;
  float sign4 = 1;
  int torn = 0;
  double swapped_in = 0, swapped_out = 0, slot8 = 0;
#pragma omp parallel
  {
#pragma omp single
    nthreads = omp_get_num_threads();
    int gtid = __kmpc_global_thread_num(L);
    int me = omp_get_thread_num();
    double my_in = 0, my_out = 0;
    for (int k = 0; k < ITERS; k++) {
      int v = me * ITERS + k;
      __kmpc_atomic_float4_add(L, gtid, &sum4, 1.0f);              /* exact below 2^24 */
      __kmpc_atomic_float8_add(L, gtid, &sum8, (double)v);        /* exact below 2^53 */
      __kmpc_atomic_float10_add_cpt(L, gtid, &sum10, 0.5L, k & 1); /* the lock path */
      __kmpc_atomic_float10_sub_cpt_rev(L, gtid, &neg10, 0.0L, 0); /* x = 0 - x */
      __kmpc_atomic_float8_max(L, gtid, &max8, (double)(v * 7919 % 10007));
      __kmpc_atomic_float8_min(L, gtid, &min8, (double)(v * 7919 % 10007));
      __kmpc_atomic_float4_mul(L, gtid, &sign4, -1.0f);
      my_out += __kmpc_atomic_float8_swp(L, gtid, &slot8, (double)v);
      my_in += v;
      /* long double written whole or not at all: a reader sees 1 or 2 */
      if (me % 2 == 0)
        __kmpc_atomic_float10_wr(L, gtid, &flip10, (k & 1) ? 2.0L : 1.0L);
      else {
        long double r = __kmpc_atomic_float10_rd(L, gtid, &flip10);
        if (r != 1.0L && r != 2.0L)
          __atomic_store_n(&torn, 1, __ATOMIC_RELAXED);
      }
    }
#pragma omp atomic
    swapped_in += my_in;
#pragma omp atomic
    swapped_out += my_out;
  }
  long long n = (long long)nthreads * ITERS;
  double want_max = -INFINITY, want_min = INFINITY;
  for (long long v = 0; v < n; v++) {
    double h = (double)(v * 7919 % 10007);
    want_max = h > want_max ? h : want_max;
    want_min = h < want_min ? h : want_min;
  }
  CHECK(sum4 == (float)n, "float4_add: %g, want %lld", (double)sum4, n);
  CHECK(sum8 == (double)(n * (n - 1) / 2), "float8_add: %.17g, want %lld", sum8, n * (n - 1) / 2);
  CHECK(sum10 == 0.5L * n, "float10_add_cpt: %Lg, want %Lg", sum10, 0.5L * n);
  CHECK(neg10 == (n % 2 ? -3.5L : 3.5L), "float10_sub_cpt_rev (negations): %Lg", neg10);
  CHECK(max8 == want_max && min8 == want_min, "float8_max/min: %g %g, want %g %g", max8, min8, want_max, want_min);
  CHECK(sign4 == (n % 2 ? -1.0f : 1.0f), "float4_mul by -1: %g", (double)sign4);
  CHECK(swapped_out + slot8 == swapped_in, "float8_swp: out %g + left %g != in %g", swapped_out, slot8, swapped_in);
  CHECK(!torn, "float10_rd saw a long double that was never written");
}

int main(void) {
  serial();
  concurrent();
  return conf_end();
}
