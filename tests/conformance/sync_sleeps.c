/* Sleeps among OpenMP threads keep their POSIX contract under any runtime
   (Bobbin lets a worker's other fibers run while one sleeps:
   ult/block_linux.cpp).
   - nested teams of 4 under an outer team of 2 (more threads than a small
     machine's cores): every member sleeps with usleep, nanosleep,
     clock_nanosleep (relative and absolute, on CLOCK_MONOTONIC) and
     sleep(0), and each call returns 0 no earlier than asked (measured on
     CLOCK_MONOTONIC);
   - in each inner team, members poll with usleep a flag that the last
     member sets after an omp barrier, 20 rounds (a polite flag wait);
   - invalid arguments are the C library's: nanosleep with tv_nsec of 1e9
     fails with EINVAL, clock_nanosleep with it returns EINVAL;
   - a signal that interrupts a long nanosleep makes it fail with EINTR
     and the time left, no more than asked. */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

enum { INNER = 4, ROUNDS = 20 };

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void sleeps(void) {
  long long t0 = now_ns();
  CHECK(usleep(500) == 0, "usleep: %d", errno);
  long long t1 = now_ns();
  CHECK(t1 - t0 >= 500000, "usleep(500) returned after %lld ns", t1 - t0);
  struct timespec req = {0, 300000}, rem = {0, 0};
  CHECK(nanosleep(&req, &rem) == 0, "nanosleep: %d", errno);
  long long t2 = now_ns();
  CHECK(t2 - t1 >= 300000, "nanosleep(300 us) returned after %lld ns", t2 - t1);
  CHECK(clock_nanosleep(CLOCK_MONOTONIC, 0, &req, NULL) == 0, "clock_nanosleep relative");
  long long t3 = now_ns();
  CHECK(t3 - t2 >= 300000, "clock_nanosleep(300 us) returned after %lld ns", t3 - t2);
  long long until = t3 + 400000;
  struct timespec abs_t = {(time_t)(until / 1000000000LL), (long)(until % 1000000000LL)};
  CHECK(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs_t, NULL) == 0, "clock_nanosleep absolute");
  CHECK(now_ns() >= until, "clock_nanosleep(TIMER_ABSTIME) returned early");
  CHECK(sleep(0) == 0, "sleep(0)");
}

static volatile int g_flag[2][ROUNDS];
static int g_seen[2][INNER];

static void on_alarm(int sig) { (void)sig; }

int main(void) {
  omp_set_max_active_levels(2);
  omp_set_dynamic(0);
#pragma omp parallel num_threads(2)
  {
    int outer = omp_get_thread_num();
#pragma omp parallel num_threads(INNER)
    {
      int me = omp_get_thread_num();
      CHECK(omp_get_num_threads() == INNER, "inner team of %d", omp_get_num_threads());
      sleeps();
      for (int r = 0; r < ROUNDS; r++) {
#pragma omp barrier
        if (me == INNER - 1) {
          usleep(50);
          g_flag[outer][r] = 1;
        } else {
          while (!g_flag[outer][r]) usleep(10);
        }
        g_seen[outer][me]++;
      }
    }
  }
  for (int o = 0; o < 2; o++)
    for (int m = 0; m < INNER; m++) CHECK(g_seen[o][m] == ROUNDS, "outer %d member %d saw %d rounds", o, m, g_seen[o][m]);

  struct timespec bad = {0, 1000000000L};
  errno = 0;
  CHECK(nanosleep(&bad, NULL) == -1 && errno == EINVAL, "nanosleep with tv_nsec 1e9: errno %d", errno);
  CHECK(clock_nanosleep(CLOCK_MONOTONIC, 0, &bad, NULL) == EINVAL, "clock_nanosleep with tv_nsec 1e9");

  /* EINTR: a timer signal ends a 2 s nanosleep after about 50 ms. */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigaction(SIGALRM, &sa, NULL);
  int interrupted = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp master
    {
      timer_t tid;
      struct sigevent ev;
      memset(&ev, 0, sizeof ev);
      ev.sigev_notify = SIGEV_THREAD_ID;
      ev.sigev_signo = SIGALRM;
      ev._sigev_un._tid = gettid();
      if (timer_create(CLOCK_MONOTONIC, &ev, &tid) == 0) {
        struct itimerspec its = {{0, 0}, {0, 50000000L}};
        timer_settime(tid, 0, &its, NULL);
        struct timespec req = {2, 0}, rem = {0, 0};
        long long t0 = now_ns();
        int rc = nanosleep(&req, &rem);
        long long dt = now_ns() - t0;
        if (rc == -1 && errno == EINTR) {
          interrupted = 1;
          long long left = rem.tv_sec * 1000000000LL + rem.tv_nsec;
          CHECK(left > 0 && left <= 2000000000LL, "nanosleep's time left %lld ns", left);
          CHECK(dt < 1900000000LL, "interrupted nanosleep took %lld ns", dt);
        } else {
          CHECK(rc == 0, "nanosleep: rc %d errno %d", rc, errno);
        }
        timer_delete(tid);
      }
    }
  }
  CHECK(interrupted, "a timer signal did not interrupt nanosleep");
  return conf_end();
}
