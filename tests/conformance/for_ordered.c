/* ordered regions run in the loop's sequential order: each ordered block
   appends its iteration to a log, which must read back in iteration order,
   under static, static chunk, dynamic, guided and runtime schedules, for
   int, unsigned long long and descending loops; the unordered part of the
   body still runs in parallel with it. */
#include "check.h"

#define N 301

static long long order_log[N];
static int order_len;

#define ORDERED(T, LO, CMP, HI, ST, SCHED_)                                    \
  do {                                                                         \
    order_len = 0;                                                             \
    long long trip = 0;                                                        \
    for (T i = (LO); i CMP (HI); i += (ST))                                    \
      trip++;                                                                  \
    CONF_PRAGMA(omp parallel for ordered num_threads(4) SCHED_)                \
    for (T i = (LO); i CMP (HI); i += (ST)) {                                  \
      long long k = (long long)((i > (LO) ? i - (LO) : (LO) - i) / ((ST) > 0 ? (ST) : -(ST))); \
      CONF_PRAGMA(omp ordered)                                                 \
      order_log[order_len++] = k;                                              \
    }                                                                          \
    CHECK(order_len == trip, #T " " #SCHED_ ": %d ordered blocks ran, want %lld", order_len, trip); \
    for (int j = 0; j < order_len; j++)                                        \
      if (order_log[j] != j) {                                                 \
        CHECK(0, #T " " #SCHED_ ": ordered block %d was iteration %lld", j, order_log[j]); \
        break;                                                                 \
      }                                                                        \
  } while (0)

int main(void) {
  ORDERED(int, 0, <, N, 1, schedule(static));
  ORDERED(int, 0, <, N, 1, schedule(static, 1));
  ORDERED(int, 0, <, N, 1, schedule(static, 5));
  ORDERED(int, 0, <, N, 1, schedule(dynamic));
  ORDERED(int, 0, <, N, 1, schedule(dynamic, 3));
  ORDERED(int, 0, <, N, 1, schedule(guided));
  ORDERED(int, 0, <, N, 1, schedule(runtime));
  ORDERED(int, 2 * N, >, 0, -2, schedule(dynamic, 2));
  ORDERED(unsigned, 10u, <, 10u + 3 * N, 3u, schedule(guided, 2));
  ORDERED(long long, -(1LL << 40), <, -(1LL << 40) + N, 1LL, schedule(dynamic));
  ORDERED(unsigned long long, (1ULL << 40) + N, >, 1ULL << 40, -1LL, schedule(static, 2));

  /* Only part of the body is ordered: the rest may run out of order, but the
     ordered part still follows iteration order, also within `for` inside an
     enclosing parallel region. */
  int seq = 0, bad = 0;
#pragma omp parallel num_threads(3)
  {
#pragma omp for ordered schedule(dynamic, 4)
    for (int i = 0; i < 100; i++) {
      volatile int spin = i % 7 * 100;
      while (spin > 0)
        spin--;
#pragma omp ordered
      {
        if (seq != i)
          bad++;
        seq++;
      }
    }
  }
  CHECK(bad == 0 && seq == 100, "ordered part of a body: %d out of order, %d ran", bad, seq);
  return conf_end();
}
