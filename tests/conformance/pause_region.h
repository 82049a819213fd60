/* What pause_resource.c and tests/stress/stress_pause.c repeat: a pause of
   round r's kind (soft on even rounds, hard on odd; omp_pause_resource_all
   on rounds 0 and 1 mod 4, omp_pause_resource for the host otherwise), and
   a region whose single makes 16 tasks and computes fib(10) by tasks while
   the team reduces its thread numbers. */
#ifndef PAUSE_REGION_H
#define PAUSE_REGION_H

#include <omp.h>

static long pause_fib(int n) {
  if (n < 2)
    return n;
  long a, b;
#pragma omp task shared(a)
  a = pause_fib(n - 1);
#pragma omp task shared(b)
  b = pause_fib(n - 2);
#pragma omp taskwait
  return a + b;
}

static omp_pause_resource_t pause_kind(long r) { return r % 2 ? omp_pause_hard : omp_pause_soft; }
static const char *pause_call(long r) { return r % 4 < 2 ? "omp_pause_resource_all" : "omp_pause_resource"; }

/* Pauses as round r says; returns what the call returned. */
static int pause_round(long r) {
  return r % 4 < 2 ? omp_pause_resource_all(pause_kind(r)) : omp_pause_resource(pause_kind(r), omp_get_initial_device());
}

typedef struct {
  int team, tasks; /* the team's size; tasks that ran (want 16) */
  long fib, sum;   /* fib(10) (want 55); sum of thread numbers + 1 */
} pause_region_t;

static pause_region_t pause_region(void) {
  pause_region_t out = {0, 0, 0, 0};
  long sum = 0;
#pragma omp parallel reduction(+ : sum)
  {
#pragma omp single
    {
      out.team = omp_get_num_threads();
      for (int k = 0; k < 16; k++) {
#pragma omp task shared(out)
        __atomic_fetch_add(&out.tasks, 1, __ATOMIC_RELAXED);
      }
      out.fib = pause_fib(10);
    }
    sum += omp_get_thread_num() + 1;
  }
  out.sum = sum;
  return out;
}

#endif
