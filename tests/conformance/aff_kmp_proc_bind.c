// LIBOMP14-DEFECT: with KMP_AFFINITY set (compact, scatter, explicit), omp_get_proc_bind() returns 5 (libomp's internal proc_bind_intel), which is not an omp_proc_bind_t value.
/* With KMP_AFFINITY binding threads, omp_get_proc_bind() still returns an
   omp_proc_bind_t (omp_get_proc_bind: false, true, primary, close or spread), and
   not false, since threads are bound; inside a region too. */
#include "check.h"

int main(void) {
  int b = (int)omp_get_proc_bind(), inner = -1;
#pragma omp parallel num_threads(2)
  if (omp_get_thread_num() == 1)
    inner = (int)omp_get_proc_bind();
  CHECK(b >= omp_proc_bind_true && b <= omp_proc_bind_spread,
        "KMP_AFFINITY=%s: omp_get_proc_bind() = %d, want true, primary, close or spread", getenv("KMP_AFFINITY"), b);
  CHECK(inner >= omp_proc_bind_true && inner <= omp_proc_bind_spread,
        "KMP_AFFINITY=%s: omp_get_proc_bind() in a region = %d", getenv("KMP_AFFINITY"), inner);
  return conf_end();
}
