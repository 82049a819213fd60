/* A data race between two tasks (both increment x unsynchronized; each
   waits, with relaxed atomics that order nothing, until both have started,
   so they run at the same time on two threads). Under Archer
   (OMP_TOOL_LIBRARIES=libarcher.so, a ThreadSanitizer build) the race must
   be reported. */
#include <stdio.h>
#include <unistd.h>
static int started;
static void meet(void) {
  __atomic_fetch_add(&started, 1, __ATOMIC_RELAXED);
  for (int i = 0; i < 2000 && __atomic_load_n(&started, __ATOMIC_RELAXED) < 2; i++) usleep(1000);
}
int main() {
  int x = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp task shared(x)
    { meet(); x++; }
#pragma omp task shared(x)
    { meet(); x++; }
  }
  printf("x=%d\n", x);
  return 0;
}
