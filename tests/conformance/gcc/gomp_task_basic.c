/* task: every task runs once; firstprivate values are captured when the task
   is created, shared ones are seen by it; taskwait waits for the children;
   if(0) tasks run before the construct returns; final tasks make their
   descendants included (omp_in_final); mergeable tasks run; a
   large, over-aligned firstprivate block arrives intact and aligned;
   recursive task trees (fib) give the right answer. */
#include "check.h"

struct big {
  long v[40];
} __attribute__((aligned(64)));

static long fib(int n) {
  if (n < 2)
    return n;
  long a, b;
#pragma omp task shared(a) firstprivate(n)
  a = fib(n - 1);
#pragma omp task shared(b) firstprivate(n)
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

int main(void) {
  enum { N = 2000 };
  static int ran[N];
  int created_late = 0;
#pragma omp parallel num_threads(4)
  {
#pragma omp single
    {
      for (int i = 0; i < N; i++) {
        int captured = i;
#pragma omp task firstprivate(captured) shared(ran)
        __atomic_fetch_add(&ran[captured], 1, __ATOMIC_RELAXED);
      }
#pragma omp taskwait
      for (int i = 0; i < N; i++)
        CHECK(ran[i] == 1, "task %d ran %d times before the taskwait returned", i, ran[i]);

      /* if(0): undeferred, done when the construct returns. */
      int done = 0;
#pragma omp task if (0) shared(done)
      done = 1;
      CHECK(done == 1, "if(0) task had not run when the construct returned");

      /* final: descendants are included tasks and see omp_in_final(). */
      int in_final = -1, child_final = -1, child_done = 0;
#pragma omp task final(1) shared(in_final, child_final, child_done)
      {
        in_final = omp_in_final();
#pragma omp task shared(child_final, child_done)
        {
          child_final = omp_in_final();
          child_done = 1;
        }
        /* included: it has finished here, without a taskwait */
        if (!child_done)
          created_late = 1;
      }
#pragma omp taskwait
      CHECK(in_final == 1 && child_final == 1, "final task: omp_in_final %d, in its child %d", in_final,
            child_final);
      CHECK(!created_late, "a task created inside a final task was deferred");

      /* mergeable (untied tasks: task_untied.c) */
      int m = 0;
#pragma omp task mergeable shared(m)
      m = 1;
#pragma omp taskwait
      CHECK(m == 1, "mergeable task ran %d times", m);

      /* a firstprivate block larger than a cache line, 64-byte aligned */
      struct big b;
      for (int i = 0; i < 40; i++)
        b.v[i] = i * 3;
      int ok = 0;
#pragma omp task firstprivate(b) shared(ok)
      {
        int good = ((uintptr_t)&b % 64) == 0;
        for (int i = 0; i < 40; i++)
          good &= b.v[i] == i * 3;
        ok = good;
      }
      b.v[0] = -1; /* after creation: the task must not see it */
#pragma omp taskwait
      CHECK(ok == 1, "an aligned 320-byte firstprivate block arrived damaged or misaligned");
    }
  }

  long f = 0;
#pragma omp parallel num_threads(4)
#pragma omp single
  f = fib(22);
  CHECK_EQ("fib(22) with tasks", f, 17711);

  /* every thread creates tasks; the region's end waits for all of them */
  int total = 0;
#pragma omp parallel num_threads(4)
  for (int i = 0; i < 500; i++) {
#pragma omp task shared(total)
    __atomic_fetch_add(&total, 1, __ATOMIC_RELAXED);
  }
  CHECK_EQ("tasks of every thread done at the end of the region", total, 2000);

  /* tasks outside any parallel region run (on the initial thread) */
  int outside = 0;
#pragma omp task shared(outside)
  outside = 1;
#pragma omp taskwait
  CHECK_EQ("task outside a parallel region", outside, 1);
  return conf_end();
}
