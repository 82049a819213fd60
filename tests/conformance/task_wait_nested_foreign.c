/* task_wait_nested_foreign.c: a taskwait in a tied task of a nested team
 * while the team's lists hold only tasks the waiting thread may not run.
 *
 * Each member of a nested team of 3 (more members than this machine's
 * workers, so several share one) creates a task that runs a taskloop
 * nogroup and waits for its chunks. A thread waiting in a tied task may run
 * only that task's descendants; the chunks of its team-mates' taskloops are
 * not. Found by tools/fuzz (seed 1114, reduced): Bobbin's wait spun on the
 * visible but forbidden tasks without giving its worker to the team-mates
 * queued behind it, which were the ones that could run them; every run hung.
 * Run with OMP_MAX_ACTIVE_LEVELS=4 (the inner region active) and
 * OMP_NUM_THREADS=2 (on two cores: a pool of two workers). */
#include "check.h"

static long done;

int main(void) {
  for (int round = 0; round < 20; round++) {
    done = 0;
    #pragma omp parallel num_threads(2)
    #pragma omp single
    {
      #pragma omp parallel for num_threads(3)
      for (int j = 0; j < 3; j++) {
        #pragma omp task firstprivate(j)
        {
          #pragma omp taskloop nogroup
          for (int k = 0; k < 2; k++) {
            #pragma omp atomic
            done += 1;
          }
          #pragma omp taskwait
        }
      }
    }
    CHECK_EQ("taskloop chunks run", done, 6);
  }
  return conf_end();
}
