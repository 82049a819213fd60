/* taskloop: every iteration runs once under the default, grainsize and
   num_tasks splits, for signed and unsigned (64-bit) variables, counting up
   and down with a stride; lastprivate gets the last iteration's value;
   firstprivate copies reach every task; collapse(2); nogroup leaves the
   tasks to a later taskwait; if(0) runs the loop before the construct
   returns; reduction(+) on the taskloop and in_reduction inside a taskgroup. */
#include "check.h"

enum { N = 1000 };
static int hit[N];

static void reset(void) { memset(hit, 0, sizeof hit); }
static void once(const char *what) {
  for (int i = 0; i < N; i++)
    if (hit[i] != 1) {
      CHECK(0, "%s: iteration %d ran %d times", what, i, hit[i]);
      return;
    }
}

int main(void) {
#pragma omp parallel num_threads(4)
#pragma omp single
  {
    reset();
#pragma omp taskloop
    for (int i = 0; i < N; i++)
      __atomic_fetch_add(&hit[i], 1, __ATOMIC_RELAXED);
    once("default taskloop");

    reset();
#pragma omp taskloop grainsize(7)
    for (long i = N - 1; i >= 0; i -= 1)
      __atomic_fetch_add(&hit[i], 1, __ATOMIC_RELAXED);
    once("grainsize(7), counting down");

    reset();
#pragma omp taskloop num_tasks(5)
    for (unsigned long long i = 0; i < N; i += 1)
      __atomic_fetch_add(&hit[i], 1, __ATOMIC_RELAXED);
    once("num_tasks(5), unsigned long long");

    reset();
    unsigned long long big = 1ULL << 63; /* beyond the signed range */
#pragma omp taskloop grainsize(10)
    for (unsigned long long i = big; i < big + 2 * N; i += 2)
      __atomic_fetch_add(&hit[(i - big) / 2], 1, __ATOMIC_RELAXED);
    once("unsigned long long above 2^63, stride 2");

    int last = -1;
#pragma omp taskloop lastprivate(last) num_tasks(9)
    for (int i = 3; i < 3 + 5 * 77; i += 5)
      last = i;
    CHECK_EQ("lastprivate of a taskloop", last, 3 + 5 * 76);

    int base = 100, bad = 0;
#pragma omp taskloop firstprivate(base) shared(bad)
    for (int i = 0; i < 64; i++)
      if (base != 100)
        __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
    CHECK(!bad, "a firstprivate variable of a taskloop arrived changed");

    reset();
#pragma omp taskloop collapse(2)
    for (int i = 0; i < 40; i++)
      for (int j = 0; j < 25; j++)
        __atomic_fetch_add(&hit[i * 25 + j], 1, __ATOMIC_RELAXED);
    once("collapse(2)");

    reset();
#pragma omp taskloop nogroup
    for (int i = 0; i < N; i++)
      __atomic_fetch_add(&hit[i], 1, __ATOMIC_RELAXED);
#pragma omp taskwait
    once("nogroup, then taskwait");

    reset();
#pragma omp taskloop if (0)
    for (int i = 0; i < N; i++)
      hit[i]++;
    once("if(0) taskloop, no wait");

    long sum = 0;
#pragma omp taskloop reduction(+ : sum)
    for (int i = 0; i < N; i++)
      sum += i;
    CHECK_EQ("taskloop reduction(+)", sum, (long)N * (N - 1) / 2);

    long tsum = 0;
#pragma omp taskgroup task_reduction(+ : tsum)
    {
#pragma omp taskloop in_reduction(+ : tsum) nogroup
      for (int i = 0; i < N; i++)
        tsum += 2 * i;
    }
    CHECK_EQ("taskloop in_reduction inside a taskgroup", tsum, (long)N * (N - 1));
  }
  return conf_end();
}
