/* gcc's loop entry points (GOMP_loop_*, _ull_*, _ordered_*, _doacross_*,
   GOMP_parallel_loop_*, sections): every schedule kind and modifier, long
   and unsigned long long variables counting up and down with strides, bases
   above 2^32 and 2^63, steps of 2^63 and more, empty and one-iteration loops; the schedule's
   promises (static: one block per thread in thread order; chunked static:
   round-robin; dynamic/guided: chunks of at least the chunk size); ordered
   regions in iteration order; doacross sinks; combined parallel loops (gcc
   emits GOMP_parallel_loop_* when the bounds are constants); lastprivate.
   (The conformance suite's loops.h cannot be built by gcc 12 as it is:
   gcc 12 miscompiles `for (unsigned i = hi; i > lo; i -= step)` with a
   run-time step; README.md.) */
#include "check.h"

enum { MAXT = 16, MAXTRIP = 5000 };
static int count[MAXTRIP], owner[MAXTRIP];

static void reset(void) {
  memset(count, 0, sizeof count);
  memset(owner, 0xff, sizeof owner);
}
static void record(long k) {
  if (k < 0 || k >= MAXTRIP) {
    CHECK(0, "logical iteration %ld outside the loop", k);
    return;
  }
  __atomic_fetch_add(&count[k], 1, __ATOMIC_RELAXED);
  owner[k] = omp_get_thread_num();
}

enum kind { ANY, STATIC_BLOCK, RR_CHUNK, MIN_RUN };
static void verify(const char *what, long trip, int nth, enum kind k, long chunk) {
  for (long i = 0; i < trip; i++)
    if (count[i] != 1) {
      CHECK(0, "%s on %d threads: iteration %ld of %ld ran %d times", what, nth, i, trip, count[i]);
      return;
    }
  for (long i = trip; i < MAXTRIP; i++)
    if (count[i]) {
      CHECK(0, "%s on %d threads: iteration %ld ran, but the loop has %ld", what, nth, i, trip);
      return;
    }
  if (k == STATIC_BLOCK)
    for (long i = 1; i < trip; i++)
      if (owner[i] < owner[i - 1]) {
        CHECK(0, "%s on %d threads: iteration %ld on thread %d after %d (not one block per thread in order)", what,
              nth, i, owner[i], owner[i - 1]);
        return;
      }
  if (k == RR_CHUNK)
    for (long i = 0; i < trip; i++)
      if (owner[i] != (i / chunk) % nth) {
        CHECK(0, "%s on %d threads: iteration %ld on thread %d, want %ld", what, nth, i, owner[i], (i / chunk) % nth);
        return;
      }
  if (k == MIN_RUN) {
    long start = 0;
    for (long i = 1; i <= trip; i++)
      if (i == trip || owner[i] != owner[start]) {
        if (i < trip && i - start < chunk) {
          CHECK(0, "%s on %d threads: a chunk of %ld iterations (%ld..%ld), want at least %ld", what, nth,
                i - start, start, i - 1, chunk);
          return;
        }
        start = i;
      }
  }
}

/* One loop shape: `for (T i = lo; i CMP hi; i += st)` under SCHED. */
#define SHAPE(NAME, T, CMP, SCHED)                                                             \
  static void NAME(const char *what, T lo, T hi, T st, int nth, enum kind k, long chunk) {     \
    long trip = 0;                                                                             \
    for (T i = lo; i CMP hi; i += st)                                                          \
      trip++;                                                                                  \
    reset();                                                                                   \
    _Pragma("omp parallel num_threads(nth)")                                                   \
    {                                                                                          \
      _Pragma(SCHED) for (T i = lo; i CMP hi; i += st) record((long)((i - lo) / st));          \
    }                                                                                          \
    verify(what, trip, nth, k, chunk);                                                         \
  }

SHAPE(l_dyn, long, <, "omp for schedule(dynamic, 3)")
SHAPE(l_dyn_down, long, >, "omp for schedule(dynamic, 3)")
SHAPE(l_mono_dyn, long, <, "omp for schedule(monotonic: dynamic, 4)")
SHAPE(l_guided, long, <, "omp for schedule(guided, 5)")
SHAPE(l_nm_guided, long, >=, "omp for schedule(nonmonotonic: guided)")
SHAPE(l_runtime, long, <, "omp for schedule(runtime)")
SHAPE(l_nm_runtime, long, <, "omp for schedule(nonmonotonic: runtime)")
SHAPE(l_mono_runtime, long, <=, "omp for schedule(monotonic: runtime)")
SHAPE(u_dyn, unsigned long long, <, "omp for schedule(dynamic, 2)")
SHAPE(u_mono_dyn, unsigned long long, <, "omp for schedule(monotonic: dynamic, 6)")
SHAPE(u_guided, unsigned long long, <=, "omp for schedule(guided, 3)")
SHAPE(u_runtime, unsigned long long, <, "omp for schedule(runtime)")
SHAPE(u_dyn1, unsigned long long, <, "omp for schedule(dynamic, 1)")
SHAPE(u_dyn1_down, unsigned long long, >, "omp for schedule(dynamic, 1)")
SHAPE(u_static, unsigned long long, <=, "omp for schedule(static)")

/* ordered: iterations enter the ordered region in order; static too. */
#define ORDERED_SHAPE(NAME, T, SCHED)                                                          \
  static void NAME(const char *what, T lo, T n, int nth) {                                     \
    long next = 0;                                                                             \
    int bad = 0;                                                                               \
    _Pragma("omp parallel num_threads(nth)")                                                   \
    {                                                                                          \
      _Pragma(SCHED) for (T i = lo; i < lo + n; i++) {                                         \
        _Pragma("omp ordered")                                                                 \
        {                                                                                      \
          if ((long)(i - lo) != next)                                                          \
            bad = 1;                                                                           \
          next++;                                                                              \
        }                                                                                      \
      }                                                                                        \
    }                                                                                          \
    CHECK(!bad && next == (long)n, "%s on %d threads: ordered regions out of order (%ld of %ld)", what, nth, \
          next, (long)n);                                                                      \
  }
ORDERED_SHAPE(o_static, long, "omp for ordered schedule(static)")
ORDERED_SHAPE(o_static_2, long, "omp for ordered schedule(static, 2)")
ORDERED_SHAPE(o_dyn, long, "omp for ordered schedule(dynamic, 3)")
ORDERED_SHAPE(o_guided, unsigned long long, "omp for ordered schedule(guided)")
ORDERED_SHAPE(o_runtime, long, "omp for ordered schedule(runtime)")
ORDERED_SHAPE(o_mono_runtime, unsigned long long, "omp for ordered schedule(monotonic: runtime)")

/* Combined parallel loops with constant bounds: GOMP_parallel_loop_*. */
static long cnt_par[1000];
#define PARALLEL_LOOP(NAME, SCHED)                                                             \
  static void NAME(void) {                                                                     \
    memset(cnt_par, 0, sizeof cnt_par);                                                        \
    _Pragma(SCHED) for (int i = 0; i < 1000; i++) __atomic_fetch_add(&cnt_par[i], 1, __ATOMIC_RELAXED); \
    for (int i = 0; i < 1000; i++)                                                             \
      if (cnt_par[i] != 1) {                                                                   \
        CHECK(0, "%s: iteration %d ran %ld times", SCHED, i, cnt_par[i]);                      \
        return;                                                                                \
      }                                                                                        \
  }
PARALLEL_LOOP(p_dyn, "omp parallel for num_threads(4) schedule(dynamic, 3)")
PARALLEL_LOOP(p_mono_dyn, "omp parallel for num_threads(4) schedule(monotonic: dynamic)")
PARALLEL_LOOP(p_guided, "omp parallel for num_threads(4) schedule(guided)")
PARALLEL_LOOP(p_runtime, "omp parallel for num_threads(4) schedule(runtime)")
PARALLEL_LOOP(p_nm_runtime, "omp parallel for num_threads(4) schedule(nonmonotonic: runtime)")
PARALLEL_LOOP(p_mono_runtime, "omp parallel for num_threads(4) schedule(monotonic: runtime)")
PARALLEL_LOOP(p_static_5, "omp parallel for num_threads(4) schedule(static, 5)")

int main(void) {
  static const int teams[] = {1, 3, 4, 7};
  const long big = 1L << 40;
  const unsigned long long huge = 1ULL << 63;
  for (int t = 0; t < 4 && !conf_has_failed(); t++) {
    int n = teams[t];
    omp_set_schedule(omp_sched_dynamic, 7);
    l_dyn("long < dynamic,3", 0, 1001, 1, n, MIN_RUN, 3);
    l_dyn("long < dynamic,3 stride 7", -50, 3000, 7, n, MIN_RUN, 3);
    l_dyn("long < dynamic,3 above 2^40", big, big + 999, 2, n, MIN_RUN, 3);
    l_dyn("long < dynamic,3 empty", 5, 5, 1, n, ANY, 1);
    l_dyn("long < dynamic,3 one iteration", 5, 6, 1, n, ANY, 1);
    l_dyn_down("long > dynamic,3 down", 1000, -1, -1, n, MIN_RUN, 3);
    l_dyn_down("long > dynamic,3 down stride 9", 4000, 10, -9, n, MIN_RUN, 3);
    l_mono_dyn("long < monotonic:dynamic,4", 0, 999, 1, n, MIN_RUN, 4);
    l_guided("long < guided,5", 0, 2000, 1, n, MIN_RUN, 5);
    l_nm_guided("long >= nonmonotonic:guided down", 777, 0, -1, n, ANY, 1);
    l_runtime("long < runtime (dynamic,7)", 0, 1000, 1, n, MIN_RUN, 7);
    l_nm_runtime("long < nonmonotonic:runtime (dynamic,7)", 3, 1003, 1, n, MIN_RUN, 7);
    l_mono_runtime("long <= monotonic:runtime (dynamic,7)", 0, 1000, 1, n, MIN_RUN, 7);
    u_dyn("ull < dynamic,2", 0, 1001, 1, n, MIN_RUN, 2);
    u_dyn("ull < dynamic,2 above 2^63", huge, huge + 3000, 3, n, MIN_RUN, 2);
    u_dyn("ull < dynamic,2 empty", huge, huge, 1, n, ANY, 1);
    /* Steps of 2^63 or more (negative as int64): gcc passes the direction.
       (Chunk 1: with chunk 2 on 3 threads, libgomp 12 never ends the loop.) */
    u_dyn1("ull < dynamic,1 step 2^63+49, one iteration", 20, huge - 70, huge + 49, n, ANY, 1);
    u_dyn1_down("ull > dynamic,1 step -(2^63+50), one iteration", ~0ULL - 3, huge + 69, 0 - (huge + 50), n, ANY, 1);
    u_static("ull <= static step 2^63+49, one iteration", 20, huge - 70, huge + 49, n, ANY, 1);
    u_mono_dyn("ull < monotonic:dynamic,6", 10, 1500, 1, n, MIN_RUN, 6);
    u_guided("ull <= guided,3", 0, 1000, 1, n, MIN_RUN, 3);
    omp_set_schedule(omp_sched_static, 0);
    l_runtime("long < runtime (static)", 0, 1000, 1, n, STATIC_BLOCK, 1);
    u_runtime("ull < runtime (static)", huge - 500, huge + 500, 1, n, STATIC_BLOCK, 1);
    omp_set_schedule(omp_sched_static, 4);
    l_runtime("long < runtime (static,4)", 0, 1000, 1, n, RR_CHUNK, 4);
    omp_set_schedule(omp_sched_guided, 2);
    u_runtime("ull < runtime (guided,2)", 0, 1000, 1, n, MIN_RUN, 2);
    omp_set_schedule(omp_sched_auto, 0);
    l_runtime("long < runtime (auto)", 0, 1000, 1, n, ANY, 1);

    omp_set_schedule(omp_sched_dynamic, 2);
    o_static("ordered static", 0, 300, n);
    o_static_2("ordered static,2", 0, 300, n);
    o_dyn("ordered dynamic,3", 5, 300, n);
    o_guided("ordered guided, ull", 7, 300, n);
    o_runtime("ordered runtime (dynamic,2)", 0, 300, n);
    o_mono_runtime("ordered monotonic:runtime (dynamic,2), ull", huge, 300, n);
  }

  p_dyn();
  p_mono_dyn();
  p_guided();
  omp_set_schedule(omp_sched_guided, 3);
  p_runtime();
  p_nm_runtime();
  p_mono_runtime();
  p_static_5();

  /* doacross: ordered(2) with sinks on both dimensions, long and ull */
  enum { R = 40, C = 30 };
  static int grid[R][C];
  memset(grid, 0, sizeof grid);
  int bad = 0;
#pragma omp parallel num_threads(4)
#pragma omp for ordered(2) schedule(dynamic)
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
      if ((i > 0 && __atomic_load_n(&grid[i - 1][j], __ATOMIC_ACQUIRE) == 0) ||
          (j > 0 && __atomic_load_n(&grid[i][j - 1], __ATOMIC_ACQUIRE) == 0))
        bad = 1;
      __atomic_store_n(&grid[i][j], 1, __ATOMIC_RELEASE);
#pragma omp ordered depend(source)
    }
  CHECK(!bad, "doacross: an iteration ran before one of its sinks");
  unsigned long long done_u = 0;
  bad = 0;
  static int line[200];
  memset(line, 0, sizeof line);
#pragma omp parallel num_threads(3)
#pragma omp for ordered(1) schedule(static, 4)
  for (unsigned long long i = 1; i <= 200; i++) { /* from 0: gomp_doacross_unsigned.c */
#pragma omp ordered depend(sink : i - 1)
    if (i > 1 && __atomic_load_n(&line[i - 2], __ATOMIC_ACQUIRE) == 0)
      bad = 1;
    __atomic_store_n(&line[i - 1], 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&done_u, 1, __ATOMIC_RELAXED);
#pragma omp ordered depend(source)
  }
  CHECK(!bad && done_u == 200, "doacross ull: bad %d, %llu iterations", bad, done_u);

  /* lastprivate with a dynamic schedule and an uneven stride */
  long last = -1;
#pragma omp parallel for num_threads(4) schedule(dynamic, 2) lastprivate(last)
  for (long i = 0; i < 100; i += 3)
    last = i;
  CHECK_EQ("lastprivate, dynamic, stride 3", last, 99);

  /* sections: more sections than threads, nowait, in a combined construct */
  int hits[5] = {0};
#pragma omp parallel sections num_threads(3)
  {
#pragma omp section
    hits[0]++;
#pragma omp section
    hits[1]++;
#pragma omp section
    hits[2]++;
#pragma omp section
    hits[3]++;
#pragma omp section
    hits[4]++;
  }
  for (int s = 0; s < 5; s++)
    CHECK(hits[s] == 1, "parallel sections: section %d ran %d times", s, hits[s]);
  return conf_end();
}
