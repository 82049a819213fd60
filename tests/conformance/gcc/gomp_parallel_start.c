/* The parallel region as gcc 4.8 and older compiled it: GOMP_parallel_start
   opens the team and returns, the encountering thread calls the body itself
   as thread 0, and GOMP_parallel_end is the region's end (its barrier and
   join). gcc 12 emits GOMP_parallel instead, so the calls are written out
   here, with libgomp's prototypes; the bodies are ordinary functions whose
   orphaned constructs (barrier, single, tasks) bind to the open region.

   Checked: every thread of the team runs the body once, with its own thread
   number, the team size and the level of a region; the num_threads argument
   (0: nthreads-var; 1: what gcc passes for if(false), an inactive region);
   a barrier inside the body; tasks created in the region are done when
   GOMP_parallel_end returns, and the other threads run some of them; a
   region opened inside another (nested, both forms, with
   max-active-levels 2, and inactive with 1); many regions in a row; and
   afterwards, the initial thread's context (level 0, a normal region). */
#include <unistd.h>

#include "check.h"

void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads);
void GOMP_parallel_end(void);

enum { MAX = 64 };

struct region {
  int want;              /* the team size the region must have */
  int want_level;        /* omp_get_level() inside */
  int want_active;       /* omp_get_active_level() inside */
  int ran[MAX];          /* how often each thread number ran the body */
  int sizes_ok, levels_ok;
  int before[MAX];       /* barrier: written before it, read after it */
  int barrier_ok;
  int singles;
};

static void body(void *p) {
  struct region *r = p;
  int me = omp_get_thread_num(), n = omp_get_num_threads();
  if (me < 0 || me >= MAX) {
    CHECK(0, "thread number %d out of range", me);
    return;
  }
  __atomic_fetch_add(&r->ran[me], 1, __ATOMIC_RELAXED);
  if (n == r->want) __atomic_fetch_add(&r->sizes_ok, 1, __ATOMIC_RELAXED);
  if (omp_get_level() == r->want_level && omp_get_active_level() == r->want_active &&
      omp_in_parallel() == (r->want_active > 0))
    __atomic_fetch_add(&r->levels_ok, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&r->before[me], 1, __ATOMIC_RELAXED);
#pragma omp barrier
  int all = 1;
  for (int t = 0; t < n && t < MAX; t++) all &= __atomic_load_n(&r->before[t], __ATOMIC_RELAXED);
  if (all) __atomic_fetch_add(&r->barrier_ok, 1, __ATOMIC_RELAXED);
#pragma omp single
  __atomic_fetch_add(&r->singles, 1, __ATOMIC_RELAXED);
}

/* One region in the legacy form, then its checks. */
static void run_region(const char *what, unsigned num_threads, int want, int level, int active) {
  struct region r;
  memset(&r, 0, sizeof r);
  r.want = want;
  r.want_level = level;
  r.want_active = active;
  GOMP_parallel_start(body, &r, num_threads);
  body(&r);
  GOMP_parallel_end();
  for (int t = 0; t < MAX; t++)
    CHECK(r.ran[t] == (t < want), "%s: thread %d ran the body %d times, want %d", what, t, r.ran[t], t < want);
  CHECK(r.sizes_ok == want, "%s: %d of %d threads saw the team size", what, r.sizes_ok, want);
  CHECK(r.levels_ok == want, "%s: %d of %d threads saw level %d, active level %d", what, r.levels_ok, want,
        level, active);
  CHECK(r.barrier_ok == want, "%s: %d of %d threads passed the barrier after every thread arrived", what,
        r.barrier_ok, want);
  CHECK(r.singles == 1, "%s: the single ran %d times", what, r.singles);
}

/* Tasks created by thread 0 in a legacy region: all done at
   GOMP_parallel_end, and some run by the other thread. Thread 0 creates them
   only once the other thread has ended its part of the body: that thread is
   then at the region's end, a barrier, where it must run tasks until every
   thread has arrived (leaving as soon as no task exists would be correct
   but leave all of them to thread 0). */
enum { NTASKS = 100 };
struct tasks {
  int done[NTASKS];
  int by_others;
  int others_ended;
};

static void task_body(void *p) {
  struct tasks *s = p;
  if (omp_get_thread_num() != 0) {
    __atomic_store_n(&s->others_ended, 1, __ATOMIC_RELEASE);
    return;
  }
  while (!__atomic_load_n(&s->others_ended, __ATOMIC_ACQUIRE)) usleep(100);
  for (int i = 0; i < NTASKS; i++) {
#pragma omp task firstprivate(i) shared(s)
    {
      usleep(1000);
      __atomic_fetch_add(&s->done[i], 1, __ATOMIC_RELAXED);
      if (omp_get_thread_num() != 0) __atomic_fetch_add(&s->by_others, 1, __ATOMIC_RELAXED);
    }
  }
}

/* Nested: each thread of an outer legacy region opens an inner one, in the
   legacy form or (odd thread numbers) as gcc 12 compiles it. */
struct outer {
  int ask;     /* num_threads of the inner regions */
  int expect;  /* their team size */
  int inner_ok[MAX];
};

static void inner_body(void *p) {
  struct outer *o = p;
  int outer_tid = omp_get_ancestor_thread_num(1);
  if (outer_tid >= 0 && outer_tid < MAX && omp_get_level() == 2 && omp_get_team_size(1) == 2 &&
      omp_get_num_threads() == o->expect)
    __atomic_fetch_add(&o->inner_ok[outer_tid], 1, __ATOMIC_RELAXED);
}

static void outer_body(void *p) {
  struct outer *o = p;
  if (omp_get_thread_num() % 2 == 0) {
    GOMP_parallel_start(inner_body, o, (unsigned)o->ask);
    inner_body(o);
    GOMP_parallel_end();
  } else {
#pragma omp parallel num_threads(o->ask)
    inner_body(o);
  }
  CHECK(omp_get_level() == 1 && omp_get_num_threads() == 2,
        "after an inner region, thread %d is at level %d in a team of %d", omp_get_thread_num(), omp_get_level(),
        omp_get_num_threads());
}

/* Inner regions ask for `ask` threads and must get `want_inner`. */
static void nested(int active_levels, int ask, int want_inner) {
  omp_set_max_active_levels(active_levels);
  struct outer o;
  memset(&o, 0, sizeof o);
  o.ask = ask;
  o.expect = want_inner;
  GOMP_parallel_start(outer_body, &o, 2);
  outer_body(&o);
  GOMP_parallel_end();
  for (int t = 0; t < 2; t++)
    CHECK(o.inner_ok[t] == want_inner,
          "max-active-levels %d: %d threads of outer thread %d's inner region saw the nest, want %d", active_levels,
          o.inner_ok[t], t, want_inner);
}

int main(void) {
  int n = omp_get_max_threads();
  if (n > MAX) n = MAX;

  run_region("num_threads 0 (nthreads-var)", 0, n, 1, n > 1);
  run_region("num_threads 3", 3, 3, 1, 1);
  run_region("num_threads 1 (if(false))", 1, 1, 1, 0);

  /* Many regions in a row (the team is reused), and a normal region after. */
  for (int i = 0; i < 200; i++) {
    struct region r;
    memset(&r, 0, sizeof r);
    r.want = 2;
    r.want_level = 1;
    r.want_active = 1;
    GOMP_parallel_start(body, &r, 2);
    body(&r);
    GOMP_parallel_end();
    CHECK(r.ran[0] == 1 && r.ran[1] == 1 && r.singles == 1 && r.barrier_ok == 2,
          "region %d of 200: ran %d/%d, %d singles, barrier %d", i, r.ran[0], r.ran[1], r.singles, r.barrier_ok);
  }
  CHECK(omp_get_level() == 0 && !omp_in_parallel() && omp_get_thread_num() == 0,
        "after the regions: level %d, in parallel %d, thread %d", omp_get_level(), omp_in_parallel(),
        omp_get_thread_num());
  int team = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  CHECK_EQ("a normal region after the legacy ones", team, 2);

  struct tasks s;
  memset(&s, 0, sizeof s);
  GOMP_parallel_start(task_body, &s, 2);
  task_body(&s);
  GOMP_parallel_end();
  int missing = 0;
  for (int i = 0; i < NTASKS; i++) missing += s.done[i] != 1;
  CHECK(missing == 0, "tasks: %d of %d did not run exactly once by GOMP_parallel_end", missing, NTASKS);
  CHECK(s.by_others > 0, "tasks: the other thread, waiting at the region's end, ran none of the %d tasks",
        NTASKS);

  nested(2, 2, 2);
  nested(1, 3, 1);
  omp_set_max_active_levels(1);

  return conf_end();
}
