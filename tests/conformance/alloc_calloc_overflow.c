// LIBOMP14-DEFECT: omp_calloc and omp_aligned_calloc whose element count times size overflows size_t crash (SIGSEGV in libomp.so.5)
/* omp_calloc whose element count times size does not fit in size_t asks
   for more than any allocator can give: the allocator's fallback trait
   answers, as for any failed request (omp_default_mem_alloc's is null_fb:
   null; a user allocator with null_fb: null). */
#include <stdint.h>

#include "check.h"

int main(void) {
  volatile size_t half = SIZE_MAX / 2 + 1;  /* volatile: no compile-time size warning */
  size_t big = half;
  CHECK(omp_calloc(2, big, omp_default_mem_alloc) == NULL, "omp_calloc(2, SIZE_MAX/2+1) is not null");
  CHECK(omp_calloc(big, big, omp_default_mem_alloc) == NULL, "omp_calloc(SIZE_MAX/2+1, SIZE_MAX/2+1) is not null");
  CHECK(omp_aligned_calloc(64, big, 1024, omp_default_mem_alloc) == NULL,
        "omp_aligned_calloc(64, SIZE_MAX/2+1, 1024) is not null");
  omp_alloctrait_t traits[1] = {{omp_atk_fallback, omp_atv_null_fb}};
  omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 1, traits);
  CHECK(omp_calloc(4, big, a) == NULL, "omp_calloc(4, SIZE_MAX/2+1) from a null_fb allocator is not null");
  int *p = omp_calloc(1000, sizeof(int), a);
  CHECK(p != NULL, "omp_calloc(1000, 4) is null");
  long sum = 0;
  for (int i = 0; p && i < 1000; i++)
    sum += p[i];
  CHECK_EQ("sum of omp_calloc's block", sum, 0);
  omp_free(p, a);
  omp_destroy_allocator(a);
  return conf_end();
}
