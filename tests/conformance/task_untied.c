/* untied tasks: clang 14 splits an untied task's body at each task
   scheduling point and re-submits the same task (__kmpc_omp_task on the
   running task) to run the next part, possibly on another thread. Every
   part must run exactly once, in order; firstprivate and local variables
   carry over between parts; the task is complete (its taskwait, taskgroup,
   dependences and the barrier see it so) only after its last part; children
   created by an untied task are complete when its taskwait returns; untied
   tasks nest (a recursive fib) and take dependences. Undeferred untied
   tasks: task_untied_if0.c. */
#include "check.h"

enum { NTASKS = 100 };

static int parts[NTASKS][4]; /* executions of each part of each task */
static int kids[NTASKS];

static void spin_a_little(void) {
  for (volatile int i = 0; i < 3000; i++)
    ;
}

static long fib(int n) {
  if (n < 2)
    return n;
  long a = 0, b = 0;
#pragma omp task untied shared(a) firstprivate(n)
  a = fib(n - 1);
#pragma omp task untied shared(b) firstprivate(n)
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

int main(void) {
  int finished = 0, dep_seen = -1, x = 0;
  (void)x; /* named only by depend clauses */
#pragma omp parallel
#pragma omp single
  {
    for (int t = 0; t < NTASKS; t++) {
#pragma omp task untied firstprivate(t) shared(finished) depend(out : x)
      {
        int local = t;
        parts[t][0]++;
#pragma omp task firstprivate(t)
        {
          spin_a_little();
          __atomic_fetch_add(&kids[t], 1, __ATOMIC_RELAXED);
        }
        parts[t][1]++;
        local += 1000;
#pragma omp taskyield
        parts[t][2]++;
#pragma omp taskwait
        CHECK(__atomic_load_n(&kids[t], __ATOMIC_RELAXED) == 1,
              "untied task %d: its child had not run when its taskwait returned", t);
        CHECK(local == t + 1000, "untied task %d: local variable %d after two parts, want %d", t,
              local, t + 1000);
        parts[t][3]++;
        __atomic_fetch_add(&finished, 1, __ATOMIC_RELAXED);
      }
    }
#pragma omp task depend(in : x) shared(dep_seen, finished)
    dep_seen = __atomic_load_n(&finished, __ATOMIC_RELAXED);
  }
  for (int t = 0; t < NTASKS; t++)
    for (int p = 0; p < 4; p++)
      CHECK(parts[t][p] == 1, "untied task %d: part %d ran %d times", t, p, parts[t][p]);
  CHECK_EQ("untied writers complete before the reader after them", dep_seen, NTASKS);

  int done = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskgroup
    for (int t = 0; t < 50; t++) {
#pragma omp task untied shared(done)
      {
#pragma omp taskyield
        __atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
      }
    }
    CHECK_EQ("untied tasks done at the end of their taskgroup", done, 50);
    long f = 0;
#pragma omp task untied shared(f)
    f = fib(15);
#pragma omp taskwait
    CHECK_EQ("fib(15) with untied tasks", f, 610);
  }
  return conf_end();
}
