/* Waits with a deadline among OpenMP threads keep their POSIX contract
   under any runtime (on a fiber, Bobbin waits in slices up to the
   deadline and lets the worker's other fibers run: ult/block_linux.cpp).
   - nested teams of 4 under an outer team of 2 (more threads than a small
     machine's cores), after an omp barrier: a ring of semaphores passed
     with sem_timedwait and with sem_clockwait, a token under a mutex taken
     with pthread_mutex_timedlock and pthread_mutex_clocklock, a ring of
     pipes read after poll (with a timeout and without) and after select,
     20 rounds each, 5 s deadlines that must never pass (each member checks
     its rounds);
   - in the same teams, waits nobody ends time out no earlier than asked:
     sem_timedwait and sem_clockwait (ETIMEDOUT), poll on an empty pipe and
     poll with no descriptors (0), select on an empty pipe (0, the set
     cleared, the timeout left at zero) and select as a sleep, and a
     timed lock of a mutex another member holds (ETIMEDOUT);
   - bad arguments are the C library's: a deadline with tv_nsec of 1e9 is
     EINVAL, a deadline already passed is ETIMEDOUT at once. */
#include "check.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

enum { OUTER = 2, INNER = 4, ROUNDS = 20, LONG_S = 5, SHORT_NS = 3000000 };
enum { SEM_TIMED, SEM_CLOCK, LOCK_TIMED, LOCK_CLOCK, POLL, POLL_FOREVER, SELECT, SHAPES };

typedef struct {
  sem_t sems[INNER];
  int pipes[INNER][2];
  pthread_mutex_t mu, held;
  int turn;
} team_t;

static team_t g_team[OUTER];

static int sem_wait_long(sem_t *s, int shape) {
  int rc;
  do {
    if (shape == SEM_TIMED) {
      struct timespec d = conf_at(conf_ns_on(CLOCK_REALTIME) + LONG_S * 1000000000LL);
      rc = sem_timedwait(s, &d);
    } else {
      struct timespec d = conf_at(conf_ns_on(CLOCK_MONOTONIC) + LONG_S * 1000000000LL);
      rc = sem_clockwait(s, CLOCK_MONOTONIC, &d);
    }
  } while (rc != 0 && errno == EINTR);
  return rc == 0 ? 0 : errno;
}

static int wait_readable(int fd, int shape) {
  if (shape == POLL || shape == POLL_FOREVER) {
    struct pollfd p = {fd, POLLIN, 0};
    int rc = poll(&p, 1, shape == POLL ? LONG_S * 1000 : -1);
    return rc == 1 && (p.revents & POLLIN) ? 0 : rc == 0 ? ETIMEDOUT : errno;
  }
  fd_set r;
  FD_ZERO(&r);
  FD_SET(fd, &r);
  struct timeval tv = {LONG_S, 0};
  int rc = select(fd + 1, &r, NULL, NULL, &tv);
  return rc == 1 && FD_ISSET(fd, &r) ? 0 : rc == 0 ? ETIMEDOUT : errno;
}

static void ring(team_t *t, int shape, int me) {
  char c = 'x';
  int next = (me + 1) % INNER;
  for (int r = 0; r < ROUNDS; r++) {
    int rc = 0;
    switch (shape) {
      case SEM_TIMED:
      case SEM_CLOCK:
        if (me == 0) sem_post(&t->sems[next]);
        rc = sem_wait_long(&t->sems[me], shape);
        if (me != 0 && rc == 0) sem_post(&t->sems[next]);
        break;
      case LOCK_TIMED:
      case LOCK_CLOCK:
        /* member r % INNER takes round r's turn; the others look and let go */
        for (;;) {
          struct timespec d;
          if (shape == LOCK_TIMED) {
            d = conf_at(conf_ns_on(CLOCK_REALTIME) + LONG_S * 1000000000LL);
            rc = pthread_mutex_timedlock(&t->mu, &d);
          } else {
            d = conf_at(conf_ns_on(CLOCK_MONOTONIC) + LONG_S * 1000000000LL);
            rc = pthread_mutex_clocklock(&t->mu, CLOCK_MONOTONIC, &d);
          }
          if (rc != 0) break;
          int mine = t->turn / INNER == r && t->turn % INNER == me;
          if (mine) t->turn++;
          int done = t->turn / INNER > r;
          pthread_mutex_unlock(&t->mu);
          if (mine || done) break;
          sched_yield();
        }
        break;
      default:
        if (me == 0 && write(t->pipes[next][1], &c, 1) != 1) rc = errno;
        if (rc == 0) rc = wait_readable(t->pipes[me][0], shape);
        if (rc == 0 && read(t->pipes[me][0], &c, 1) != 1) rc = errno;
        if (me != 0 && rc == 0 && write(t->pipes[next][1], &c, 1) != 1) rc = errno;
        break;
    }
    CHECK(rc == 0, "shape %d member %d round %d: %s", shape, me, r, strerror(rc));
    if (rc) return;
  }
}

static void timeouts(team_t *t, int me) {
  sem_t empty;
  sem_init(&empty, 0, 0);
  long long t0 = conf_ns_on(CLOCK_REALTIME);
  struct timespec d = conf_at(t0 + SHORT_NS);
  int rc = sem_timedwait(&empty, &d);
  CHECK(rc == -1 && errno == ETIMEDOUT, "sem_timedwait on an empty semaphore: %d (%s)", rc, strerror(errno));
  CHECK(conf_ns_on(CLOCK_REALTIME) >= t0 + SHORT_NS, "sem_timedwait returned before its deadline");
  t0 = conf_ns_on(CLOCK_MONOTONIC);
  d = conf_at(t0 + SHORT_NS);
  rc = sem_clockwait(&empty, CLOCK_MONOTONIC, &d);
  CHECK(rc == -1 && errno == ETIMEDOUT, "sem_clockwait on an empty semaphore: %d (%s)", rc, strerror(errno));
  CHECK(conf_ns_on(CLOCK_MONOTONIC) >= t0 + SHORT_NS, "sem_clockwait returned before its deadline");
  struct timespec bad = {time(NULL) + 1, 1000000000L}, past = {1, 0};
  CHECK(sem_timedwait(&empty, &bad) == -1 && errno == EINVAL, "sem_timedwait with tv_nsec 1e9: %s", strerror(errno));
  CHECK(sem_timedwait(&empty, &past) == -1 && errno == ETIMEDOUT, "sem_timedwait with a past deadline");
  sem_destroy(&empty);

  int p[2];
  CHECK(pipe(p) == 0, "pipe");
  struct pollfd pf = {p[0], POLLIN, 0};
  t0 = conf_ns_on(CLOCK_MONOTONIC);
  CHECK(poll(&pf, 1, 3) == 0, "poll on an empty pipe did not time out");
  CHECK(conf_ns_on(CLOCK_MONOTONIC) - t0 >= 3000000, "poll(3 ms) returned after %lld ns", conf_ns_on(CLOCK_MONOTONIC) - t0);
  t0 = conf_ns_on(CLOCK_MONOTONIC);
  CHECK(poll(NULL, 0, 2) == 0, "poll with no descriptors");
  CHECK(conf_ns_on(CLOCK_MONOTONIC) - t0 >= 2000000, "poll(NULL, 0, 2 ms) returned after %lld ns", conf_ns_on(CLOCK_MONOTONIC) - t0);
  fd_set r;
  FD_ZERO(&r);
  FD_SET(p[0], &r);
  struct timeval tv = {0, 3000};
  t0 = conf_ns_on(CLOCK_MONOTONIC);
  CHECK(select(p[0] + 1, &r, NULL, NULL, &tv) == 0, "select on an empty pipe did not time out");
  CHECK(conf_ns_on(CLOCK_MONOTONIC) - t0 >= 3000000, "select(3 ms) returned after %lld ns", conf_ns_on(CLOCK_MONOTONIC) - t0);
  CHECK(!FD_ISSET(p[0], &r), "select's timeout left the descriptor in its set");
  CHECK(tv.tv_sec == 0 && tv.tv_usec == 0, "select's timeout left %ld.%06ld s", (long)tv.tv_sec, (long)tv.tv_usec);
  tv.tv_sec = 0;
  tv.tv_usec = 2000;
  t0 = conf_ns_on(CLOCK_MONOTONIC);
  CHECK(select(0, NULL, NULL, NULL, &tv) == 0, "select as a sleep");
  CHECK(conf_ns_on(CLOCK_MONOTONIC) - t0 >= 2000000, "select(0, 2 ms) returned after %lld ns", conf_ns_on(CLOCK_MONOTONIC) - t0);
  close(p[0]);
  close(p[1]);

  /* member 0 holds `held` while the others' timed locks run out */
#pragma omp barrier
  if (me == 0) pthread_mutex_lock(&t->held);
#pragma omp barrier
  if (me != 0) {
    t0 = conf_ns_on(CLOCK_REALTIME);
    d = conf_at(t0 + SHORT_NS);
    rc = pthread_mutex_timedlock(&t->held, &d);
    CHECK(rc == ETIMEDOUT, "pthread_mutex_timedlock of a held mutex: %d", rc);
    CHECK(conf_ns_on(CLOCK_REALTIME) >= t0 + SHORT_NS, "pthread_mutex_timedlock returned before its deadline");
    t0 = conf_ns_on(CLOCK_MONOTONIC);
    d = conf_at(t0 + SHORT_NS);
    rc = pthread_mutex_clocklock(&t->held, CLOCK_MONOTONIC, &d);
    CHECK(rc == ETIMEDOUT, "pthread_mutex_clocklock of a held mutex: %d", rc);
  }
#pragma omp barrier
  if (me == 0) pthread_mutex_unlock(&t->held);
}

int main(void) {
  omp_set_max_active_levels(2);
  omp_set_dynamic(0);
  for (int o = 0; o < OUTER; o++) {
    for (int i = 0; i < INNER; i++) {
      sem_init(&g_team[o].sems[i], 0, 0);
      CHECK(pipe(g_team[o].pipes[i]) == 0, "pipe");
    }
    pthread_mutex_init(&g_team[o].mu, NULL);
    pthread_mutex_init(&g_team[o].held, NULL);
  }
#pragma omp parallel num_threads(OUTER)
  {
    team_t *t = &g_team[omp_get_thread_num()];
#pragma omp parallel num_threads(INNER)
    {
      int me = omp_get_thread_num();
      CHECK(omp_get_num_threads() == INNER, "inner team of %d", omp_get_num_threads());
      for (int shape = 0; shape < SHAPES; shape++) {
#pragma omp barrier
        if (shape == LOCK_CLOCK && me == 0) t->turn = 0;
#pragma omp barrier
        ring(t, shape, me);
      }
      timeouts(t, me);
    }
  }
  return conf_end();
}
