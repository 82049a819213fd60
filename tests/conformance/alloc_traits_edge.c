// LIBOMP14-DEFECT: omp_init_allocator asserts (and aborts) on omp_atv_default and on an invalid trait value, instead of using the trait's default or returning omp_null_allocator
/* omp_atv_default is every trait's default value, and an allocator that
 * cannot be created is omp_null_allocator (spec 18.13.2, 6.2). */
#include "check.h"

int main(void) {
  /* omp_atv_default for each trait, together: an allocator with default traits. */
  omp_alloctrait_t dflt[] = {{omp_atk_sync_hint, omp_atv_default}, {omp_atk_alignment, omp_atv_default},
                             {omp_atk_access, omp_atv_default},    {omp_atk_pool_size, omp_atv_default},
                             {omp_atk_fallback, omp_atv_default},  {omp_atk_pinned, omp_atv_default},
                             {omp_atk_partition, omp_atv_default}};
  omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 7, dflt);
  CHECK(a != omp_null_allocator, "omp_init_allocator with every trait omp_atv_default failed");
  void *p = omp_alloc(1 << 24, a); /* no pool: 16 MiB fits */
  CHECK(p != NULL, "an allocator of default traits could not allocate 16 MiB");
  omp_free(p, a);
  omp_destroy_allocator(a);

  /* A value a trait does not have, a key that is no trait: no allocator. */
  struct {
    omp_alloctrait_key_t key;
    omp_uintptr_t value;
    const char *what;
  } bad[] = {{omp_atk_alignment, 3, "alignment=3"},
             {omp_atk_alignment, 0, "alignment=0"},
             {omp_atk_pool_size, 0, "pool_size=0"},
             {omp_atk_sync_hint, omp_atv_all, "sync_hint=all"},
             {omp_atk_access, omp_atv_blocked, "access=blocked"},
             {omp_atk_fallback, omp_atv_true, "fallback=true"},
             {omp_atk_pinned, omp_atv_private, "pinned=private"},
             {omp_atk_partition, omp_atv_null_fb, "partition=null_fb"},
             {(omp_alloctrait_key_t)99, 1, "key 99"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    omp_alloctrait_t t = {bad[i].key, bad[i].value};
    a = omp_init_allocator(omp_default_mem_space, 1, &t);
    CHECK(a == omp_null_allocator, "omp_init_allocator(%s) made an allocator", bad[i].what);
  }
  /* allocator_fb needs an allocator in fb_data. */
  omp_alloctrait_t no_fb[] = {{omp_atk_fallback, omp_atv_allocator_fb}};
  CHECK(omp_init_allocator(omp_default_mem_space, 1, no_fb) == omp_null_allocator,
        "fallback=allocator_fb without fb_data made an allocator");
  return conf_end();
}
