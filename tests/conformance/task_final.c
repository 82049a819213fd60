/* final and mergeable: inside a task whose final clause is true
   omp_in_final() is 1, and every descendant is an included task (final
   too), so it runs on the encountering thread before its construct returns;
   final(false) and tasks outside any final task give omp_in_final() == 0;
   final(expr) is evaluated per task (a recursion that turns final at depth
   3); mergeable tasks, inside and outside final tasks, run once. */
#include "check.h"

static void recurse(int depth, int *count) {
  /* Tasks at depth >= 3 are final; everything under them is included. */
  CHECK(omp_in_final() == (depth > 3), "depth %d: omp_in_final() = %d, want %d", depth,
        omp_in_final(), depth > 3);
  __atomic_fetch_add(count, 1, __ATOMIC_RELAXED);
  if (depth == 6)
    return;
  for (int k = 0; k < 2; k++) {
    int done = 0, parent_final = omp_in_final(), me = omp_get_thread_num();
#pragma omp task final(depth >= 3) firstprivate(depth) shared(done, count)
    {
      recurse(depth + 1, count);
      if (parent_final)
        CHECK_EQ("included task: thread", omp_get_thread_num(), me);
      __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    }
    CHECK(!parent_final || __atomic_load_n(&done, __ATOMIC_ACQUIRE),
          "depth %d: a task created in a final task had not run when its construct returned", depth);
#pragma omp taskwait
  }
}

int main(void) {
  CHECK_EQ("omp_in_final() outside any task", omp_in_final(), 0);
  int count = 0;
#pragma omp parallel
  {
    CHECK_EQ("omp_in_final() in an implicit task", omp_in_final(), 0);
#pragma omp single
    recurse(1, &count);
  }
  /* Depth 1 (1) + 2 + 4 + 8 + 16 + 32 tasks down to depth 6. */
  CHECK_EQ("tasks run in the final recursion", count, 63);

  int in_final = -1, in_nonfinal = -1, merged_in_final = -1, merged = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp task final(1) shared(in_final, merged_in_final)
    {
      in_final = omp_in_final();
#pragma omp task mergeable shared(merged_in_final)
      merged_in_final = omp_in_final();
      CHECK(merged_in_final == 1, "mergeable task in a final task: not included (got %d)",
            merged_in_final);
    }
#pragma omp task final(0) shared(in_nonfinal)
    in_nonfinal = omp_in_final();
    for (int i = 0; i < 100; i++) {
#pragma omp task mergeable shared(merged)
      __atomic_fetch_add(&merged, 1, __ATOMIC_RELAXED);
    }
  }
  CHECK_EQ("omp_in_final() in final(1)", in_final, 1);
  CHECK_EQ("omp_in_final() in final(0)", in_nonfinal, 0);
  CHECK_EQ("omp_in_final() in a mergeable child of a final task", merged_in_final, 1);
  CHECK_EQ("mergeable tasks run", merged, 100);
  return conf_end();
}
