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
 * usage: roots [small|medium|large|R] [P] [N]
 *   R = 300 / 1500 / 6000 rounds; P = 8 threads; N = 2048 elements */
#include <pthread.h>

#include "bench.h"

enum { MAX_ROOTS = 256, WORK = 40 };

static long g_rounds, g_n;
static int g_roots;
static pthread_barrier_t g_barrier;
static int g_bad[MAX_ROOTS];

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

static void *root(void *arg) {
  int p = (int)(intptr_t)arg;
  long lo = p * g_n, hi = lo + g_n;
  unsigned long want = serial_sum(lo, hi);
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
  bench_result("roots", !bad, "rounds=%ld roots=%d n=%ld threads=%d time_s=%.6f us_per_round=%.3f", g_rounds,
               g_roots, g_n, threads, t, 1e6 * t / (double)g_rounds);
  return bad ? 1 : 0;
}
