/* OMP_DYNAMIC: CONF_EXPECT_DYNAMIC=0/1 is what omp_get_dynamic() must
   return; with dyn-var true a team has between 1 and the requested number
   of threads, with false exactly the requested number. */
#include "check.h"

int main(void) {
  long want = conf_env_long("CONF_EXPECT_DYNAMIC", 0);
  CHECK_EQ("omp_get_dynamic()", omp_get_dynamic() != 0, want != 0);
  for (int rep = 0; rep < 20; rep++) {
    int n = 0, ran = 0;
#pragma omp parallel num_threads(6)
    {
#pragma omp single
      n = omp_get_num_threads();
      __atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED);
    }
    if (want)
      CHECK(n >= 1 && n <= 6, "dyn-var true: team of %d for num_threads(6)", n);
    else
      CHECK_EQ("dyn-var false: team size for num_threads(6)", n, 6);
    CHECK_EQ("implicit tasks that ran", ran, n);
  }
  return conf_end();
}
