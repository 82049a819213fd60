/* Doacross loops: ordered(1) with depend(sink: i-1) / depend(source) (a
   recurrence that only the sequential order computes right), a sink at
   distance 3, and ordered(2) with two sinks (a 2-D wavefront). Each result is
   compared with the sequential computation. */
#include "check.h"

#define N 400
#define R 40
#define C 37

static unsigned long long a[N], want_a[N];
static unsigned long long w[R][C], want_w[R][C];

static unsigned long long mix(unsigned long long x, long long i) {
  return x * 6364136223846793005ULL + (unsigned long long)i * 1442695040888963407ULL + 1;
}

#define CHAIN(SCHED_)                                                          \
  do {                                                                         \
    memset(a, 0, sizeof a);                                                    \
    a[0] = 1;                                                                  \
    CONF_PRAGMA(omp parallel for ordered(1) num_threads(4) SCHED_)             \
    for (int i = 1; i < N; i++) {                                              \
      CONF_PRAGMA(omp ordered depend(sink: i - 1))                             \
      a[i] = mix(a[i - 1], i);                                                 \
      CONF_PRAGMA(omp ordered depend(source))                                  \
    }                                                                          \
    CHECK(memcmp(a, want_a, sizeof a) == 0, "ordered(1) chain " #SCHED_ ": differs from the sequential result"); \
  } while (0)

int main(void) {
  want_a[0] = 1;
  for (int i = 1; i < N; i++)
    want_a[i] = mix(want_a[i - 1], i);
  CHAIN(schedule(static, 1));
  CHAIN(schedule(static));
  CHAIN(schedule(dynamic));
  CHAIN(schedule(guided, 3));

  /* Distance 3, descending: three independent chains interleaved. */
  unsigned long long b[N], want_b[N];
  for (int i = N - 1; i >= 0; i--)
    want_b[i] = i >= N - 3 ? (unsigned long long)i : mix(want_b[i + 3], i);
  for (int i = N - 3; i < N; i++)
    b[i] = i;
#pragma omp parallel for ordered(1) num_threads(4) schedule(dynamic, 2)
  for (int i = N - 4; i >= 0; i--) {
#pragma omp ordered depend(sink: i + 3)
    b[i] = mix(b[i + 3], i);
#pragma omp ordered depend(source)
  }
  CHECK(memcmp(b, want_b, sizeof b) == 0, "ordered(1) distance-3 descending chain differs");

  /* ordered(2): w[i][j] depends on w[i-1][j] and w[i][j-1]. */
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      want_w[i][j] = (i == 0 || j == 0) ? (unsigned long long)(i * C + j)
                                        : mix(want_w[i - 1][j] ^ (want_w[i][j - 1] << 1), i * C + j);
  for (int s = 0; s < 2; s++) {
    memset(w, 0, sizeof w);
    for (int i = 0; i < R; i++)
      w[i][0] = (unsigned long long)(i * C);
    for (int j = 0; j < C; j++)
      w[0][j] = (unsigned long long)j;
    if (s == 0) {
#pragma omp parallel for ordered(2) num_threads(4) schedule(static, 1)
      for (int i = 1; i < R; i++)
        for (int j = 1; j < C; j++) {
#pragma omp ordered depend(sink: i - 1, j) depend(sink: i, j - 1)
          w[i][j] = mix(w[i - 1][j] ^ (w[i][j - 1] << 1), i * C + j);
#pragma omp ordered depend(source)
        }
    } else {
#pragma omp parallel for ordered(2) num_threads(4) schedule(dynamic)
      for (int i = 1; i < R; i++)
        for (int j = 1; j < C; j++) {
#pragma omp ordered depend(sink: i - 1, j) depend(sink: i, j - 1)
          w[i][j] = mix(w[i - 1][j] ^ (w[i][j - 1] << 1), i * C + j);
#pragma omp ordered depend(source)
        }
    }
    CHECK(memcmp(w, want_w, sizeof w) == 0, "ordered(2) wavefront (%s) differs from the sequential result",
          s == 0 ? "static,1" : "dynamic");
  }
  return conf_end();
}
