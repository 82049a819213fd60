/* Task reductions by type and construct: taskgroup task_reduction with
   in_reduction tasks for int (+, max, &, ^, &&), double (+, * with exact
   powers of two), unsigned long long (|) and a user-defined reduction on a
   struct (combiner and initializer); taskloop reduction(...) for the same
   types; taskloop in_reduction inside a taskgroup; in_reduction tasks that
   create in_reduction tasks, also while the parent keeps adding; every
   thread reducing its own variables in its own taskgroup at once; a team
   of one. */
#include "check.h"

struct stats {
  long sum;
  int min, max, count;
};
static void stats_merge(struct stats *o, const struct stats *i) {
  o->sum += i->sum, o->count += i->count;
  o->min = i->min < o->min ? i->min : o->min;
  o->max = i->max > o->max ? i->max : o->max;
}
#pragma omp declare reduction(merge : struct stats : stats_merge(&omp_out, &omp_in)) \
    initializer(omp_priv = (struct stats){0, 1 << 30, -(1 << 30), 0})

enum { N = 300 };

static void tasks_in_group(const char *where) {
  int isum = 5, imax = -1, iand = ~0, ixor = 0, iland = 1;
  double dsum = 0.25, dprod = 1.0;
  unsigned long long bits = 0;
  struct stats st = {0, 1 << 30, -(1 << 30), 0};
#pragma omp taskgroup task_reduction(+ : isum, dsum) task_reduction(max : imax)                   \
    task_reduction(& : iand) task_reduction(^ : ixor) task_reduction(&& : iland)                 \
    task_reduction(* : dprod) task_reduction(| : bits) task_reduction(merge : st)
  for (int i = 0; i < N; i++) {
#pragma omp task in_reduction(+ : isum, dsum) in_reduction(max : imax) in_reduction(& : iand)     \
    in_reduction(^ : ixor) in_reduction(&& : iland) in_reduction(* : dprod) in_reduction(| : bits) \
    in_reduction(merge : st) firstprivate(i)
    {
      isum += i, dsum += i * 0.5, imax = i * 7 % N > imax ? i * 7 % N : imax;
      iand &= ~(1 << (i % 20)) | (i < 280 ? 0 : ~0), ixor ^= i, iland = iland && i >= 0;
      dprod *= i % 10 == 0 ? 2.0 : i % 10 == 5 ? 0.5 : 1.0;
      bits |= 1ULL << (i % 64);
      struct stats one = {i, i - 100, i + 100, 1};
      stats_merge(&st, &one);
    }
  }
  int want_xor = 0;
  for (int i = 0; i < N; i++)
    want_xor ^= i;
  CHECK(isum == 5 + N * (N - 1) / 2, "%s: int + = %d", where, isum);
  CHECK(dsum == 0.25 + 0.5 * N * (N - 1) / 2, "%s: double + = %g", where, dsum);
  CHECK(imax == N - 1, "%s: max = %d", where, imax);
  CHECK(iand == ~((1 << 20) - 1), "%s: & = %#x", where, iand);
  CHECK(ixor == want_xor && iland == 1, "%s: ^ = %d (want %d), && = %d", where, ixor, want_xor, iland);
  CHECK(dprod == 1.0, "%s: double * = %g, want 1", where, dprod); /* 30 doublings, 30 halvings */
  CHECK(bits == ~0ULL, "%s: | = %llx", where, bits);
  CHECK(st.sum == N * (N - 1) / 2 && st.min == -100 && st.max == N - 1 + 100 && st.count == N,
        "%s: user-defined merge = {%ld, %d, %d, %d}", where, st.sum, st.min, st.max, st.count);
}

static long fan(int depth) { /* in_reduction tasks creating in_reduction tasks */
  long total = 0;
#pragma omp taskgroup task_reduction(+ : total)
  {
#pragma omp task in_reduction(+ : total) firstprivate(depth)
    {
      total += 1;
      for (int k = 0; k < 3 && depth > 0; k++) {
#pragma omp task in_reduction(+ : total) firstprivate(depth)
        {
          total += 10;
          if (depth > 1) {
#pragma omp task in_reduction(+ : total)
            total += 100;
          }
        }
      }
    }
  }
  return total;
}

/* Nested in_reduction tasks that run while their parent keeps adding (the
   parent adds until its children are done, so other threads run them at
   the same time): a child is given the parent's view of the variable and
   must still add to a copy of its own thread's, not to the parent's copy
   (lost updates). Returns the total; *want gets what it must be. */
static long nested_concurrent(long *want) {
  long total = 0, parent_adds = 0;
  int parents = omp_get_num_threads() - 1; /* a thread stays free for the children */
#pragma omp taskgroup task_reduction(+ : total)
  for (int m = 0; m < parents; m++) {
#pragma omp task in_reduction(+ : total) shared(parent_adds)
    {
      int done = 0, looping = 0;
      int parent_thread = omp_get_thread_num();
      long mine = 0;
      for (int k = 0; k < 50; k++) {
#pragma omp task in_reduction(+ : total) shared(done, looping)
        {
          /* Start once the parent adds too (bounded); not on the parent's own
             thread: the parent is tied there, so it is suspended while this
             task runs (a runtime may run a task at once when it is created,
             as a tree scheduler with a small queue threshold does), and
             each such child would wait out its whole bound. */
          double w0 = omp_get_wtime();
          while (omp_get_thread_num() != parent_thread && !__atomic_load_n(&looping, __ATOMIC_ACQUIRE) &&
                 omp_get_wtime() - w0 < 5.0)
            ;
          for (volatile int j = 0; j < 20000; j++)
            total += 1;
          __atomic_fetch_add(&done, 1, __ATOMIC_RELEASE);
        }
      }
      double t0 = omp_get_wtime();
      __atomic_store_n(&looping, 1, __ATOMIC_RELEASE);
      while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < 50 && omp_get_wtime() - t0 < 5.0)
        total += 1, mine++;
#pragma omp taskwait
      __atomic_fetch_add(&parent_adds, mine, __ATOMIC_RELAXED);
    }
  }
  *want = parent_adds + parents * 50L * 20000;
  return total;
}

int main(void) {
#pragma omp parallel
  {
#pragma omp single
    {
      tasks_in_group("single");
      int tsum = 0;
      double tds = 0;
      struct stats ts = {0, 1 << 30, -(1 << 30), 0};
#pragma omp taskloop reduction(+ : tsum, tds) reduction(merge : ts) grainsize(7)
      for (int i = 0; i < N; i++) {
        tsum += i, tds += i * 0.25;
        struct stats one = {i, i, i, 1};
        stats_merge(&ts, &one);
      }
      CHECK(tsum == N * (N - 1) / 2 && tds == 0.25 * N * (N - 1) / 2, "taskloop reduction: %d, %g", tsum,
            tds);
      CHECK(ts.sum == N * (N - 1) / 2 && ts.min == 0 && ts.max == N - 1 && ts.count == N,
            "taskloop reduction(merge) = {%ld, %d, %d, %d}", ts.sum, ts.min, ts.max, ts.count);
      long isum = 0;
#pragma omp taskgroup task_reduction(+ : isum)
      {
#pragma omp taskloop in_reduction(+ : isum) num_tasks(9)
        for (int i = 0; i < N; i++)
          isum += i;
#pragma omp task in_reduction(+ : isum)
        isum += 1000;
      }
      CHECK_EQ("taskloop in_reduction + a task", isum, N * (N - 1) / 2 + 1000);
      CHECK_EQ("nested in_reduction tasks", fan(2), 1 + 3 * 10 + 3 * 100);
      long want_nested = 0, got_nested = nested_concurrent(&want_nested);
      CHECK_EQ("nested in_reduction tasks running beside their parent", got_nested, want_nested);
    }
    tasks_in_group("every thread");
  }
#pragma omp parallel num_threads(1)
  tasks_in_group("team of one");
  tasks_in_group("sequential part");
  return conf_end();
}
