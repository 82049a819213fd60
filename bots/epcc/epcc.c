/* epcc: per-construct overhead of the OpenMP runtime, in the manner of the
 * EPCC OpenMP syncbench (Bull, Reid, McDonnell; written from scratch here).
 *
 * For each construct, a test loop runs the construct INNER times with a short
 * delay (DELAY, default 0.1 us of register-only spinning) inside it, and a
 * reference loop runs the same delays with no construct, on one thread. The
 * overhead of one construct instance is
 *
 *     median(test time) / INNER - median(reference time) / INNER
 *
 * over REPS outer repetitions; each repetition runs the reference right
 * before the test, so slow phases of the machine hit both. INNER is doubled
 * from the team size until one test loop takes TARGET (default 4 ms, best of
 * 3 tries); a construct whose REPS test loops would exceed BUDGET seconds
 * (default 0.6) gets fewer repetitions (at least 3), as does one whose
 * repetitions run past twice BUDGET.
 *
 *   construct     test loop body (INNER iterations in all)            reference
 *   parallel      parallel { delay }                                   delay
 *   for           inside one parallel: for (i < nthreads) delay        delay
 *   parallel_for  parallel for (i < nthreads) delay                    delay
 *   barrier       inside one parallel: delay; barrier                  delay
 *   single        inside one parallel: single { delay }                delay
 *   critical      inside one parallel, INNER/nthreads per thread:       delay
 *                 critical { delay }
 *   lock          as critical, with omp_set_lock/omp_unset_lock        delay
 *   atomic        inside one parallel, INNER/nthreads per thread:       x += 1
 *                 atomic x += 1 (no delay, as in EPCC)
 *   reduction     parallel reduction(+:x) { delay; x += 1 }            delay; x += 1
 *   kmpc_*        (clang builds) libomp's __kmpc_atomic_* entry points  x += 1
 *                 called directly, as atomic, timed between barriers
 *                 inside the region (below)
 *
 * Each test also checks what the construct promises (counts of executions,
 * the barrier's phase order, the reduction's sum) and reports verified=no if
 * it was broken.
 *
 *   usage: epcc [--reps R] [--target-us T] [--delay-us D] [--budget-s B]
 *               [--only a,b,...]
 *   threads: OMP_NUM_THREADS, default 2
 *
 * Prints one line per construct:
 *   RESULT name=epcc-<construct> threads=.. overhead_us=.. test_us=.. ref_us=..
 *          inner=.. reps=.. verified=yes|no */
#include "bench.h"

static long g_delay_iters; /* spin iterations that take about DELAY */
static int g_threads;
static int g_bad;          /* a test saw a broken promise */

static inline void delay(long n) {
  uint64_t x = 1;
  for (long i = 0; i < n; i++) __asm__ volatile("" : "+r"(x));
}

/* Per-thread counters, a cache line apart, indexed by omp_get_thread_num(). */
#define MAX_THREADS 256
static struct {
  long v;
  char pad[64 - sizeof(long)];
} g_hits[MAX_THREADS];

static void hits_clear(void) { memset(g_hits, 0, sizeof g_hits); }
static long hits_sum(void) {
  long s = 0;
  for (int t = 0; t < MAX_THREADS; t++) s += g_hits[t].v;
  return s;
}
static void expect(const char *what, long got, long want) {
  if (got != want) {
    fprintf(stderr, "epcc: %s: %ld instead of %ld\n", what, got, want);
    g_bad = 1;
  }
}

/* ---- reference loops --------------------------------------------------------------- */

static double ref_delay(long inner) {
  double t0 = bench_now();
  for (long j = 0; j < inner; j++) delay(g_delay_iters);
  return bench_now() - t0;
}

static double ref_reduction(long inner) {
  long x = 0;
  double t0 = bench_now();
  for (long j = 0; j < inner; j++) {
    delay(g_delay_iters);
    x += 1;
    __asm__ volatile("" : "+r"(x));
  }
  return bench_now() - t0;
}

static double ref_atomic(long inner) {
  long x = 0;
  double t0 = bench_now();
  for (long j = 0; j < inner; j++) {
    x += 1;
    __asm__ volatile("" : "+r"(x));
  }
  return bench_now() - t0;
}

/* ---- test loops ------------------------------------------------------------------------ */

static double test_parallel(long inner) {
  hits_clear();
  double t0 = bench_now();
  for (long j = 0; j < inner; j++) {
#pragma omp parallel
    {
      delay(g_delay_iters);
      g_hits[omp_get_thread_num()].v++;
    }
  }
  double t = bench_now() - t0;
  expect("parallel: region executions", hits_sum(), inner * g_threads);
  return t;
}

static double test_for(long inner) {
  hits_clear();
  double t0 = bench_now();
#pragma omp parallel
  {
    int me = omp_get_thread_num();
    for (long j = 0; j < inner; j++) {
#pragma omp for
      for (int i = 0; i < g_threads; i++) {
        delay(g_delay_iters);
        g_hits[me].v++;
      }
    }
  }
  double t = bench_now() - t0;
  expect("for: iterations", hits_sum(), inner * g_threads);
  return t;
}

static double test_parallel_for(long inner) {
  hits_clear();
  double t0 = bench_now();
  for (long j = 0; j < inner; j++) {
#pragma omp parallel for
    for (int i = 0; i < g_threads; i++) {
      delay(g_delay_iters);
      g_hits[omp_get_thread_num()].v++;
    }
  }
  double t = bench_now() - t0;
  expect("parallel for: iterations", hits_sum(), inner * g_threads);
  return t;
}

static double test_barrier(long inner) {
  /* Each thread publishes its phase before the barrier; after it, every
   * other thread's phase must have reached ours. */
  static volatile long phase[MAX_THREADS * 8];
  long late = 0;
  memset((void *)phase, 0, sizeof phase);
  double t0 = bench_now();
#pragma omp parallel reduction(+ : late)
  {
    int me = omp_get_thread_num();
    int other = (me + 1) % omp_get_num_threads();
    for (long j = 1; j <= inner; j++) {
      delay(g_delay_iters);
      __atomic_store_n(&phase[me * 8], j, __ATOMIC_RELAXED);
#pragma omp barrier
      if (__atomic_load_n(&phase[other * 8], __ATOMIC_RELAXED) < j) late++;
    }
  }
  double t = bench_now() - t0;
  expect("barrier: threads that passed before the others arrived", late, 0);
  return t;
}

static double test_single(long inner) {
  long count = 0;
  double t0 = bench_now();
#pragma omp parallel
  {
    for (long j = 0; j < inner; j++) {
#pragma omp single
      {
        delay(g_delay_iters);
        count++;
      }
    }
  }
  double t = bench_now() - t0;
  expect("single: executions", count, inner);
  return t;
}

static double test_critical(long inner) {
  long count = 0;
  long per_thread = inner / g_threads;
  double t0 = bench_now();
#pragma omp parallel
  {
    for (long j = 0; j < per_thread; j++) {
#pragma omp critical
      {
        delay(g_delay_iters);
        count++;
      }
    }
  }
  double t = bench_now() - t0;
  expect("critical: increments", count, per_thread * g_threads);
  return t;
}

static omp_lock_t g_lock;

static double test_lock(long inner) {
  long count = 0;
  long per_thread = inner / g_threads;
  double t0 = bench_now();
#pragma omp parallel
  {
    for (long j = 0; j < per_thread; j++) {
      omp_set_lock(&g_lock);
      delay(g_delay_iters);
      count++;
      omp_unset_lock(&g_lock);
    }
  }
  double t = bench_now() - t0;
  expect("lock: increments", count, per_thread * g_threads);
  return t;
}

static double test_atomic(long inner) {
  long x = 0;
  long per_thread = inner / g_threads;
  double t0 = bench_now();
#pragma omp parallel
  {
    for (long j = 0; j < per_thread; j++) {
#pragma omp atomic
      x += 1;
    }
  }
  double t = bench_now() - t0;
  expect("atomic: increments", x, per_thread * g_threads);
  return t;
}

static double test_reduction(long inner) {
  long total = 0;
  double t0 = bench_now();
  for (long j = 0; j < inner; j++) {
    long x = 0;
#pragma omp parallel reduction(+ : x)
    {
      delay(g_delay_iters);
      x += 1;
    }
    total += x;
  }
  double t = bench_now() - t0;
  expect("reduction: sum", total, inner * g_threads);
  return t;
}

/* libomp's __kmpc_atomic_* entry points, called directly as Intel's
 * compilers and flang call them for atomics they do not inline (clang builds
 * only: libgomp has none). Inside one parallel, INNER/nthreads calls per
 * thread on one shared variable, against the ref_atomic loop:
 *   kmpc_fixed4_add   int += 1 (a locked add)
 *   kmpc_fixed8_max   long long max (a compare-and-swap loop)
 *   kmpc_float8_add   double += 1 (a compare-and-swap loop)
 *   kmpc_float10_add  long double += 1 (10 bytes: a lock)
 *   kmpc_cmplx8_add   double _Complex += 1 (16 bytes: a lock or a 16-byte CAS) */
#if defined(__clang__)
typedef struct kmpc_ident kmpc_ident;
int __kmpc_global_thread_num(kmpc_ident *);
void __kmpc_atomic_fixed4_add(kmpc_ident *, int, int *, int);
void __kmpc_atomic_fixed8_max(kmpc_ident *, int, long long *, long long);
void __kmpc_atomic_float8_add(kmpc_ident *, int, double *, double);
void __kmpc_atomic_float10_add(kmpc_ident *, int, long double *, long double);
void __kmpc_atomic_cmplx8_add(kmpc_ident *, int, double _Complex *, double _Complex);

/* Timed from a barrier inside the region to one after the loop, so that
 * every thread contends from the first call: timed around the region, the
 * cost depended on how late the runtime started the second thread (the
 * inlined `atomic` row itself moved 1-5x between runs). */
#define KMPC_ATOMIC_TEST(fn, T, init, call, check)                      \
  static double fn(long inner) {                                       \
    T x = init;                                                        \
    long per_thread = inner / g_threads;                               \
    double t0 = 0, t1 = 0;                                             \
    _Pragma("omp parallel") {                                          \
      int gtid = __kmpc_global_thread_num(NULL);                       \
      long me = omp_get_thread_num();                                  \
      (void)me;                                                        \
      _Pragma("omp barrier");                                          \
      _Pragma("omp master") t0 = bench_now();                          \
      _Pragma("omp barrier");                                          \
      for (long j = 0; j < per_thread; j++) call;                      \
      _Pragma("omp barrier");                                          \
      _Pragma("omp master") t1 = bench_now();                          \
    }                                                                  \
    check;                                                             \
    return t1 - t0;                                                    \
  }
KMPC_ATOMIC_TEST(test_kmpc_fixed4_add, int, 0, __kmpc_atomic_fixed4_add(NULL, gtid, &x, 1),
                 expect("kmpc_fixed4_add: sum", x, per_thread * g_threads))
KMPC_ATOMIC_TEST(test_kmpc_fixed8_max, long long, -1, __kmpc_atomic_fixed8_max(NULL, gtid, &x, me * inner + j),
                 expect("kmpc_fixed8_max: max", (long)x, (g_threads - 1) * inner + per_thread - 1))
KMPC_ATOMIC_TEST(test_kmpc_float8_add, double, 0, __kmpc_atomic_float8_add(NULL, gtid, &x, 1.0),
                 expect("kmpc_float8_add: sum", (long)x, per_thread * g_threads))
KMPC_ATOMIC_TEST(test_kmpc_float10_add, long double, 0, __kmpc_atomic_float10_add(NULL, gtid, &x, 1.0L),
                 expect("kmpc_float10_add: sum", (long)x, per_thread * g_threads))
KMPC_ATOMIC_TEST(test_kmpc_cmplx8_add, double _Complex, 0, __kmpc_atomic_cmplx8_add(NULL, gtid, &x, 1.0),
                 expect("kmpc_cmplx8_add: sum", (long)__real__ x, per_thread * g_threads))
#endif

/* ---- driver ----------------------------------------------------------------------------- */

typedef double (*loop_fn)(long inner);
static const struct construct {
  const char *name;
  loop_fn test, ref;
} g_constructs[] = {
    {"parallel", test_parallel, ref_delay},   {"for", test_for, ref_delay},
    {"parallel_for", test_parallel_for, ref_delay}, {"barrier", test_barrier, ref_delay},
    {"single", test_single, ref_delay},       {"critical", test_critical, ref_delay},
    {"lock", test_lock, ref_delay},           {"atomic", test_atomic, ref_atomic},
    {"reduction", test_reduction, ref_reduction},
#if defined(__clang__)
    {"kmpc_fixed4_add", test_kmpc_fixed4_add, ref_atomic},   {"kmpc_fixed8_max", test_kmpc_fixed8_max, ref_atomic},
    {"kmpc_float8_add", test_kmpc_float8_add, ref_atomic},   {"kmpc_float10_add", test_kmpc_float10_add, ref_atomic},
    {"kmpc_cmplx8_add", test_kmpc_cmplx8_add, ref_atomic},
#endif
};
#define N_CONSTRUCTS (int)(sizeof g_constructs / sizeof g_constructs[0])

static int listed(const char *list, const char *name) {
  if (!list) return 1;
  size_t n = strlen(name);
  for (const char *p = list; *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && !strncmp(p, name, n)) return 1;
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

static void usage(FILE *out) {
  fprintf(out,
          "usage: epcc [--reps R] [--target-us T] [--delay-us D] [--budget-s B] [--only c1,c2,...]\n"
          "  constructs:");
  for (int i = 0; i < N_CONSTRUCTS; i++) fprintf(out, " %s", g_constructs[i].name);
  fprintf(out, "\n  threads: OMP_NUM_THREADS (default 2)\n");
}

int main(int argc, char **argv) {
  int reps = 21;
  double target_us = 4000, delay_us = 0.1;
  /* Seconds of test loops per construct beyond which REPS is cut (to >= 3):
   * 9 constructs stay under 10 s even when every one is pathological. */
  double budget_s = 0.6;
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    }
    if (i + 1 >= argc) {
      usage(stderr);
      return 2;
    }
    if (!strcmp(a, "--reps")) reps = atoi(argv[++i]);
    else if (!strcmp(a, "--target-us")) target_us = atof(argv[++i]);
    else if (!strcmp(a, "--delay-us")) delay_us = atof(argv[++i]);
    else if (!strcmp(a, "--only")) only = argv[++i];
    else if (!strcmp(a, "--budget-s")) budget_s = atof(argv[++i]);
    else {
      usage(stderr);
      return 2;
    }
  }
  if (reps < 1 || target_us <= 0 || delay_us < 0 || budget_s <= 0) {
    usage(stderr);
    return 2;
  }
  if (!getenv("OMP_NUM_THREADS")) omp_set_num_threads(2);
  g_threads = bench_team_size();
  if (g_threads > MAX_THREADS) {
    fprintf(stderr, "epcc: at most %d threads\n", MAX_THREADS);
    return 2;
  }

  /* Calibrate the delay: spin iterations per microsecond, best of 5. */
  double best = 1e30;
  for (int i = 0; i < 5; i++) {
    double t0 = bench_now();
    delay(1000000);
    double t = bench_now() - t0;
    if (t < best) best = t;
  }
  g_delay_iters = (long)(delay_us * 1e-6 / (best / 1e6) + 0.5);
  omp_init_lock(&g_lock);
  printf("# epcc: %d threads, delay %.3f us (%ld spins), %d reps, target %.0f us per test loop\n", g_threads,
         delay_us, g_delay_iters, reps, target_us);

  double *test = malloc((size_t)reps * sizeof *test), *ref = malloc((size_t)reps * sizeof *ref);
  if (!test || !ref) return 2;
  int all_ok = 1;
  for (int c = 0; c < N_CONSTRUCTS; c++) {
    const struct construct *k = &g_constructs[c];
    if (!listed(only, k->name)) continue;
    g_bad = 0;
    long inner = g_threads;
    /* Grow INNER until a test loop takes TARGET. Best of 3 at each step, so a
     * thread preempted once (another process on the core) does not stop the
     * growth early; the first call also warms up. */
    double t = 0;
    for (;;) {
      t = 1e30;
      for (int i = 0; i < 3; i++) {
        double ti = k->test(inner);
        if (ti < t) t = ti;
      }
      if (t >= target_us * 1e-6 || inner >= (1L << 40)) break;
      inner *= 2;
    }
    /* A construct far slower than TARGET (a broken or oversubscribed
     * runtime) gets fewer repetitions, so one run stays within seconds. */
    int n = reps;
    while (n > 3 && (double)n * t > budget_s) n--;
    /* And if the machine turns slow after calibration (another process
     * takes a core: every wait becomes a scheduler time slice), stop after 3
     * repetitions once this construct has used twice its budget. */
    double start = bench_now();
    for (int r = 0; r < n; r++) {
      ref[r] = k->ref(inner);
      test[r] = k->test(inner);
      if (r >= 2 && bench_now() - start > 2 * budget_s) n = r + 1;
    }
    double ref_us = bench_median(ref, n) / (double)inner * 1e6;
    double test_us = bench_median(test, n) / (double)inner * 1e6;
    char name[64];
    snprintf(name, sizeof name, "epcc-%s", k->name);
    bench_result(name, !g_bad, "threads=%d overhead_us=%.4f test_us=%.4f ref_us=%.4f inner=%ld reps=%d",
                 g_threads, test_us - ref_us, test_us, ref_us, inner, n);
    all_ok &= !g_bad;
  }
  omp_destroy_lock(&g_lock);
  free(test);
  free(ref);
  return all_ok ? 0 : 1;
}
