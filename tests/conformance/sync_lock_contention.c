/* Lock contention with more threads than cores (4 per core, at least 8):
   every thread takes a simple lock, a nest lock and a critical section many
   times and yields the CPU while holding them. Nobody else is ever inside,
   and the plain counters come out exact. */
#include <sched.h>

#include "check.h"

#define ITERS 300

int main(void) {
  int n = 4 * omp_get_num_procs();
  if (n < 8)
    n = 8;
  if (n > 32)
    n = 32;
  omp_lock_t lock;
  omp_nest_lock_t nest;
  omp_init_lock(&lock);
  omp_init_nest_lock(&nest);
  long c_lock = 0, c_nest = 0, c_crit = 0;
  int in_lock = 0, in_nest = 0, in_crit = 0, overlap = 0, team = 0;
#pragma omp parallel num_threads(n)
  {
#pragma omp single
    team = omp_get_num_threads();
    for (int i = 0; i < ITERS; i++) {
      omp_set_lock(&lock);
      if (in_lock++)
        overlap++;
      sched_yield();
      c_lock++;
      in_lock--;
      omp_unset_lock(&lock);

      omp_set_nest_lock(&nest);
      omp_set_nest_lock(&nest);
      if (in_nest++)
        overlap++;
      sched_yield();
      c_nest++;
      in_nest--;
      omp_unset_nest_lock(&nest);
      omp_unset_nest_lock(&nest);

#pragma omp critical
      {
        if (in_crit++)
          overlap++;
        sched_yield();
        c_crit++;
        in_crit--;
      }
    }
  }
  CHECK_EQ("team size", team, n);
  CHECK_EQ("threads found inside a held lock", overlap, 0);
  CHECK_EQ("simple-lock counter", c_lock, (long)n * ITERS);
  CHECK_EQ("nest-lock counter", c_nest, (long)n * ITERS);
  CHECK_EQ("critical counter", c_crit, (long)n * ITERS);
  omp_destroy_lock(&lock);
  omp_destroy_nest_lock(&nest);
  return conf_end();
}
