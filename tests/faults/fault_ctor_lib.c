// A library that uses OpenMP from its constructor, as OpenBLAS's OpenMP build
// does (it asks omp_get_num_places while it loads). The program links it;
// under LD_PRELOAD the loader runs this constructor before the runtime's own.
// The constructor records what it saw and leaves state behind (an ICV, a
// lock, an allocation, a threadprivate value) that fault_ctor.c checks later.
#include <omp.h>
#include <stdio.h>
#include <string.h>

int ctor_places = -1, ctor_procs = -1, ctor_max = -1, ctor_team = -1, ctor_sum = -1, ctor_tasks = -1;
int ctor_level_ok = 0;
char ctor_affinity[128];
omp_lock_t ctor_lock;
void* ctor_block;
int ctor_tp = 0;
#pragma omp threadprivate(ctor_tp)

__attribute__((constructor)) static void lib_init(void) {
  ctor_places = omp_get_num_places();
  ctor_procs = omp_get_num_procs();
  ctor_max = omp_get_max_threads();
  ctor_level_ok = omp_get_level() == 0 && !omp_in_parallel();
  omp_set_num_threads(3);  // must still hold when main runs
  int sum = 0, team = 0;
#pragma omp parallel reduction(+ : sum)
  {
    sum += omp_get_thread_num() + 1;
#pragma omp single
    team = omp_get_num_threads();
  }
  ctor_team = team;
  ctor_sum = sum;
  int done = 0;
#pragma omp parallel
#pragma omp single
  for (int i = 0; i < 64; ++i) {
#pragma omp task shared(done)
    {
#pragma omp atomic
      done += 1;
    }
  }
  ctor_tasks = done;
  omp_init_lock(&ctor_lock);
  ctor_block = omp_alloc(256, omp_default_mem_alloc);
  if (ctor_block) memset(ctor_block, 0x5a, 256);
  ctor_tp = 41;
  omp_set_affinity_format("ctor %n");
  omp_capture_affinity(ctor_affinity, sizeof ctor_affinity, NULL);
}
