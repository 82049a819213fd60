/* Recursion 100000 levels deep, a task per level and a taskwait at each:
   the whole chain nests on one stack (tasks run as calls on the stack of
   the thread that executes them), so the program raises its own main stack
   limit and the test sets OMP_STACKSIZE for the other threads. Then a
   binary tree 18 levels deep (2^18 leaves) with taskwait at each node,
   and a chain of depth 50000 with a taskgroup at each level. */
#include "stress.h"

enum { DEPTH = 100000, TREE = 18, GROUP_DEPTH = 50000 };

static long chain(int depth) {
  long below = 0;
  if (depth == 0)
    return 0;
  if (depth % 1000 == 0)
    stress_progress(1000);
#pragma omp task shared(below) firstprivate(depth)
  below = chain(depth - 1);
#pragma omp taskwait
  return below + 1;
}

static long tree(int depth) {
  if (depth == 0)
    return 1;
  long a = 0, b = 0;
#pragma omp task shared(a) firstprivate(depth)
  a = tree(depth - 1);
#pragma omp task shared(b) firstprivate(depth)
  b = tree(depth - 1);
#pragma omp taskwait
  if (depth == 10)
    stress_progress(1 << 10);
  return a + b;
}

static long grouped(int depth) {
  long below = 0;
  if (depth == 0)
    return 0;
#pragma omp taskgroup
  {
#pragma omp task shared(below) firstprivate(depth)
    below = grouped(depth - 1);
  }
  return below + 1;
}

int main(int argc, char **argv) {
  (void)argc;
  stress_main_stack(argv, (rlim_t)512 << 20);
  stress_begin("stress_deep_recursion", 60);
  long got = 0;
  stress_phase("task chain 100000 deep, taskwait per level", DEPTH);
#pragma omp parallel
#pragma omp single
  got = chain(DEPTH);
  CHECK_EQ("chain depth", got, DEPTH);

  stress_phase("binary task tree, 2^18 leaves", 1L << TREE);
#pragma omp parallel
#pragma omp single
  got = tree(TREE);
  CHECK_EQ("tree leaves", got, 1L << TREE);

  stress_phase("task chain 50000 deep, taskgroup per level", GROUP_DEPTH);
#pragma omp parallel
#pragma omp single
  got = grouped(GROUP_DEPTH);
  CHECK_EQ("taskgroup chain depth", got, GROUP_DEPTH);
  return stress_end();
}
