/* A kmpc task with a null routine is an empty task: what a compiler emits
   for 'taskwait depend(in: x) nowait' (LLVM's kmp_taskwait_nowait test
   emulates it) is __kmpc_omp_task_alloc(..., NULL) and
   __kmpc_omp_task_with_deps. The empty task waits for the out dependence on
   x like any task, runs nothing, and a later in/out task on x waits for it. */
#include "check.h"

typedef struct {
  void **shareds;
  void *routine;
  int part_id;
} kmp_task_head;
typedef struct {
  intptr_t addr;
  size_t len;
  unsigned char flags;
} kmp_dep;
typedef struct {
  int reserved_1, flags, reserved_2, reserved_3;
  const char *psource;
} kmp_ident;
extern int __kmpc_global_thread_num(kmp_ident *);
extern kmp_task_head *__kmpc_omp_task_alloc(kmp_ident *, int, int, size_t, size_t, void *);
extern int __kmpc_omp_task_with_deps(kmp_ident *, int, kmp_task_head *, int, kmp_dep *, int, kmp_dep *);

int main(void) {
  static kmp_ident loc = {0, 2, 0, 0, ";task_null_routine.c;main;1;1;;"};
  int x = 0, seen = -1;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    for (int round = 0; round < 50; round++) {
#pragma omp task depend(out : x) shared(x)
      x++;
      int gtid = __kmpc_global_thread_num(&loc);
      kmp_task_head *t = __kmpc_omp_task_alloc(&loc, gtid, 1, sizeof(kmp_task_head), 0, NULL);
      kmp_dep d = {(intptr_t)&x, sizeof x, 1 /* in */};
      __kmpc_omp_task_with_deps(&loc, gtid, t, 1, &d, 0, NULL);
    }
#pragma omp task depend(inout : x) shared(x, seen)
    seen = x;
  }
  CHECK_EQ("x seen by the task after 50 writers and 50 empty tasks", seen, 50);
  return conf_end();
}
