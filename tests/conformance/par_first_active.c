/* The first active region opened inside inactive ones (parallel if(0),
   num_threads(1): a library's parallel loop called from a conditionally
   parallel caller). It is the only active level and the program has
   thread-local data, so each of its threads has a kernel thread of its own,
   as at the top level, even when the team is wider than the machine
   (BOBBIN_WIDE_TEAMS=auto; par_wide_teams.c is the program without
   thread-local data): __thread variables and
   threadprivate (TLS-based, clang's default) keep each thread's value across
   barriers, and no two threads report the same pthread_self(). */
#include <pthread.h>

#include "check.h"

/* Not static: the compiler must keep every access (a static variable whose
   address never escapes can be kept in a register across the barriers, and
   the program then has no thread-local data at all). */
__thread int tls = -1;
int tp = -1;
#pragma omp threadprivate(tp)

static void inner(const char *how) {
  enum { MAX = 64 };
  static pthread_t ids[MAX];
  int bad = 0, team = 0;
#pragma omp parallel reduction(+ : bad)
  {
    int me = omp_get_thread_num();
#pragma omp single
    team = omp_get_num_threads();
    if (me < MAX) ids[me] = pthread_self();
    tls = me;
    tp = me;
    for (int r = 0; r < 50; r++) {
#pragma omp barrier
      if (tls != me || tp != me) bad++;
    }
  }
  int distinct = 0;
  for (int a = 0; a < team && a < MAX; a++) {
    int unique = 1;
    for (int b = 0; b < a; b++)
      if (pthread_equal(ids[a], ids[b])) unique = 0;
    distinct += unique;
  }
  CHECK(team == omp_get_max_threads(), "%s: the inner team has %d threads, want %d", how, team, omp_get_max_threads());
  CHECK(distinct == team, "%s: %d kernel threads run a team of %d", how, distinct, team);
  CHECK(bad == 0, "%s: __thread or threadprivate values changed under %d checks", how, bad);
}

int main(void) {
  for (int rep = 0; rep < 3; rep++) {
#pragma omp parallel if (0)
    inner("inside parallel if(0)");
#pragma omp parallel num_threads(1)
    inner("inside parallel num_threads(1)");
#pragma omp parallel num_threads(1)
#pragma omp parallel num_threads(1)
    inner("two inactive levels down");
    inner("at the top level");
  }
  return conf_end();
}
