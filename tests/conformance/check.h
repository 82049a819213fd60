/* check.h: what every conformance program shares.
 *
 * A program checks its own results. The first failed check prints one line,
 * "FAIL <file>:<line>: <what differs>", and later failures stay quiet (a wrong
 * loop could otherwise print a million lines); main returns conf_end(), which
 * is non-zero if any check failed. Checks may run on any OpenMP thread.
 *
 * conf_end() also asks which runtime ran the program, because the program
 * itself cannot otherwise know: run.py sets CONF_EXPECT_BOBBIN=1 in the
 * preload, linked and compat modes and CONF_EXPECT_BOBBIN=0 in the libomp
 * mode. Bobbin exports `const char *bobbin_version(void)`; stock libomp does
 * not.
 */
#ifndef CONF_CHECK_H
#define CONF_CHECK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT, dladdr */
#endif
#include <dlfcn.h>
#include <omp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CONF_UNUSED __attribute__((unused))

/* Written by any thread with an atomic exchange; read by main after the last
   region has joined. */
static int conf_failed;

static void conf_fail_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4))) CONF_UNUSED;
static void conf_fail_at(const char *file, int line, const char *fmt, ...) {
  if (__atomic_exchange_n(&conf_failed, 1, __ATOMIC_ACQ_REL))
    return; /* only the first failure prints */
  const char *base = strrchr(file, '/');
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  printf("FAIL %s:%d: %s\n", base ? base + 1 : file, line, msg);
  fflush(stdout);
}

/* CHECK(cond, "printf format", args...): the message names what differs. */
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond))                                                               \
      conf_fail_at(__FILE__, __LINE__, __VA_ARGS__);                           \
  } while (0)

/* CHECK_EQ(what, got, want) for integers: "what: got G, want W". */
#define CHECK_EQ(what, got, want)                                              \
  do {                                                                         \
    long long conf_g_ = (long long)(got), conf_w_ = (long long)(want);         \
    if (conf_g_ != conf_w_)                                                    \
      conf_fail_at(__FILE__, __LINE__, "%s: got %lld, want %lld", (what),      \
                   conf_g_, conf_w_);                                          \
  } while (0)

#define CONF_PRAGMA(x) _Pragma(#x)

/* The time on `clock` in ns, and the timespec of a time in ns (for
   deadlines). */
static long long conf_ns_on(clockid_t clock) CONF_UNUSED;
static long long conf_ns_on(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}
static struct timespec conf_at(long long ns) CONF_UNUSED;
static struct timespec conf_at(long long ns) {
  struct timespec t = {(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
  return t;
}

static int conf_has_failed(void) CONF_UNUSED;
static int conf_has_failed(void) {
  return __atomic_load_n(&conf_failed, __ATOMIC_ACQUIRE);
}

/* An integer from the environment (run.py passes expectations as CONF_*). */
static long conf_env_long(const char *name, long fallback) CONF_UNUSED;
static long conf_env_long(const char *name, long fallback) {
  const char *s = getenv(name);
  if (!s || !*s)
    return fallback;
  return strtol(s, NULL, 10);
}

/* Fails unless the runtime in use is the one run.py expects. In a Bobbin mode
   the entry points the program binds to must also come from the object that
   defines bobbin_version: with LD_PRELOAD, stock libomp is still loaded (it is
   the binary's DT_NEEDED), and a name Bobbin does not export would silently
   fall through to it. */
static void conf_runtime_check(void) CONF_UNUSED;
static void conf_runtime_check(void) {
  const char *want = getenv("CONF_EXPECT_BOBBIN");
  if (!want || !*want)
    return;
  void *version = dlsym(RTLD_DEFAULT, "bobbin_version");
  if (want[0] == '0') {
    CHECK(version == NULL,
          "runtime: bobbin_version is defined, but this run should use stock libomp");
    return;
  }
  if (version == NULL) {
    CHECK(0, "runtime: bobbin_version not found: the OpenMP runtime in use is not Bobbin");
    return;
  }
  Dl_info bobbin, other;
  if (!dladdr(version, &bobbin)) {
    CHECK(0, "runtime: dladdr(bobbin_version) failed");
    return;
  }
  const char *names[] = {"__kmpc_fork_call", "__kmpc_global_thread_num"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    void *p = dlsym(RTLD_DEFAULT, names[i]);
    CHECK(p && dladdr(p, &other) && other.dli_fbase == bobbin.dli_fbase,
          "runtime: %s resolves to %s, not to Bobbin (%s)", names[i],
          p && dladdr(p, &other) ? other.dli_fname : "nothing", bobbin.dli_fname);
  }
  /* The address the program itself calls (through its GOT). */
  void *api = (void *)(uintptr_t)&omp_get_thread_num;
  CHECK(dladdr(api, &other) && other.dli_fbase == bobbin.dli_fbase,
        "runtime: omp_get_thread_num resolves to %s, not to Bobbin (%s)",
        dladdr(api, &other) ? other.dli_fname : "nothing", bobbin.dli_fname);
}

/* return conf_end(); at the end of main. */
static int conf_end(void) CONF_UNUSED;
static int conf_end(void) {
  conf_runtime_check();
  return conf_has_failed() ? 1 : 0;
}

#endif
