/* Waits for readiness and futex waits among OpenMP threads keep their
   contract under any runtime (on a fiber, Bobbin waits in slices and lets
   the worker's other fibers run: ult/ready_linux.cpp, ult/futex_linux.cpp).
   - nested teams of 4 under an outer team of 2 (more threads than a small
     machine's cores), after an omp barrier: a ring of pipes read after
     epoll_wait (with a timeout and without), epoll_pwait, epoll_pwait2,
     ppoll and pselect, and a ring of futex words (FUTEX_WAIT with a
     relative timeout, FUTEX_WAIT_BITSET with an absolute one, and without
     a timeout), 20 rounds each, 5 s timeouts that must never pass;
   - in the same teams, waits nobody ends time out no earlier than asked
     (epoll_wait, ppoll, pselect: 0; both futex waits: ETIMEDOUT), a futex
     wait on a word that is not the expected value is EAGAIN at once, and a
     loop of futex waits with a relative timeout ends while the member's
     team-mates spin with sched_yield;
   - in the outer team: ppoll, pselect and epoll_pwait with a mask that
     unblocks a signal pending on the thread return EINTR after its handler
     ran, and a bad timeout is EINVAL.
   Built with _FORTIFY_SOURCE too (sync_ready_waits_fortify), where poll,
   ppoll and read on arrays of known size are the C library's __poll_chk,
   __ppoll_chk and __read_chk. */
#include "check.h"

#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { OUTER = 2, INNER = 4, ROUNDS = 20, LONG_S = 5, SHORT_NS = 3000000 };
enum { EPOLL, EPOLL_FOREVER, EPOLL_PWAIT, EPOLL_PWAIT2, PPOLL, POLL, PSELECT, FUTEX_REL, FUTEX_ABS, FUTEX_FOREVER, SHAPES };

typedef struct {
  int pipes[INNER][2];
  int ep[INNER];
  uint32_t words[INNER];
  volatile int spin_done;
} team_t;

static team_t g_team[OUTER];
/* 1, not a constant to the compiler: fortified calls on arrays of known
   size with it are the checking entries (__poll_chk, __read_chk). */
static volatile int g_one = 1;

static long futex(uint32_t *w, int op, uint32_t val, const struct timespec *t, uint32_t bits) {
  return syscall(SYS_futex, w, op, val, t, NULL, bits);
}

static int wait_readable(team_t *t, int me, int shape) {
  int fd = t->pipes[me][0], rc;
  struct timespec ts = {LONG_S, 0};
  struct epoll_event ev[2];
  if (shape == EPOLL || shape == EPOLL_FOREVER)
    rc = epoll_wait(t->ep[me], ev, 2, shape == EPOLL ? LONG_S * 1000 : -1);
  else if (shape == EPOLL_PWAIT)
    rc = epoll_pwait(t->ep[me], ev, 2, LONG_S * 1000, NULL);
  else if (shape == EPOLL_PWAIT2)
    rc = epoll_pwait2(t->ep[me], ev, 2, &ts, NULL);
  else if (shape == PPOLL || shape == POLL) {
    struct pollfd p[1] = {{fd, POLLIN, 0}};
    rc = shape == PPOLL ? ppoll(p, (nfds_t)g_one, &ts, NULL) : poll(p, (nfds_t)g_one, LONG_S * 1000);
    if (rc == 1 && !(p[0].revents & POLLIN)) return EIO;
  } else {
    fd_set r;
    FD_ZERO(&r);
    FD_SET(fd, &r);
    rc = pselect(fd + 1, &r, NULL, NULL, &ts, NULL);
    if (rc == 1 && !FD_ISSET(fd, &r)) return EIO;
  }
  if (rc == 1 && shape <= EPOLL_PWAIT2 && ev[0].data.fd != fd) return EIO;
  return rc == 1 ? 0 : rc == 0 ? ETIMEDOUT : errno;
}

/* Waits until *w == want, with futex waits of the shape's kind. */
static int futex_until(uint32_t *w, uint32_t want, int shape) {
  for (;;) {
    uint32_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
    if (v == want) return 0;
    long rc;
    if (shape == FUTEX_REL) {
      struct timespec rel = {LONG_S, 0};
      rc = futex(w, FUTEX_WAIT_PRIVATE, v, &rel, 0);
    } else if (shape == FUTEX_ABS) {
      struct timespec abs = conf_at(conf_ns_on(CLOCK_MONOTONIC) + LONG_S * 1000000000LL);
      rc = futex(w, FUTEX_WAIT_BITSET_PRIVATE, v, &abs, FUTEX_BITSET_MATCH_ANY);
    } else {
      rc = futex(w, FUTEX_WAIT_PRIVATE, v, NULL, 0);
    }
    if (rc != 0 && errno != EAGAIN && errno != EINTR) return errno;
  }
}

static void futex_pass(uint32_t *w, uint32_t value) {
  __atomic_store_n(w, value, __ATOMIC_RELEASE);
  futex(w, FUTEX_WAKE_PRIVATE, 1, NULL, 0);
}

static void ring(team_t *t, int shape, int me) {
  char c[1] = {'x'};
  int next = (me + 1) % INNER;
  for (int r = 0; r < ROUNDS; r++) {
    int rc = 0;
    if (shape >= FUTEX_REL) {
      uint32_t token = (uint32_t)(shape * ROUNDS + r + 1);
      if (me == 0) futex_pass(&t->words[next], token);
      rc = futex_until(&t->words[me], token, shape);
      if (me != 0 && rc == 0) futex_pass(&t->words[next], token);
    } else {
      if (me == 0 && write(t->pipes[next][1], c, 1) != 1) rc = errno;
      if (rc == 0) rc = wait_readable(t, me, shape);
      if (rc == 0 && read(t->pipes[me][0], c, (size_t)g_one) != 1) rc = errno;
      if (me != 0 && rc == 0 && write(t->pipes[next][1], c, 1) != 1) rc = errno;
    }
    CHECK(rc == 0, "shape %d member %d round %d: %s", shape, me, r, strerror(rc));
    if (rc) return;
  }
}

static long long since(long long t0) { return conf_ns_on(CLOCK_MONOTONIC) - t0; }

static void timeouts(team_t *t, int me) {
  int p[2];
  CHECK(pipe(p) == 0, "pipe");
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = p[0]};
  CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) == 0, "epoll_ctl");
  long long t0 = conf_ns_on(CLOCK_MONOTONIC);
  CHECK(epoll_wait(ep, &ev, 1, 3) == 0, "epoll_wait on an empty pipe did not time out");
  CHECK(since(t0) >= 3000000, "epoll_wait(3 ms) returned after %lld ns", since(t0));
  struct timespec ts = {0, SHORT_NS};
  t0 = conf_ns_on(CLOCK_MONOTONIC);
  struct pollfd pf[1] = {{p[0], POLLIN, 0}};
  CHECK(ppoll(pf, 1, &ts, NULL) == 0, "ppoll on an empty pipe did not time out");
  CHECK(since(t0) >= SHORT_NS, "ppoll(3 ms) returned after %lld ns", since(t0));
  CHECK(ts.tv_sec == 0 && ts.tv_nsec == SHORT_NS, "ppoll changed its timeout");
  fd_set r;
  FD_ZERO(&r);
  FD_SET(p[0], &r);
  t0 = conf_ns_on(CLOCK_MONOTONIC);
  CHECK(pselect(p[0] + 1, &r, NULL, NULL, &ts, NULL) == 0, "pselect on an empty pipe did not time out");
  CHECK(since(t0) >= SHORT_NS, "pselect(3 ms) returned after %lld ns", since(t0));
  CHECK(!FD_ISSET(p[0], &r), "pselect's timeout left the descriptor in its set");
  close(ep);
  close(p[0]);
  close(p[1]);

  uint32_t word = 7;
  t0 = conf_ns_on(CLOCK_MONOTONIC);
  long rc = futex(&word, FUTEX_WAIT_PRIVATE, 7, &ts, 0);
  CHECK(rc == -1 && errno == ETIMEDOUT, "FUTEX_WAIT(3 ms) nobody wakes: %ld (%s)", rc, strerror(errno));
  CHECK(since(t0) >= SHORT_NS, "FUTEX_WAIT(3 ms) returned after %lld ns", since(t0));
  long long r0 = conf_ns_on(CLOCK_REALTIME);
  struct timespec abs = conf_at(r0 + SHORT_NS);
  rc = futex(&word, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 7, &abs, FUTEX_BITSET_MATCH_ANY);
  CHECK(rc == -1 && errno == ETIMEDOUT, "FUTEX_WAIT_BITSET on CLOCK_REALTIME nobody wakes: %ld (%s)", rc, strerror(errno));
  CHECK(conf_ns_on(CLOCK_REALTIME) >= r0 + SHORT_NS, "FUTEX_WAIT_BITSET returned before its deadline");
  rc = futex(&word, FUTEX_WAIT_PRIVATE, 8, NULL, 0);
  CHECK(rc == -1 && errno == EAGAIN, "FUTEX_WAIT on a word that is not the value: %ld (%s)", rc, strerror(errno));
  struct timespec bad = {0, 1000000000L};
  rc = futex(&word, FUTEX_WAIT_PRIVATE, 7, &bad, 0);
  CHECK(rc == -1 && errno == EINVAL, "FUTEX_WAIT with tv_nsec 1e9: %ld (%s)", rc, strerror(errno));

  /* member 0's relative timeouts run out while the others yield */
#pragma omp barrier
  if (me == 0) {
    t->spin_done = 0;
    t0 = conf_ns_on(CLOCK_MONOTONIC);
    int calls = 0;
    do {
      ++calls;
      rc = futex(&word, FUTEX_WAIT_PRIVATE, 7, &ts, 0);
    } while (rc == 0 || (rc == -1 && errno == EINTR));
    CHECK(rc == -1 && errno == ETIMEDOUT, "a loop of FUTEX_WAIT(3 ms) beside yielding members: %s", strerror(errno));
    CHECK(calls < 1000, "a loop of FUTEX_WAIT(3 ms) beside yielding members took %d calls (%lld ns)", calls, since(t0));
  }
#pragma omp barrier
  if (me == 0) {
    __atomic_store_n(&t->spin_done, 1, __ATOMIC_RELEASE);
  } else {
    t0 = conf_ns_on(CLOCK_MONOTONIC);
    while (!__atomic_load_n(&t->spin_done, __ATOMIC_ACQUIRE) && since(t0) < 20000000000LL) sched_yield();
    CHECK(__atomic_load_n(&t->spin_done, __ATOMIC_ACQUIRE), "member %d waited 20 s for member 0", me);
  }
}

static volatile sig_atomic_t g_handled;
static void on_usr1(int sig) {
  (void)sig;
  g_handled = g_handled + 1;
}

/* A signal blocked in the thread and pending there is taken inside a wait
   whose mask unblocks it: the wait returns EINTR after the handler ran. */
static void masks(void) {
  int p[2];
  CHECK(pipe(p) == 0, "pipe");
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = p[0]};
  CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) == 0, "epoll_ctl");
  sigset_t usr1, old, open_mask;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  for (int kind = 0; kind < 3; kind++) {
    pthread_sigmask(SIG_BLOCK, &usr1, &old);
    open_mask = old;
    sigdelset(&open_mask, SIGUSR1);
    int before = g_handled;
    pthread_kill(pthread_self(), SIGUSR1);
    struct timespec ts = {LONG_S, 0};
    struct pollfd pf[1] = {{p[0], POLLIN, 0}};
    fd_set r;
    FD_ZERO(&r);
    FD_SET(p[0], &r);
    long long t0 = conf_ns_on(CLOCK_MONOTONIC);
    int rc = kind == 0 ? ppoll(pf, 1, &ts, &open_mask)
             : kind == 1 ? pselect(p[0] + 1, &r, NULL, NULL, &ts, &open_mask)
                         : epoll_pwait(ep, &ev, 1, LONG_S * 1000, &open_mask);
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    CHECK(rc == -1 && e == EINTR, "wait %d with a mask unblocking a pending signal: %d (%s)", kind, rc, strerror(e));
    CHECK(g_handled == before + 1, "wait %d: the handler ran %d times", kind, g_handled - before);
    CHECK(since(t0) < (LONG_S - 1) * 1000000000LL, "wait %d waited %lld ns for a pending signal", kind, since(t0));
  }
  struct timespec bad = {0, -1};
  struct pollfd pf[1] = {{p[0], POLLIN, 0}};
  CHECK(ppoll(pf, 1, &bad, NULL) == -1 && errno == EINVAL, "ppoll with tv_nsec -1: %s", strerror(errno));
  close(ep);
  close(p[0]);
  close(p[1]);
}

int main(void) {
  omp_set_max_active_levels(2);
  omp_set_dynamic(0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, NULL);
  for (int o = 0; o < OUTER; o++) {
    for (int i = 0; i < INNER; i++) {
      CHECK(pipe(g_team[o].pipes[i]) == 0, "pipe");
      g_team[o].ep[i] = epoll_create1(0);
      struct epoll_event ev = {.events = EPOLLIN, .data.fd = g_team[o].pipes[i][0]};
      CHECK(epoll_ctl(g_team[o].ep[i], EPOLL_CTL_ADD, g_team[o].pipes[i][0], &ev) == 0, "epoll_ctl");
    }
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
        ring(t, shape, me);
      }
      timeouts(t, me);
    }
#pragma omp critical
    masks();  /* one thread at a time: the handler's count is the process's */
  }
  return conf_end();
}
