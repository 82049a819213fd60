/* A recursion deeper than the stack of the OpenMP thread that runs it
   (run with OMP_STACKSIZE=1M): the program must die by SIGSEGV (or say
   what happened and exit non-zero), never hang or run on corrupted.
   argv[1]: task (an explicit task), nested (a member of a nested team),
   untied (an untied task), primary (the primary thread of a nested team). */
#include <omp.h>
#include <stdio.h>
#include <string.h>

static volatile int g_sink;

static int deep(int n);
/* Through a volatile pointer, so that no compiler turns the recursion into
   a loop. */
static int (*volatile g_deep)(int) = deep;

__attribute__((noinline)) static int deep(int n) {
  volatile char *pad = __builtin_alloca(512);
  pad[0] = (char)n;
  pad[511] = (char)n;
  if (n == 0) return pad[0];
  return g_deep(n - 1) + pad[511];
}

int main(int argc, char **argv) {
  const char *where = argc > 1 ? argv[1] : "task";
  int depth = 1 << 21; /* 2Mi frames of 16 bytes or more: 32 MiB and more */
  omp_set_max_active_levels(2);
  printf("start %s\n", where);
  fflush(stdout);
  if (!strcmp(where, "task")) {
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task
      g_sink = deep(depth);
#pragma omp taskwait
    }
  } else if (!strcmp(where, "untied")) {
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task untied
      {
#pragma omp taskyield
        g_sink = deep(depth);
      }
#pragma omp taskwait
    }
  } else if (!strcmp(where, "nested")) {
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(3)
    if (omp_get_thread_num() == 2 && omp_get_ancestor_thread_num(1) == 1) g_sink = deep(depth);
  } else if (!strcmp(where, "primary")) {
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(3)
    if (omp_get_thread_num() == 0 && omp_get_ancestor_thread_num(1) == 1) g_sink = deep(depth);
  } else {
    return 2;
  }
  printf("not reached\n");
  return 0;
}
