/* The ompc_* names libomp exports besides the omp_* ones (kmp_csupport.cpp),
 * called through dlsym as a program built against another omp.h would: each
 * does what its omp_* counterpart does. */
#include "check.h"

#define LOOKUP(type, name) ((type)(uintptr_t)dlsym(RTLD_DEFAULT, name))

int main(void) {
  void (*set_num_threads)(int) = LOOKUP(void (*)(int), "ompc_set_num_threads");
  void (*set_dynamic)(int) = LOOKUP(void (*)(int), "ompc_set_dynamic");
  void (*set_nested)(int) = LOOKUP(void (*)(int), "ompc_set_nested");
  void (*set_max_active_levels)(int) = LOOKUP(void (*)(int), "ompc_set_max_active_levels");
  void (*set_schedule)(omp_sched_t, int) = LOOKUP(void (*)(omp_sched_t, int), "ompc_set_schedule");
  int (*ancestor)(int) = LOOKUP(int (*)(int), "ompc_get_ancestor_thread_num");
  int (*team_size)(int) = LOOKUP(int (*)(int), "ompc_get_team_size");
  CHECK(set_num_threads && set_dynamic && set_nested && set_max_active_levels && set_schedule && ancestor && team_size,
        "an ompc_* name is not exported");
  if (!(set_num_threads && set_dynamic && set_nested && set_max_active_levels && set_schedule && ancestor && team_size))
    return conf_end();

  set_num_threads(3);
  CHECK_EQ("omp_get_max_threads() after ompc_set_num_threads(3)", omp_get_max_threads(), 3);
  set_dynamic(1);
  CHECK_EQ("omp_get_dynamic() after ompc_set_dynamic(1)", omp_get_dynamic(), 1);
  set_dynamic(0);
  set_max_active_levels(2);
  CHECK_EQ("omp_get_max_active_levels() after ompc_set_max_active_levels(2)", omp_get_max_active_levels(), 2);
  set_nested(0);
  CHECK_EQ("omp_get_max_active_levels() after ompc_set_nested(0)", omp_get_max_active_levels(), 1);
  set_max_active_levels(2);
  set_schedule(omp_sched_dynamic, 7);
  omp_sched_t kind;
  int chunk;
  omp_get_schedule(&kind, &chunk);
  CHECK(kind == omp_sched_dynamic && chunk == 7, "omp_get_schedule after ompc_set_schedule(dynamic, 7): %d, %d",
        (int)kind, chunk);

  int bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
  {
    int outer = omp_get_thread_num();
#pragma omp parallel num_threads(2) reduction(+ : bad)
    bad += ancestor(1) != outer || ancestor(2) != omp_get_thread_num() || ancestor(0) != 0 || ancestor(3) != -1 ||
           team_size(1) != 2 || team_size(2) != 2 || team_size(0) != 1 || team_size(3) != -1;
  }
  CHECK_EQ("ompc_get_ancestor_thread_num / ompc_get_team_size mismatches", bad, 0);
  return conf_end();
}
