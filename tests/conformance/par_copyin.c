/* copyin copies the primary thread's threadprivate values (a scalar, an
   array and a struct) to every thread of the team at region entry.
   Built twice, like par_threadprivate: TLS and __kmpc_threadprivate_cached. */
#include "check.h"

struct pt {
  int x;
  double y;
  char tag[8];
};
static int counter;
static long arr[5];
static struct pt point;
#pragma omp threadprivate(counter, arr, point)

int main(void) {
  for (int round = 1; round <= 3; round++) {
    counter = 7 * round;
    for (int i = 0; i < 5; i++)
      arr[i] = round * 10 + i;
    point.x = round;
    point.y = round * 0.5;
    snprintf(point.tag, sizeof point.tag, "r%d", round);
    int n = round == 2 ? 8 : 4;
    int ran = 0;
#pragma omp parallel num_threads(n) copyin(counter, arr, point)
    {
      __atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED);
      int t = omp_get_thread_num();
      CHECK(counter == 7 * round, "round %d thread %d: copyin scalar %d, want %d", round, t,
            counter, 7 * round);
      CHECK(arr[4] == round * 10 + 4, "round %d thread %d: copyin array %ld", round, t, arr[4]);
      CHECK(point.x == round && point.y == round * 0.5 && point.tag[1] == '0' + round,
            "round %d thread %d: copyin struct {%d, %g, %s}", round, t, point.x, point.y, point.tag);
#pragma omp barrier
      counter = -t; /* scribble: the next round's copyin must overwrite it */
      arr[4] = -1;
      point.x = -1;
    }
    CHECK_EQ("threads that ran", ran, n);
  }
  return conf_end();
}
