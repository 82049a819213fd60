/* Data-sharing clauses on parallel: private copies are distinct and leave
   the original alone; firstprivate copies start with the original's value;
   shared variables are one object; default(none) with explicit lists. */
#include "check.h"

#define N 6

int main(void) {
  int priv = 11, first = 22, shared_sum = 0;
  int *addr[N] = {0};
  int first_seen[N];
  int arr[4] = {1, 2, 3, 4};
#pragma omp parallel num_threads(N) default(none) private(priv) firstprivate(first, arr) \
    shared(shared_sum, addr, first_seen)
  {
    int t = omp_get_thread_num();
    priv = t * 100;
    first_seen[t] = first + arr[0] + arr[3];
    first += t;      /* the thread's copy only */
    arr[0] = -1;     /* a firstprivate array is copied element-wise */
    addr[t] = &priv;
#pragma omp atomic
    shared_sum += t + 1;
#pragma omp barrier
    CHECK_EQ("private copy after a barrier", priv, t * 100);
    CHECK_EQ("firstprivate copy after a barrier", first, 22 + t);
  }
  CHECK_EQ("private original after the region", priv, 11);
  CHECK_EQ("firstprivate original after the region", first, 22);
  CHECK_EQ("firstprivate array original", arr[0], 1);
  CHECK_EQ("shared sum", shared_sum, N * (N + 1) / 2);
  for (int t = 0; t < N; t++) {
    CHECK_EQ("firstprivate initial value", first_seen[t], 22 + 1 + 4);
    for (int u = 0; u < t; u++)
      CHECK(addr[t] != addr[u], "threads %d and %d share one private copy", t, u);
  }
  return conf_end();
}
