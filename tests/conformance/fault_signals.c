/* Signals and blocking calls in OpenMP threads, with more threads than cores
   (nested teams of 4 under an outer team of 2).
   - No signal of the program's: poll, select, epoll_wait, recv with a
     receive timeout and sigtimedwait must time out as they would in a plain
     thread, never return EINTR (the runtime's own signals, if it has any,
     are not the program's to see), and never return early (recv's
     timeout, counted in ticks, within half its length).
   - The program's SIGALRM (setitimer, every 500 us) with SA_RESTART, while
     members pass tokens round a pipe ring, meet at a POSIX barrier and
     sleep: read never fails with EINTR (SA_RESTART restarts it), every
     token arrives, sleeps may end early with EINTR and the time left.
   - The same without SA_RESTART: read may fail with EINTR and is retried;
     every token arrives; the handler ran. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

enum { OUTER = 2, INNER = 4, ROUNDS = 4, WAIT_MS = 20, RING_ROUNDS = 200 };

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Each call must wait its whole timeout and report a timeout. */
static void timed_waits(int ep, int sock) {
  double t0 = now_ms();
  int rc = poll(NULL, 0, WAIT_MS);
  int err = errno;
  double t1 = now_ms();
  CHECK(rc == 0, "poll returned %d (%s)", rc, rc < 0 ? strerror(err) : "ready");
  CHECK(t1 - t0 >= WAIT_MS - 1, "poll returned after %.2f ms of %d", t1 - t0, WAIT_MS);

  struct timeval tv = {0, WAIT_MS * 1000};
  rc = select(0, NULL, NULL, NULL, &tv);
  err = errno;
  double t2 = now_ms();
  CHECK(rc == 0, "select returned %d (%s)", rc, rc < 0 ? strerror(err) : "ready");
  CHECK(t2 - t1 >= WAIT_MS - 1, "select returned after %.2f ms of %d", t2 - t1, WAIT_MS);

  struct epoll_event ev;
  rc = epoll_wait(ep, &ev, 1, WAIT_MS);
  err = errno;
  double t3 = now_ms();
  CHECK(rc == 0, "epoll_wait returned %d (%s)", rc, rc < 0 ? strerror(err) : "ready");
  CHECK(t3 - t2 >= WAIT_MS - 1, "epoll_wait returned after %.2f ms of %d", t3 - t2, WAIT_MS);

  char c;
  ssize_t n = recv(sock, &c, 1, 0); /* SO_RCVTIMEO: EAGAIN after WAIT_MS */
  err = errno;
  double t4 = now_ms();
  CHECK(n == -1 && (err == EAGAIN || err == EWOULDBLOCK), "recv with a timeout: %zd (%s), want EAGAIN", n,
        n < 0 ? strerror(err) : "data");
  /* The kernel counts a socket's timeout in jiffies, from a jiffies count
     that lags the monotonic clock when the tick is late (a loaded virtual
     machine): the wait may end a few ticks early by this clock, as it does
     in a plain thread. Half the timeout still tells a wait from none. */
  CHECK(t4 - t3 >= WAIT_MS / 2, "recv returned after %.2f ms of %d", t4 - t3, WAIT_MS);

  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR2); /* never sent */
  struct timespec ts = {0, WAIT_MS * 1000000L};
  rc = sigtimedwait(&set, NULL, &ts);
  err = errno;
  double t5 = now_ms();
  CHECK(rc == -1 && err == EAGAIN, "sigtimedwait: %d (%s), want EAGAIN", rc, rc < 0 ? strerror(err) : "a signal");
  CHECK(t5 - t4 >= WAIT_MS - 1, "sigtimedwait returned after %.2f ms of %d", t5 - t4, WAIT_MS);
}

static void no_program_signals(void) {
  /* SIGUSR2 blocked everywhere, so that sigtimedwait may wait for it. */
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
#pragma omp parallel num_threads(OUTER)
  {
    pthread_sigmask(SIG_BLOCK, &set, NULL);
#pragma omp parallel num_threads(INNER)
    {
      pthread_sigmask(SIG_BLOCK, &set, NULL);
      int ep = epoll_create1(0);
      int sv[2];
      CHECK(ep >= 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "epoll_create1/socketpair: %s", strerror(errno));
      struct timeval tv = {0, WAIT_MS * 1000};
      setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      for (int r = 0; r < ROUNDS; r++) {
#pragma omp barrier
        timed_waits(ep, sv[0]);
      }
      close(ep);
      close(sv[0]);
      close(sv[1]);
    }
  }
}

static volatile sig_atomic_t g_alarms;
static void on_alarm(int sig) {
  (void)sig;
  g_alarms++;
}

/* Tokens round a ring of pipes in each inner team: member i reads from
   ring[i] and writes to ring[(i+1) % n]; member 0 starts each round. */
static void ring_under_alarms(int restart) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = restart ? SA_RESTART : 0;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, NULL);
  g_alarms = 0;
  struct itimerval it = {{0, 500}, {0, 500}};
  setitimer(ITIMER_REAL, &it, NULL);
  int eintr_reads = 0;
#pragma omp parallel num_threads(OUTER) reduction(+ : eintr_reads)
  {
    int ring[INNER][2];
    for (int i = 0; i < INNER; i++) CHECK(pipe(ring[i]) == 0, "pipe: %s", strerror(errno));
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, INNER);
    int got[INNER] = {0};
#pragma omp parallel num_threads(INNER) reduction(+ : eintr_reads)
    {
      int n = omp_get_num_threads(), me = omp_get_thread_num();
      for (int r = 0; r < RING_ROUNDS; r++) {
        int token = r * 16 + me;
        if (me == 0) {
          ssize_t w;
          do w = write(ring[1 % n][1], &token, sizeof token);
          while (w < 0 && errno == EINTR);
          CHECK(w == sizeof token, "write: %zd", w);
        }
        int in;
        ssize_t k;
        for (;;) {
          k = read(ring[me][0], &in, sizeof in);
          if (k < 0 && errno == EINTR) {
            eintr_reads++;
            continue;
          }
          break;
        }
        CHECK(k == sizeof in, "read: %zd (%s)", k, k < 0 ? strerror(errno) : "short");
        int from = (me + n - 1) % n;
        CHECK_EQ("token", in, r * 16 + from);
        got[me]++;
        if (me != 0) {
          ssize_t w;
          do w = write(ring[(me + 1) % n][1], &token, sizeof token);
          while (w < 0 && errno == EINTR);
          CHECK(w == sizeof token, "write: %zd", w);
        }
        if (r % 20 == 0) {
          int rc = pthread_barrier_wait(&bar);
          CHECK(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD, "pthread_barrier_wait: %d", rc);
          struct timespec ts = {0, 200000}, rem;
          while (nanosleep(&ts, &rem) != 0) {
            CHECK(errno == EINTR, "nanosleep: %s", strerror(errno));
            ts = rem;
          }
        }
      }
    }
    for (int i = 0; i < INNER; i++) {
      CHECK_EQ("tokens read", got[i], RING_ROUNDS);
      close(ring[i][0]);
      close(ring[i][1]);
    }
    pthread_barrier_destroy(&bar);
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  signal(SIGALRM, SIG_IGN);
  CHECK(g_alarms > 0, "the program's SIGALRM handler never ran");
  if (restart) CHECK_EQ("reads that failed with EINTR under SA_RESTART", eintr_reads, 0);
}

int main(void) {
  omp_set_max_active_levels(2);
  no_program_signals();
  ring_under_alarms(1);
  ring_under_alarms(0);
  return conf_end();
}
