/* OMP_NESTED (deprecated): true enables nested parallelism
   (omp_get_nested() is 1, an inner region gets its own team), false
   disables it. CONF_EXPECT_NESTED=0/1. */
#include "check.h"

int main(void) {
  long want = conf_env_long("CONF_EXPECT_NESTED", 0);
  CHECK_EQ("omp_get_nested()", omp_get_nested() != 0, want != 0);
  int inner = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp parallel num_threads(3)
#pragma omp single
    if (omp_get_ancestor_thread_num(1) == 0)
      inner = omp_get_num_threads();
  }
  CHECK_EQ("inner team size", inner, want ? 3 : 1);
  return conf_end();
}
