/* An outermost team four times wider than the machine, in a program with no
   thread-local data of its own. Each region checks its own results: the
   team's size, a reduction, values exchanged across barriers, tasks created
   by one thread and run by the team, and a threadprivate-free copyprivate.
   Each thread also records the kernel thread it ran on. libomp gives each
   OpenMP thread a kernel thread; Bobbin runs such a team as fibers on its
   workers (BOBBIN_WIDE_TEAMS=auto), so fewer kernel threads than OpenMP
   threads must appear, unless CONF_WIDE=threads (BOBBIN_WIDE_TEAMS=threads:
   one each, as libomp). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { MAX = 256 };

static pthread_t ids[MAX];
static long vals[MAX];

static int distinct_kernel_threads(int team) {
  int distinct = 0;
  for (int a = 0; a < team; a++) {
    int unique = 1;
    for (int b = 0; b < a && unique; b++)
      if (pthread_equal(ids[a], ids[b])) unique = 0;
    distinct += unique;
  }
  return distinct;
}

int main(void) {
  int width = 4 * omp_get_num_procs();
  if (width > MAX) width = MAX;
  const char *bobbin = getenv("CONF_EXPECT_BOBBIN");
  const char *wide = getenv("CONF_WIDE");
  int one_each = !(bobbin && bobbin[0] == '1') || (wide && strcmp(wide, "threads") == 0);
  for (int rep = 0; rep < 20; rep++) {
    int team = 0, bad = 0, tasks = 0, copied = -1, copy_bad = 0;
    long sum = 0;
#pragma omp parallel num_threads(width) reduction(+ : sum, bad, copy_bad)
    {
      int me = omp_get_thread_num(), n = omp_get_num_threads();
#pragma omp single
      team = n;
      ids[me] = pthread_self();
      vals[me] = (long)me * 7 + rep;
      sum += me;
#pragma omp barrier
      for (int t = 0; t < n; t++)
        if (vals[t] != (long)t * 7 + rep) bad++;
#pragma omp barrier
#pragma omp single
      for (int k = 0; k < 100; k++) {
#pragma omp task shared(tasks)
        {
#pragma omp atomic
          tasks++;
        }
      }
      int mine = -1;
#pragma omp single copyprivate(mine)
      mine = rep * 3 + 1;
      if (mine != rep * 3 + 1) copy_bad++;
      if (me == n - 1) copied = mine;
    }
    CHECK_EQ("team size", team, width);
    CHECK_EQ("reduction of thread numbers", sum, (long)width * (width - 1) / 2);
    CHECK_EQ("values not seen across the barrier", bad, 0);
    CHECK_EQ("tasks run", tasks, 100);
    CHECK_EQ("copyprivate mismatches", copy_bad, 0);
    CHECK_EQ("copyprivate value", copied, rep * 3 + 1);
    int distinct = distinct_kernel_threads(team);
    if (one_each)
      CHECK(distinct == team, "round %d: %d kernel threads ran a team of %d, want one each", rep, distinct, team);
    else
      CHECK(distinct < team, "round %d: %d kernel threads ran a team of %d, want fibers sharing workers", rep,
            distinct, team);
    if (__atomic_load_n(&conf_failed, __ATOMIC_ACQUIRE)) break;
  }
  return conf_end();
}
