// LIBOMP14-DEFECT: __kmpc_for_static_init does not strip the monotonic/nonmonotonic bits from the static schedule kinds clang 14 passes (kinds 33/34 | 1<<29 or 1<<30), so every thread runs the whole loop.
/* schedule(monotonic: static) and schedule(nonmonotonic: static), with and
   without a chunk: the modifier changes nothing for static, so the usual
   static rules hold (see loops.h). */
#include "check.h"
#define SCHED schedule(monotonic: static)
#include "loops.h"
#undef SCHED

#define DEFINE_STATIC_MOD(NAME, CLAUSE)                                        \
  static void NAME(int nth, long chunk, int block) {                           \
    int count[1001] = {0}, owner[1001];                                        \
    CONF_PRAGMA(omp parallel num_threads(nth))                                 \
    {                                                                          \
      CONF_PRAGMA(omp for CLAUSE)                                              \
      for (int i = 0; i < 1001; i++) {                                         \
        __atomic_fetch_add(&count[i], 1, __ATOMIC_RELAXED);                    \
        owner[i] = omp_get_thread_num();                                       \
      }                                                                        \
    }                                                                          \
    for (int i = 0; i < 1001; i++) {                                           \
      if (count[i] != 1) {                                                     \
        CHECK(0, #CLAUSE " on %d threads: iteration %d ran %d times", nth, i, count[i]); \
        return;                                                                \
      }                                                                        \
      if (chunk > 0 && owner[i] != (i / chunk) % nth) {                        \
        CHECK(0, #CLAUSE " on %d threads: iteration %d ran on thread %d", nth, i, owner[i]); \
        return;                                                                \
      }                                                                        \
      if (block && i > 0 && owner[i] != owner[i - 1] && owner[i] != owner[i - 1] + 1) { \
        CHECK(0, #CLAUSE " on %d threads: iteration %d on thread %d after thread %d", nth, i, \
              owner[i], owner[i - 1]);                                         \
        return;                                                                \
      }                                                                        \
    }                                                                          \
  }

DEFINE_STATIC_MOD(mono, schedule(monotonic: static))
DEFINE_STATIC_MOD(nonmono, schedule(nonmonotonic: static))
DEFINE_STATIC_MOD(mono3, schedule(monotonic: static, 3))
DEFINE_STATIC_MOD(nonmono3, schedule(nonmonotonic: static, 3))

int main(void) {
  /* The full shape/type sweep for the monotonic form... */
  struct conf_expect e = {1, 0, 0, 1};
  conf_loops(&e);
  /* ...and one loop for each of the other spellings. */
  for (int nth = 1; nth <= 4; nth++) {
    mono(nth, 0, 1);
    nonmono(nth, 0, 1);
    mono3(nth, 3, 0);
    nonmono3(nth, 3, 0);
  }
  return conf_end();
}
