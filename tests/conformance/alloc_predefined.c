// LIBOMP14-DEFECT: omp_large_cap_mem_alloc and omp_high_bw_mem_alloc return NULL (no memkind) instead of falling back to default memory (their fallback trait is default_mem_fb)
/* Every predefined allocator gives usable memory (spec 6.2 table 6.3): each
 * one other than omp_default_mem_alloc has the default_mem_fb fallback, so
 * where its kind of memory is missing it falls back to default memory. An
 * allocator of a memory space the machine lacks may not exist (spec 18.13.2:
 * omp_null_allocator), but Bobbin maps every host space to host memory. */
#include "check.h"

int main(void) {
  for (omp_allocator_handle_t a = omp_default_mem_alloc; a <= omp_thread_mem_alloc; a++) {
    char *p = omp_alloc(1 << 20, a);
    CHECK(p != NULL, "omp_alloc(1 MiB, predefined allocator %d) returned NULL", (int)a);
    if (p) memset(p, 1, 1 << 20);
    void *q = omp_aligned_alloc(4096, 100, a);
    CHECK(q && (uintptr_t)q % 4096 == 0, "omp_aligned_alloc(4096, 100, %d) gave %p", (int)a, q);
    int *z = omp_calloc(256, sizeof(int), a);
    CHECK(z && z[0] == 0 && z[255] == 0, "omp_calloc(256, int, %d)", (int)a);
    char *r = omp_realloc(p, 10, a, omp_null_allocator);
    CHECK(r && r[9] == 1, "omp_realloc(p, 10, %d) lost the contents", (int)a);
    omp_free(r, omp_null_allocator);
    omp_free(q, a);
    omp_free(z, omp_null_allocator);
  }
  const omp_memspace_handle_t spaces[] = {omp_default_mem_space, omp_large_cap_mem_space, omp_const_mem_space,
                                          omp_high_bw_mem_space, omp_low_lat_mem_space};
  for (int i = 0; i < 5; i++) {
    omp_allocator_handle_t a = omp_init_allocator(spaces[i], 0, NULL);
    int required = i == 0 || conf_env_long("CONF_EXPECT_BOBBIN", 0);
    CHECK(a != omp_null_allocator || !required, "omp_init_allocator(memory space %d, no traits) failed",
          (int)spaces[i]);
    if (a == omp_null_allocator) continue;
    double *d = omp_alloc(1000 * sizeof(double), a);
    CHECK(d != NULL, "an allocator of memory space %d returned NULL", (int)spaces[i]);
    if (d) d[999] = 1.0;
    omp_free(d, a);
    omp_destroy_allocator(a);
  }
  return conf_end();
}
