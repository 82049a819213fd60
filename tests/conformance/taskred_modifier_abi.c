/* The older entry point of the task reduction modifier that libomp
   exports, __kmpc_task_reduction_modifier_init (items without the original
   variable, an initialiser of one argument; clang 14 emits
   __kmpc_taskred_modifier_init instead): called here directly, as a
   compiler would, around a parallel region's body (is_ws 0) and around a
   worksharing loop (is_ws 1). Each thread passes its own private variable;
   tasks find their copy with __kmpc_task_reduction_get_th_data; after fini
   the private variables hold the whole reduction between them. */
#include <stddef.h>

#include "check.h"

typedef struct {
  void *shar;
  size_t size;
  void *init, *fini, *comb;
  int flags;
} red_input_t; /* kmp_task_red_input_t */

void *__kmpc_task_reduction_modifier_init(void *loc, int gtid, int is_ws, int num, void *data);
void __kmpc_task_reduction_modifier_fini(void *loc, int gtid, int is_ws);
void *__kmpc_task_reduction_get_th_data(int gtid, void *tg, void *data);
int __kmpc_global_thread_num(void *loc);

static void init_long(void *p) { *(long *)p = 0; }
static void comb_long(void *lhs, void *rhs) { *(long *)lhs += *(long *)rhs; }

static long total;

static void body(int is_ws) {
  long mine = 0; /* this thread's private variable */
  int gtid = __kmpc_global_thread_num(NULL);
  red_input_t in = {&mine, sizeof mine, (void *)init_long, NULL, (void *)comb_long, 0};
  void *tg = __kmpc_task_reduction_modifier_init(NULL, gtid, is_ws, 1, &in);
  mine += 1;
#pragma omp for schedule(dynamic) nowait
  for (int i = 0; i < 64; i++) {
    long *shar = &mine;
#pragma omp task firstprivate(tg, shar, i)
    {
      long *c = __kmpc_task_reduction_get_th_data(__kmpc_global_thread_num(NULL), tg, shar);
      *c += i;
#pragma omp task firstprivate(tg, c) /* names its parent's copy */
      *(long *)__kmpc_task_reduction_get_th_data(__kmpc_global_thread_num(NULL), tg, c) += 1000;
    }
  }
  __kmpc_task_reduction_modifier_fini(NULL, gtid, is_ws);
  __atomic_fetch_add(&total, mine, __ATOMIC_RELAXED);
}

int main(void) {
  for (int is_ws = 0; is_ws < 2; is_ws++) {
    for (int rep = 0; rep < 3; rep++) {
      int nth = 0;
      total = 0;
#pragma omp parallel num_threads(4)
      {
#pragma omp single
        nth = omp_get_num_threads();
        body(is_ws);
      }
      CHECK(total == nth + 63 * 64 / 2 + 64 * 1000, "is_ws %d, round %d: %ld", is_ws, rep, total);
    }
  }
  return conf_end();
}
