/* KMP_ENABLE_TASK_THROTTLING=0 (libomp's setting, run by the harness with
   it): a thread that creates tasks never runs one at its creation, however
   many wait in the queue. The primary thread of a team of 2 creates 3000
   tasks that each spin until the primary thread itself runs one of them;
   the other thread is soon held by the first. With throttling the creator
   would run one at once after some hundreds; without it, the first task
   the primary thread runs must find every task created. */
#include "check.h"

enum { NUM = 3000 };

int main(void) {
  int created = 0, seen_at_first = -1, block = 1;
#pragma omp parallel num_threads(2)
#pragma omp master
  {
    for (int i = 0; i < NUM; i++) {
      created++;
#pragma omp task shared(created, seen_at_first, block)
      {
        if (omp_get_thread_num() == 0) {
          if (seen_at_first < 0) seen_at_first = created;
#pragma omp atomic write
          block = 0;
        }
        int wait;
        do {
#pragma omp atomic read
          wait = block;
        } while (wait);
      }
    }
#pragma omp atomic write
    block = 0;
  }
  CHECK(seen_at_first == -1 || seen_at_first == NUM,
        "the primary thread ran a task when %d of %d were created (throttling is off)", seen_at_first, NUM);
  return conf_end();
}
