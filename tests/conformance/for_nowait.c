/* for nowait: two static loops with the same trip count and schedule give
   each thread the same iterations, so after `nowait` a thread may read what
   it wrote in the first loop without a barrier (spec: worksharing-loop
   construct, static schedule). A loop with nowait followed by an explicit
   barrier sees every write. */
#include "check.h"

#define N 1003

static double a[N], b[N], c[N];

int main(void) {
  for (int rep = 0; rep < 20; rep++) {
#pragma omp parallel num_threads(4)
    {
#pragma omp for schedule(static) nowait
      for (int i = 0; i < N; i++)
        a[i] = i + rep;
#pragma omp for schedule(static) nowait
      for (int i = 0; i < N; i++)
        b[i] = 2 * a[i];
#pragma omp for schedule(static, 5) nowait
      for (int i = 0; i < N; i++)
        c[i] = i;
#pragma omp for schedule(static, 5) nowait
      for (int i = 0; i < N; i++)
        c[i] = c[i] * 3;
#pragma omp barrier
#pragma omp for schedule(dynamic, 7) nowait
      for (int i = 0; i < N; i++)
        a[i] = b[N - 1 - i] + c[i];
    }
    for (int i = 0; i < N; i++) {
      double want_b = 2.0 * (i + rep);
      if (b[i] != want_b || c[i] != 3.0 * i || a[i] != 2.0 * (N - 1 - i + rep) + 3.0 * i) {
        CHECK(0, "rep %d index %d: a=%g b=%g c=%g", rep, i, a[i], b[i], c[i]);
        return conf_end();
      }
    }
  }
  return conf_end();
}
