/* Parallel regions opened by several program threads at once: the shape of
 * a POSIX-threads program whose threads each call OpenMP code (Rodinia's
 * streamcluster: each of its threads runs a `parallel for` with a
 * reduction over its block between pthread barriers). P threads, each
 * running R rounds of { pthread_barrier_wait among the P; a parallel for
 * with a reduction over its own block of N elements }. P x OMP_NUM_THREADS
 * OpenMP threads share the cores; the program's initial thread waits in
 * pthread_join meanwhile. Each element's work is integer arithmetic, so
 * every round's sum is exact and checked against the serial one.
 * Reported: the wall time of the rounds and the time per round.
 *
 * Shape `shared` is instead the shape of a library that threads call at
 * once and that keeps one workspace for all of them (OpenBLAS's OpenMP
 * build, with its default of one buffer): a round takes a process-wide
 * flag by spinning on a compare-exchange (no yield, as that library does),
 * opens a region whose members each sum their share of the block and then
 * wait for all the others' partial sums at a spin barrier of their own that
 * calls sched_yield (as the library's threads wait for each other's
 * blocks), and releases the flag. No pthread barrier between rounds.
 *
 * usage: roots [small|medium|large|R] [P] [N] [barrier|shared]
 *   R = 300 / 1500 / 6000 rounds; P = 8 threads; N = 2048 elements */
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "bench.h"

enum { MAX_ROOTS = 256, WORK = 40 };

static long g_rounds, g_n;
static int g_roots;
static pthread_barrier_t g_barrier;
static int g_bad[MAX_ROOTS];
static int g_shared;          /* shape `shared` */
static atomic_int g_busy;     /* the one workspace: 1 while a round holds it */
static long g_round;          /* rounds of shape `shared` begun, all threads; under g_busy */
enum { MAX_TEAM = 256 };
static struct {
  unsigned long part;
  atomic_long round;          /* the round whose part is in `part` (+1) */
} g_slot[MAX_TEAM];

static unsigned long element(long i) {
  unsigned long x = (unsigned long)i * 2654435761u + 1;
  for (int k = 0; k < WORK; k++)
    x = x * 6364136223846793005ul + 1442695040888963407ul;
  return x >> 20;
}

static unsigned long serial_sum(long lo, long hi) {
  unsigned long s = 0;
  for (long i = lo; i < hi; i++)
    s += element(i);
  return s;
}

/* One round of shape `shared`: the workspace is one for the process. */
static unsigned long shared_round(long lo, long hi) {
  int expected = 0;
  while (!atomic_compare_exchange_weak_explicit(&g_busy, &expected, 1, memory_order_acquire,
                                                memory_order_relaxed))
    expected = 0;
  /* Rounds are numbered across the threads, under the flag: a slot's stamp only grows. */
  long r = g_round++;
  unsigned long total = 0;
  int bad_team = 0;
#pragma omp parallel
  {
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    if (n > MAX_TEAM) {
#pragma omp single
      bad_team = 1;
    } else {
      long len = hi - lo, a = lo + len * t / n, b = lo + len * (t + 1) / n;
      g_slot[t].part = serial_sum(a, b);
      atomic_store_explicit(&g_slot[t].round, r + 1, memory_order_release);
      for (int k = 0; k < n; k++)
        while (atomic_load_explicit(&g_slot[k].round, memory_order_acquire) < r + 1)
          sched_yield();
      if (t == 0)
        for (int k = 0; k < n; k++)
          total += g_slot[k].part;
      /* Nobody may overwrite a slot before the master has read it: the
       * region's end orders the next round's writes after these reads. */
    }
  }
  atomic_store_explicit(&g_busy, 0, memory_order_release);
  return bad_team ? ~0ul : total;
}

static void *root(void *arg) {
  int p = (int)(intptr_t)arg;
  long lo = p * g_n, hi = lo + g_n;
  unsigned long want = serial_sum(lo, hi);
  if (g_shared) {
    for (long r = 0; r < g_rounds; r++)
      if (shared_round(lo, hi) != want)
        g_bad[p] = 1;
    return NULL;
  }
  for (long r = 0; r < g_rounds; r++) {
    pthread_barrier_wait(&g_barrier);
    unsigned long s = 0;
#pragma omp parallel for reduction(+ : s)
    for (long i = lo; i < hi; i++)
      s += element(i);
    if (s != want)
      g_bad[p] = 1;
  }
  return NULL;
}

int main(int argc, char **argv) {
  static const long presets[3] = {300, 1500, 6000};
  g_rounds = bench_size_arg(argc, argv, 1, presets, presets[0], "R");
  g_roots = (int)bench_long_arg(argc, argv, 2, 8, "P");
  g_n = bench_long_arg(argc, argv, 3, 2048, "N");
  if (argc > 4 && strcmp(argv[4], "shared") == 0)
    g_shared = 1;
  else if (argc > 4 && strcmp(argv[4], "barrier") != 0) {
    fprintf(stderr, "%s: the shape is barrier or shared, not %s\n", argv[0], argv[4]);
    return 2;
  }
  if (g_roots > MAX_ROOTS) {
    fprintf(stderr, "%s: P must be at most %d\n", argv[0], MAX_ROOTS);
    return 2;
  }
  int threads = bench_team_size();
  pthread_barrier_init(&g_barrier, NULL, (unsigned)g_roots);
  pthread_t th[MAX_ROOTS];
  double t0 = bench_now();
  for (int p = 0; p < g_roots; p++)
    if (pthread_create(&th[p], NULL, root, (void *)(intptr_t)p) != 0) {
      fprintf(stderr, "%s: cannot create thread %d\n", argv[0], p);
      return 2;
    }
  for (int p = 0; p < g_roots; p++)
    pthread_join(th[p], NULL);
  double t = bench_now() - t0;
  int bad = 0;
  for (int p = 0; p < g_roots; p++)
    bad |= g_bad[p];
  if (bad)
    fprintf(stderr, "roots: a round's sum differs from the serial one\n");
  bench_result("roots", !bad, "shape=%s rounds=%ld roots=%d n=%ld threads=%d time_s=%.6f us_per_round=%.3f",
               g_shared ? "shared" : "barrier", g_rounds, g_roots, g_n, threads, t, 1e6 * t / (double)g_rounds);
  return bad ? 1 : 0;
}
