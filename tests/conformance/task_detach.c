/* detach: a task with detach(ev) is complete only when its body has ended
   and omp_fulfill_event(ev) was called, here from a POSIX thread that the
   body starts (after a delay) and from another task; until then taskwait,
   a taskgroup, the barrier at the end of the region and a dependent task
   wait; fulfilling before the body ends is allowed. */
#include <pthread.h>
#include <time.h>

#include "check.h"

enum { NPTHREAD = 8 };

struct fulfiller {
  pthread_t tid;
  omp_event_handle_t ev;
  int *flag;
};

static void *fulfil_later(void *arg) {
  struct fulfiller *f = arg;
  struct timespec ts = {0, 20 * 1000 * 1000};
  nanosleep(&ts, NULL);
  __atomic_store_n(f->flag, 1, __ATOMIC_RELEASE);
  omp_fulfill_event(f->ev);
  return NULL;
}

static struct fulfiller fs[NPTHREAD];
static int flags[NPTHREAD];

/* Starts task k, fulfilled later by a POSIX thread. */
static void detached_by_pthread(int k) {
  omp_event_handle_t ev = (omp_event_handle_t)0; /* set by detach; quiets -Wuninitialized */
#pragma omp task detach(ev) firstprivate(k)
  {
    fs[k].ev = ev;
    fs[k].flag = &flags[k];
    CHECK(pthread_create(&fs[k].tid, NULL, fulfil_later, &fs[k]) == 0, "pthread_create failed");
  }
}

static void join_all(void) {
  for (int k = 0; k < NPTHREAD; k++)
    pthread_join(fs[k].tid, NULL);
}

int main(void) {
  memset(flags, 0, sizeof flags);
#pragma omp parallel
#pragma omp single
  {
    for (int k = 0; k < 3; k++)
      detached_by_pthread(k);
#pragma omp taskwait
    for (int k = 0; k < 3; k++)
      CHECK(__atomic_load_n(&flags[k], __ATOMIC_ACQUIRE), "taskwait returned before event %d was fulfilled", k);
#pragma omp taskgroup
    detached_by_pthread(3);
    CHECK(__atomic_load_n(&flags[3], __ATOMIC_ACQUIRE), "taskgroup ended before its event was fulfilled");

    /* a dependent task waits for the fulfilment */
    int x = 0, seen = 0;
    omp_event_handle_t ev = (omp_event_handle_t)0;
#pragma omp task detach(ev) depend(out : x) shared(x)
    {
      x = 1;
      fs[4].ev = ev, fs[4].flag = &flags[4];
      CHECK(pthread_create(&fs[4].tid, NULL, fulfil_later, &fs[4]) == 0, "pthread_create failed");
    }
#pragma omp task depend(in : x) shared(seen)
    seen = __atomic_load_n(&flags[4], __ATOMIC_ACQUIRE);
#pragma omp taskwait
    CHECK(seen == 1, "a task depending on a detached task ran before the event was fulfilled");

    /* fulfilled by another task, which waits for the detached body to run */
    int body_ran = 0, fulfilled = 0;
    omp_event_handle_t ev2 = (omp_event_handle_t)0;
#pragma omp task detach(ev2) shared(body_ran)
    __atomic_store_n(&body_ran, 1, __ATOMIC_RELEASE);
#pragma omp task firstprivate(ev2) shared(body_ran, fulfilled)
    {
      while (!__atomic_load_n(&body_ran, __ATOMIC_ACQUIRE)) {
#pragma omp taskyield
      }
      __atomic_store_n(&fulfilled, 1, __ATOMIC_RELEASE);
      omp_fulfill_event(ev2);
    }
#pragma omp taskwait
    CHECK(fulfilled, "taskwait returned before the other task fulfilled the event");

    /* fulfilled inside its own body, before the body ends */
    int after = 0;
    omp_event_handle_t ev3 = (omp_event_handle_t)0;
#pragma omp task detach(ev3) shared(after)
    {
      omp_fulfill_event(ev3);
      for (volatile int i = 0; i < 100000; i++)
        ;
      after = 1;
    }
#pragma omp taskwait
    CHECK(after, "a task fulfilled early completed before its body ended");
  }
  /* the barrier at the end of a region waits too */
#pragma omp parallel
  {
#pragma omp single nowait
    for (int k = 5; k < NPTHREAD; k++)
      detached_by_pthread(k);
  }
  for (int k = 5; k < NPTHREAD; k++)
    CHECK(__atomic_load_n(&flags[k], __ATOMIC_ACQUIRE), "the region ended before event %d was fulfilled", k);
  join_all();
  return conf_end();
}
