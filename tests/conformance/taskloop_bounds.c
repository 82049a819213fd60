/* taskloop bounds: every iteration runs exactly once, and lastprivate gets
   the sequentially last values, for odd trip counts, negative and non-unit
   strides, inclusive bounds, signed and unsigned 32- and 64-bit variables,
   bases above 2^32, zero and one iteration, and collapse(2) with a
   descending inner loop; under the default split, grainsize and
   num_tasks. */
#include "check.h"

enum { MAXTRIP = 2000 };
static int hits[MAXTRIP];

/* TL(name, type, start, cond, incr, step, trips, split): iteration k has
   i = start + k*step; lastprivate(i) must equal start + trips*step and
   lastprivate(last) the last iteration's k. */
#define TL(NAME, T, START, COND, INCR, STEP, TRIPS, SPLIT)                     \
  do {                                                                         \
    memset(hits, 0, sizeof hits);                                              \
    T i = 0;                                                                   \
    long last = -1;                                                            \
    CONF_PRAGMA(omp taskloop SPLIT lastprivate(i, last))                      \
    for (i = (START); COND; INCR) {                                            \
      long k = (STEP) > 0 ? (long)((T)(i - (T)(START)) / (T)(STEP))            \
                          : (long)((T)((T)(START) - i) / (T)(-(STEP)));        \
      if (k >= 0 && k < MAXTRIP)                                               \
        __atomic_fetch_add(&hits[k], 1, __ATOMIC_RELAXED);                     \
      last = k;                                                                \
    }                                                                          \
    T want_i = (T)((T)(START) + (T)((long long)(TRIPS) * (STEP)));             \
    for (long k = 0; k < (TRIPS); k++)                                         \
      CHECK(hits[k] == 1, "%s %s: iteration %ld ran %d times", NAME, #SPLIT, k, hits[k]); \
    for (long k = (TRIPS); k < MAXTRIP; k++)                                   \
      CHECK(hits[k] == 0, "%s %s: iteration %ld (past the end) ran", NAME, #SPLIT, k); \
    if ((TRIPS) > 0) { /* no iteration: the value is unspecified */            \
      CHECK(i == want_i, "%s %s: lastprivate(i) = %lld, want %lld", NAME, #SPLIT, \
            (long long)i, (long long)want_i);                                  \
      CHECK(last == (TRIPS) - 1, "%s %s: lastprivate(last) = %ld, want %ld", NAME, #SPLIT, \
            last, (long)(TRIPS) - 1);                                          \
    }                                                                          \
  } while (0)

#define ALL_SPLITS(NAME, T, START, COND, INCR, STEP, TRIPS)                    \
  do {                                                                         \
    TL(NAME, T, START, COND, INCR, STEP, TRIPS, );                             \
    TL(NAME, T, START, COND, INCR, STEP, TRIPS, grainsize(7));                 \
    TL(NAME, T, START, COND, INCR, STEP, TRIPS, num_tasks(5));                 \
    TL(NAME, T, START, COND, INCR, STEP, TRIPS, num_tasks(1000000));           \
  } while (0)

/* Bounds the compiler cannot fold. */
static int five = 5;
static long long minus_five = -5;

static void loops(void) {
  ALL_SPLITS("int up", int, 0, i < 1001, i++, 1, 1001);
  ALL_SPLITS("int down by 3", int, 1000, i > -7, i -= 3, -3, 336);
  ALL_SPLITS("int up to inclusive", int, -50, i <= 50, i += 4, 4, 26);
  /* Not up to 4e9 by 999999999: clang 14 computes the trip count in 32 bits
     and overflows (parallel for and taskloop alike); a compiler defect. */
  ALL_SPLITS("unsigned up by big steps", unsigned, 5u, i < 3000000000u, i += 999999999u, 999999999, 3);
  ALL_SPLITS("unsigned down", unsigned, 100u, i > 0u, i -= 7u, -7, 15);
  ALL_SPLITS("long long above 2^32, down", long long, (1LL << 40), i > (1LL << 40) - 777, i--, -1, 777);
  ALL_SPLITS("unsigned long long above 2^63", unsigned long long, (1ULL << 63), i < (1ULL << 63) + 999,
             i += 2, 2, 500);
  ALL_SPLITS("unsigned long long down to 0", unsigned long long, 998ULL, i >= 1ULL, i -= 2, -2, 499);
  /* Zero iterations without grainsize: for an empty loop clang 14 passes
     ub = 2^32-1 (a 32-bit trip count minus one), so grainsize(7) asks
     libomp and Bobbin alike for ~600 million (empty) tasks. */
  TL("zero iterations", int, five, i < five, i++, 1, 0, );
  TL("zero iterations", int, five, i < five, i++, 1, 0, num_tasks(5));
  TL("zero iterations, down", long long, minus_five, i > minus_five, i--, -1, 0, );
  TL("zero iterations, down", long long, minus_five, i > minus_five, i--, -1, 0, num_tasks(5));
  ALL_SPLITS("one iteration", int, 9, i < 10, i++, 1, 1);
  ALL_SPLITS("one iteration, big step", unsigned, 3u, i < 10u, i += 100u, 100, 1);
}

static int c2[7][4];
static void collapse2(void) {
  memset(c2, 0, sizeof c2);
  int li = -1, lj = -1;
#pragma omp taskloop collapse(2) grainsize(3) lastprivate(li, lj)
  for (int i = 0; i < 7; i++)
    for (int j = 9; j > -5; j -= 4) {
      __atomic_fetch_add(&c2[i][(9 - j) / 4], 1, __ATOMIC_RELAXED);
      li = i, lj = j;
    }
  for (int i = 0; i < 7; i++)
    for (int j = 0; j < 4; j++)
      CHECK(c2[i][j] == 1, "collapse(2): (%d,%d) ran %d times", i, j, c2[i][j]);
  CHECK(li == 6 && lj == -3, "collapse(2): lastprivate (%d, %d), want (6, -3)", li, lj);
}

int main(void) {
#pragma omp parallel
#pragma omp single
  {
    loops();
    collapse2();
  }
#pragma omp parallel num_threads(1)
  loops(); /* team of one */
  return conf_end();
}
