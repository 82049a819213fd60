/* Nested teams whose members wait, outside the runtime, for the members of
   their sibling teams: every inner thread of every inner team arrives at one
   counter and spins until all OUTER x INNER have arrived, round after round
   (a generation counter). Each inner team fits the machine on its own, so
   the inner regions are gang-scheduled; no gang order can serve the waits
   (each gang waits for the others), and only running them side by side,
   as kernel threads would, lets the program finish. libomp finishes it
   (LLVM's ompt/misc/threads_nested test has the shape, with 2 x 2).

   What it guards: the gang order's "a fork first runs the earlier gangs'
   members reserved on its worker" (scheduler/gang.cpp, G4) kept the second
   master behind the first gang's member, which spun for the second gang;
   and a member of the second gang, queued behind the first gang's spinning
   member, was neither runnable there (G3) nor moved to a spare. 2 x 2 hung
   with every build.

   usage: sibling_wait [ROUNDS]   (default 20), with shapes outer 2, 3, 4 x
   inner 2, 3, 4, each polled by a pure spin, by sched_yield and by usleep.
   PROGRESS_TIMEOUT (s, default 60) bounds the run: past it the program
   prints the shape it was in and exits 3. */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int g_outer, g_inner, g_round;
static const char* volatile g_poll = "";

static void on_alarm(int sig) {
  (void)sig;
  char buf[160];
  int n = snprintf(buf, sizeof buf, "HUNG: %d x %d, polling by %s, round %d did not complete\n", g_outer, g_inner,
                   g_poll, g_round);
  if (write(2, buf, (size_t)n) < 0) _exit(4);
  _exit(3);
}

static int g_arrived, g_generation;

/* All outer * inner threads meet: the last one to arrive opens the next generation. */
static void meet(int total, int poll) {
  int gen;
#pragma omp atomic read
  gen = g_generation;
  int mine;
#pragma omp atomic capture
  mine = ++g_arrived;
  if (mine == total) {
#pragma omp atomic write
    g_arrived = 0;
#pragma omp atomic update
    g_generation++;
    return;
  }
  for (;;) {
    int now;
#pragma omp atomic read
    now = g_generation;
    if (now != gen) return;
    if (poll == 1) sched_yield();
    else if (poll == 2) usleep(100);
  }
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 20;
  const char* limit = getenv("PROGRESS_TIMEOUT");
  signal(SIGALRM, on_alarm);
  alarm((unsigned)(limit ? atoi(limit) : 60));
  omp_set_max_active_levels(2);
  static const char* polls[] = {"spinning", "sched_yield", "usleep"};
  int checked = 0;
  for (int poll = 0; poll < 3; ++poll) {
    for (int outer = 2; outer <= 4; ++outer) {
      for (int inner = 2; inner <= 4; ++inner) {
        g_outer = outer, g_inner = inner, g_poll = polls[poll];
        int total = outer * inner, wrong = 0;
        for (int r = 0; r < rounds; ++r) {
          g_round = r;
#pragma omp parallel num_threads(outer) reduction(+ : wrong)
          {
#pragma omp parallel num_threads(inner) reduction(+ : wrong)
            {
              if (omp_get_team_size(1) != outer || omp_get_team_size(2) != inner) wrong++;
              meet(total, poll);
            }
          }
        }
        if (wrong) {
          printf("FAIL: %d x %d: teams of the wrong size\n", outer, inner);
          return 1;
        }
        checked++;
      }
    }
  }
  printf("sibling_wait: %d shapes x %d rounds passed\n", checked, rounds);
  return 0;
}
