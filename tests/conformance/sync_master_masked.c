/* master runs only on thread 0; masked runs on thread 0, masked filter(n)
   on thread n (no thread if n is not in the team); neither has a barrier. */
#include "check.h"

int main(void) {
  int master_tid = -1, masked_tid = -1, filter_tid = -1, master_runs = 0, masked_runs = 0,
      filter_runs = 0, absent_runs = 0;
  int volatile f = 2;
#pragma omp parallel num_threads(4)
  {
    for (int r = 0; r < 10; r++) {
#pragma omp master
      {
        master_runs++;
        master_tid = omp_get_thread_num();
      }
#pragma omp masked
      {
        masked_runs++;
        masked_tid = omp_get_thread_num();
      }
#pragma omp masked filter(f)
      {
        filter_runs++;
        filter_tid = omp_get_thread_num();
      }
#pragma omp masked filter(7)
      absent_runs++;
    }
  }
  CHECK_EQ("master runs", master_runs, 10);
  CHECK_EQ("master thread", master_tid, 0);
  CHECK_EQ("masked runs", masked_runs, 10);
  CHECK_EQ("masked thread", masked_tid, 0);
  CHECK_EQ("masked filter(2) runs", filter_runs, 10);
  CHECK_EQ("masked filter(2) thread", filter_tid, 2);
  CHECK_EQ("masked filter(7) runs in a team of 4", absent_runs, 0);
  return conf_end();
}
