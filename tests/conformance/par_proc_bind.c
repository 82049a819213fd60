/* proc_bind(master|close|spread) is accepted and the team is the size asked
   for; omp_get_place_num() is -1 or a valid place. (clang 14 does not parse
   the 5.1 spelling `primary`.) */
#include "check.h"

#define RUN(kind)                                                              \
  do {                                                                         \
    int count = 0, bad_place = 0;                                              \
    CONF_PRAGMA(omp parallel num_threads(3) proc_bind(kind))                   \
    {                                                                          \
      __atomic_fetch_add(&count, 1, __ATOMIC_RELAXED);                         \
      int p = omp_get_place_num();                                             \
      if (p < -1 || p >= omp_get_num_places())                                 \
        __atomic_fetch_add(&bad_place, 1, __ATOMIC_RELAXED);                   \
    }                                                                          \
    CHECK(count == 3, "proc_bind(" #kind "): %d threads ran, want 3", count);  \
    CHECK(bad_place == 0, "proc_bind(" #kind "): omp_get_place_num() out of range"); \
  } while (0)

int main(void) {
  RUN(master);
  RUN(close);
  RUN(spread);
  omp_proc_bind_t b = omp_get_proc_bind();
  CHECK(b >= omp_proc_bind_false && b <= omp_proc_bind_spread, "omp_get_proc_bind() = %d", (int)b);
  return conf_end();
}
