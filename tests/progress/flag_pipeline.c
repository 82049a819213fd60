/* Outermost teams wider than the cores run as kernel threads (here because
   max-active-levels-var is 2: each member may open an active nested region)
   whose members pass a token round a ring outside the runtime: member i
   spins, with a flush in the loop, until member i - 1 has set its flag for
   this round, then sets its own (NPB LU's pipeline of flags). Team sizes 3,
   4 and 8 on the machine's cores, in one process.

   What it guards: a member spinning on the flag keeps its processor until
   the OS ends its time slice, while the member it waits for shares that
   processor: every hand-over took a slice (milliseconds), and a run of NPB
   LU class S took 19.5 s at 4 threads on 2 cores (libomp too). A flush, a
   runtime call in a clang build, now gives the processor up while kernel
   threads outnumber the processors: a hand-over takes microseconds. Built
   by gcc, the flush is an inlined fence and nothing of the runtime runs in
   the spin: the progress monitor ends the turn of a kernel thread found
   spinning (ult/monitor.cpp), a few hundred microseconds per hand-over
   where the OS's time slices took 2-7 ms.

   With a second argument, the spins are in a shared object the program
   loads with dlopen after the runtime has started (flag_ring.c, built by
   the same compiler): the monitor yields only a thread it finds in the
   program's own code, and its table of that code must see objects loaded
   later, as plugins are.

   usage: flag_pipeline [ROUNDS [RING.so]]   (default 3000, the ring here)
   PROGRESS_TIMEOUT (s, default 60) bounds the run: past it the program
   prints the team size and round it was in and exits 3. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "flag_ring.h"

enum { MAX_TEAM = 8 };
static volatile int g_flag[MAX_TEAM];
static volatile int g_team, g_round;

static void local_ring(volatile int *flag, volatile int *round, int me, int size, int rounds) {
  flag_ring_member(flag, round, me, size, rounds);
}

static void on_alarm(int sig) {
  (void)sig;
  char buf[128];
  int n = snprintf(buf, sizeof buf, "HUNG: team of %d, round %d did not complete\n", g_team, g_round);
  if (write(2, buf, (size_t)n) < 0) _exit(4);
  _exit(3);
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 3000;
  const char *t = getenv("PROGRESS_TIMEOUT");
  signal(SIGALRM, on_alarm);
  alarm(t ? (unsigned)atoi(t) : 60);
  omp_set_max_active_levels(2);
  flag_ring_fn ring = local_ring;
  if (argc > 2) {
    /* Loaded once the runtime runs threads (the table of user code was
       made): a region with a body (gcc drops an empty one). */
#pragma omp parallel num_threads(2)
    g_round = omp_get_thread_num();
    void *so = dlopen(argv[2], RTLD_NOW);
    ring = so ? (flag_ring_fn)dlsym(so, "flag_ring") : NULL;
    if (!ring) {
      fprintf(stderr, "cannot load flag_ring from %s: %s\n", argv[2], dlerror());
      return 2;
    }
  }
  static const int sizes[] = {3, 4, 8};
  int bad = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
    int n = sizes[s], got = 0;
    g_team = n;
    for (int i = 0; i < MAX_TEAM; i++) g_flag[i] = 0;
    double t0 = omp_get_wtime();
#pragma omp parallel num_threads(n)
    {
      int me = omp_get_thread_num(), size = omp_get_num_threads();
      if (me == 0) got = size;
      if (size == n) ring(g_flag, &g_round, me, size, rounds);
    }
    double dt = omp_get_wtime() - t0;
    int ok = got == n;
    for (int i = 0; i < n && ok; i++) ok = g_flag[i] == rounds;
    printf("team of %d: %d rounds in %.3f s (%.1f us per hand-over)%s\n", n, rounds, dt, 1e6 * dt / ((double)rounds * n),
           ok ? "" : " WRONG");
    bad |= !ok;
  }
  return bad;
}
