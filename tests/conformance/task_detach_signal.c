/* detach, fulfilled from a signal handler: the shape of an asynchronous
   I/O completion (aio_write with SIGEV_SIGNAL), where the kernel runs the
   handler on whichever thread it picks, often one whose OpenMP work is done
   and which sleeps until there is more. A POSIX thread started by the
   detached task's body sends the signal after a delay, to the initial thread
   (which is then waiting at the region's end, or in a taskwait) or to the
   process, while every OpenMP thread of the region waits for the event.
   The handler only fulfils the event and sets a flag. Each wait must end,
   after the flag is set. */
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

enum { TO_INITIAL, TO_PROCESS };

static pthread_t initial;
static omp_event_handle_t pending;
static volatile sig_atomic_t fulfilled;

static void on_signal(int sig) {
  (void)sig;
  fulfilled = 1;
  omp_fulfill_event(pending);
}

struct sender {
  pthread_t tid;
  int target;
};

static void *send_later(void *arg) {
  struct sender *s = arg;
  struct timespec ts = {0, 30 * 1000 * 1000};
  nanosleep(&ts, NULL);
  if (s->target == TO_INITIAL)
    pthread_kill(initial, SIGUSR1);
  else
    kill(getpid(), SIGUSR1);
  return NULL;
}

/* The detached task's body: note the event, start the sender. */
static void start(struct sender *s, omp_event_handle_t ev) {
  pending = ev;
  CHECK(pthread_create(&s->tid, NULL, send_later, s) == 0, "pthread_create failed");
}

static void at_region_end(int target, int undeferred, const char *what) {
  struct sender s = {.target = target};
  fulfilled = 0;
#pragma omp parallel num_threads(2)
#pragma omp masked
  {
    omp_event_handle_t ev = (omp_event_handle_t)0;
#pragma omp task detach(ev) if (!undeferred) shared(s)
    start(&s, ev);
#pragma omp task
    {
      struct timespec ts = {0, 1000 * 1000};
      nanosleep(&ts, NULL);
    }
  }
  CHECK(fulfilled, "%s: the region ended before the event was fulfilled", what);
  pthread_join(s.tid, NULL);
}

static void at_taskwait(int target, const char *what) {
  struct sender s = {.target = target};
  fulfilled = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    omp_event_handle_t ev = (omp_event_handle_t)0;
#pragma omp task detach(ev) shared(s)
    start(&s, ev);
#pragma omp taskwait
    CHECK(fulfilled, "%s: taskwait returned before the event was fulfilled", what);
  }
  pthread_join(s.tid, NULL);
}

int main(void) {
  initial = pthread_self();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction failed");
  for (int round = 0; round < 3; round++) {
    at_region_end(TO_INITIAL, 0, "region end, signal to the initial thread");
    at_region_end(TO_INITIAL, 1, "region end, undeferred task, signal to the initial thread");
    at_region_end(TO_PROCESS, 0, "region end, signal to the process");
    at_taskwait(TO_INITIAL, "taskwait, signal to the initial thread");
    at_taskwait(TO_PROCESS, "taskwait, signal to the process");
  }
  return conf_end();
}
