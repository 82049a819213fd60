/* fib: fib(n) with one task per recursive call and no cutoff (BOTS fib with
 * the manual cutoff removed). Nearly all of the time is task creation,
 * scheduling and taskwait, so tasks/s is the runtime's task throughput on
 * the smallest possible tasks.
 *
 *   usage: fib [small|medium|large|N]     (default small)
 *   presets: small n=25 (243k tasks), medium n=30 (2.7M), large n=35 (30M)
 *
 * Verified against the serial recursion. */
#include "bench.h"

static long fib_serial(int n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

static long fib_task(int n) {
  long x, y;
  if (n < 2) return n;
#pragma omp task shared(x) firstprivate(n)
  x = fib_task(n - 1);
#pragma omp task shared(y) firstprivate(n)
  y = fib_task(n - 2);
#pragma omp taskwait
  return x + y;
}

/* Tasks created by fib_task(n) called once outside a task: every call but
 * the first is a task, and fib_task(n) makes 2 F(n+1) - 1 calls. */
static long tasks_of(int n) {
  long a = 0, b = 1; /* F(0), F(1) */
  for (int i = 0; i < n + 1; i++) {
    long t = a + b;
    a = b;
    b = t;
  } /* a = F(n+1) */
  return 2 * a - 2;
}

int main(int argc, char **argv) {
  static const long presets[3] = {25, 30, 35};
  int n = (int)bench_size_arg(argc, argv, 1, presets, presets[0], "n");
  if (n > 45) {
    fprintf(stderr, "fib: n=%d would create too many tasks (at most 45)\n", n);
    return 2;
  }
  int threads = bench_team_size();

  double t0 = bench_now();
  long ref = fib_serial(n);
  double serial_s = bench_now() - t0;

  long result = 0;
  t0 = bench_now();
#pragma omp parallel
  {
#pragma omp single
    result = fib_task(n);
  }
  double time_s = bench_now() - t0;

  long tasks = tasks_of(n);
  int ok = result == ref;
  if (!ok) fprintf(stderr, "fib: fib(%d) = %ld, expected %ld\n", n, result, ref);
  bench_result("fib", ok, "n=%d threads=%d tasks=%ld time_s=%.6f tasks_per_s=%.0f serial_s=%.6f", n, threads,
               tasks, time_s, (double)tasks / time_s, serial_s);
  return ok ? 0 : 1;
}
