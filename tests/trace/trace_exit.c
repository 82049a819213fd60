/* exit() from inside a parallel region with BOBBIN_TRACE set: thread 1
   calls exit(3) while thread 0 spins in user code; the trace must still be
   written whole (tests/trace/check_trace.py checks it). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int g_never;
static volatile double g_sink;

int main(void) {
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    for (int i = 0; i < 64; i++) {
#pragma omp task
      {
        double x = 0;
        for (int k = 0; k < 20000; k++) x += k * 0.5;
        g_sink = x;
      }
    }
    if (omp_get_thread_num() == 1) {
      printf("exiting\n");
      exit(3);
    }
    while (!g_never) {
    }
  }
  return 0;
}
