/* Regions under resource limits set by the caller (tests/faults/faults.py):
   an address-space limit too small for every thread's stack, or a process
   limit that stops new kernel threads. The program must either run every
   region correctly (a smaller team is the spec's answer when threads
   cannot be had) or stop with a message, never crash silently or hang.
   argv[1]: the team size to ask for. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8;
  omp_set_max_active_levels(2);
  long sum = 0;
  int team = 0;
#pragma omp parallel num_threads(n) reduction(+ : sum)
  {
#pragma omp single
    team = omp_get_num_threads();
#pragma omp for
    for (int i = 0; i < 1000; i++) sum += i;
  }
  if (sum != 499500) {
    printf("FAIL sum %ld\n", sum);
    return 1;
  }
  long tasks = 0;
#pragma omp parallel num_threads(n)
#pragma omp single
  for (int i = 0; i < 100; i++) {
#pragma omp task
    {
#pragma omp atomic
      tasks++;
    }
  }
  int inner = 0;
#pragma omp parallel num_threads(2) reduction(+ : inner)
#pragma omp parallel num_threads(n / 2) reduction(+ : inner)
  inner++;
  if (tasks != 100 || inner < 2) {
    printf("FAIL tasks %ld inner %d\n", tasks, inner);
    return 1;
  }
  printf("limits ok: team of %d (asked %d), nested %d\n", team, n, inner);
  return 0;
}
