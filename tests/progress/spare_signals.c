/* Kernel threads the runtime starts to rescue a stuck team take the
   program's signal mask.

   Two threads, each opening a nested team twice as wide as the processors
   whose members meet in a spin barrier of their own: the members that
   start first spin, so the others, queued behind them, can only run on
   kernel threads the runtime adds (Bobbin's progress monitor moves them to
   spares). Then every OpenMP thread checks that its kernel thread blocks
   exactly the signals the program's thread blocked before the first
   region (SIGUSR2 here); the preemption signal (SIGURG) is left out: the
   runtime unblocks it on its own threads. Then each member opens inner
   teams of 3 that meet in the same kind of spin barrier, on whatever
   kernel thread it runs (a third level), and checks again.

   What it guards: spares created by the monitor thread inherited its mask,
   every signal blocked. The preemption signal never reached them, so an
   inner team whose members were queued behind a spinning primary thread on
   such a spare waited forever (the progress test spin outer 8 x inner 3
   hung in CI, 1 run in 3), and the program's own signals were never
   delivered there.

   PROGRESS_TIMEOUT (s, default 60) bounds the run: past it the program
   says which phase hung and exits 3. */
#define _GNU_SOURCE
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile const char *g_phase = "start";

static void on_alarm(int sig) {
  (void)sig;
  char buf[128];
  int n = snprintf(buf, sizeof buf, "HUNG: %s did not complete\n", (const char *)g_phase);
  if (write(2, buf, (size_t)n) < 0) _exit(4);
  _exit(3);
}

typedef struct {
  int count, sense;
} spin_barrier_t;

static void spin_barrier(spin_barrier_t *b, int n, int *local) {
  *local = !*local;
  if (__atomic_add_fetch(&b->count, 1, __ATOMIC_ACQ_REL) == n) {
    __atomic_store_n(&b->count, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&b->sense, *local, __ATOMIC_RELEASE);
  } else {
    while (__atomic_load_n(&b->sense, __ATOMIC_ACQUIRE) != *local) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
  }
}

static sigset_t g_expect;
static int g_checked, g_bad;

/* Whether the calling kernel thread blocks exactly what the program's
   thread blocked before the first region, SIGURG aside. */
static void check_mask(const char *where) {
  sigset_t cur;
  pthread_sigmask(SIG_BLOCK, NULL, &cur);
  __atomic_add_fetch(&g_checked, 1, __ATOMIC_RELAXED);
  for (int sig = 1; sig < SIGRTMIN; ++sig) {
    if (sig == SIGURG || sig == SIGKILL || sig == SIGSTOP) continue;
    if (sigismember(&cur, sig) != sigismember(&g_expect, sig)) {
      if (__atomic_exchange_n(&g_bad, 1, __ATOMIC_RELAXED) == 0)
        fprintf(stderr, "FAIL: an OpenMP thread of %s %s signal %d (%s); the program's thread did not\n", where,
                sigismember(&cur, sig) ? "blocks" : "does not block", sig, strsignal(sig));
      return;
    }
  }
}

int main(void) {
  const char *t = getenv("PROGRESS_TIMEOUT");
  signal(SIGALRM, on_alarm);
  alarm(t ? (unsigned)atoi(t) : 60);
  sigset_t usr2;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &usr2, NULL);
  pthread_sigmask(SIG_BLOCK, NULL, &g_expect);
  omp_set_dynamic(0);
  omp_set_max_active_levels(3);
  int n = 2 * omp_get_num_procs();
  static spin_barrier_t middle[2];
  int wrong_size = 0;
  g_phase = "the spin barriers of the nested teams";
#pragma omp parallel num_threads(2) reduction(| : wrong_size)
  {
    spin_barrier_t *mb = &middle[omp_get_thread_num()];
#pragma omp parallel num_threads(n) reduction(| : wrong_size)
    {
      int local = 0;
      if (omp_get_num_threads() != n) wrong_size = 1;
      spin_barrier(mb, n, &local);
      check_mask("a nested team");
      spin_barrier_t inner = {0, 0};
      for (int k = 0; k < 3; ++k) {
#pragma omp parallel num_threads(3) shared(inner) reduction(| : wrong_size)
        {
          int mine = 0;
          if (omp_get_num_threads() != 3) wrong_size = 1;
          for (int r = 0; r < 20; ++r) spin_barrier(&inner, 3, &mine);
          check_mask("a team at level 3");
        }
      }
    }
  }
  if (wrong_size) {
    fprintf(stderr, "FAIL: a team had the wrong size\n");
    return 1;
  }
  int want = 2 * n + 2 * n * 3 * 3;
  if (g_checked != want) {
    fprintf(stderr, "FAIL: %d threads checked their mask, expected %d\n", g_checked, want);
    return 1;
  }
  if (g_bad) return 1;
  printf("ok: %d OpenMP threads block the program's signals\n", g_checked);
  return 0;
}
