/* Outermost teams wider than the cores (run as fibers when the program has
   no thread-local data of its own) whose members poll, outside the runtime,
   a flag the primary thread sets: the usual reason to single the primary
   thread out. Each round: a dynamic worksharing loop without a barrier (the
   primary thread takes its iterations; a member that arrives first sets the
   loop up), then the primary thread counts them and sets the flag while the
   others spin for it a bounded number of times and then poll with usleep;
   two barriers end the round. Team sizes 1, 2, 3, 4 and 8 in one process,
   in that order (a team of 2 has a kernel thread per member, the wider ones
   are fibers: the change of mode is part of the test).

   What it guards: a member queued behind on the primary thread's worker
   that ran first held the worker for its whole spin each round (leaving a
   barrier, or while the primary thread waited for the loop's setup), and
   the program's thread and a pinned worker shared a processor for seconds:
   rounds of milliseconds instead of microseconds, so this run took minutes
   (the shape of LLVM's kmp_sch_simd_guided test, which hung past its 60 s).
   Now each round costs a few microseconds.

   usage: primary_flag [ROUNDS [SPIN]]   (default 20000 rounds, spin 4000000)
   PROGRESS_TIMEOUT (s, default 60) bounds the run: past it the program
   prints the team size and round it was in and exits 3. */
#define _GNU_SOURCE
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int g_flag;
static volatile int g_team, g_round;

static void on_alarm(int sig) {
  (void)sig;
  char buf[128];
  int n = snprintf(buf, sizeof buf, "HUNG: team of %d, round %d did not complete\n", g_team, g_round);
  if (write(2, buf, (size_t)n) < 0) _exit(4);
  _exit(3);
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 20000;
  long spin = argc > 2 ? atol(argv[2]) : 4000000;
  const char *t = getenv("PROGRESS_TIMEOUT");
  signal(SIGALRM, on_alarm);
  alarm(t ? (unsigned)atoi(t) : 60);
  static const int sizes[] = {1, 2, 3, 4, 8};
  int bad = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
    int n = sizes[s];
    long counted = 0, seen = 0;
    g_team = n;
    double t0 = omp_get_wtime();
#pragma omp parallel num_threads(n) reduction(+ : counted, seen)
    {
      int me = omp_get_thread_num();
      for (int r = 0; r < rounds; ++r) {
        if (me == 0) g_round = r;
#pragma omp for schedule(dynamic) nowait
        for (int i = 0; i < 4; ++i) counted += 1;
        if (me == 0) {
          g_flag = 1;
        } else {
          for (long i = 0; i < spin && !g_flag; ++i) {
          }
          while (!g_flag) usleep(10);
          seen += 1;
        }
#pragma omp barrier
        if (me == 0) g_flag = 0;
#pragma omp barrier
      }
    }
    double dt = omp_get_wtime() - t0;
    printf("team of %d: %d rounds, %.2f us per round\n", n, rounds, dt / rounds * 1e6);
    if (counted != 4L * rounds || seen != (long)(n - 1) * rounds) {
      printf("FAIL: team of %d counted %ld iterations (expected %ld) and %ld flags seen (expected %ld)\n", n,
             counted, 4L * rounds, seen, (long)(n - 1) * rounds);
      bad = 1;
    }
  }
  return bad;
}
