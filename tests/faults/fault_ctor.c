// Links fault_ctor_lib (whose constructor uses OpenMP) and checks, from main,
// what the constructor saw and left behind; then uses the runtime as usual.
// Prints "ctor ok" and exits 0 when everything holds.
#include <omp.h>
#include <stdio.h>
#include <string.h>

extern int ctor_places, ctor_procs, ctor_max, ctor_team, ctor_sum, ctor_tasks, ctor_level_ok;
extern char ctor_affinity[128];
extern omp_lock_t ctor_lock;
extern void* ctor_block;
extern int ctor_tp;
#pragma omp threadprivate(ctor_tp)

static int failures;
static void check(int ok, const char* what) {
  if (!ok) {
    printf("FAIL: %s\n", what);
    ++failures;
  }
}

int main(void) {
  // faults.py runs this with OMP_NUM_THREADS=4.
  check(ctor_procs >= 1, "omp_get_num_procs in the constructor");
  check(ctor_places >= 0, "omp_get_num_places in the constructor");
  check(ctor_max == 4, "omp_get_max_threads in the constructor is OMP_NUM_THREADS");
  check(ctor_level_ok, "the constructor runs outside any region");
  check(ctor_team == 3 && ctor_sum == 6, "a region of omp_set_num_threads(3) in the constructor");
  check(ctor_tasks == 64, "64 tasks in the constructor");
  check(strcmp(ctor_affinity, "ctor 0") == 0,
        "omp_capture_affinity with the format set in the constructor");
  check(omp_get_max_threads() == 3, "omp_set_num_threads(3) from the constructor still holds in main");
  check(ctor_tp == 41, "the initial thread's threadprivate value set in the constructor");
  omp_set_lock(&ctor_lock);
  omp_unset_lock(&ctor_lock);
  check(ctor_block != NULL && ((unsigned char*)ctor_block)[255] == 0x5a, "the constructor's omp_alloc block");
  omp_free(ctor_block, omp_default_mem_alloc);

  char buf[128];
  omp_capture_affinity(buf, sizeof buf, NULL);
  check(strcmp(buf, "ctor 0") == 0, "the affinity format set in the constructor still holds in main");

  int sum = 0, team = 0;
#pragma omp parallel reduction(+ : sum)
  {
    omp_set_lock(&ctor_lock);
    sum += omp_get_thread_num() + 1;
    omp_unset_lock(&ctor_lock);
#pragma omp single
    team = omp_get_num_threads();
  }
  check(team == 3 && sum == 6, "a region in main");
  omp_set_num_threads(4);
  long total = 0;
#pragma omp parallel for reduction(+ : total)
  for (int i = 0; i < 100000; ++i) total += i;
  check(total == 4999950000L, "a parallel for in main");
  omp_destroy_lock(&ctor_lock);
  if (failures) return 1;
  printf("ctor ok: %d places, %d processors\n", ctor_places, ctor_procs);
  return 0;
}
