/* A library that uses OpenMP, for fault_dlopen.c: a reduction, tasks with
   dependences, a nested region and thread-local data of its own. */
#include <omp.h>

static __thread long t_calls; /* dynamic TLS of a dlopen()ed library */
static int g_tp;
#pragma omp threadprivate(g_tp)

long plugin_work(int n) {
  omp_set_max_active_levels(2);
  long sum = 0;
#pragma omp parallel for reduction(+ : sum) num_threads(4)
  for (int i = 0; i < n; i++) {
    t_calls++;
    sum += i;
  }
  long chain = 0;
#pragma omp parallel num_threads(3)
#pragma omp single
  for (int i = 0; i < 20; i++) {
#pragma omp task depend(inout : chain)
    chain = chain * 3 + i;
  }
  int inner = 0;
#pragma omp parallel num_threads(2) reduction(+ : inner)
  {
    g_tp = omp_get_thread_num() + 1;
#pragma omp parallel num_threads(2) reduction(+ : inner)
    inner += 1;
    inner += g_tp == omp_get_thread_num() + 1 ? 0 : 1000;
  }
  return sum + chain % 1000003 + inner;
}
