/* omp_set/get_dynamic, omp_set/get_nested (deprecated, defined through
   max-active-levels since OpenMP 5.0), omp_get_supported_active_levels,
   omp_set/get_max_active_levels. */
#include "check.h"

static int inner_team(void) {
  int n = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp parallel num_threads(3)
#pragma omp single
    if (omp_get_ancestor_thread_num(1) == 0)
      n = omp_get_num_threads();
  }
  return n;
}

int main(void) {
  int supported = omp_get_supported_active_levels();
  CHECK(supported >= 1, "omp_get_supported_active_levels() = %d", supported);
  CHECK(omp_get_max_active_levels() >= 1 && omp_get_max_active_levels() <= supported,
        "initial omp_get_max_active_levels() = %d", omp_get_max_active_levels());

  CHECK_EQ("omp_get_dynamic() initially (OMP_DYNAMIC unset)", omp_get_dynamic(), 0);
  omp_set_dynamic(1);
  CHECK(omp_get_dynamic() != 0, "omp_get_dynamic() after omp_set_dynamic(1) is 0");
  int n = 0;
#pragma omp parallel num_threads(5)
#pragma omp single
  n = omp_get_num_threads();
  CHECK(n >= 1 && n <= 5, "team with dyn-var true: %d threads for num_threads(5)", n);
  omp_set_dynamic(0);
  CHECK_EQ("omp_get_dynamic() after omp_set_dynamic(0)", omp_get_dynamic(), 0);

  omp_set_max_active_levels(3);
  CHECK_EQ("omp_get_max_active_levels() after setting 3", omp_get_max_active_levels(),
           supported < 3 ? supported : 3);
  omp_set_max_active_levels(1);
  CHECK_EQ("omp_get_max_active_levels() after setting 1", omp_get_max_active_levels(), 1);
  CHECK_EQ("omp_get_nested() with max-active-levels 1", omp_get_nested(), 0);
  CHECK_EQ("inner team with max-active-levels 1", inner_team(), 1);

  if (supported > 1) {
    omp_set_nested(1);
    CHECK(omp_get_nested() != 0, "omp_get_nested() after omp_set_nested(1) is 0");
    CHECK(omp_get_max_active_levels() > 1,
          "omp_get_max_active_levels() after omp_set_nested(1) = %d", omp_get_max_active_levels());
    CHECK_EQ("inner team with nesting on", inner_team(), 3);
    omp_set_nested(0);
    CHECK_EQ("omp_get_nested() after omp_set_nested(0)", omp_get_nested(), 0);
    CHECK_EQ("omp_get_max_active_levels() after omp_set_nested(0)", omp_get_max_active_levels(), 1);
    CHECK_EQ("inner team with nesting off", inner_team(), 1);
  }
  return conf_end();
}
