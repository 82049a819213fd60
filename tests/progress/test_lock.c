/* Teams wider than the cores whose threads take a lock by spinning on
   omp_test_lock (and omp_test_nest_lock), with a flush inside the locked
   section: the shape of LLVM's omp_test_lock test. In a clang build the
   flush is a call into the runtime, where a fiber lets the others queued on
   its worker run first; the lock's owner can then be queued behind a
   spinner on its own worker.

   What it guards: a failed test did not let the worker's other fibers run,
   so each spinner held its worker until the monitor preempted it: LLVM's
   test (10 x 1000 iterations) took 20-26 s at 8 threads on 2 cores, against
   0.02 s on libomp. Now a failed test yields as a flush does, and this
   program's 60000 iterations take well under a second.

   usage: test_lock [ITERATIONS]   (per team size and lock kind; default 5000)
   PROGRESS_TIMEOUT (s, default 60) bounds the run: past it the program
   prints the team size and lock kind it was in and exits 3. */
#define _GNU_SOURCE
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int g_team;
static volatile const char *g_kind = "";

static void on_alarm(int sig) {
  (void)sig;
  char buf[160];
  int n = snprintf(buf, sizeof buf, "HUNG: team of %d spinning on %s did not finish\n", g_team, (const char *)g_kind);
  if (write(2, buf, (size_t)n) < 0) _exit(4);
  _exit(3);
}

int main(int argc, char **argv) {
  int iterations = argc > 1 ? atoi(argv[1]) : 5000;
  const char *t = getenv("PROGRESS_TIMEOUT");
  signal(SIGALRM, on_alarm);
  alarm(t ? (unsigned)atoi(t) : 60);
  static const int sizes[] = {3, 4, 8};
  int bad = 0;
  omp_lock_t lock;
  omp_nest_lock_t nest;
  omp_init_lock(&lock);
  omp_init_nest_lock(&nest);
  for (int nested = 0; nested < 2; ++nested) {
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
      int n = sizes[s];
      g_team = n;
      g_kind = nested ? "omp_test_nest_lock" : "omp_test_lock";
      int inside = 0, overlap = 0, done = 0;
      double t0 = omp_get_wtime();
#pragma omp parallel num_threads(n)
      {
#pragma omp for
        for (int i = 0; i < iterations; ++i) {
          if (nested)
            while (!omp_test_nest_lock(&nest)) {
            }
          else
            while (!omp_test_lock(&lock)) {
            }
#pragma omp flush
          overlap += inside++;
#pragma omp flush
          ++done;
          --inside;
          if (nested)
            omp_unset_nest_lock(&nest);
          else
            omp_unset_lock(&lock);
        }
      }
      double dt = omp_get_wtime() - t0;
      printf("team of %d, %s: %d iterations, %.2f us each\n", n, (const char *)g_kind, iterations,
             dt / iterations * 1e6);
      if (overlap != 0 || done != iterations) {
        printf("FAIL: team of %d, %s: %d iterations done (expected %d), %d found the section occupied\n", n,
               (const char *)g_kind, done, iterations, overlap);
        bad = 1;
      }
    }
  }
  omp_destroy_lock(&lock);
  omp_destroy_nest_lock(&nest);
  return bad;
}
