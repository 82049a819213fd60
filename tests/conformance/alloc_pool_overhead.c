/* A pool holds the blocks taken from it and what the allocator keeps with
   each: two blocks of half of pool_size each do not both fit (libomp and
   libgomp both charge their per-block overhead; LLVM's omp_alloc_null_fb
   test pins it down), while one block of half does, and once freed its
   space is whole again. Checked on two threads taking a block each at once,
   and on one thread. */
#include "check.h"

#define POOL (2 << 20)
#define HALF (1 << 20)

int main(void) {
  omp_alloctrait_t t[2] = {{omp_atk_pool_size, POOL}, {omp_atk_fallback, omp_atv_null_fb}};
  omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 2, t);
  CHECK(a != omp_null_allocator, "omp_init_allocator(pool_size=2 MiB, null_fb) failed");
  void *p[2] = {0, 0};
#pragma omp parallel num_threads(2)
  {
    int i = omp_get_thread_num();
#pragma omp barrier
    p[i] = omp_alloc(HALF, a);
#pragma omp barrier
  }
  CHECK((p[0] == NULL) != (p[1] == NULL), "two 1 MiB blocks from a 2 MiB pool: %p %p, want exactly one", p[0], p[1]);
  omp_free(p[0], a);
  omp_free(p[1], a);
  void *q = omp_alloc(HALF, a), *r = omp_alloc(HALF, a);
  CHECK(q != NULL && r == NULL, "one thread, two 1 MiB blocks: %p %p, want the first only", q, r);
  omp_free(q, a);
  q = omp_alloc(POOL / 4 * 3, a);
  CHECK(q != NULL, "3/4 of the emptied pool failed");
  omp_free(q, a);
  omp_destroy_allocator(a);
  return conf_end();
}
