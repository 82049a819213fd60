/* libomp's kmp_aligned_malloc keeps posix_memalign's contract: the block
   is aligned as asked, and an alignment that is not a power of two gives
   null (omp_aligned_alloc's caller would break a precondition there). */
#include <stdint.h>

#include "check.h"

int main(void) {
  static const size_t ok[] = {8, 64, 128, 4096};
  for (int i = 0; i < 4; i++) {
    void *p = kmp_aligned_malloc(ok[i], ok[i]);
    CHECK(p && (uintptr_t)p % ok[i] == 0, "kmp_aligned_malloc(%zu, %zu) = %p", ok[i], ok[i], p);
    kmp_free(p);
  }
  static const size_t bad[] = {3, 96, 127};
  for (int i = 0; i < 3; i++) {
    void *p = kmp_aligned_malloc(128, bad[i]);
    CHECK(p == NULL, "kmp_aligned_malloc(128, %zu) = %p, want null", bad[i], p);
  }
  return conf_end();
}
