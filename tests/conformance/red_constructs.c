/* reduction on each construct that takes it: parallel for under several
   schedules, for inside a parallel region (the original is updated at the
   loop's end, visible to all after its barrier), for nowait (visible after
   an explicit barrier), sections, parallel sections, parallel for simd, and
   two reduction loops on the same variable in one region. */
#include "check.h"

#define N 1000

int main(void) {
  long want = (long)N * (N - 1) / 2;
  long s1 = 0, s2 = 0, s3 = 0, s4 = 0;
#pragma omp parallel for reduction(+ : s1) num_threads(4) schedule(static)
  for (int i = 0; i < N; i++)
    s1 += i;
#pragma omp parallel for reduction(+ : s2) num_threads(5) schedule(dynamic, 7)
  for (int i = 0; i < N; i++)
    s2 += i;
#pragma omp parallel for reduction(+ : s3) num_threads(8) schedule(guided)
  for (int i = 0; i < N; i++)
    s3 += i;
#pragma omp parallel for simd reduction(+ : s4) num_threads(3)
  for (int i = 0; i < N; i++)
    s4 += i;
  CHECK_EQ("parallel for static", s1, want);
  CHECK_EQ("parallel for dynamic", s2, want);
  CHECK_EQ("parallel for guided", s3, want);
  CHECK_EQ("parallel for simd", s4, want);

  long inner = 0, nw = 0, twice = 0;
  int mx = -1, seen_bad = 0;
#pragma omp parallel num_threads(6)
  {
#pragma omp for reduction(+ : inner) reduction(max : mx)
    for (int i = 0; i < N; i++) {
      inner += i;
      mx = i > mx ? i : mx;
    }
    /* the loop's barrier has passed: every thread sees the result */
    if (inner != want || mx != N - 1)
      __atomic_fetch_add(&seen_bad, 1, __ATOMIC_RELAXED);
#pragma omp for reduction(+ : nw) nowait
    for (int i = 0; i < N; i++)
      nw += 2 * i;
#pragma omp barrier
    if (nw != 2 * want)
      __atomic_fetch_add(&seen_bad, 1, __ATOMIC_RELAXED);
#pragma omp barrier
#pragma omp for reduction(+ : twice)
    for (int i = 0; i < N; i++)
      twice += i;
#pragma omp for reduction(+ : twice) schedule(dynamic)
    for (int i = 0; i < N; i++)
      twice += i;
  }
  CHECK_EQ("for inside parallel", inner, want);
  CHECK_EQ("max inside parallel", mx, N - 1);
  CHECK_EQ("for nowait", nw, 2 * want);
  CHECK_EQ("threads that saw a reduction result too early", seen_bad, 0);
  CHECK_EQ("two loops reducing one variable", twice, 2 * want);

  int sec = 0, psec = 1;
#pragma omp parallel num_threads(3)
  {
#pragma omp sections reduction(+ : sec)
    {
#pragma omp section
      sec += 1;
#pragma omp section
      sec += 10;
#pragma omp section
      sec += 100;
#pragma omp section
      sec += 1000;
#pragma omp section
      sec += 10000;
    }
  }
  CHECK_EQ("sections reduction", sec, 11111);
#pragma omp parallel sections reduction(* : psec) num_threads(2)
  {
#pragma omp section
    psec *= 3;
#pragma omp section
    psec *= 5;
#pragma omp section
    psec *= 7;
  }
  CHECK_EQ("parallel sections reduction", psec, 105);

  /* The original's value joins the result, also on a team of one. */
  long base = 1000;
#pragma omp parallel for reduction(+ : base) num_threads(1)
  for (int i = 0; i < 10; i++)
    base += i;
  CHECK_EQ("reduction on a team of one", base, 1045);
  return conf_end();
}
