/* Task reductions in the forms only gcc's entry points carry: the task
   modifier on parallel (GOMP_parallel_reductions), on a worksharing loop
   (GOMP_loop_start with reductions), on sections (GOMP_sections2_start) and
   on scope (GOMP_scope_start, OpenMP 5.1), each with in_reduction tasks
   created inside; a multiplicative one, whose private copies the compiler
   must initialise itself; inscan reductions with scan (GOMP_loop_start's
   team-shared scratch block); taskloop reduction with grainsize(strict:)
   (OpenMP 5.1). */
#include "check.h"

int main(void) {
  int n = (int)conf_env_long("CONF_N", 1000);

  long psum = 0;
#pragma omp parallel num_threads(4) reduction(task, + : psum)
  {
    psum += 1; /* the thread's own contribution */
#pragma omp task in_reduction(+ : psum)
    psum += 100;
  }
  CHECK_EQ("parallel reduction(task, +)", psum, 4 * 101);

  long lsum = 0;
  double lprod = 1.0;
#pragma omp parallel num_threads(4)
  {
#pragma omp for schedule(dynamic) reduction(task, + : lsum) reduction(task, * : lprod)
    for (int i = 0; i < n; i++) {
      lsum += i;
      if (i % 100 == 0) {
#pragma omp task in_reduction(+ : lsum) in_reduction(* : lprod)
        {
          lsum += 1;
          lprod *= 2.0;
        }
      }
    }
  }
  CHECK_EQ("for reduction(task, +) with in_reduction tasks", lsum, (long)n * (n - 1) / 2 + (n + 99) / 100);
  CHECK(lprod == (double)(1L << ((n + 99) / 100)), "for reduction(task, *): %g", lprod);

  int ssum = 0;
#pragma omp parallel num_threads(3)
  {
#pragma omp sections reduction(task, + : ssum)
    {
#pragma omp section
      {
#pragma omp task in_reduction(+ : ssum)
        ssum += 5;
      }
#pragma omp section
      ssum += 7;
#pragma omp section
      {
#pragma omp task in_reduction(+ : ssum)
        ssum += 11;
      }
    }
  }
  CHECK_EQ("sections reduction(task, +)", ssum, 23);

  int scope_sum = 0;
#pragma omp parallel num_threads(4)
  {
#pragma omp scope reduction(task, + : scope_sum)
    {
#pragma omp task in_reduction(+ : scope_sum)
      scope_sum += 2;
      scope_sum += 1;
    }
  }
  CHECK_EQ("scope reduction(task, +)", scope_sum, 4 * 3);

  /* inclusive and exclusive scans */
  enum { M = 777 };
  static long a[M], inc[M], exc[M];
  for (int i = 0; i < M; i++)
    a[i] = i % 13 + 1;
  long run = 0;
#pragma omp parallel for num_threads(4) reduction(inscan, + : run)
  for (int i = 0; i < M; i++) {
    run += a[i];
#pragma omp scan inclusive(run)
    inc[i] = run;
  }
  long run2 = 0;
#pragma omp parallel for num_threads(3) reduction(inscan, + : run2)
  for (int i = 0; i < M; i++) {
    exc[i] = run2;
#pragma omp scan exclusive(run2)
    run2 += a[i];
  }
  long want = 0;
  for (int i = 0; i < M; i++) {
    if (exc[i] != want) {
      CHECK(0, "exclusive scan: element %d is %ld, want %ld", i, exc[i], want);
      break;
    }
    want += a[i];
    if (inc[i] != want) {
      CHECK(0, "inclusive scan: element %d is %ld, want %ld", i, inc[i], want);
      break;
    }
  }
  CHECK(run == want && run2 == want, "scan totals %ld %ld, want %ld", run, run2, want);

  /* taskloop reduction, strict grainsize (chunks of exactly 4 but the last) */
  long tsum = 0;
  int chunks = 0;
#pragma omp parallel num_threads(4)
#pragma omp single
#pragma omp taskloop reduction(+ : tsum) grainsize(strict : 4) shared(chunks)
  for (int i = 0; i < 101; i++) {
    tsum += i;
    if (i % 4 == 0)
      __atomic_fetch_add(&chunks, 1, __ATOMIC_RELAXED);
  }
  CHECK_EQ("taskloop reduction(+), grainsize(strict: 4)", tsum, 101 * 100 / 2);
  CHECK_EQ("iterations starting a chunk of 4", chunks, 26);

  /* an empty taskloop with a reduction registers nothing */
  long empty = 5;
#pragma omp parallel num_threads(2)
#pragma omp single
#pragma omp taskloop reduction(+ : empty)
  for (int i = 0; i < n - n; i++)
    empty += i;
  CHECK_EQ("empty taskloop reduction", empty, 5);
  return conf_end();
}
