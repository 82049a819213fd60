/* stress.h: what the stress programs share.
 *
 * A watchdog: stress_begin() starts a POSIX thread that aborts the program
 * with one line naming the phase that did not finish, and how far it got,
 * once the program has run longer than its budget. The run.py timeout (and
 * Meson's) is only the backstop: a hang here prints what hung. Phases are
 * named with stress_phase(); stress_progress() counts units of work done.
 *
 * Checks and conf_end() come from the conformance suite's check.h.
 */
#ifndef STRESS_H
#define STRESS_H

#include <pthread.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static const char *stress_name;
static const char *volatile stress_current; /* written by main, read by the watchdog */
static long stress_done, stress_total;      /* atomics */
static double stress_budget, stress_phase_start;

static double stress_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void stress_phase(const char *what, long total) CONF_UNUSED;
static void stress_phase(const char *what, long total) {
  if (stress_current)
    printf("  %-58s %6.2f s\n", stress_current, stress_now() - stress_phase_start);
  fflush(stdout);
  __atomic_store_n(&stress_done, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&stress_total, total, __ATOMIC_RELAXED);
  stress_phase_start = stress_now();
  __atomic_store_n(&stress_current, what, __ATOMIC_RELEASE);
}

static void stress_progress(long n) CONF_UNUSED;
static void stress_progress(long n) { __atomic_fetch_add(&stress_done, n, __ATOMIC_RELAXED); }

static void *stress_watchdog(void *arg) {
  double start = *(double *)arg;
  for (;;) {
    usleep(100 * 1000);
    if (stress_now() - start < stress_budget)
      continue;
    const char *phase = __atomic_load_n(&stress_current, __ATOMIC_ACQUIRE);
    fprintf(stdout,
            "FAIL %s: watchdog: still running after %.0f s, in phase '%s' (%.1f s in it), "
            "progress %ld of %ld\n",
            stress_name, stress_budget, phase ? phase : "(none)", stress_now() - stress_phase_start,
            __atomic_load_n(&stress_done, __ATOMIC_RELAXED),
            __atomic_load_n(&stress_total, __ATOMIC_RELAXED));
    fflush(stdout);
    abort();
  }
  return NULL;
}

/* Call first in main. Budget in seconds; STRESS_BUDGET=<s> overrides. */
static void stress_begin(const char *name, double budget) CONF_UNUSED;
static void stress_begin(const char *name, double budget) {
  static double start;
  static pthread_t tid;
  stress_name = name;
  stress_budget = conf_env_long("STRESS_BUDGET", 0) > 0 ? (double)conf_env_long("STRESS_BUDGET", 0) : budget;
  start = stress_phase_start = stress_now();
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  if (pthread_create(&tid, &attr, stress_watchdog, &start) != 0) {
    printf("FAIL %s: cannot start the watchdog thread\n", name);
    exit(1);
  }
  pthread_attr_destroy(&attr);
}

/* return stress_end(); at the end of main: closes the last phase. */
static int stress_end(void) CONF_UNUSED;
static int stress_end(void) {
  stress_phase(NULL, 0);
  return conf_end();
}

/* The initial thread runs on the process stack, which OMP_STACKSIZE does
   not size. Re-executes the program once with RLIMIT_STACK raised to
   `bytes` (the limit applies to the main stack at exec). */
static void stress_main_stack(char **argv, rlim_t bytes) CONF_UNUSED;
static void stress_main_stack(char **argv, rlim_t bytes) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= bytes)
    return;
  if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < bytes) {
    printf("note: stack hard limit %lu below the %lu bytes wanted\n", (unsigned long)rl.rlim_max,
           (unsigned long)bytes);
    return;
  }
  rl.rlim_cur = bytes;
  if (setrlimit(RLIMIT_STACK, &rl) == 0)
    execv("/proc/self/exe", argv);
  printf("note: could not raise the main stack to %lu bytes\n", (unsigned long)bytes);
}

#endif
