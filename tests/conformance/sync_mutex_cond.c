/* pthread mutexes and condition variables among OpenMP threads keep their
   POSIX contract under any runtime (on a fiber, Bobbin lets the worker's
   other fibers run while one waits: ult/block_linux.cpp).
   - nested teams of 4 under an outer team of 2 (more threads than a small
     machine's cores) meet at a barrier of a mutex and a condition variable,
     50 rounds each with pthread_cond_wait, pthread_cond_timedwait on a
     CLOCK_REALTIME and on a CLOCK_MONOTONIC condition (pthread_condattr_
     setclock), and pthread_cond_clockwait on either clock; a far deadline
     never passes, and each member checks its round numbers;
   - in the same teams, a timed wait nobody signals returns ETIMEDOUT no
     earlier than its deadline, read on the condition's clock (a deadline on
     CLOCK_MONOTONIC is decades before the CLOCK_REALTIME one: taken on the
     wrong clock, a wait ends at once or never), with the mutex held again;
   - a deadline with tv_nsec of 1e9 is EINVAL, a deadline already passed is
     ETIMEDOUT;
   - an error-checking mutex relocked by its holder is EDEADLK, and a
     member that holds a mutex across a sleep keeps it: the others (queued
     behind it on a small machine) wait;
   - a recursive mutex (locked twice, and once more by trylock) and an
     error-checking one, held across a yield and a sleep, admit one member
     at a time; the holder's relock of the error-checking one is EDEADLK,
     its unlocks succeed, and an unlock of one no one holds is EPERM. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_cond_clockwait */
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

enum { OUTER = 2, INNER = 4, ROUNDS = 50, FAR_S = 60, SHORT_NS = 5000000 };
enum { WAIT, TIMED_REAL, TIMED_MONO, CLOCK_REAL, CLOCK_MONO, KINDS };

typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t real, mono;
  int count, round;
  int inside;  /* members between lock and unlock of the sleeping test */
  pthread_mutex_t rec, err;
  int rec_inside, err_inside;
} team_t;

static team_t g_team[OUTER];

static void cond_init(pthread_cond_t *c, clockid_t clock) {
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  CHECK(pthread_condattr_setclock(&a, clock) == 0, "pthread_condattr_setclock(%d)", (int)clock);
  CHECK(pthread_cond_init(c, &a) == 0, "pthread_cond_init");
  pthread_condattr_destroy(&a);
}

/* One wait of kind `kind` on team t's condition; the caller holds mu. */
static int wait_once(team_t *t, int kind, long long rel_ns) {
  struct timespec d;
  switch (kind) {
    case WAIT:
      return pthread_cond_wait(&t->real, &t->mu);
    case TIMED_REAL:
      d = conf_at(conf_ns_on(CLOCK_REALTIME) + rel_ns);
      return pthread_cond_timedwait(&t->real, &t->mu, &d);
    case TIMED_MONO:
      d = conf_at(conf_ns_on(CLOCK_MONOTONIC) + rel_ns);
      return pthread_cond_timedwait(&t->mono, &t->mu, &d);
    case CLOCK_REAL:
      d = conf_at(conf_ns_on(CLOCK_REALTIME) + rel_ns);
      return pthread_cond_clockwait(&t->real, &t->mu, CLOCK_REALTIME, &d);
    default:
      d = conf_at(conf_ns_on(CLOCK_MONOTONIC) + rel_ns);
      return pthread_cond_clockwait(&t->mono, &t->mu, CLOCK_MONOTONIC, &d);
  }
}

static void barrier_rounds(team_t *t, int kind, int me) {
  pthread_cond_t *c = (kind == TIMED_MONO || kind == CLOCK_MONO) ? &t->mono : &t->real;
  for (int r = 0; r < ROUNDS; r++) {
    pthread_mutex_lock(&t->mu);
    int round = t->round;
    if (++t->count == INNER) {
      t->count = 0;
      t->round++;
      pthread_cond_broadcast(c);
    } else {
      while (t->round == round) {
        int rc = wait_once(t, kind, (long long)FAR_S * 1000000000LL);
        CHECK(rc == 0, "kind %d member %d round %d: wait returned %d", kind, me, r, rc);
        if (rc) break;
      }
    }
    CHECK(t->round == round + 1, "kind %d member %d: round %d after round %d", kind, me, t->round, round);
    pthread_mutex_unlock(&t->mu);
  }
}

static int g_overlaps, g_errors;

static void bump_if(int bad, int *counter) {
  if (bad) __atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
}

/* The kinds the C library ties to a kernel thread, held across a yield and a sleep. */
static void owned_kinds(team_t *t) {
  for (int r = 0; r < 20; r++) {
    bump_if(pthread_mutex_lock(&t->rec) != 0, &g_errors);
    bump_if(pthread_mutex_lock(&t->rec) != 0, &g_errors);
    bump_if(__atomic_add_fetch(&t->rec_inside, 1, __ATOMIC_RELAXED) != 1, &g_overlaps);
    sched_yield();
    usleep(30);
    bump_if(pthread_mutex_trylock(&t->rec) != 0, &g_errors);
    bump_if(pthread_mutex_unlock(&t->rec) != 0, &g_errors);
    __atomic_sub_fetch(&t->rec_inside, 1, __ATOMIC_RELAXED);
    bump_if(pthread_mutex_unlock(&t->rec) != 0, &g_errors);
    bump_if(pthread_mutex_unlock(&t->rec) != 0, &g_errors);

    bump_if(pthread_mutex_lock(&t->err) != 0, &g_errors);
    bump_if(__atomic_add_fetch(&t->err_inside, 1, __ATOMIC_RELAXED) != 1, &g_overlaps);
    sched_yield();
    usleep(30);
    bump_if(pthread_mutex_lock(&t->err) != EDEADLK, &g_errors);
    __atomic_sub_fetch(&t->err_inside, 1, __ATOMIC_RELAXED);
    bump_if(pthread_mutex_unlock(&t->err) != 0, &g_errors);
  }
}

static void timeouts(int me) {
  pthread_mutexattr_t ma;
  pthread_mutexattr_init(&ma);
  pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
  team_t t;
  memset(&t, 0, sizeof t);
  pthread_mutex_init(&t.mu, &ma);
  pthread_mutexattr_destroy(&ma);
  cond_init(&t.real, CLOCK_REALTIME);
  cond_init(&t.mono, CLOCK_MONOTONIC);
  for (int kind = TIMED_REAL; kind < KINDS; kind++) {
    clockid_t clock = (kind == TIMED_MONO || kind == CLOCK_MONO) ? CLOCK_MONOTONIC : CLOCK_REALTIME;
    CHECK(pthread_mutex_lock(&t.mu) == 0, "lock");
    long long t0 = conf_ns_on(clock);
    int rc = wait_once(&t, kind, SHORT_NS);
    long long dt = conf_ns_on(clock) - t0;
    CHECK(rc == ETIMEDOUT || rc == 0, "kind %d member %d: unsignalled wait returned %d", kind, me, rc);
    if (rc == ETIMEDOUT) CHECK(dt >= SHORT_NS, "kind %d: ETIMEDOUT after %lld ns of %d", kind, dt, SHORT_NS);
    CHECK(dt < 10000000000LL, "kind %d: a 5 ms wait took %lld ns", kind, dt);
    CHECK(pthread_mutex_lock(&t.mu) == EDEADLK, "kind %d: the mutex is not held after the wait", kind);
    CHECK(pthread_mutex_unlock(&t.mu) == 0, "kind %d: unlock after the wait", kind);
  }
  /* Only a spurious wake-up may end a timed wait early; with no signal, the
     loop a correct caller writes must end by ETIMEDOUT past its deadline. */
  for (int kind = TIMED_REAL; kind < KINDS; kind++) {
    clockid_t clock = (kind == TIMED_MONO || kind == CLOCK_MONO) ? CLOCK_MONOTONIC : CLOCK_REALTIME;
    pthread_mutex_lock(&t.mu);
    long long deadline = conf_ns_on(clock) + SHORT_NS;
    struct timespec d = conf_at(deadline);
    pthread_cond_t *c = clock == CLOCK_MONOTONIC ? &t.mono : &t.real;
    int rc, waits = 0;
    do {
      waits++;
      rc = kind <= TIMED_MONO ? pthread_cond_timedwait(c, &t.mu, &d) : pthread_cond_clockwait(c, &t.mu, clock, &d);
    } while (rc == 0 && waits < 1000000 && conf_ns_on(clock) < deadline + 5000000000LL);
    CHECK(rc == ETIMEDOUT, "kind %d: the wait loop ended with %d after %d waits", kind, rc, waits);
    CHECK(conf_ns_on(clock) >= deadline, "kind %d: ETIMEDOUT before the deadline", kind);
    pthread_mutex_unlock(&t.mu);
  }
  struct timespec bad = {time(NULL) + 1, 1000000000L}, past = {1, 0};
  pthread_mutex_lock(&t.mu);
  CHECK(pthread_cond_timedwait(&t.real, &t.mu, &bad) == EINVAL, "timedwait with tv_nsec 1e9");
  CHECK(pthread_cond_timedwait(&t.mono, &t.mu, &past) == ETIMEDOUT, "timedwait with a past deadline");
  pthread_mutex_unlock(&t.mu);
  pthread_cond_destroy(&t.real);
  pthread_cond_destroy(&t.mono);
  pthread_mutex_destroy(&t.mu);
}

int main(void) {
  omp_set_max_active_levels(2);
  omp_set_dynamic(0);
  for (int o = 0; o < OUTER; o++) {
    pthread_mutex_init(&g_team[o].mu, NULL);
    cond_init(&g_team[o].real, CLOCK_REALTIME);
    cond_init(&g_team[o].mono, CLOCK_MONOTONIC);
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&g_team[o].rec, &a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&g_team[o].err, &a);
    pthread_mutexattr_destroy(&a);
  }
  int held_ok = 1;
#pragma omp parallel num_threads(OUTER)
  {
    team_t *t = &g_team[omp_get_thread_num()];
#pragma omp parallel num_threads(INNER)
    {
      int me = omp_get_thread_num();
      CHECK(omp_get_num_threads() == INNER, "inner team of %d", omp_get_num_threads());
      for (int kind = WAIT; kind < KINDS; kind++) barrier_rounds(t, kind, me);
      timeouts(me);
      owned_kinds(t);
      /* Held across a sleep: nobody else is inside. */
      for (int r = 0; r < 10; r++) {
        pthread_mutex_lock(&t->mu);
        if (__atomic_add_fetch(&t->inside, 1, __ATOMIC_RELAXED) != 1) __atomic_store_n(&held_ok, 0, __ATOMIC_RELAXED);
        usleep(200);
        __atomic_sub_fetch(&t->inside, 1, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&t->mu);
      }
    }
  }
  CHECK(held_ok, "two members were inside one mutex at once");
  CHECK(g_overlaps == 0, "%d times two members were inside one recursive or error-checking mutex", g_overlaps);
  CHECK(g_errors == 0, "%d recursive or error-checking lock calls answered wrongly", g_errors);
  pthread_mutex_t lone;
  pthread_mutexattr_t ea;
  pthread_mutexattr_init(&ea);
  pthread_mutexattr_settype(&ea, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_init(&lone, &ea);
  pthread_mutexattr_destroy(&ea);
  CHECK(pthread_mutex_unlock(&lone) == EPERM, "an unlock of an error-checking mutex no one holds");
  pthread_mutex_destroy(&lone);
  for (int o = 0; o < OUTER; o++) CHECK(g_team[o].round == KINDS * ROUNDS, "team %d ended at round %d", o, g_team[o].round);
  return conf_end();
}
