/* The affinity format (spec 21.2.5, 18.14): omp_set/get_affinity_format,
 * omp_capture_affinity with every field type in its short and long forms,
 * the 0 . and size modifiers, %%, truncation and the returned length; the
 * ICV when the format is NULL or empty; OMP_AFFINITY_FORMAT
 * (CONF_EXPECT_FORMAT). The Fortran-style exports: affinity_fortran.c. */
#include "check.h"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

static void capture(const char *fmt, const char *want) {
  char buf[2048];
  size_t n = omp_capture_affinity(buf, sizeof buf, fmt);
  CHECK(strcmp(buf, want) == 0 && n == strlen(want), "capture \"%s\": \"%s\" (%zu), want \"%s\"", fmt, buf, n, want);
}

/* This thread's processors as a sorted list, from "0-3,8" or "0,1". */
static int cpus_of(const char *s, int *out) {
  int n = 0;
  while (*s && n < 1024) {
    char *end;
    long a = strtol(s, &end, 10), b = a;
    if (*end == '-') b = strtol(end + 1, &end, 10);
    for (long c = a; c <= b && n < 1024; c++) out[n++] = (int)c;
    s = *end == ',' ? end + 1 : end;
    if (end == s && *s) return -1;
  }
  return n;
}

int main(void) {
  const char *env_format = getenv("CONF_EXPECT_FORMAT");
  char buf[512];
  size_t n = omp_get_affinity_format(buf, sizeof buf);
  CHECK(n == strlen(buf) && n > 0, "omp_get_affinity_format: %zu for \"%s\"", n, buf);
  if (env_format) CHECK(strcmp(buf, env_format) == 0, "OMP_AFFINITY_FORMAT: the ICV is \"%s\", want \"%s\"", buf, env_format);

  omp_set_affinity_format("n=%n L=%{nesting_level}");
  n = omp_get_affinity_format(buf, 5);
  CHECK(n == 23 && strcmp(buf, "n=%n") == 0, "get_affinity_format into 5 bytes: \"%s\" (%zu)", buf, n);
  CHECK_EQ("omp_get_affinity_format(NULL, 0)", omp_get_affinity_format(NULL, 0), 23);
  capture(NULL, "n=0 L=0");
  capture("", "n=0 L=0");

  capture("%n|%5n|%.5n|%0.5n|%{thread_num}|%0.3{thread_num}", "0|0    |    0|00000|0|000");
  capture("100%% %L %{nesting_level} %N %{num_threads} %a %{ancestor_tnum}", "100% 0 0 1 1 -1 -1");
  capture("%t %{team_num} %T %{num_teams}", "0 0 1 1");
  capture("[%0.4a]", "[-001]");
  n = omp_capture_affinity(buf, 4, "%0.10n");
  CHECK(n == 10 && strcmp(buf, "000") == 0, "capture into 4 bytes: \"%s\" (%zu)", buf, n);
  CHECK_EQ("omp_capture_affinity(NULL, 0, \"%5n\")", omp_capture_affinity(NULL, 0, "%5n"), 5);

  char host[256], want[2048];
  gethostname(host, sizeof host);
  snprintf(want, sizeof want, "%s|%s|%ld|%ld|%-12s|%12s", host, host, (long)getpid(), (long)getpid(), host, host);
  capture("%H|%{host}|%P|%{process_id}|%12H|%.12{host}", want);

  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
  {
    int outer = omp_get_thread_num();
#pragma omp parallel num_threads(2)
    {
      char got[512], expect[512], tid[64], native[64];
      omp_capture_affinity(got, sizeof got, "%L %n %N %a %{ancestor_tnum}");
      snprintf(expect, sizeof expect, "%d %d %d %d %d", omp_get_level(), omp_get_thread_num(), omp_get_num_threads(),
               outer, outer);
      CHECK(strcmp(got, expect) == 0, "nested thread: \"%s\", want \"%s\"", got, expect);
      /* The native id's form is the implementation's (libgomp prints a
         pthread_t); the kmpc runtimes' (Bobbin, libomp) is the kernel's. */
      omp_capture_affinity(native, sizeof native, "%i");
      omp_capture_affinity(got, sizeof got, "%{native_thread_id}");
      snprintf(tid, sizeof tid, "%ld", (long)syscall(SYS_gettid));
      CHECK(*native && strcmp(got, native) == 0, "%%i is \"%s\", %%{native_thread_id} \"%s\"", native, got);
      CHECK(strcmp(native, tid) == 0 || !dlsym(RTLD_DEFAULT, "__kmpc_fork_call"), "%%i is %s, gettid() %s", native, tid);
      /* %A: the processors this thread may run on. Without binding the
         runtime may move an unbound thread at any time (Bobbin moves a
         worker off the program's thread's processor, runtime/places.cpp):
         the mask is read before and after the capture, and a capture made
         while it changed is taken again. */
      cpu_set_t set, after;
      int cpus[1024], k, m, c, tries = 0;
      do {
        CPU_ZERO(&set);
        CPU_ZERO(&after);
        sched_getaffinity(0, sizeof set, &set);
        omp_capture_affinity(got, sizeof got, "%A");
        sched_getaffinity(0, sizeof after, &after);
      } while (!CPU_EQUAL(&set, &after) && ++tries < 1000);
      CHECK(CPU_EQUAL(&set, &after), "this thread's processors changed in each of %d captures", tries);
      c = cpus_of(got, cpus);
      k = m = 0;
      for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set)) m += k < c && cpus[k++] == cpu;
      CHECK(c > 0 && m == c && m == CPU_COUNT(&set), "%%A is \"%s\", not this thread's %d processors", got,
            CPU_COUNT(&set));
      omp_capture_affinity(got, sizeof got, "%{thread_affinity}");
      CHECK(c > 0 && cpus_of(got, cpus) == c, "%%{thread_affinity} \"%s\" differs from %%A", got);
    }
  }

  return conf_end();
}
