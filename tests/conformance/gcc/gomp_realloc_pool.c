/* omp_realloc into the block's own allocator may use the block's share of
   the allocator's pool, as libgomp does (its alloc-9): a 3000-byte block of
   a 4096-byte pool grows to 3500 bytes (the old block goes, its contents
   move), while another block cannot grow past what the pool has left. Under
   gcc only: libomp 14 refuses the first (it counts both blocks), which the
   spec does not settle. */
#include "check.h"

int main(void) {
  omp_alloctrait_t traits[2] = {{omp_atk_fallback, omp_atv_null_fb}, {omp_atk_pool_size, 4096}};
  omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 2, traits);
  CHECK(a != omp_null_allocator, "omp_init_allocator with a 4096-byte pool failed");
  char *b = omp_alloc(3000, a);
  CHECK(b != NULL, "omp_alloc(3000) from a 4096-byte pool is null");
  if (b) {
    b[0] = 7;
    b[2999] = 9;
    b = omp_realloc(b, 3500, a, a);
    CHECK(b != NULL && b[0] == 7 && b[2999] == 9, "omp_realloc(3000 -> 3500) in a 4096-byte pool: %p", (void *)b);
  }
  char *c = omp_alloc(64, a);
  CHECK(c != NULL, "omp_alloc(64) beside 3500 bytes of a 4096-byte pool is null");
  CHECK(omp_realloc(c, 3500, a, a) == NULL, "omp_realloc(64 -> 3500) past the pool is not null");
  omp_free(c, a); /* still the caller's after a failed omp_realloc */
  omp_free(b, a);
  /* the whole pool is free again */
  char *d = omp_alloc(3900, a);
  CHECK(d != NULL, "omp_alloc(3900) from the emptied pool is null");
  omp_free(d, a);
  omp_destroy_allocator(a);
  return conf_end();
}
