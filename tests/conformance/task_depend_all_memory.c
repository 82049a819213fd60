/* depend(omp_all_memory), OpenMP 5.1, as clang 15 and later emit it: a
   dependence whose flags carry libomp's all-memory bit (0x80), or (older
   codegen) the address SIZE_MAX with an out kind. The task is a writer of
   every location: it runs after every earlier sibling task with a
   dependence, whatever their addresses, and every later sibling with a
   dependence runs after it. Built here by hand through the task entry
   points (clang 14 has no syntax for it), beside tasks from pragmas:
     A out(a), B out(b), C in(a)  ->  M all-memory  ->  D in(d), E out(a)
   then N (SIZE_MAX form) after D and E, and F inout(f) after N.
   Each task records the order it ran in; A and B sleep so that a missing
   edge shows. 20 rounds. */
#include <unistd.h>

#include "check.h"

typedef struct {
  void *shareds;
  int (*routine)(int, void *);
  int part_id;
  void *data1, *data2;
} kmp_task_t;
typedef struct {
  intptr_t base_addr;
  size_t len;
  unsigned char flags;
} kmp_depend_info_t;
typedef struct {
  int reserved_1, flags, reserved_2, reserved_3;
  const char *psource;
} ident_t;
extern kmp_task_t *__kmpc_omp_task_alloc(ident_t *, int, int, size_t, size_t, int (*)(int, void *));
extern int __kmpc_omp_task_with_deps(ident_t *, int, kmp_task_t *, int, kmp_depend_info_t *, int,
                                     kmp_depend_info_t *);
extern int __kmpc_global_thread_num(ident_t *);

static ident_t loc = {0, 2, 0, 0, ";all_memory;main;0;0;;"};
static int a, b, d, f;
static int g_seq;
static int order[8]; /* A B C M D E N F */
enum { A, B, C, M, D, E, N, F };

static void mark(int who) { order[who] = __atomic_add_fetch(&g_seq, 1, __ATOMIC_SEQ_CST); }

static int run_m(int gtid, void *task) {
  (void)gtid;
  (void)task;
  mark(M);
  return 0;
}
static int run_n(int gtid, void *task) {
  (void)gtid;
  (void)task;
  mark(N);
  return 0;
}

static void all_memory_task(int (*fn)(int, void *), int old_form) {
  int gtid = __kmpc_global_thread_num(&loc);
  kmp_task_t *t = __kmpc_omp_task_alloc(&loc, gtid, 1, sizeof(kmp_task_t), 0, fn);
  kmp_depend_info_t dep = {old_form ? (intptr_t)-1 : 0, 0, (unsigned char)(old_form ? 3 : 0x80)};
  __kmpc_omp_task_with_deps(&loc, gtid, t, 1, &dep, 0, NULL);
}

int main(void) {
  for (int round = 0; round < 20 && !conf_has_failed(); round++) {
    g_seq = 0;
    memset(order, 0, sizeof order);
#pragma omp parallel num_threads(4)
#pragma omp single
    {
#pragma omp task depend(out : a)
      {
        usleep(2000);
        mark(A);
      }
#pragma omp task depend(out : b)
      {
        usleep(2000);
        mark(B);
      }
#pragma omp task depend(in : a)
      mark(C);
      all_memory_task(run_m, 0);
#pragma omp task depend(in : d)
      mark(D);
#pragma omp task depend(out : a)
      mark(E);
      all_memory_task(run_n, 1);
#pragma omp task depend(inout : f)
      mark(F);
#pragma omp taskwait
    }
    for (int i = 0; i < 8; i++) CHECK(order[i] > 0, "round %d: task %d did not run", round, i);
    CHECK(order[M] > order[A] && order[M] > order[B] && order[M] > order[C],
          "round %d: the all-memory task ran at %d, before A %d, B %d or C %d", round, order[M], order[A], order[B],
          order[C]);
    CHECK(order[D] > order[M] && order[E] > order[M], "round %d: D %d or E %d ran before the all-memory task %d", round,
          order[D], order[E], order[M]);
    CHECK(order[N] > order[D] && order[N] > order[E], "round %d: the second all-memory task %d ran before D %d or E %d",
          round, order[N], order[D], order[E]);
    CHECK(order[F] > order[N], "round %d: F %d ran before the second all-memory task %d", round, order[F], order[N]);
  }
  return conf_end();
}
