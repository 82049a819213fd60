/* Each thread of a nested team has its own copy of a threadprivate
   variable, and of __thread data, also when the nest has more threads than
   the machine has cores (spec: threadprivate; a nested team's primary
   thread is the thread that encountered the region, so it shares that
   thread's copy).
   - an outer team of 2, nested teams of 4, and teams of 2 nested in those
     (16 threads): every thread writes its own value into both variables,
     then over 10 rounds of barriers, sleeps and taskyields reads it back;
   - after each nested region, the encountering thread's copies still hold
     what it wrote before the region (a member's write must not reach
     them);
   - copyin on a nested region gives every member the encountering
     thread's value.
   meson.build builds this file twice: with TLS, and with
   -fnoopenmp-use-tls (clang 14 spelling), where clang keeps threadprivate
   copies through __kmpc_threadprivate_cached. That build leaves out the
   copyin check (NO_NESTED_COPYIN): clang 14 then copies from the original
   variable, the initial thread's copy, in place of the encountering
   thread's (on libomp too). */
#include "check.h"

#include <unistd.h>

enum { OUTER = 2, INNER = 4, INNER2 = 2, ROUNDS = 10, REGIONS = 5 };

static int tp = -1;
#pragma omp threadprivate(tp)
static __thread int tl = -1;

static void hold(int key, const char *where) {
  for (int r = 0; r < ROUNDS; r++) {
#pragma omp barrier
    usleep(50);
#pragma omp taskyield
    CHECK(tp == key, "%s: threadprivate %d, want %d (round %d)", where, tp, key, r);
    CHECK(tl == key, "%s: __thread %d, want %d (round %d)", where, tl, key, r);
  }
}

int main(void) {
  omp_set_dynamic(0);
  omp_set_max_active_levels(3);
  for (int region = 0; region < REGIONS; region++) {
#pragma omp parallel num_threads(OUTER)
    {
      int o = omp_get_thread_num();
      int mine = 100 + o;
      tp = mine;
      tl = mine;
#pragma omp parallel num_threads(INNER)
      {
        int i = omp_get_thread_num();
        CHECK(omp_get_num_threads() == INNER, "inner team of %d", omp_get_num_threads());
        if (i == 0) {
          CHECK(tp == mine && tl == mine, "the inner primary thread reads %d / %d, want its own %d", tp, tl, mine);
        }
        int key = 1000 + 10 * o + i;
        tp = key;
        tl = key;
        hold(key, "inner");
#pragma omp parallel num_threads(INNER2)
        {
          int j = omp_get_thread_num();
          int key2 = 10000 + 100 * o + 10 * i + j;
          if (j == 0) CHECK(tp == key && tl == key, "level 3 primary reads %d / %d, want %d", tp, tl, key);
          tp = key2;
          tl = key2;
          hold(key2, "level 3");
          if (j == 0) {
            tp = key;
            tl = key;
          }
        }
        CHECK(tp == key && tl == key, "inner thread after level 3: %d / %d, want %d", tp, tl, key);
        hold(key, "inner after level 3");
        if (i == 0) {
          tp = mine;
          tl = mine;
        }
      }
      CHECK(tp == mine, "outer thread %d after its nested region: threadprivate %d, want %d", o, tp, mine);
      CHECK(tl == mine, "outer thread %d after its nested region: __thread %d, want %d", o, tl, mine);
#ifndef NO_NESTED_COPYIN
#pragma omp parallel num_threads(INNER) copyin(tp)
      {
        CHECK(tp == mine, "copyin in a nested region: %d, want %d", tp, mine);
      }
#endif
    }
  }
  return conf_end();
}
