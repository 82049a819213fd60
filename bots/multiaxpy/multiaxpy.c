/* multiaxpy: task granularity sweep, after Nanos6's multiaxpy benchmark.
 *
 * A range of N elements is split recursively in halves, one task per half,
 * down to blocks of BS elements; each leaf spins for a time proportional to
 * its block size and touches no memory (a no-op "axpy": a dependent chain of
 * multiply-adds per element, ~4 cycles each), so the result depends only on
 * how well the runtime creates, distributes and retires tasks of that size.
 * The whole split runs ITERS times, each inside a taskgroup. Sweeping BS over
 * 2^10..2^16 shows the task size below which the runtime's overhead dominates.
 *
 *   usage: multiaxpy [small|medium|large|N] [BS] [ITERS]
 *   presets: small N=2^22, medium N=2^24, large N=2^26 (Nanos6's size)
 *   BS: a power of two in 2^10..2^16 (default 2^12); ITERS default 10
 *
 * Verification: every leaf adds its chain's final value to a checksum (one
 * atomic per leaf); the serial reference computes the same partition and
 * checksum once, and the parallel checksum must equal ITERS times it (mod
 * 2^64), with exactly ITERS * N/BS leaves. */
#include "bench.h"

static long g_bs;
static uint64_t g_checksum;
static long g_leaves;

/* The leaf workload: n multiply-adds (Knuth's MMIX LCG) in one dependent
 * chain. The empty asm keeps the compiler from collapsing the loop. */
static inline uint64_t spin(uint64_t x, long n) {
  for (long i = 0; i < n; i++) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    __asm__ volatile("" : "+r"(x));
  }
  return x;
}

static uint64_t leaf(long lo, long hi) { return spin((uint64_t)lo, hi - lo); }

static void split_task(long lo, long hi) {
  if (hi - lo <= g_bs) {
    uint64_t v = leaf(lo, hi);
#pragma omp atomic
    g_checksum += v;
#pragma omp atomic
    g_leaves += 1;
    return;
  }
  long mid = lo + (hi - lo) / 2;
#pragma omp task firstprivate(lo, mid)
  split_task(lo, mid);
#pragma omp task firstprivate(mid, hi)
  split_task(mid, hi);
}

/* Serial reference: the same partition, no tasks. Counts the tasks the
 * parallel version creates (two per inner node). */
static uint64_t split_serial(long lo, long hi, long *tasks, long *leaves) {
  if (hi - lo <= g_bs) {
    ++*leaves;
    return leaf(lo, hi);
  }
  long mid = lo + (hi - lo) / 2;
  *tasks += 2;
  return split_serial(lo, mid, tasks, leaves) + split_serial(mid, hi, tasks, leaves);
}

int main(int argc, char **argv) {
  static const long presets[3] = {1L << 22, 1L << 24, 1L << 26};
  long n = bench_size_arg(argc, argv, 1, presets, presets[0], "N");
  g_bs = bench_long_arg(argc, argv, 2, 1L << 12, "BS");
  long iters = bench_long_arg(argc, argv, 3, 10, "ITERS");
  if (g_bs > n) g_bs = n;
  int threads = bench_team_size();

  long tasks_per_iter = 0, leaves_per_iter = 0;
  double t0 = bench_now();
  uint64_t ref = split_serial(0, n, &tasks_per_iter, &leaves_per_iter);
  double serial_s = (bench_now() - t0) * (double)iters;

  g_checksum = 0;
  g_leaves = 0;
  t0 = bench_now();
#pragma omp parallel
  {
#pragma omp single
    for (long it = 0; it < iters; it++) {
#pragma omp taskgroup
      split_task(0, n);
    }
  }
  double time_s = bench_now() - t0;

  long tasks = tasks_per_iter * iters;
  int ok = g_checksum == ref * (uint64_t)iters && g_leaves == leaves_per_iter * iters;
  if (!ok) {
    fprintf(stderr, "multiaxpy: checksum %016llx leaves %ld, expected %016llx leaves %ld\n",
            (unsigned long long)g_checksum, g_leaves, (unsigned long long)(ref * (uint64_t)iters),
            leaves_per_iter * iters);
  }
  bench_result("multiaxpy", ok,
               "n=%ld bs=%ld iters=%ld threads=%d tasks=%ld time_s=%.6f tasks_per_s=%.0f serial_s=%.6f "
               "efficiency=%.3f",
               n, g_bs, iters, threads, tasks, time_s, (double)tasks / time_s, serial_s,
               serial_s / (time_s * threads));
  return ok ? 0 : 1;
}
