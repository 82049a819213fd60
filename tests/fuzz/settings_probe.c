/* settings_probe.c: what the settings sweep runs under every bad value of
 * every variable. It touches each part of the runtime that reads a setting
 * (a region and a nested one, a schedule(runtime) loop, tasks with
 * priorities, a cancellation point, the ICV queries, a fiber's stack) and
 * prints one line, "probe ok <sum>", when every result is right. */
#include <omp.h>
#include <stdio.h>
#include <string.h>

static long deep(int n) {
  volatile char pad[512];
  memset((char *)pad, n, sizeof pad);
  return n == 0 ? pad[7] : pad[3] + deep(n - 1);
}

int main(void) {
  long loop = 0, tasks = 0, nested = 0, stack = 0;
  #pragma omp parallel reduction(+: nested, stack)
  {
    #pragma omp for schedule(runtime) reduction(+: loop)
    for (int i = 0; i < 1000; i++) loop += i;
    #pragma omp single
    for (int t = 0; t < 64; t++) {
      #pragma omp task priority(t % 4)
      {
        #pragma omp atomic
        tasks += t;
      }
    }
    #pragma omp cancellation point parallel
    #pragma omp parallel num_threads(2)
    {
      #pragma omp single
      {
        #pragma omp atomic
        nested += 1;
      }
    }
    #pragma omp masked
    stack += deep(40);
  }
  long want_stack = 0;
  for (int n = 40; n > 0; n--) want_stack += (char)n;
  want_stack += 0;
  int ok = loop == 499500 && tasks == 2016 && nested >= 1 && stack == want_stack &&
           omp_get_max_threads() >= 1 && omp_get_max_active_levels() >= 0;
  printf("probe %s %ld %ld %ld %ld\n", ok ? "ok" : "FAIL", loop, tasks, nested, stack);
  return ok ? 0 : 1;
}
