/* Tasks where there is only one thread: outside any parallel region, in
   parallel if(0), in a team of one (num_threads(1)), and in an inactive
   nested region (max-active-levels 1). Tasks run, firstprivate values are
   captured at creation, taskwait, taskgroup and the region's end wait for
   them, dependences keep their order, a task's descendants run, and
   omp_get_num_threads() is 1 inside them. */
#include "check.h"
#include "serial_contexts.h"

static void scenario(const char *where) {
  int done = 0, order[6], n = 0, x = 0, v = 10, child = 0;
  (void)x;
#pragma omp taskgroup
  {
#pragma omp task shared(done) firstprivate(v)
    {
      CHECK(v == 10, "%s: firstprivate %d, want the value at creation (10)", where, v);
      CHECK_EQ("omp_get_num_threads() in a task of a team of one", omp_get_num_threads(), 1);
#pragma omp task shared(done)
      __atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
      __atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
    }
    v = 11;
  }
  CHECK(done == 2, "%s: a task and its child: %d of 2 done at the taskgroup's end", where, done);
#pragma omp task shared(child)
  child = 1;
#pragma omp taskwait
  CHECK(child == 1, "%s: taskwait returned before its child ran", where);
#pragma omp taskgroup
  {
    for (int i = 0; i < 3; i++) {
#pragma omp task depend(inout : x) shared(order, n) firstprivate(i)
      order[n++] = i;
#pragma omp task depend(in : x) shared(order, n) firstprivate(i)
      order[n++] = 10 + i;
    }
  }
  CHECK_EQ("tasks run in the taskgroup", n, 6);
  for (int k = 0; k < 6; k++)
    CHECK(order[k] == (k % 2 ? 10 : 0) + k / 2, "%s: dependence order broken at %d (got %d)", where, k,
          order[k]);
}

int main(void) {
  conf_in_serial_contexts(scenario);
  /* tasks left to the end of a team of one */
  int left = 0;
#pragma omp parallel num_threads(1)
  for (int i = 0; i < 100; i++) {
#pragma omp task shared(left)
    __atomic_fetch_add(&left, 1, __ATOMIC_RELAXED);
  }
  CHECK_EQ("tasks done at the end of a team of one", left, 100);
  return conf_end();
}
