/* pthread read-write locks and spin locks among the members of nested
   teams keep their POSIX contract under any runtime (on a fiber, Bobbin's
   waits let the worker's other fibers run and keep which fiber holds a
   write lock: ult/block_linux.cpp).
   - nested teams of 4 under an outer team of 2 (more threads than a small
     machine's cores): write sections (wrlock, timedwrlock, clockwrlock)
     with a yield and a sleep inside are never entered twice at once and
     every lock succeeds; read sections (rdlock, timedrdlock, clockrdlock)
     never overlap a write section; spin-lock sections with a yield inside
     are never entered twice at once;
   - a timed write lock of a lock another member holds for writing, and a
     timed read lock of it, end with ETIMEDOUT no earlier than asked;
   - a thread's second wrlock of a lock it holds for writing is EDEADLK,
     as is its rdlock of it, and a trywrlock of a held lock is EBUSY. */
#include "check.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

enum { OUTER = 2, INNER = 4, ITERS = 60, SHORT_NS = 3000000 };

typedef struct {
  pthread_rwlock_t rw, held;
  pthread_spinlock_t spin;
  int writers, readers, spinners;
  long sum;
} team_t;

static team_t g_team[OUTER];

static struct timespec later(clockid_t c, long long ns) { return conf_at(conf_ns_on(c) + ns); }

/* A read or write lock of t->rw by kind: plain, timed (CLOCK_REALTIME),
   clock (CLOCK_MONOTONIC), with 5 s deadlines. */
static int rw_lock(team_t *t, int write, int kind) {
  pthread_rwlock_t *l = &t->rw;
  if (kind == 0) return write ? pthread_rwlock_wrlock(l) : pthread_rwlock_rdlock(l);
  if (kind == 1) {
    struct timespec d = later(CLOCK_REALTIME, 5000000000LL);
    return write ? pthread_rwlock_timedwrlock(l, &d) : pthread_rwlock_timedrdlock(l, &d);
  }
  struct timespec d = later(CLOCK_MONOTONIC, 5000000000LL);
  return write ? pthread_rwlock_clockwrlock(l, CLOCK_MONOTONIC, &d) : pthread_rwlock_clockrdlock(l, CLOCK_MONOTONIC, &d);
}

static void sections(team_t *t, int me) {
  for (int i = 0; i < ITERS; i++) {
    int kind = (i + me) % 3;
    if ((i + me) % 2 == 0) {
      int rc = rw_lock(t, 1, kind);
      CHECK(rc == 0, "member %d write lock %d: %s", me, kind, strerror(rc));
      if (rc) continue;
      CHECK(__atomic_fetch_add(&t->writers, 1, __ATOMIC_RELAXED) == 0, "two writers at once");
      CHECK(__atomic_load_n(&t->readers, __ATOMIC_RELAXED) == 0, "a reader inside a write section");
      sched_yield();
      if (i % 4 == 0) usleep(50);
      t->sum++;
      __atomic_fetch_sub(&t->writers, 1, __ATOMIC_RELAXED);
      pthread_rwlock_unlock(&t->rw);
    } else {
      int rc = rw_lock(t, 0, kind);
      CHECK(rc == 0, "member %d read lock %d: %s", me, kind, strerror(rc));
      if (rc) continue;
      __atomic_fetch_add(&t->readers, 1, __ATOMIC_RELAXED);
      CHECK(__atomic_load_n(&t->writers, __ATOMIC_RELAXED) == 0, "a writer inside a read section");
      sched_yield();
      __atomic_fetch_sub(&t->readers, 1, __ATOMIC_RELAXED);
      pthread_rwlock_unlock(&t->rw);
    }
    pthread_spin_lock(&t->spin);
    CHECK(__atomic_fetch_add(&t->spinners, 1, __ATOMIC_RELAXED) == 0, "two members inside a spin lock");
    sched_yield();
    __atomic_fetch_sub(&t->spinners, 1, __ATOMIC_RELAXED);
    pthread_spin_unlock(&t->spin);
  }
}

static void held_elsewhere(team_t *t, int me) {
#pragma omp barrier
  if (me == 0) CHECK(pthread_rwlock_wrlock(&t->held) == 0, "wrlock of a free lock");
#pragma omp barrier
  if (me != 0) {
    long long t0 = conf_ns_on(CLOCK_REALTIME);
    struct timespec d = conf_at(t0 + SHORT_NS);
    int rc = pthread_rwlock_timedwrlock(&t->held, &d);
    CHECK(rc == ETIMEDOUT, "timedwrlock of a lock held for writing: %s", strerror(rc));
    CHECK(conf_ns_on(CLOCK_REALTIME) >= t0 + SHORT_NS, "timedwrlock returned before its deadline");
    t0 = conf_ns_on(CLOCK_MONOTONIC);
    d = conf_at(t0 + SHORT_NS);
    rc = pthread_rwlock_clockrdlock(&t->held, CLOCK_MONOTONIC, &d);
    CHECK(rc == ETIMEDOUT, "clockrdlock of a lock held for writing: %s", strerror(rc));
    CHECK(conf_ns_on(CLOCK_MONOTONIC) >= t0 + SHORT_NS, "clockrdlock returned before its deadline");
    CHECK(pthread_rwlock_trywrlock(&t->held) == EBUSY, "trywrlock of a lock held for writing");
  } else {
    CHECK(pthread_rwlock_wrlock(&t->held) == EDEADLK, "a second wrlock by the holder");
    CHECK(pthread_rwlock_rdlock(&t->held) == EDEADLK, "rdlock by the write holder");
  }
#pragma omp barrier
  if (me == 0) CHECK(pthread_rwlock_unlock(&t->held) == 0, "unlock");
}

int main(void) {
  omp_set_max_active_levels(2);
  omp_set_dynamic(0);
  for (int o = 0; o < OUTER; o++) {
    pthread_rwlock_init(&g_team[o].rw, NULL);
    pthread_rwlock_init(&g_team[o].held, NULL);
    pthread_spin_init(&g_team[o].spin, PTHREAD_PROCESS_PRIVATE);
  }
#pragma omp parallel num_threads(OUTER)
  {
    team_t *t = &g_team[omp_get_thread_num()];
#pragma omp parallel num_threads(INNER)
    {
      int me = omp_get_thread_num();
      CHECK(omp_get_num_threads() == INNER, "inner team of %d", omp_get_num_threads());
      sections(t, me);
      held_elsewhere(t, me);
    }
    CHECK(t->sum == INNER * ITERS / 2, "write sections: %ld, want %d", t->sum, INNER * ITERS / 2);
  }
  return conf_end();
}
