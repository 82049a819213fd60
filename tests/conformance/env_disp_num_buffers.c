/* KMP_DISP_NUM_BUFFERS (libomp's): how many dynamic loops a team may have in
   flight. While thread 0 has not started the first of a run of nowait
   dynamic loops, the other threads finish exactly that many of them and
   wait at the next one; once thread 0 comes, every loop runs each of its
   iterations once. CONF_EXPECT_BUFFERS is the count to find (7, libomp's
   default, if unset); CONF_SET_BUFFERS calls kmp_set_disp_num_buffers(n)
   before the program's first OpenMP call, where it takes effect, and
   CONF_SET_LATE after it, where it does not. Out-of-range values of the
   variable warn and take the nearest bound (run.py's runs `zero` and
   `big`). */
#include <unistd.h>

#include "check.h"

#define ITERS 16

static int done; /* the most loops one of threads 1 and 2 has finished */

/* Not in main: clang asks for the thread's global id when a function that
   has a parallel region starts, which starts the runtime. */
static __attribute__((noinline)) void run(int want) {
  int loops = want + 3;
  int *hits = calloc((size_t)loops * ITERS, sizeof *hits);
  int seen = -1, team = 0;
#pragma omp parallel num_threads(3)
  {
    if (omp_get_thread_num() == 0) {
      team = omp_get_num_threads();
      /* Let the others go as far as they can (a second at most for want
         loops, then a little longer in case they could go further). */
      for (int t = 0; t < 1000 && __atomic_load_n(&done, __ATOMIC_ACQUIRE) < want; t++)
        usleep(1000);
      usleep(20000);
      seen = __atomic_load_n(&done, __ATOMIC_ACQUIRE);
    }
    for (int l = 0; l < loops; l++) {
#pragma omp for schedule(dynamic, 1) nowait
      for (int i = 0; i < ITERS; i++)
        __atomic_fetch_add(&hits[l * ITERS + i], 1, __ATOMIC_RELAXED);
      if (omp_get_thread_num() != 0) {
        int d = __atomic_load_n(&done, __ATOMIC_RELAXED);
        while (d < l + 1 && !__atomic_compare_exchange_n(&done, &d, l + 1, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
          ;
      }
    }
  }
  CHECK_EQ("team size", team, 3);
  CHECK_EQ("nowait dynamic loops finished before thread 0 started the first", seen, want);
  for (int k = 0; k < loops * ITERS; k++)
    CHECK(hits[k] == 1, "loop %d iteration %d ran %d times", k / ITERS, k % ITERS, hits[k]);
  free(hits);
}

int main(void) {
  const char *set = getenv("CONF_SET_BUFFERS");
  if (set)
    kmp_set_disp_num_buffers(atoi(set));
  const char *late = getenv("CONF_SET_LATE");
  if (late) {
    (void)omp_get_max_threads(); /* the runtime starts */
    kmp_set_disp_num_buffers(atoi(late));
  }
  const char *expect = getenv("CONF_EXPECT_BUFFERS");
  run(expect ? atoi(expect) : 7);
  return conf_end();
}
