/* Shared helpers of the OpenMP benchmarks in bots/: clock, presets, median,
 * the RESULT line. Header-only, plain C (gnu11); each program includes it once.
 *
 * Every program prints one line per measurement, starting "RESULT ", of
 * space-separated key=value pairs: name= first, verified=yes|no last. That is
 * what tools/bench/run.py parses; everything else on stdout is for humans. */
#ifndef BOBBIN_BOTS_BENCH_H
#define BOBBIN_BOTS_BENCH_H

#include <dlfcn.h>
#include <omp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The hang watchdog: a program still running `env` seconds after
 * bench_watchdog (when that variable holds a positive number) prints
 * "HUNG: <msg>", then Bobbin's scheduler state when it runs under Bobbin
 * (bobbin_print_scheduler_state, looked up at run time), and exits with
 * status 3. Only async-signal-safe calls in the handler, but the state dump. */
static const char *bench_hang_msg;

static inline void bench_on_hang(int sig) {
  (void)sig;
  if (write(2, "HUNG: ", 6) < 0 || write(2, bench_hang_msg, strlen(bench_hang_msg)) < 0 || write(2, "\n", 1) < 0) {
  }
  void (*dump)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "bobbin_print_scheduler_state");
  if (dump)
    dump();
  _exit(3);
}

static inline void bench_watchdog(const char *env, const char *msg) {
  const char *t = getenv(env);
  if (!t || atoi(t) <= 0)
    return;
  bench_hang_msg = msg;
  signal(SIGALRM, bench_on_hang);
  alarm((unsigned)atoi(t));
}

static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Preset index for "small", "medium", "large" (0, 1, 2), -1 for anything else. */
static inline int bench_preset_index(const char *s) {
  if (!strcmp(s, "small")) return 0;
  if (!strcmp(s, "medium")) return 1;
  if (!strcmp(s, "large")) return 2;
  return -1;
}

/* Parses argv[i] as a preset name (returning that preset's value from
 * values[3]) or as a positive number; `def` when argc <= i. Exits on junk. */
static inline long bench_size_arg(int argc, char **argv, int i, const long values[3], long def,
                                  const char *what) {
  if (argc <= i) return def;
  int p = bench_preset_index(argv[i]);
  if (p >= 0) return values[p];
  char *end = NULL;
  double v = strtod(argv[i], &end); /* accepts 1e6 and 1048576 alike */
  if (!end || *end || v < 1) {
    fprintf(stderr, "%s: '%s' is neither small|medium|large nor a positive number (%s)\n", argv[0],
            argv[i], what);
    exit(2);
  }
  return (long)v;
}

static inline long bench_long_arg(int argc, char **argv, int i, long def, const char *what) {
  static const long none[3] = {0, 0, 0};
  if (argc > i && bench_preset_index(argv[i]) >= 0) {
    fprintf(stderr, "%s: %s must be a number, not '%s'\n", argv[0], what, argv[i]);
    exit(2);
  }
  return bench_size_arg(argc, argv, i, none, def, what);
}

/* The width a moldable benchmark's nested regions ask for: argv[i], a
 * positive number or "all" (0: the number of processors; also the default),
 * unless BENCH_WIDTH is set, which overrides it in the same forms: one
 * command then runs at several widths as environment variants of one
 * benchmark run (tools/bench/run.py --variant 'w1=BENCH_WIDTH=1'), each
 * repetition timing every width. */
static inline int bench_width_arg(int argc, char **argv, int i) {
  char *env = getenv("BENCH_WIDTH");
  if (env && *env) {
    char *given[2] = {argv[0], env};
    return strcmp(env, "all") ? (int)bench_long_arg(2, given, 1, 1, "BENCH_WIDTH") : 0;
  }
  return argc > i && strcmp(argv[i], "all") ? (int)bench_long_arg(argc, argv, i, 1, "W") : 0;
}

static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of v[0..n); sorts v. */
static inline double bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The number of threads a parallel region gets here. The first parallel
 * region also starts the runtime's threads, so calling this before timing
 * keeps start-up out of the measurement. */
static inline int bench_team_size(void) {
  int n = 1;
#pragma omp parallel
  {
#pragma omp single
    n = omp_get_num_threads();
  }
  return n;
}

/* Prints "RESULT name=<name> <fields> verified=yes|no". */
static inline void bench_result(const char *name, int verified, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void bench_result(const char *name, int verified, const char *fmt, ...) {
  va_list ap;
  printf("RESULT name=%s ", name);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf(" verified=%s\n", verified ? "yes" : "no");
  fflush(stdout);
}

#endif
