/* Separate bubbles on separate subtrees: an outer team of T threads, each
 * opening a nested team of W for R rounds (check_bubbles.py reads where
 * each nested team's gang was reserved from the trace). Each member sums a
 * range and the team's sums are checked. usage: bubbles T W R */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int T = argc > 1 ? atoi(argv[1]) : 2, W = argc > 2 ? atoi(argv[2]) : 4, R = argc > 3 ? atoi(argv[3]) : 6;
  omp_set_max_active_levels(2);
  int bad = 0;
  for (int r = 0; r < R; r++) {
#pragma omp parallel num_threads(T) reduction(+ : bad)
    {
      long total = 0;
      int got = 0;
#pragma omp parallel num_threads(W) reduction(+ : total) shared(got)
      {
        long s = 0;
        for (long i = 0; i < 100000; i++)
          s += i % 7;
        total += s;
        if (omp_get_thread_num() == 0)
          got = omp_get_num_threads();
      }
      long one = 0;
      for (long i = 0; i < 100000; i++)
        one += i % 7;
      if (got != W || total != one * W)
        bad++;
    }
  }
  printf("bubbles: %d x %d, %d rounds: %s\n", T, W, R, bad ? "WRONG SUMS" : "ok");
  return bad != 0;
}
