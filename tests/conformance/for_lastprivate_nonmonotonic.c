// LIBOMP14-DEFECT: under schedule(dynamic[, c]) (nonmonotonic, which libomp 14 runs as static_steal) no thread is told it ran the last chunk once any stealing happened, so lastprivate leaves the original unchanged; stealing is forced here by making half of the iterations slow.
/* lastprivate under nonmonotonic dynamic and guided schedules: after the
   loop the original holds the sequentially last iteration's value, also
   when the team is unbalanced (half of the iterations are slow, so idle
   threads take work from busy ones). */
#include <unistd.h>

#include "check.h"

#define LASTNM(SCHED_)                                                         \
  do {                                                                         \
    for (int rep = 0; rep < 6 && !conf_has_failed(); rep++)                    \
      for (int nth = 2; nth <= 4; nth++) {                                     \
        int last = -1, slow_head = rep % 2;                                    \
        CONF_PRAGMA(omp parallel for lastprivate(last) num_threads(nth) SCHED_) \
        for (int i = 0; i < 100; i++) {                                        \
          if ((i < 50) == slow_head)                                           \
            usleep(20);                                                        \
          last = i;                                                            \
        }                                                                      \
        CHECK(last == 99, #SCHED_ " on %d threads, slow %s: lastprivate %d, want 99", nth, \
              slow_head ? "head" : "tail", last);                              \
      }                                                                        \
  } while (0)

int main(void) {
  LASTNM(schedule(dynamic));
  LASTNM(schedule(nonmonotonic: dynamic, 3));
  LASTNM(schedule(nonmonotonic: guided));
  LASTNM(schedule(monotonic: dynamic)); /* not affected, kept for contrast */
  return conf_end();
}
