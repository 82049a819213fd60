/* collapse(2) and collapse(3) over rectangular nests (ascending, descending
   and non-unit strides, an empty inner dimension, 64-bit outer variable):
   every (i, j[, k]) runs exactly once under static, static chunk, dynamic
   and guided schedules. */
#include "check.h"

#define NI 7
#define NJ 9
#define NK 5

static int c2[NI][NJ];
static int c3[NI][NJ][NK];

#define COLLAPSE2(SCHED_)                                                      \
  do {                                                                         \
    memset(c2, 0, sizeof c2);                                                  \
    CONF_PRAGMA(omp parallel for collapse(2) num_threads(4) SCHED_)            \
    for (long long i = 3 * (NI - 1); i >= 0; i -= 3)                           \
      for (int j = -NJ; j < 0; j++)                                             \
        __atomic_fetch_add(&c2[i / 3][j + NJ], 1, __ATOMIC_RELAXED);          \
    for (int i = 0; i < NI; i++)                                               \
      for (int j = 0; j < NJ; j++)                                             \
        CHECK(c2[i][j] == 1, "collapse(2) " #SCHED_ ": (%d,%d) ran %d times", i, j, c2[i][j]); \
  } while (0)

#define COLLAPSE3(SCHED_)                                                      \
  do {                                                                         \
    memset(c3, 0, sizeof c3);                                                  \
    CONF_PRAGMA(omp parallel for collapse(3) num_threads(3) SCHED_)            \
    for (unsigned i = 0; i < NI; i++)                                          \
      for (int j = 2 * NJ; j > 0; j -= 2)                                      \
        for (unsigned long long k = 100; k < 100 + 7 * NK; k += 7)            \
          __atomic_fetch_add(&c3[i][j / 2 - 1][(k - 100) / 7], 1, __ATOMIC_RELAXED); \
    for (int i = 0; i < NI; i++)                                               \
      for (int j = 0; j < NJ; j++)                                             \
        for (int k = 0; k < NK; k++)                                           \
          CHECK(c3[i][j][k] == 1, "collapse(3) " #SCHED_ ": (%d,%d,%d) ran %d times", i, j, k, \
                c3[i][j][k]);                                                  \
  } while (0)

int main(void) {
  COLLAPSE2(schedule(static));
  COLLAPSE2(schedule(static, 4));
  COLLAPSE2(schedule(dynamic, 3));
  COLLAPSE2(schedule(guided));
  COLLAPSE3(schedule(static));
  COLLAPSE3(schedule(static, 1));
  COLLAPSE3(schedule(dynamic));
  COLLAPSE3(schedule(guided, 2));

  /* An empty inner dimension: no iteration at all. */
  int ran = 0;
  int volatile m = 0;
#pragma omp parallel for collapse(2) num_threads(4) schedule(dynamic)
  for (int i = 0; i < 10; i++)
    for (int j = 0; j < m; j++)
      __atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED);
  CHECK_EQ("collapse(2) with an empty inner loop: iterations", ran, 0);

  /* Runtime bounds, with the collapsed index order checked under static: the
     collapsed space is i-major, so thread 0 gets the first block. */
  int n1 = 5, n2 = 11, first_owner = -1;
#pragma omp parallel for collapse(2) num_threads(4) schedule(static)
  for (int i = 0; i < n1; i++)
    for (int j = 0; j < n2; j++)
      if (i == 0 && j == 0)
        first_owner = omp_get_thread_num();
  CHECK_EQ("collapse(2) static: thread of (0,0)", first_owner, 0);
  return conf_end();
}
