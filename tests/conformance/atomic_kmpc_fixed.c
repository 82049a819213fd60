/* libomp's __kmpc_atomic_* entry points for 1-, 2-, 4- and 8-byte integers,
 * called directly as Intel's compilers and flang call them (clang inlines
 * these): every operation, its capture (flag 0: the value before; else
 * after), reverse and mixed-type (double operand) forms, read, write and
 * swap, first one call at a time against the value C computes for
 * `x = x op e`, then from every thread of a team at once against the
 * result computed serially.
 */
#include <limits.h>

#include "check.h"
#include "kmpc_atomic.h"

#define L ((kmpc_ident *)0)
#define ITERS 4000

/* Expressions of X (x before) and E (the operand), as C evaluates them. */
#define ADD X + E
#define SUB X - E
#define RSUB E - X
#define MUL X *E
#define DIV X / E
#define RDIV E / X
#define ANDB X &E
#define ORB X | E
#define XOR X ^ E
#define SHL (unsigned long long)X << E
#define RSHL (unsigned long long)E << X
#define SHR X >> E
#define RSHR E >> X
#define ANDL X &&E
#define ORL X || E
#define EQV ~(X ^ E)
#define NEQV X ^ E
#define MAX X < E ? E : X
#define MIN X > E ? E : X

#define NAME(t, op) "__kmpc_atomic_" #t "_" #op

/* x = X op E through the update entry point, and both captures. */
#define SERIAL(t, T, op, pairs, expr)                                                                  \
  for (unsigned i_ = 0; i_ < sizeof pairs / sizeof pairs[0]; i_++) {                                   \
    const T X = (T)pairs[i_][0], E = (T)pairs[i_][1];                                                  \
    const T want = (T)(expr);                                                                          \
    T x = X;                                                                                           \
    __kmpc_atomic_##t##_##op(L, gtid, &x, E);                                                          \
    CHECK(x == want, "%s(%lld, %lld): x = %lld, want %lld", NAME(t, op), (long long)X, (long long)E,   \
          (long long)x, (long long)want);                                                              \
    for (int flag = 0; flag < 2; flag++) {                                                             \
      x = X;                                                                                           \
      T got = __kmpc_atomic_##t##_##op##_cpt(L, gtid, &x, E, flag);                                    \
      CHECK(x == want && got == (flag ? want : X), "%s(%lld, %lld, flag %d) = %lld, x = %lld, want %lld, x = %lld", \
            NAME(t, op##_cpt), (long long)X, (long long)E, flag, (long long)got, (long long)x,         \
            (long long)(flag ? want : X), (long long)want);                                            \
    }                                                                                                  \
  }
/* x = E op X through the _rev entry points. */
#define SERIAL_REV(t, T, op, pairs, expr)                                                              \
  for (unsigned i_ = 0; i_ < sizeof pairs / sizeof pairs[0]; i_++) {                                   \
    const T X = (T)pairs[i_][0], E = (T)pairs[i_][1];                                                  \
    const T want = (T)(expr);                                                                          \
    T x = X;                                                                                           \
    __kmpc_atomic_##t##_##op##_rev(L, gtid, &x, E);                                                    \
    CHECK(x == want, "%s(%lld, %lld): x = %lld, want %lld", NAME(t, op##_rev), (long long)X,           \
          (long long)E, (long long)x, (long long)want);                                                \
    for (int flag = 0; flag < 2; flag++) {                                                             \
      x = X;                                                                                           \
      T got = __kmpc_atomic_##t##_##op##_cpt_rev(L, gtid, &x, E, flag);                                \
      CHECK(x == want && got == (flag ? want : X), "%s(%lld, %lld, flag %d) = %lld, x = %lld",         \
            NAME(t, op##_cpt_rev), (long long)X, (long long)E, flag, (long long)got, (long long)x);    \
    }                                                                                                  \
  }

static const long long arith[][2] = {{7, 3}, {-7, 3}, {100, 27}, {-100, -27}, {1, -1}, {0, 5}, {127, 1}};
static const long long divs[][2] = {{7, 3}, {-7, 3}, {100, -7}, {1, 5}, {-100, -27}, {127, 1}};
static const long long shifts[][2] = {{5, 2}, {-5, 1}, {1, 6}, {3, 0}, {100, 3}, {-100, 2}};
static const long long shifts_rev[][2] = {{2, 5}, {1, -4}, {0, 3}, {6, 1}, {3, 100}, {3, -100}};
static const long long logic[][2] = {{0, 5}, {3, 0}, {2, 4}, {0, 0}, {-1, 1}, {6, 3}};
static const long long minmax[][2] = {{3, 5}, {5, 3}, {-1, 1}, {4, 4}, {-100, 100}};
static const long long udivs[][2] = {{200, 3}, {7, 200}, {255, 1}, {1, 2}};
static const long long ushifts[][2] = {{200, 3}, {255, 7}, {1, 0}};
static const long long ushifts_rev[][2] = {{3, 200}, {7, 255}, {0, 1}};
static const double mixed_mul[][2] = {{7, 2.5}, {-7, 0.5}, {50, -1.5}, {3, 0.25}};
static const double mixed_div[][2] = {{7, 2.0}, {9, 0.5}, {-9, 4.0}, {1, 3.0}};

#define MIXED(t, T, op, pairs, cop)                                                                    \
  for (unsigned i_ = 0; i_ < sizeof pairs / sizeof pairs[0]; i_++) {                                   \
    T x = (T)pairs[i_][0];                                                                             \
    const T want = (T)((double)x cop pairs[i_][1]);                                                    \
    __kmpc_atomic_##t##_##op##_float8(L, gtid, &x, pairs[i_][1]);                                      \
    CHECK(x == want, "%s(%g, %g): x = %lld, want %lld", NAME(t, op##_float8), pairs[i_][0],            \
          pairs[i_][1], (long long)x, (long long)want);                                                \
  }

#define ACCESS(t, T)                                                                                   \
  {                                                                                                    \
    T x = (T)-5;                                                                                       \
    CHECK_EQ(NAME(t, rd), __kmpc_atomic_##t##_rd(L, gtid, &x), -5);                                    \
    __kmpc_atomic_##t##_wr(L, gtid, &x, (T)42);                                                        \
    CHECK_EQ(NAME(t, wr), x, 42);                                                                      \
    CHECK_EQ(NAME(t, swp) " (value before)", __kmpc_atomic_##t##_swp(L, gtid, &x, (T)-9), 42);         \
    CHECK_EQ(NAME(t, swp) " (x after)", x, -9);                                                        \
  }

#define FIXED(t, T, tu, U)                                                                             \
  SERIAL(t, T, add, arith, ADD)                                                                        \
  SERIAL(t, T, sub, arith, SUB)                                                                        \
  SERIAL_REV(t, T, sub, arith, RSUB)                                                                   \
  SERIAL(t, T, mul, arith, MUL)                                                                        \
  SERIAL(t, T, div, divs, DIV)                                                                         \
  SERIAL_REV(t, T, div, divs, RDIV)                                                                    \
  SERIAL(tu, U, div, udivs, DIV)                                                                       \
  SERIAL_REV(tu, U, div, udivs, RDIV)                                                                  \
  SERIAL(t, T, andb, logic, ANDB)                                                                      \
  SERIAL(t, T, orb, logic, ORB)                                                                        \
  SERIAL(t, T, xor, logic, XOR)                                                                        \
  SERIAL(t, T, shl, shifts, SHL)                                                                       \
  SERIAL_REV(t, T, shl, shifts_rev, RSHL)                                                              \
  SERIAL(t, T, shr, shifts, SHR)                                                                       \
  SERIAL_REV(t, T, shr, shifts_rev, RSHR)                                                              \
  SERIAL(tu, U, shr, ushifts, SHR)                                                                     \
  SERIAL_REV(tu, U, shr, ushifts_rev, RSHR)                                                            \
  SERIAL(t, T, andl, logic, ANDL)                                                                      \
  SERIAL(t, T, orl, logic, ORL)                                                                        \
  SERIAL(t, T, eqv, logic, EQV)                                                                        \
  SERIAL(t, T, neqv, logic, NEQV)                                                                      \
  SERIAL(t, T, max, minmax, MAX)                                                                       \
  SERIAL(t, T, min, minmax, MIN)                                                                       \
  MIXED(t, T, mul, mixed_mul, *)                                                                       \
  MIXED(t, T, div, mixed_div, /)                                                                       \
  ACCESS(t, T)

static void serial(void) {
  int gtid = __kmpc_global_thread_num(L);
  FIXED(fixed1, char, fixed1u, unsigned char)
  FIXED(fixed2, short, fixed2u, unsigned short)
  FIXED(fixed4, int, fixed4u, unsigned int)
  FIXED(fixed8, long long, fixed8u, unsigned long long)
}

/* Every thread of a team updates the same locations; the results must be
   those of the updates done one after another. */
static void concurrent(void) {
  int nthreads = 0;
  int counter4 = 0;
  long long counter8 = 1000000;
  short wrap2 = 0;
  char wrap1 = 0;
  unsigned int bits = 0;
  long long maxv = LLONG_MIN, minv = LLONG_MAX;
  int sign = 1;
  int xored = 0;
  long long swapped_in = 0, swapped_out = 0, swap_slot = 0;
#pragma omp parallel
  {
#pragma omp single
    nthreads = omp_get_num_threads();
    int gtid = __kmpc_global_thread_num(L);
    int me = omp_get_thread_num();
    long long my_in = 0, my_out = 0;
    for (int k = 0; k < ITERS; k++) {
      long long v = (long long)me * ITERS + k; /* distinct over the team */
      __kmpc_atomic_fixed4_add(L, gtid, &counter4, 1);
      __kmpc_atomic_fixed8_sub(L, gtid, &counter8, 3);
      __kmpc_atomic_fixed2_add(L, gtid, &wrap2, 7);
      __kmpc_atomic_fixed1_sub(L, gtid, &wrap1, 3);
      __kmpc_atomic_fixed4u_div(L, gtid, &bits, 1u); /* no change, but an update */
      __kmpc_atomic_fixed4_orb(L, gtid, (int *)&bits, 1 << (v % 31));
      __kmpc_atomic_fixed8_max(L, gtid, &maxv, v * 7919 % 100003);
      __kmpc_atomic_fixed8_min(L, gtid, &minv, v * 7919 % 100003);
      __kmpc_atomic_fixed4_mul(L, gtid, &sign, -1);
      __kmpc_atomic_fixed4_xor(L, gtid, &xored, (int)(v * 2654435761u));
      my_out += __kmpc_atomic_fixed8_swp(L, gtid, &swap_slot, v + 1);
      my_in += v + 1;
    }
#pragma omp atomic
    swapped_in += my_in;
#pragma omp atomic
    swapped_out += my_out;
  }
  long long n = (long long)nthreads * ITERS;
  CHECK_EQ("fixed4_add total", counter4, n);
  CHECK_EQ("fixed8_sub total", counter8, 1000000 - 3 * n);
  CHECK_EQ("fixed2_add total (wraps)", wrap2, (short)(7 * n));
  CHECK_EQ("fixed1_sub total (wraps)", wrap1, (char)(-3 * n));
  CHECK_EQ("fixed4_orb bits", bits, n >= 31 ? 0x7fffffffu : (1u << n) - 1);
  long long want_max = LLONG_MIN, want_min = LLONG_MAX;
  int want_xor = 0;
  for (long long v = 0; v < n; v++) {
    long long h = v * 7919 % 100003;
    if (h > want_max) want_max = h;
    if (h < want_min) want_min = h;
    want_xor ^= (int)(v * 2654435761u);
  }
  CHECK_EQ("fixed8_max", maxv, want_max);
  CHECK_EQ("fixed8_min", minv, want_min);
  CHECK_EQ("fixed4_mul by -1 (sign)", sign, n % 2 ? -1 : 1);
  CHECK_EQ("fixed4_xor", xored, want_xor);
  CHECK_EQ("fixed8_swp: values taken out + the last one left = values put in", swapped_out + swap_slot,
           swapped_in);
}

/* Captures of a shared counter, every thread adding 1: the values before are
   a permutation of 0 .. n-1, the values after of 1 .. n. */
static void captures(void) {
  int nthreads = omp_get_max_threads();
  long long n = (long long)nthreads * ITERS;
  unsigned char *before_seen = calloc((size_t)n, 1), *after_seen = calloc((size_t)n, 1);
  short counter2 = 0;
  long long counter8 = 0;
  int bad = 0, team = 0;
#pragma omp parallel num_threads(nthreads)
  {
#pragma omp single nowait
    team = omp_get_num_threads();
    int gtid = __kmpc_global_thread_num(L);
    for (int k = 0; k < ITERS; k++) {
      long long b = __kmpc_atomic_fixed8_add_cpt(L, gtid, &counter8, 1, 0);
      short a = __kmpc_atomic_fixed2_sub_cpt_rev(L, gtid, &counter2, 0, 1); /* x = 0 - x */
      (void)a;
      if (b < 0 || b >= n) {
        __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
        continue;
      }
      __atomic_fetch_add(&before_seen[b], 1, __ATOMIC_RELAXED);
    }
#pragma omp barrier
    for (int k = 0; k < ITERS; k++) {
      long long a = __kmpc_atomic_fixed8_sub_cpt(L, gtid, &counter8, 1, 1);
      if (a < 0 || a >= n) {
        __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
        continue;
      }
      __atomic_fetch_add(&after_seen[a], 1, __ATOMIC_RELAXED);
    }
  }
  CHECK(!bad, "a captured value lies outside [0, %lld)", n);
  n = (long long)team * ITERS;
  for (long long i = 0; i < n; i++) {
    CHECK(before_seen[i] == 1, "fixed8_add_cpt (before): %lld captured %d times", i, before_seen[i]);
    CHECK(after_seen[i] == 1, "fixed8_sub_cpt (after): %lld captured %d times", i, after_seen[i]);
  }
  CHECK_EQ("fixed8 counter back to 0", counter8, 0);
  CHECK_EQ("fixed2_sub_cpt_rev (negations)", counter2, 0);
  free(before_seen);
  free(after_seen);
}

int main(void) {
  serial();
  concurrent();
  captures();
  return conf_end();
}
