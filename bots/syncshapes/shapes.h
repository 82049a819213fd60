/* Ways for the members of a team to wait for one another outside the
   OpenMP runtime, shared by the progress tests (tests/progress) and the
   syncshapes benchmark:
     spin     a sense-reversing barrier of atomics (pause loop)
     yield    the same barrier, yielding the processor while it spins
     flag     a pipeline: member i spins on a flag member i+1 sets
              (flush-based, as in the spec's examples), round by round
     pipe     a ring of blocking pipe reads and writes
     pthread  pthread_barrier_wait
     sem      a ring of POSIX semaphores
     call     the spin barrier polling with a system call (getppid) in its
              loop, as a wait on a progress engine's poll does
     condvar  a barrier of a pthread mutex and condition variable (as
              std::mutex and std::condition_variable make one)
     timedcond  the same barrier waiting with pthread_cond_timedwait on a
              CLOCK_MONOTONIC condition, 30 s deadlines (as
              std::condition_variable::wait_until's on the system clock)
     epoll    the pipe ring, each member waiting in epoll_wait before its
              read (as an event loop does)
     futex    a sense-reversing barrier whose waiters sleep in FUTEX_WAIT
              on the sense word (a hand-written futex barrier; what
              std::barrier and std::atomic::wait come to)
   sync_round(shape, s, me, n, r, &local) is round r (from 1) for member me
   of n; state_init/state_destroy bracket a team's use of s. */
#ifndef BOBBIN_SYNC_SHAPES_H
#define BOBBIN_SYNC_SHAPES_H
#include <errno.h>
#include <omp.h>
#include <pthread.h>
#include <semaphore.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <linux/futex.h>
#include <unistd.h>

enum { MAX_INNER = 64 };
enum { SPIN, YIELD, FLAG, PIPE, PTHREAD, SEM, CALL, CONDVAR, TIMEDCOND, EPOLL, FUTEX, SHAPES };
static const char *const kShapes[SHAPES] = {"spin",    "yield",     "flag",  "pipe", "pthread", "sem",
                                            "call",    "condvar",   "timedcond", "epoll", "futex"};
#define SHAPE_FAIL(...)        \
  do {                         \
    fprintf(stderr, "FAIL: "); \
    fprintf(stderr, __VA_ARGS__); \
    fprintf(stderr, "\n");     \
    exit(1);                   \
  } while (0)

static inline void cpu_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

typedef struct {
  int count, sense;
  int flags[MAX_INNER];
  int pipes[MAX_INNER][2];
  int epolls[MAX_INNER];
  pthread_barrier_t pb;
  sem_t sems[MAX_INNER];
  pthread_mutex_t mu;
  pthread_cond_t cv, mono_cv;
  int cv_count, cv_round;
  long sum;
} team_state;

/* How a spin barrier waits: pause, sched_yield, a system call, or a futex
   wait on the sense word. */
enum { WAIT_PAUSE, WAIT_YIELD, WAIT_CALL, WAIT_FUTEX };

static inline void spin_barrier(team_state *s, int n, int *local, int wait) {
  *local = !*local;
  if (__atomic_add_fetch(&s->count, 1, __ATOMIC_ACQ_REL) == n) {
    __atomic_store_n(&s->count, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&s->sense, *local, __ATOMIC_RELEASE);
    if (wait == WAIT_FUTEX) syscall(SYS_futex, &s->sense, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
  } else {
    while (__atomic_load_n(&s->sense, __ATOMIC_ACQUIRE) != *local) {
      if (wait == WAIT_YIELD)
        sched_yield();
      else if (wait == WAIT_CALL)
        (void)getppid();
      else if (wait == WAIT_FUTEX)
        syscall(SYS_futex, &s->sense, FUTEX_WAIT_PRIVATE, !*local, NULL, NULL, 0);
      else
        cpu_pause();
    }
  }
}

/* One round among the n members; round r starts at 1. */
static inline void sync_round(int shape, team_state *s, int me, int n, int r, int *local) {
  char c = 'x';
  switch (shape) {
    case SPIN:
      spin_barrier(s, n, local, WAIT_PAUSE);
      break;
    case YIELD:
      spin_barrier(s, n, local, WAIT_YIELD);
      break;
    case CALL:
      spin_barrier(s, n, local, WAIT_CALL);
      break;
    case FUTEX:
      spin_barrier(s, n, local, WAIT_FUTEX);
      break;
    case FLAG:
      /* member n-1 starts the round; each other member waits for its right
         neighbour's flag, then raises its own (read-then-write pipeline) */
      if (me != n - 1) {
        int v;
        do {
#pragma omp flush
#pragma omp atomic read
          v = s->flags[me + 1];
        } while (v < r);
      }
#pragma omp atomic write
      s->flags[me] = r;
#pragma omp flush
      break;
    case PIPE:
    case EPOLL:
      if (me == 0 && write(s->pipes[1 % n][1], &c, 1) != 1) SHAPE_FAIL("write: %s", strerror(errno));
      if (shape == EPOLL) {
        struct epoll_event ev;
        int got;
        while ((got = epoll_wait(s->epolls[me], &ev, 1, -1)) < 0 && errno == EINTR) {}
        if (got != 1) SHAPE_FAIL("epoll_wait: %d (%s)", got, strerror(errno));
      }
      if (me == 0) {
        if (read(s->pipes[0][0], &c, 1) != 1) SHAPE_FAIL("read: %s", strerror(errno));
      } else {
        if (read(s->pipes[me][0], &c, 1) != 1) SHAPE_FAIL("read: %s", strerror(errno));
        if (write(s->pipes[(me + 1) % n][1], &c, 1) != 1) SHAPE_FAIL("write: %s", strerror(errno));
      }
      break;
    case PTHREAD:
      pthread_barrier_wait(&s->pb);
      break;
    case CONDVAR:
      pthread_mutex_lock(&s->mu);
      if (++s->cv_count == n) {
        s->cv_count = 0;
        s->cv_round = r;
        pthread_cond_broadcast(&s->cv);
      } else {
        while (s->cv_round < r) pthread_cond_wait(&s->cv, &s->mu);
      }
      pthread_mutex_unlock(&s->mu);
      break;
    case TIMEDCOND:
      pthread_mutex_lock(&s->mu);
      if (++s->cv_count == n) {
        s->cv_count = 0;
        s->cv_round = r;
        pthread_cond_broadcast(&s->mono_cv);
      } else {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += 30;
        while (s->cv_round < r)
          if (pthread_cond_timedwait(&s->mono_cv, &s->mu, &until) == ETIMEDOUT && s->cv_round < r)
            SHAPE_FAIL("member %d of %d waited 30 s for round %d", me, n, r);
      }
      pthread_mutex_unlock(&s->mu);
      break;
    case SEM:
      if (me == 0) {
        sem_post(&s->sems[1 % n]);
        while (sem_wait(&s->sems[0]) != 0 && errno == EINTR) {}
      } else {
        while (sem_wait(&s->sems[me]) != 0 && errno == EINTR) {}
        sem_post(&s->sems[(me + 1) % n]);
      }
      break;
  }
}

static inline void state_init(team_state *s, int n) {
  memset(s, 0, sizeof *s);
  pthread_barrier_init(&s->pb, NULL, (unsigned)n);
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cv, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&s->mono_cv, &ca);
  pthread_condattr_destroy(&ca);
  for (int i = 0; i < n; i++) {
    if (pipe(s->pipes[i]) != 0) SHAPE_FAIL("pipe: %s", strerror(errno));
    s->epolls[i] = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data = {.fd = s->pipes[i][0]}};
    if (s->epolls[i] < 0 || epoll_ctl(s->epolls[i], EPOLL_CTL_ADD, s->pipes[i][0], &ev) != 0)
      SHAPE_FAIL("epoll: %s", strerror(errno));
    sem_init(&s->sems[i], 0, 0);
  }
}

static inline void state_destroy(team_state *s, int n) {
  pthread_barrier_destroy(&s->pb);
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->cv);
  pthread_cond_destroy(&s->mono_cv);
  for (int i = 0; i < n; i++) {
    close(s->pipes[i][0]);
    close(s->pipes[i][1]);
    close(s->epolls[i]);
    sem_destroy(&s->sems[i]);
  }
}

/* One nested region of `inner` threads (the caller sets dyn-var false)
   whose members meet at an omp barrier, then `rounds` times by `shape`.
   Returns 0 when the team had `inner` threads and every member took part in
   every round. The omp barrier first makes members parked in the runtime
   ready while another one already waits in user code. */
static inline int shape_region(int shape, int inner, int rounds) {
  team_state *s = (team_state *)malloc(sizeof *s);
  int bad = 0;
  state_init(s, inner);
#pragma omp parallel num_threads(inner) shared(s, bad)
  {
    int me = omp_get_thread_num(), n = omp_get_num_threads(), local = 0;
    if (n != inner) {
#pragma omp atomic write
      bad = 1;
    }
#pragma omp barrier
    if (n == inner)
      for (int r = 1; r <= rounds; r++) {
        sync_round(shape, s, me, n, r, &local);
#pragma omp atomic
        s->sum += r;
      }
  }
  if (s->sum != (long)inner * rounds * (rounds + 1) / 2) bad = 1;
  state_destroy(s, inner);
  free(s);
  return bad;
}

static inline int shape_by_name(const char *name) {
  for (int i = 0; i < SHAPES; i++)
    if (strcmp(name, kShapes[i]) == 0) return i;
  return -1;
}

#endif
