/* The combined parallel loop and parallel sections as gcc 4.8 and older
   compiled them: GOMP_parallel_loop_<kind>_start (or
   GOMP_parallel_sections_start) opens the team with every thread already in
   the worksharing construct and returns; the encountering thread then calls
   the body itself as thread 0, and GOMP_parallel_end ends the region. The
   body's first call is GOMP_loop_<kind>_next (GOMP_sections_next): nothing
   in it starts the construct. gcc 12 emits GOMP_parallel_loop_* instead, so
   the calls are written out here with libgomp's prototypes.

   Checked, for the static (with and without a chunk), dynamic, guided and
   runtime schedules, up and down loops: every iteration runs exactly once,
   every thread of the team sees the team size, the chunks of a static
   schedule with a chunk go round-robin from thread 0; for sections, every
   section runs exactly once; a region of one thread (if(false)); many
   regions in a row; a normal region afterwards. */
#include "check.h"

void GOMP_parallel_loop_static_start(void (*fn)(void *), void *data, unsigned num_threads, long start, long end,
                                     long incr, long chunk);
void GOMP_parallel_loop_dynamic_start(void (*fn)(void *), void *data, unsigned num_threads, long start, long end,
                                      long incr, long chunk);
void GOMP_parallel_loop_guided_start(void (*fn)(void *), void *data, unsigned num_threads, long start, long end,
                                     long incr, long chunk);
void GOMP_parallel_loop_runtime_start(void (*fn)(void *), void *data, unsigned num_threads, long start, long end,
                                      long incr);
void GOMP_parallel_sections_start(void (*fn)(void *), void *data, unsigned num_threads, unsigned count);
void GOMP_parallel_end(void);
int GOMP_loop_static_next(long *istart, long *iend);
int GOMP_loop_dynamic_next(long *istart, long *iend);
int GOMP_loop_guided_next(long *istart, long *iend);
int GOMP_loop_runtime_next(long *istart, long *iend);
void GOMP_loop_end_nowait(void);
unsigned GOMP_sections_next(void);
void GOMP_sections_end_nowait(void);

enum { MAXN = 4000, MAXT = 64 };

struct loop {
  int (*next)(long *, long *);
  long start, end, incr, chunk;
  int want;                 /* team size */
  int hits[MAXN];           /* per iteration index (i - start) / incr */
  int wrong_size;           /* threads that saw another team size */
  int out_of_range;
  int wrong_owner;          /* static with a chunk: a chunk on the wrong thread */
  int runaway;              /* threads still handed chunks after more calls than iterations */
  int ran[MAXT];
};

static void loop_body(void *p) {
  struct loop *l = p;
  int me = omp_get_thread_num();
  if (omp_get_num_threads() != l->want) __atomic_fetch_add(&l->wrong_size, 1, __ATOMIC_RELAXED);
  if (me < MAXT) __atomic_fetch_add(&l->ran[me], 1, __ATOMIC_RELAXED);
  long lo, hi, calls = 0;
  while (l->next(&lo, &hi)) {
    /* A runtime that hands a part out again would loop forever: fail instead. */
    if (++calls > MAXN) {
      __atomic_fetch_add(&l->runaway, 1, __ATOMIC_RELAXED);
      break;
    }
    for (long i = lo; l->incr > 0 ? i < hi : i > hi; i += l->incr) {
      long k = (i - l->start) / l->incr;
      if (k < 0 || k >= MAXN || (i - l->start) % l->incr != 0) {
        __atomic_fetch_add(&l->out_of_range, 1, __ATOMIC_RELAXED);
        continue;
      }
      __atomic_fetch_add(&l->hits[k], 1, __ATOMIC_RELAXED);
      if (l->next == GOMP_loop_static_next && l->chunk > 0 && (k / l->chunk) % l->want != me)
        __atomic_fetch_add(&l->wrong_owner, 1, __ATOMIC_RELAXED);
    }
  }
  GOMP_loop_end_nowait();
}

static void run_loop(const char *what, int kind, unsigned nthreads, int want, long start, long end, long incr,
                     long chunk) {
  static struct loop l;
  memset(&l, 0, sizeof l);
  l.start = start;
  l.end = end;
  l.incr = incr;
  l.chunk = chunk;
  l.want = want;
  switch (kind) {
    case 0:
      l.next = GOMP_loop_static_next;
      GOMP_parallel_loop_static_start(loop_body, &l, nthreads, start, end, incr, chunk);
      break;
    case 1:
      l.next = GOMP_loop_dynamic_next;
      GOMP_parallel_loop_dynamic_start(loop_body, &l, nthreads, start, end, incr, chunk);
      break;
    case 2:
      l.next = GOMP_loop_guided_next;
      GOMP_parallel_loop_guided_start(loop_body, &l, nthreads, start, end, incr, chunk);
      break;
    default:
      l.next = GOMP_loop_runtime_next;
      GOMP_parallel_loop_runtime_start(loop_body, &l, nthreads, start, end, incr);
      break;
  }
  loop_body(&l);
  GOMP_parallel_end();
  CHECK(l.runaway == 0, "%s: %d threads were still handed chunks after %d calls", what, l.runaway, MAXN);
  long trip = incr > 0 ? (end - start + incr - 1) / incr : (start - end - incr - 1) / -incr;
  int bad = 0, first = -1;
  for (long k = 0; k < MAXN; k++) {
    int want_hits = k < trip;
    if (l.hits[k] != want_hits) {
      if (first < 0) first = (int)k;
      bad++;
    }
  }
  CHECK(bad == 0, "%s: %d iterations did not run exactly once (first: index %d, %d times)", what, bad, first,
        first >= 0 ? l.hits[first] : 0);
  CHECK(l.out_of_range == 0, "%s: %d iterations outside the loop", what, l.out_of_range);
  CHECK(l.wrong_size == 0, "%s: %d threads saw a team size other than %d", what, l.wrong_size, want);
  CHECK(l.wrong_owner == 0, "%s: %d iterations of a static chunk ran on the wrong thread", what, l.wrong_owner);
  for (int t = 0; t < MAXT; t++)
    CHECK(l.ran[t] == (t < want), "%s: thread %d ran the body %d times", what, t, l.ran[t]);
}

enum { NSECT = 7 };
struct sections {
  int hits[NSECT + 2];
  int ran[MAXT];
};

static void sections_body(void *p) {
  struct sections *s = p;
  int me = omp_get_thread_num();
  if (me < MAXT) __atomic_fetch_add(&s->ran[me], 1, __ATOMIC_RELAXED);
  for (unsigned k = GOMP_sections_next(); k != 0; k = GOMP_sections_next()) {
    if (k <= NSECT + 1) __atomic_fetch_add(&s->hits[k], 1, __ATOMIC_RELAXED);
  }
  GOMP_sections_end_nowait();
}

static void run_sections(const char *what, unsigned nthreads, int want) {
  struct sections s;
  memset(&s, 0, sizeof s);
  GOMP_parallel_sections_start(sections_body, &s, nthreads, NSECT);
  sections_body(&s);
  GOMP_parallel_end();
  for (int k = 0; k <= NSECT + 1; k++)
    CHECK(s.hits[k] == (k >= 1 && k <= NSECT), "%s: section %d ran %d times", what, k, s.hits[k]);
  for (int t = 0; t < MAXT; t++)
    CHECK(s.ran[t] == (t < want), "%s: thread %d ran the body %d times", what, t, s.ran[t]);
}

int main(void) {
  static const char *names[4] = {"static", "dynamic", "guided", "runtime"};
  char what[96];
  for (int kind = 0; kind < 4; kind++) {
    snprintf(what, sizeof what, "%s, 2 threads, up", names[kind]);
    run_loop(what, kind, 2, 2, 5, 2005, 2, kind == 1 ? 3 : kind == 2 ? 1 : 0);
    snprintf(what, sizeof what, "%s, 3 threads, down", names[kind]);
    run_loop(what, kind, 3, 3, 1000, -1000, -1, kind == 0 ? 0 : 7);
    snprintf(what, sizeof what, "%s, 1 thread (if(false))", names[kind]);
    run_loop(what, kind, 1, 1, 0, 100, 1, 4);
    snprintf(what, sizeof what, "%s, empty loop", names[kind]);
    run_loop(what, kind, 2, 2, 10, 10, 1, 1);
  }
  run_loop("static with chunk 3, 2 threads", 0, 2, 2, 0, 1001, 1, 3);
  run_loop("static with chunk 5, 3 threads, down", 0, 3, 3, 0, -3000, -1, 5);
  run_sections("sections, 2 threads", 2, 2);
  run_sections("sections, 3 threads", 3, 3);
  run_sections("sections, 1 thread (if(false))", 1, 1);

  for (int i = 0; i < 200; i++) {
    snprintf(what, sizeof what, "dynamic region %d of 200", i);
    run_loop(what, 1, 2, 2, 0, 64, 1, 1);
    snprintf(what, sizeof what, "sections region %d of 200", i);
    run_sections(what, 2, 2);
  }
  CHECK(omp_get_level() == 0 && !omp_in_parallel(), "after the regions: level %d", omp_get_level());
  int team = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  CHECK_EQ("a normal region after the legacy ones", team, 2);
  return conf_end();
}
