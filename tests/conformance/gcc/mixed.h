/* Shared by mixed_main.c (gcc) and mixed_lib.c (clang). */
#ifndef MIXED_H
#define MIXED_H

#define MIXED_MAXT 16

struct mixed_view {
  long kernel_tid[MIXED_MAXT];  /* by OpenMP thread number */
  int team_size, level, ancestor;
  long task_sum;
};
struct mixed_identity {
  void *bobbin_version;
  void *omp_get_thread_num;
  int gtid;
};

void mixed_lib_region(int nthreads, struct mixed_view *v);
long mixed_lib_tasks(int n);
void mixed_lib_identity(struct mixed_identity *id);

#endif
