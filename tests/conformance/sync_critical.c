/* critical: unnamed and named critical sections exclude each other's
   bodies (plain, non-atomic counters come out exact and nobody else is
   inside), and differently named sections are distinct locks; hint() is
   accepted with every hint value. */
#include "check.h"

#define ITERS 4000

static long plain, named_a, named_b, hinted[5];
static int inside_a, inside_b;

int main(void) {
  int overlap = 0;
#pragma omp parallel num_threads(8)
  {
    for (int i = 0; i < ITERS; i++) {
#pragma omp critical
      plain++;
#pragma omp critical(alpha)
      {
        if (inside_a++)
          overlap++;
        named_a += 2;
        inside_a--;
      }
#pragma omp critical(beta)
      {
        if (inside_b++)
          overlap++;
        named_b += 3;
        inside_b--;
      }
    }
  }
  CHECK_EQ("unnamed critical counter", plain, 8L * ITERS);
  CHECK_EQ("critical(alpha) counter", named_a, 2L * 8 * ITERS);
  CHECK_EQ("critical(beta) counter", named_b, 3L * 8 * ITERS);
  CHECK_EQ("threads found inside a named critical", overlap, 0);

  /* Two different names may be held at once: thread 0 holds alpha while
     thread 1 enters beta and tells it so. */
  int beta_done = 0;
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 0) {
#pragma omp critical(alpha)
      {
        while (!__atomic_load_n(&beta_done, __ATOMIC_ACQUIRE))
          ;
      }
    } else {
#pragma omp critical(beta)
      __atomic_store_n(&beta_done, 1, __ATOMIC_RELEASE);
    }
  }
  CHECK_EQ("critical(beta) entered while critical(alpha) held", beta_done, 1);

#pragma omp parallel num_threads(4)
  {
    for (int i = 0; i < 2000; i++) {
#pragma omp critical(h1) hint(omp_sync_hint_contended)
      hinted[0]++;
#pragma omp critical(h2) hint(omp_sync_hint_uncontended)
      hinted[1]++;
#pragma omp critical(h3) hint(omp_sync_hint_speculative)
      hinted[2]++;
#pragma omp critical(h4) hint(omp_sync_hint_nonspeculative)
      hinted[3]++;
#pragma omp critical(h5) hint(omp_sync_hint_contended | omp_sync_hint_speculative)
      hinted[4]++;
    }
  }
  for (int h = 0; h < 5; h++)
    CHECK(hinted[h] == 4L * 2000, "critical(h%d) with a hint: counter %ld, want %ld", h + 1,
          hinted[h], 4L * 2000);
  return conf_end();
}
