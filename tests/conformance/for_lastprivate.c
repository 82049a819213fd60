/* lastprivate: after the loop the original holds the value from the
   sequentially last iteration, under each schedule; the loop variable's
   lastprivate is its value after the loop. Dynamic schedules here are
   monotonic: the nonmonotonic one is for_lastprivate_nonmonotonic's (libomp
   14 gets it wrong). lastprivate(conditional:) is not tested: clang 14
   lowers it like a plain lastprivate (no runtime call is involved), so the
   value comes from the thread that ran the last iteration. */
#include "check.h"

#define LAST(SCHED_, LO, CMP, HI, ST, WANT)                                      \
  do {                                                                         \
    long x = -1;                                                               \
    int i;                                                                     \
    CONF_PRAGMA(omp parallel for lastprivate(x, i) num_threads(4) SCHED_)      \
    for (i = (LO); i CMP (HI); i += (ST))                                      \
      x = 1000L * i;                                                           \
    CHECK(x == 1000L * (WANT), #SCHED_ " " #LO " " #CMP " " #HI " step " #ST ": lastprivate %ld, want %ld", \
          x, 1000L * (WANT));                                                  \
    int want_i = (WANT) + (ST);                                                \
    CHECK(i == want_i, #SCHED_ " " #LO " " #CMP " " #HI " step " #ST ": loop variable %d, want %d", i, \
          want_i);                                                             \
  } while (0)

int main(void) {
  LAST(schedule(static), 0, <, 1001, 1, 1000);
  LAST(schedule(static, 3), 0, <, 100, 7, 98);
  LAST(schedule(monotonic: dynamic, 2), 5, <=, 77, 2, 77);
  LAST(schedule(guided), 0, <, 503, 1, 502);
  LAST(schedule(runtime), 0, <, 9, 1, 8);
  LAST(schedule(static), 100, >, -1, -3, 1);
  LAST(schedule(monotonic: dynamic), 50, >=, 0, -7, 1);
  LAST(, 0, <, 2, 1, 1); /* fewer iterations than threads */

  /* lastprivate on `for` inside a parallel region, with a struct. */
  struct pair {
    int a;
    double b;
  } p = {0, 0.0};
#pragma omp parallel num_threads(3)
  {
#pragma omp for lastprivate(p) schedule(static, 1)
    for (int k = 0; k < 20; k++) {
      p.a = k;
      p.b = k * 0.5;
    }
    CHECK(p.a == 19 && p.b == 9.5, "lastprivate struct after the loop's barrier: {%d, %g}", p.a,
          p.b);
  }

  return conf_end();
}
