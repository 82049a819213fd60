/* loops.h: one worksharing-loop driver for every schedule.
 *
 * The including file defines SCHED, the clause under test (for instance
 * `schedule(dynamic, 5)`), then calls conf_loops(). Each case runs one loop
 * shape under `#pragma omp for SCHED` on teams of 1, 3, 4 and 7 threads and
 * records, per logical iteration k (0 = first in sequential order), how often
 * it ran and which thread ran it. Loop variables are int, unsigned, long long
 * and unsigned long long, so clang calls the _4, _4u, _8 and _8u entry
 * points; shapes count up and down, with unit and non-unit strides, < <= > >=,
 * odd trip counts, bases beyond 2^32 for the 64-bit types, 0 and 1
 * iterations.
 *
 * Always checked: every iteration runs exactly once. What else the spec
 * promises depends on the schedule, so the caller says it in conf_expect:
 *   static_block  schedule(static): at most one contiguous chunk per thread,
 *                 chunks in thread-number order;
 *   rr_chunk      schedule(static, c): iteration k runs on thread (k/c) % n;
 *   min_run       dynamic/guided with chunk c: every maximal run of
 *                 iterations on one thread has at least c iterations, except
 *                 the run that holds the last iteration;
 *   monotonic     each thread runs its iterations in increasing order.
 */
#ifndef CONF_LOOPS_H
#define CONF_LOOPS_H

#include "check.h"

#ifndef SCHED
#error "define SCHED (the schedule clause under test) before including loops.h"
#endif

struct conf_expect {
  int static_block;
  long rr_chunk;
  long min_run;
  int monotonic;
};

/* Per-loop record, reset before each loop. */
static int *loop_count;
static int *loop_owner;
static long long *loop_prev; /* per thread: last k it ran, for monotonic */
#define LOOP_MAX_TRIP 4096
#define LOOP_MAX_THREADS 16

static void loop_record(long long k) {
  int tid = omp_get_thread_num();
  if (k < 0 || k >= LOOP_MAX_TRIP) {
    CHECK(0, "iteration index %lld outside the iteration space", k);
    return;
  }
  __atomic_fetch_add(&loop_count[k], 1, __ATOMIC_RELAXED);
  loop_owner[k] = tid;
  if (tid < LOOP_MAX_THREADS) {
    if (loop_prev[tid] >= k)
      loop_prev[tid] = -2 - k; /* remember an order inversion */
    else if (loop_prev[tid] > -2)
      loop_prev[tid] = k;
  }
}

static void loop_verify(const char *what, long long trip, int nth,
                        const struct conf_expect *e) {
  for (long long k = 0; k < trip; k++)
    if (loop_count[k] != 1) {
      CHECK(0, "%s on %d threads: iteration %lld of %lld ran %d times", what, nth,
            k, trip, loop_count[k]);
      return;
    }
  for (long long k = trip; k < LOOP_MAX_TRIP; k++)
    if (loop_count[k] != 0) {
      CHECK(0, "%s on %d threads: iteration %lld ran but the loop has %lld", what,
            nth, k, trip);
      return;
    }
  for (long long k = 0; k < trip; k++)
    if (loop_owner[k] < 0 || loop_owner[k] >= nth) {
      CHECK(0, "%s: iteration %lld ran on thread %d of %d", what, k, loop_owner[k],
            nth);
      return;
    }
  if (e->rr_chunk > 0)
    for (long long k = 0; k < trip; k++)
      if (loop_owner[k] != (k / e->rr_chunk) % nth) {
        CHECK(0, "%s on %d threads: iteration %lld ran on thread %d, static chunk %ld puts it on %lld",
              what, nth, k, loop_owner[k], e->rr_chunk, (k / e->rr_chunk) % nth);
        return;
      }
  /* No chunk: chunk t goes to thread t, at most one each, so the owners
     read 0,0,..,1,1,..,2,.. in iteration order. */
  if (e->static_block && trip > 0) {
    CHECK(loop_owner[0] == 0, "%s on %d threads: the first chunk ran on thread %d, not 0",
          what, nth, loop_owner[0]);
    for (long long k = 1; k < trip; k++)
      if (loop_owner[k] != loop_owner[k - 1] && loop_owner[k] != loop_owner[k - 1] + 1) {
        CHECK(0, "%s on %d threads: iteration %lld on thread %d follows one on thread %d: not one contiguous chunk per thread in thread order",
              what, nth, k, loop_owner[k], loop_owner[k - 1]);
        return;
      }
  }
  if (e->min_run > 1) {
    long long start = 0;
    for (long long k = 1; k <= trip; k++)
      if (k == trip || loop_owner[k] != loop_owner[start]) {
        if (k < trip && k - start < e->min_run) {
          CHECK(0, "%s on %d threads: iterations %lld..%lld on thread %d form a chunk smaller than %ld",
                what, nth, start, k - 1, loop_owner[start], e->min_run);
          return;
        }
        start = k;
      }
  }
  if (e->monotonic)
    for (int t = 0; t < nth && t < LOOP_MAX_THREADS; t++)
      if (loop_prev[t] < -1) {
        CHECK(0, "%s on %d threads: thread %d ran iteration %lld after a later one (monotonic)",
              what, nth, t, -2 - loop_prev[t]);
        return;
      }
}

static void loop_reset(void) {
  memset(loop_count, 0, LOOP_MAX_TRIP * sizeof *loop_count);
  memset(loop_owner, 0xff, LOOP_MAX_TRIP * sizeof *loop_owner);
  for (int t = 0; t < LOOP_MAX_THREADS; t++)
    loop_prev[t] = -1;
}

/* Defines loop_<NAME>(lo, hi, st, nth, expect): `for (T i = lo; i CMP hi;
   i STEP st)` with SCHED, after counting its trip sequentially. */
#define DEFINE_LOOP(NAME, T, CMP, STEP)                                        \
  static void loop_##NAME(const char *what, T lo, T hi, T st, int nth,         \
                          const struct conf_expect *e) {                       \
    long long trip = 0;                                                        \
    for (T i = lo; i CMP hi; i STEP st)                                        \
      trip++;                                                                  \
    if (trip > LOOP_MAX_TRIP) {                                                \
      CHECK(0, "%s: test loop too long (%lld)", what, trip);                   \
      return;                                                                  \
    }                                                                          \
    loop_reset();                                                              \
    CONF_PRAGMA(omp parallel num_threads(nth))                                 \
    {                                                                          \
      CONF_PRAGMA(omp for SCHED)                                               \
      for (T i = lo; i CMP hi; i STEP st)                                      \
        loop_record((long long)((i > lo ? i - lo : lo - i) / st));            \
    }                                                                          \
    loop_verify(what, trip, nth, e);                                           \
  }

DEFINE_LOOP(i_lt, int, <, +=)
DEFINE_LOOP(i_le, int, <=, +=)
DEFINE_LOOP(i_gt, int, >, -=)
DEFINE_LOOP(i_ge, int, >=, -=)
DEFINE_LOOP(u_lt, unsigned, <, +=)
DEFINE_LOOP(u_gt, unsigned, >, -=)
DEFINE_LOOP(u_ge, unsigned, >=, -=)
DEFINE_LOOP(ll_lt, long long, <, +=)
DEFINE_LOOP(ll_ge, long long, >=, -=)
DEFINE_LOOP(ull_lt, unsigned long long, <, +=)
DEFINE_LOOP(ull_le, unsigned long long, <=, +=)
DEFINE_LOOP(ull_gt, unsigned long long, >, -=)

/* With bounds known at compile time clang keeps the signed iteration type,
   so these reach the signed _4 and _8 entry points; the loops above, with
   run-time bounds, use the unsigned ones. */
#define DEFINE_FIXED_LOOP(NAME, T, LO, CMP, HI, STEP, ST)                      \
  static void fixed_##NAME(int nth, const struct conf_expect *e) {             \
    long long trip = 0;                                                        \
    for (T i = LO; i CMP HI; i STEP ST)                                        \
      trip++;                                                                  \
    loop_reset();                                                              \
    CONF_PRAGMA(omp parallel num_threads(nth))                                 \
    {                                                                          \
      CONF_PRAGMA(omp for SCHED)                                               \
      for (T i = LO; i CMP HI; i STEP ST)                                      \
        loop_record((long long)((i > LO ? i - LO : LO - i) / ST));            \
    }                                                                          \
    loop_verify(#T " " #LO " " #CMP " " #HI " step " #ST, trip, nth, e);      \
  }

DEFINE_FIXED_LOOP(i, int, -50, <, 951, +=, 2)
DEFINE_FIXED_LOOP(ll, long long, 5000000000LL, >, 4999998999LL, -=, 3)

#define LOOP_CASE(NAME, LO, HI, ST)                                            \
  loop_##NAME(#NAME " " #LO " " #HI " step " #ST, (LO), (HI), (ST), nth, e)

/* Runs every shape on every team size. */
static void conf_loops(const struct conf_expect *e) {
  static const int teams[] = {1, 3, 4, 7};
  loop_count = calloc(LOOP_MAX_TRIP, sizeof *loop_count);
  loop_owner = calloc(LOOP_MAX_TRIP, sizeof *loop_owner);
  loop_prev = calloc(LOOP_MAX_THREADS, sizeof *loop_prev);
  const long long big = 1LL << 40;
  for (size_t t = 0; t < sizeof teams / sizeof teams[0] && !conf_has_failed(); t++) {
    int nth = teams[t];
    LOOP_CASE(i_lt, 0, 1001, 1);
    LOOP_CASE(i_lt, -7, 500, 3);
    LOOP_CASE(i_le, -100, 100, 7);
    LOOP_CASE(i_gt, 1000, 0, 1);
    LOOP_CASE(i_ge, 999, -4, 5);
    LOOP_CASE(i_lt, 5, 5, 1);    /* no iteration */
    LOOP_CASE(i_gt, 5, 9, 1);    /* no iteration */
    LOOP_CASE(i_lt, 42, 43, 1);  /* one iteration */
    LOOP_CASE(u_lt, 3u, 1000u, 3u);
    LOOP_CASE(u_lt, 4000000000u, 4000000999u, 2u); /* above INT_MAX */
    LOOP_CASE(u_gt, 1001u, 0u, 1u);
    LOOP_CASE(u_ge, 1000u, 10u, 9u);
    LOOP_CASE(u_lt, 7u, 3u, 1u); /* no iteration */
    LOOP_CASE(ll_lt, -big, -big + 1001, 1LL);
    LOOP_CASE(ll_lt, big - 500, big + 500, 3LL);
    LOOP_CASE(ll_ge, big + 777, big - 222, 11LL);
    LOOP_CASE(ll_lt, big, big + 1, 1LL); /* one iteration */
    LOOP_CASE(ull_lt, 0ULL, 1001ULL, 1ULL);
    LOOP_CASE(ull_lt, (unsigned long long)big * 1000, (unsigned long long)big * 1000 + 3001, 3ULL);
    LOOP_CASE(ull_le, 10ULL, 1009ULL, 2ULL);
    LOOP_CASE(ull_gt, (unsigned long long)big + 999, (unsigned long long)big, 1ULL);
    LOOP_CASE(ull_gt, 100ULL, 100ULL, 1ULL); /* no iteration */
    fixed_i(nth, e);
    fixed_ll(nth, e);
  }
  free(loop_count);
  free(loop_owner);
  free(loop_prev);
}

/* What the spec promises for a run-sched-var (kind, chunk) under
   schedule(runtime). Static, and anything marked monotonic, keeps each
   thread's iterations in order; other kinds are nonmonotonic by default. */
static struct conf_expect conf_expect_for(omp_sched_t kind, int chunk) CONF_UNUSED;
static struct conf_expect conf_expect_for(omp_sched_t kind, int chunk) {
  struct conf_expect e = {0, 0, 0, 0};
  int monotonic = ((unsigned)kind & (unsigned)omp_sched_monotonic) != 0;
  switch ((omp_sched_t)((unsigned)kind & ~(unsigned)omp_sched_monotonic)) {
  case omp_sched_static:
    if (chunk < 1)
      e.static_block = 1;
    else
      e.rr_chunk = chunk;
    e.monotonic = 1;
    break;
  case omp_sched_dynamic:
  case omp_sched_guided:
    e.min_run = chunk;
    e.monotonic = monotonic;
    break;
  default: /* auto: the implementation chooses; only counts are checked */
    break;
  }
  return e;
}

#endif
