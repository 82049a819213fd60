/* Array reductions: reduction(+ : a[0:N]) over a whole array section,
   reduction(max : b[2:5]) over part of an array (elements outside the
   section are not touched), a whole array by name, a section of a pointer
   with a run-time length, and a histogram on 16 threads. */
#include "check.h"

#define N 64

int main(void) {
  long a[N] = {0};
  int b[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  double whole[5] = {1, 1, 1, 1, 1};
#pragma omp parallel num_threads(4) reduction(+ : a[0:N]) reduction(max : b[2:5]) \
    reduction(+ : whole)
  {
    int t = omp_get_thread_num();
    for (int i = 0; i < N; i++)
      a[i] += i + t;
    for (int i = 2; i < 7; i++)
      b[i] = b[i] > 10 * t + i ? b[i] : 10 * t + i;
    for (int i = 0; i < 5; i++)
      whole[i] += 0.5;
  }
  for (int i = 0; i < N; i++)
    CHECK(a[i] == 4L * i + 6, "a[%d] = %ld, want %ld", i, a[i], 4L * i + 6);
  for (int i = 0; i < 10; i++) {
    int want = (i >= 2 && i < 7) ? 30 + i : i;
    CHECK(b[i] == want, "b[%d] = %d, want %d", i, b[i], want);
  }
  for (int i = 0; i < 5; i++)
    CHECK(whole[i] == 3.0, "whole[%d] = %g, want 3", i, whole[i]);

  /* Pointer section with a run-time length, on a worksharing loop. */
  int n = 37;
  unsigned *hist = calloc((size_t)n, sizeof *hist);
#pragma omp parallel for num_threads(16) reduction(+ : hist[0:n]) schedule(dynamic, 13)
  for (int i = 0; i < 100000; i++)
    hist[(i * 7919) % n]++;
  unsigned serial[37] = {0};
  for (int i = 0; i < 100000; i++)
    serial[(i * 7919) % n]++;
  for (int i = 0; i < n; i++)
    CHECK(hist[i] == serial[i], "hist[%d] = %u, want %u", i, hist[i], serial[i]);
  free(hist);

  /* A 2-D section: rows 1..2 of a 4x3 matrix. */
  int m[4][3] = {{0}};
#pragma omp parallel num_threads(5) reduction(+ : m[1:2][0:3])
  {
    for (int r = 1; r < 3; r++)
      for (int c = 0; c < 3; c++)
        m[r][c] += r * 10 + c;
  }
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 3; c++) {
      int want = (r == 1 || r == 2) ? 5 * (r * 10 + c) : 0;
      CHECK(m[r][c] == want, "m[%d][%d] = %d, want %d", r, c, m[r][c], want);
    }
  return conf_end();
}
