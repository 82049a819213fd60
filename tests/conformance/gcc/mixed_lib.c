/* The clang-built half of the mixed-process test (mixed_main.c): a shared
   library, linked to libomp.so.5, that opens parallel regions and creates
   tasks for a gcc-built program linked to libgomp.so.1. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mixed.h"

void mixed_lib_region(int nthreads, struct mixed_view *v) {
  long sum = 0;
#pragma omp parallel num_threads(nthreads) shared(sum)
  {
    int t = omp_get_thread_num();
    if (t < MIXED_MAXT)
      v->kernel_tid[t] = (long)syscall(SYS_gettid);
    if (t == 0) {
      v->team_size = omp_get_num_threads();
      v->level = omp_get_level();
      v->ancestor = omp_get_ancestor_thread_num(v->level - 1);
    }
#pragma omp single
    for (int i = 1; i <= 100; i++) {
#pragma omp task firstprivate(i) shared(sum)
      __atomic_fetch_add(&sum, i, __ATOMIC_RELAXED);
    }
  }
  v->task_sum = sum;
}

long mixed_lib_tasks(int n) {
  long sum = 0;
  for (int i = 1; i <= n; i++) {
#pragma omp task firstprivate(i) shared(sum)
    __atomic_fetch_add(&sum, i, __ATOMIC_RELAXED);
  }
#pragma omp taskwait
  return sum;
}

void mixed_lib_identity(struct mixed_identity *id) {
  id->bobbin_version = dlsym(RTLD_DEFAULT, "bobbin_version");
  id->omp_get_thread_num = (void *)(uintptr_t)&omp_get_thread_num;  /* through this library's GOT */
  id->gtid = omp_get_thread_num();
}
