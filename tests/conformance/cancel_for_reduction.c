// LIBOMP14-DEFECT: after a cancelled schedule(dynamic) loop, libomp 14's dispatcher stops on an assertion (kmp_dispatch.cpp: pr->steal_flag == THIEF)
/* cancel for in a loop with a reduction clause (dynamic schedule). After the
   cancel the threads leave the loop through its cancel exit or its normal
   exit, and clang's code meets different synchronisation on the two (the
   reduction on the normal one): every thread must still get out, the loop
   ending for all of them at a cancellation point. The reduction's value is
   unspecified after a cancel; only the search's answer is checked, and a
   second loop in the same region runs whole. Repeated on 2 and 4 threads,
   since which exit a thread takes is a race. (Run with cancellation on
   only: libomp's failure above would make a run with it off an unexpected
   pass there.) */
#include "cancel.h"

#define N 200000
#define HIT 150001

int main(void) {
  int on = cancel_expected();
  static int data[N];
  for (int i = 0; i < N; i++) data[i] = i == HIT ? -1 : i;
  for (int rep = 0; rep < 20; rep++) {
    for (int threads = 2; threads <= 4; threads += 2) {
      int found = -1;
      long visited = 0, whole = 0;
#pragma omp parallel num_threads(threads)
      {
#pragma omp for schedule(dynamic, 100) reduction(+ : visited)
        for (int i = 0; i < N; i++) {
          visited++;
          if (data[i] < 0) {
#pragma omp atomic write
            found = i;
#pragma omp cancel for
          }
#pragma omp cancellation point for
        }
#pragma omp for reduction(+ : whole)
        for (int i = 0; i < 1000; i++) whole += i;
      }
      CHECK(found == HIT, "rep %d, %d threads: the search found %d, want %d", rep, threads, found, HIT);
      CHECK(whole == 499500, "rep %d, %d threads: the loop after the cancelled one gave %ld", rep, threads, whole);
      if (!on) CHECK(visited == N, "cancellation off: %ld of %d iterations ran", visited, N);
    }
  }
  return conf_end();
}
