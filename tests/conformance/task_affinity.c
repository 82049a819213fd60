/* affinity clause (OpenMP 5.0): accepted with a variable, an array section
   and an iterator; a hint only, so every task still runs once with its
   data, wherever it runs; together with depend and on tasks created by
   every thread. */
#include "check.h"

enum { N = 64, CHUNK = 256 };
static double data[N][CHUNK];
static int ran[N];

int main(void) {
  for (int b = 0; b < N; b++)
    for (int j = 0; j < CHUNK; j++)
      data[b][j] = b;
  int scalar = 3, x = 0, nthreads = 1;
#pragma omp parallel shared(nthreads)
  {
    if (omp_get_thread_num() == 0)
      nthreads = omp_get_num_threads(); /* at most N: ran[] has one slot per thread */
#pragma omp single
    {
      for (int b = 0; b < N; b++) {
#pragma omp task affinity(data[b][0:CHUNK]) firstprivate(b)
        {
          double s = 0;
          for (int j = 0; j < CHUNK; j++)
            s += data[b][j];
          CHECK(s == (double)b * CHUNK, "block %d: sum %g", b, s);
          __atomic_fetch_add(&ran[b], 1, __ATOMIC_RELAXED);
        }
      }
#pragma omp task affinity(scalar) shared(scalar)
      scalar += 1;
#pragma omp task affinity(iterator(i = 0 : 4) : data[i * 16]) depend(out : x) shared(x)
      x = 1;
#pragma omp task affinity(data[0][0]) depend(in : x) shared(x, scalar)
      CHECK(x == 1, "affinity with depend: reader ran before the writer (x = %d)", x);
    }
    int mine = omp_get_thread_num();
#pragma omp task affinity(mine) firstprivate(mine)
    __atomic_fetch_add(&ran[mine], 1, __ATOMIC_RELAXED);
  }
  CHECK_EQ("affinity(scalar) task ran", scalar, 4);
  for (int b = 0; b < N; b++)
    CHECK(ran[b] == 1 + (b < nthreads), "block %d: ran %d times", b, ran[b]);
  return conf_end();
}
