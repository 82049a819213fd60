/* task reductions: taskgroup task_reduction with tasks in_reduction, for
   several variables and operators (+ on long, * on double, max on int, an
   array section); nested taskgroups each reducing their own variable; tasks
   created by every thread of a team; tasks nested inside in_reduction
   tasks. */
#include "check.h"

int main(void) {
  long sum = 0;
  double prod = 1.0;
  int mx = -1;
  long arr[4] = {0, 0, 0, 0};
#pragma omp parallel num_threads(4)
#pragma omp single
  {
#pragma omp taskgroup task_reduction(+ : sum) task_reduction(* : prod) task_reduction(max : mx) \
    task_reduction(+ : arr[0:4])
    {
      for (int i = 1; i <= 100; i++) {
#pragma omp task in_reduction(+ : sum) in_reduction(* : prod) in_reduction(max : mx) in_reduction(+ : arr[0:4])
        {
          sum += i;
          if (i <= 10)
            prod *= 2.0;
          if (i > mx)
            mx = i;
          arr[i % 4] += 1;
        }
      }
    }
  }
  CHECK_EQ("task_reduction(+) of 1..100", sum, 5050);
  CHECK(prod == 1024.0, "task_reduction(*): %g, want 1024", prod);
  CHECK_EQ("task_reduction(max)", mx, 100);
  CHECK(arr[0] == 25 && arr[1] == 25 && arr[2] == 25 && arr[3] == 25, "task_reduction(+: arr[0:4]): %ld %ld %ld %ld",
        arr[0], arr[1], arr[2], arr[3]);

  /* nested taskgroups, each with its own variable; tasks nested in tasks */
  long outer = 0, inner = 0;
#pragma omp parallel num_threads(4)
#pragma omp single
#pragma omp taskgroup task_reduction(+ : outer)
  {
    for (int i = 0; i < 10; i++) {
#pragma omp task in_reduction(+ : outer)
      {
        outer += 1;
#pragma omp task in_reduction(+ : outer)
        outer += 10;
      }
    }
#pragma omp taskgroup task_reduction(+ : inner)
    {
      for (int i = 0; i < 10; i++) {
#pragma omp task in_reduction(+ : inner) in_reduction(+ : outer)
        {
          inner += 2;
          outer += 100;
        }
      }
    }
    CHECK_EQ("inner taskgroup's reduction at its end", inner, 20);
  }
  CHECK_EQ("outer reduction with nested tasks and an inner taskgroup", outer, 10 + 100 + 1000);

  /* every thread of the team creates in_reduction tasks */
  long all = 0;
#pragma omp parallel num_threads(4)
  {
#pragma omp single
    {
#pragma omp taskgroup task_reduction(+ : all)
      {
        for (int i = 0; i < 200; i++) {
#pragma omp task in_reduction(+ : all)
          all += 1;
        }
      }
    }
  }
  CHECK_EQ("200 in_reduction tasks", all, 200);
  return conf_end();
}
