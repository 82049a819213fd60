/* Shared pieces of the gang-scheduling deadlock tests: a watchdog that
   reports what hung instead of letting CI hang, and a user-written spin
   barrier (atomics only: no runtime call, so a ULT runtime that does not
   gang-schedule cannot make progress past it). */
#ifndef GANG_H
#define GANG_H

#include <dlfcn.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void gang_report(const char* what) {
  fprintf(stderr, "HUNG: %s\n", what);
  void (*dump)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "bobbin_print_scheduler_state");
  if (dump) dump();
  fflush(stderr);
}

static const char* g_watch_what;
static long* g_watch_progress;
static void* gang_watchdog(void* arg) {
  int seconds = (int)(long)arg;
  sleep((unsigned)seconds);
  if (g_watch_progress) fprintf(stderr, "progress: %ld inner regions done\n", __atomic_load_n(g_watch_progress, __ATOMIC_RELAXED));
  gang_report(g_watch_what);
  _exit(3);
  return NULL;
}

/* Starts a watchdog: after GANG_TIMEOUT seconds (env, default `seconds`) the
   process prints what hung and every worker's gang stack, and exits 3. */
static void gang_watch(const char* what, int seconds, long* progress) {
  g_watch_progress = progress;
  const char* env = getenv("GANG_TIMEOUT");
  if (env) seconds = atoi(env);
  g_watch_what = what;
  pthread_t t;
  pthread_create(&t, NULL, gang_watchdog, (void*)(long)seconds);
  pthread_detach(t);
}

/* A sense-reversing spin barrier for `n` threads, written with atomics only.
   It yields the kernel thread while it spins (as hand-written barriers often
   do), so that synthetic machines with more workers than cores make
   progress; sched_yield never switches fibers, so a runtime that multiplexes
   team members on one worker without gang scheduling still hangs on it. */
typedef struct {
  int count, sense;
} spin_barrier;

static inline void spin_wait(spin_barrier* b, int n, int* local_sense) {
  *local_sense = !*local_sense;
  if (__atomic_add_fetch(&b->count, 1, __ATOMIC_ACQ_REL) == n) {
    __atomic_store_n(&b->count, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&b->sense, *local_sense, __ATOMIC_RELEASE);
  } else {
    while (__atomic_load_n(&b->sense, __ATOMIC_ACQUIRE) != *local_sense) sched_yield();
  }
}

#define GANG_FAIL(...)              \
  do {                              \
    fprintf(stderr, "FAIL: ");      \
    fprintf(stderr, __VA_ARGS__);   \
    fprintf(stderr, "\n");          \
    exit(1);                        \
  } while (0)

#endif
