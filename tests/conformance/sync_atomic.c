/* atomic update, read, write and capture on int, long and double (clang
   inlines most of them; seq_cst adds a flush), from 8 threads: counters are
   exact, captured values are distinct and cover the whole range. */
#include "check.h"

#define ITERS 5000
#define T 8

int main(void) {
  int i32 = 0;
  long i64 = 0;
  double dbl = 0.0;
  long prod = 1;
  int captured[T * 100];
  int mx = 0;
#pragma omp parallel num_threads(T)
  {
    int t = omp_get_thread_num();
    for (int i = 0; i < ITERS; i++) {
#pragma omp atomic
      i32 += 1;
#pragma omp atomic update
      i64 += 2;
#pragma omp atomic
      dbl += 0.5;
#pragma omp atomic seq_cst
      i32 -= 0;
    }
    for (int i = 0; i < 100; i++) {
      int v;
#pragma omp atomic capture
      v = mx++;
      captured[v] = t;
    }
    if (t < 4) {
#pragma omp atomic
      prod *= 3;
    }
  }
  CHECK_EQ("atomic int +=", i32, T * ITERS);
  CHECK_EQ("atomic long +=", i64, 2L * T * ITERS);
  CHECK(dbl == 0.5 * T * ITERS, "atomic double +=: %g, want %g", dbl, 0.5 * T * ITERS);
  CHECK_EQ("atomic long *=", prod, 81);
  CHECK_EQ("atomic capture final", mx, T * 100);
  int per[T] = {0};
  for (int i = 0; i < T * 100; i++)
    if (captured[i] >= 0 && captured[i] < T)
      per[captured[i]]++;
  for (int t = 0; t < T; t++)
    CHECK(per[t] == 100, "atomic capture: thread %d got %d distinct values, want 100", t, per[t]);

  /* read/write pairs: a reader never sees a torn or unwritten double/long. */
  double shared_d = 1.0;
  long shared_l = 1;
  int torn = 0;
#pragma omp parallel num_threads(4) reduction(+ : torn)
  {
    int t = omp_get_thread_num();
    for (int i = 0; i < ITERS; i++) {
      if (t % 2 == 0) {
        /* CONF_UNUSED: gcc 12 calls them set but not used (its atomic write reads them) */
        double d CONF_UNUSED = (i % 2) ? 1.0 : -1.0;
        long l CONF_UNUSED = (i % 2) ? 1L : -1L;
#pragma omp atomic write
        shared_d = d;
#pragma omp atomic write seq_cst
        shared_l = l;
      } else {
        double d;
        long l;
#pragma omp atomic read
        d = shared_d;
#pragma omp atomic read seq_cst
        l = shared_l;
        if ((d != 1.0 && d != -1.0) || (l != 1 && l != -1))
          torn++;
      }
    }
  }
  CHECK_EQ("atomic read saw a value nobody wrote", torn, 0);

  /* capture forms {v = x; x op= e;} then {x op= e; v = x;}: 4 threads see
     distinct old values 0,2,4,6, then distinct new values 7,6,5,4. */
  int x = 0, sum_before = 0, sum_after = 0;
#pragma omp parallel num_threads(4) reduction(+ : sum_before, sum_after)
  {
    int v;
#pragma omp atomic capture
    {
      v = x;
      x += 2;
    }
    sum_before += v;
#pragma omp barrier
#pragma omp atomic capture
    {
      x -= 1;
      v = x;
    }
    sum_after += v;
  }
  CHECK_EQ("atomic capture final x", x, 4);
  CHECK_EQ("sum of values captured before += 2", sum_before, 0 + 2 + 4 + 6);
  CHECK_EQ("sum of values captured after -= 1", sum_after, 7 + 6 + 5 + 4);
  return conf_end();
}
