/* single copyprivate broadcasts the single thread's private values to every
   thread: a scalar, a struct, an array and a pointer, many times in a row. */
#include "check.h"

struct blob {
  int id;
  double v[4];
  char name[16];
};

int main(void) {
  int bad = 0;
#pragma omp parallel num_threads(5)
  {
    for (int r = 0; r < 100; r++) {
      int x;
      struct blob b;
      long arr[3];
      int *p;
#pragma omp single copyprivate(x, b, arr, p)
      {
        x = 1000 + r;
        b.id = r;
        for (int i = 0; i < 4; i++)
          b.v[i] = r + i * 0.25;
        snprintf(b.name, sizeof b.name, "blob%d", r);
        arr[0] = r;
        arr[1] = -r;
        arr[2] = omp_get_thread_num();
        static int target;
        target = r;
        p = &target;
      }
      char want_name[16];
      snprintf(want_name, sizeof want_name, "blob%d", r);
      if (x != 1000 + r || b.id != r || b.v[3] != r + 0.75 || strcmp(b.name, want_name) ||
          arr[0] != r || arr[1] != -r || arr[2] < 0 || arr[2] >= 5 || *p != r)
        __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
#pragma omp barrier
    }
  }
  CHECK_EQ("threads that saw a wrong copyprivate value", bad, 0);
  return conf_end();
}
