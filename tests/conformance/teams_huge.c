// LIBOMP14-DEFECT: num_teams(n) with n above the number of processors gives only as many teams as processors, though since OpenMP 5.1 an upper bound alone is also the lower bound; libomp 14 predates that rule.
/* More teams and threads than the runtime has kernel threads for: a league
   of 4500 teams, each opening a parallel region of 2, and a parallel region
   of 4500 threads. Run with OMP_MAX_ACTIVE_LEVELS=3 too, where every outer
   thread may open active nested regions and so wants a kernel thread of
   its own (Bobbin runs at most 4096 workers; this stopped the program).
   Every team exists (5.1: num_teams(n) alone is also the lower bound) and
   runs once; the parallel region may get fewer threads than asked, and
   each of those it gets runs once. */
#include "check.h"

#include <dirent.h>

enum { N = 4500 };

/* Kernel threads in this process now. */
static int thread_count(void) {
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

static int seen[N];

int main(void) {
  int nteams = -1, inner_bad = 0;
  memset(seen, 0, sizeof seen);
#pragma omp teams num_teams(N)
  {
    int t = omp_get_team_num();
    if (t == 0)
      nteams = omp_get_num_teams();
    if (t >= 0 && t < N)
      __atomic_fetch_add(&seen[t], 1, __ATOMIC_RELAXED);
#pragma omp parallel num_threads(2)
    if (omp_get_team_num() != t || omp_get_num_threads() < 1 || omp_get_num_threads() > 2)
      __atomic_fetch_add(&inner_bad, 1, __ATOMIC_RELAXED);
  }
  CHECK_EQ("omp_get_num_teams() for num_teams(4500)", nteams, N);
  for (int t = 0; t < N; t++)
    CHECK(seen[t] == 1, "team %d ran %d times, want once (%d teams)", t, seen[t], nteams);
  CHECK_EQ("threads of the teams' regions with a wrong size or team", inner_bad, 0);
  /* Bobbin runs the league as fibers on its workers. Its progress monitor
     once took the fork of the league, which holds a worker for
     milliseconds, for a stuck worker and moved the queued teams to kernel
     threads of their own: 457-1584 of them. CONF_THREADS_MAX (default 256)
     bounds what the league may leave; stock runtimes choose their own
     threads, so only Bobbin's runs check. */
  if (conf_env_long("CONF_EXPECT_BOBBIN", 0) == 1) {
    int threads = thread_count(), most = (int)conf_env_long("CONF_THREADS_MAX", 256);
    CHECK(threads >= 1 && threads <= most, "%d kernel threads after a league of %d teams, want at most %d",
          threads, N, most);
  }

  int size = 0, members = 0;
  memset(seen, 0, sizeof seen);
#pragma omp parallel num_threads(N) reduction(+ : members)
  {
    members += 1;
    int i = omp_get_thread_num();
    if (i >= 0 && i < N)
      __atomic_fetch_add(&seen[i], 1, __ATOMIC_RELAXED);
    if (i == 0)
      size = omp_get_num_threads();
  }
  CHECK(size >= 1 && size <= N, "a region of num_threads(4500) has %d threads", size);
  CHECK_EQ("members of the 4500-thread region that ran", members, size);
  for (int i = 0; i < size && i < N; i++)
    CHECK(seen[i] == 1, "thread %d of %d ran %d times, want once", i, size, seen[i]);
  return conf_end();
}
