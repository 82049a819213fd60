/* How taskloop splits its iterations (spec 5.1, 2.12.2): num_tasks(n)
   creates min(n, trips) tasks; grainsize(g) gives every task at least
   min(g, trips) and fewer than 2g iterations; every task has at least one
   iteration and a contiguous block of them. A task is recognised by its own
   copy of a firstprivate tag. Without nogroup the construct waits for the
   tasks and all their descendants (implicit taskgroup); with nogroup a
   later taskwait or an enclosing taskgroup does. final, mergeable,
   priority, if and untied clauses on taskloop, and the combined forms
   (parallel master taskloop [reduction], master taskloop simd), leave the
   iterations intact. */
#include "check.h"

/* clang 14 warns about its own comparison of num_tasks with the trip count. */
#ifdef __clang__
#pragma clang diagnostic ignored "-Wsign-compare"
#endif

enum { MAXN = 3000 };
static int owner[MAXN];
static int ntasks;

static void check_split(const char *what, int trips, int want_tasks, int min_len, int max_len) {
  int count = __atomic_load_n(&ntasks, __ATOMIC_RELAXED);
  if (want_tasks)
    CHECK(count == want_tasks, "%s, %d iterations: %d tasks, want %d", what, trips, count, want_tasks);
  for (int t = 0; t < count; t++) {
    int first = -1, last = -1, len = 0;
    for (int i = 0; i < trips; i++)
      if (owner[i] == t) {
        if (first < 0)
          first = i;
        last = i, len++;
      }
    CHECK(len > 0, "%s, %d iterations: task %d ran no iteration", what, trips, t);
    CHECK(len == last - first + 1, "%s, %d iterations: task %d ran iterations %d..%d, not contiguous",
          what, trips, t, first, last);
    CHECK(len >= min_len && len <= max_len, "%s, %d iterations: a task ran %d, want %d..%d", what,
          trips, len, min_len, max_len);
  }
  for (int i = 0; i < trips; i++)
    CHECK(owner[i] >= 0, "%s, %d iterations: iteration %d did not run", what, trips, i);
}

#define SPLIT(CLAUSE, TRIPS)                                                   \
  do {                                                                         \
    int tag = -1;                                                              \
    ntasks = 0;                                                                \
    memset(owner, -1, sizeof owner);                                           \
    CONF_PRAGMA(omp taskloop CLAUSE firstprivate(tag))                         \
    for (long i = 0; i < (TRIPS); i++) {                                       \
      if (tag < 0)                                                             \
        tag = __atomic_fetch_add(&ntasks, 1, __ATOMIC_RELAXED);                \
      owner[i] = tag;                                                          \
    }                                                                          \
  } while (0)

static int min(int a, int b) { return a < b ? a : b; }

int main(void) {
  static const int trips[] = {1, 2, 7, 100, 1001, 2999};
#pragma omp parallel
#pragma omp single
  {
    for (unsigned k = 0; k < sizeof trips / sizeof trips[0]; k++) {
      int n = trips[k];
      SPLIT(num_tasks(1), n);
      check_split("num_tasks(1)", n, 1, n, n);
      SPLIT(num_tasks(13), n);
      check_split("num_tasks(13)", n, min(13, n), 1, n);
      SPLIT(num_tasks(5000), n);
      check_split("num_tasks(5000)", n, n, 1, 1);
      SPLIT(grainsize(1), n);
      check_split("grainsize(1)", n, 0, 1, 1);
      SPLIT(grainsize(10), n);
      check_split("grainsize(10)", n, 0, min(10, n), 19);
      SPLIT(grainsize(4000), n);
      check_split("grainsize(4000)", n, 1, n, n);
      SPLIT(, n);
      check_split("default split", n, 0, 1, n);
    }

    /* the implicit taskgroup waits for descendants of the loop's tasks */
    int grandchildren = 0;
#pragma omp taskloop grainsize(10) shared(grandchildren)
    for (int i = 0; i < 200; i++) {
#pragma omp task shared(grandchildren)
      {
        for (volatile int j = 0; j < 2000; j++)
          ;
        __atomic_fetch_add(&grandchildren, 1, __ATOMIC_RELAXED);
      }
    }
    CHECK_EQ("grandchildren done when taskloop returned", grandchildren, 200);

    /* nogroup: a taskwait (the loop's tasks are children) or a taskgroup */
    int done = 0;
#pragma omp taskloop nogroup grainsize(5) shared(done)
    for (int i = 0; i < 100; i++)
      __atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
#pragma omp taskwait
    CHECK_EQ("nogroup iterations done after taskwait", done, 100);
    done = 0;
#pragma omp taskgroup
    {
#pragma omp taskloop nogroup num_tasks(7) shared(done)
      for (int i = 0; i < 100; i++)
        __atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
    }
    CHECK_EQ("nogroup iterations done after the enclosing taskgroup", done, 100);

    /* other clauses */
    int in_final = 0, runs = 0;
#pragma omp taskloop final(1) grainsize(8) shared(in_final)
    for (int i = 0; i < 64; i++)
      __atomic_fetch_add(&in_final, omp_in_final(), __ATOMIC_RELAXED);
    CHECK_EQ("iterations of taskloop final(1) that saw omp_in_final()", in_final, 64);
#pragma omp taskloop mergeable priority(3) num_tasks(4) shared(runs)
    for (int i = 0; i < 64; i++)
      __atomic_fetch_add(&runs, 1, __ATOMIC_RELAXED);
    int zero = 0;
#pragma omp taskloop if(zero) grainsize(8) shared(runs)
    for (int i = 0; i < 64; i++)
      __atomic_fetch_add(&runs, 1, __ATOMIC_RELAXED);
    CHECK_EQ("iterations with mergeable/priority and if(0)", runs, 128);
    runs = 0;
#pragma omp taskloop untied grainsize(4) shared(runs)
    for (int i = 0; i < 64; i++) {
#pragma omp taskyield
      __atomic_fetch_add(&runs, 1, __ATOMIC_RELAXED);
    }
    CHECK_EQ("iterations of an untied taskloop with taskyield", runs, 64);
  }

  /* combined constructs (the same entry points, reached differently) */
  int runs = 0, sum = 0;
#pragma omp parallel master taskloop num_tasks(6) shared(runs)
  for (int i = 0; i < 90; i++)
    __atomic_fetch_add(&runs, 1, __ATOMIC_RELAXED);
#pragma omp parallel
#pragma omp master taskloop simd grainsize(16) shared(runs)
  for (int i = 0; i < 90; i++)
    __atomic_fetch_add(&runs, 1, __ATOMIC_RELAXED);
#pragma omp parallel master taskloop reduction(+ : sum) grainsize(5)
  for (int i = 0; i < 90; i++)
    sum += i;
  CHECK_EQ("iterations of parallel master taskloop and master taskloop simd", runs, 180);
  CHECK_EQ("parallel master taskloop reduction", sum, 89 * 90 / 2);
  return conf_end();
}
