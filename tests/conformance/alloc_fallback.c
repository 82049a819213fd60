/* pool_size and the fallback trait (spec 6.2): an allocation that would take
 * the pool past pool_size fails, and then null_fb returns NULL,
 * default_mem_fb allocates from default memory, allocator_fb tries the
 * fb_data allocator (with its own pool and fallback). Freed blocks return to
 * the pool, and a team never overdraws a shared pool. abort_fb:
 * alloc_abort.c. The pool counts at least the bytes asked for, maybe more
 * (headers), so the sizes leave room for either. */
#include "check.h"

#define POOL 4096
#define BIG 3000 /* two never fit in one pool */

static omp_allocator_handle_t pool_allocator(omp_uintptr_t fallback, omp_allocator_handle_t fb) {
  omp_alloctrait_t t[] = {{omp_atk_pool_size, POOL}, {omp_atk_fallback, fallback}, {omp_atk_fb_data, fb}};
  omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, fb ? 3 : 2, t);
  CHECK(a != omp_null_allocator, "omp_init_allocator(pool_size=%d, fallback=%d) failed", POOL, (int)fallback);
  return a;
}

int main(void) {
  /* null_fb: NULL once the pool is spent; freeing refills it. */
  omp_allocator_handle_t nul = pool_allocator(omp_atv_null_fb, 0);
  char *a1 = omp_alloc(BIG, nul);
  CHECK(a1 != NULL, "null_fb: the first %d bytes of a %d-byte pool failed", BIG, POOL);
  CHECK(omp_alloc(BIG, nul) == NULL, "null_fb: a pool of %d bytes gave 2 x %d bytes", POOL, BIG);
  CHECK(omp_alloc(POOL + 1, nul) == NULL, "null_fb: more than pool_size in one block");
  CHECK(omp_calloc(BIG, 1, nul) == NULL, "null_fb: omp_calloc past the pool");
  CHECK(omp_realloc(a1, POOL * 2, nul, nul) == NULL, "null_fb: omp_realloc past the pool");
  if (a1) a1[BIG - 1] = 'x'; /* a failed omp_realloc leaves the block alone */
  omp_free(a1, nul);
  char *a2 = omp_alloc(BIG, nul);
  CHECK(a2 != NULL, "null_fb: a freed block did not return to the pool");
  omp_free(a2, omp_null_allocator);

  /* default_mem_fb: default memory instead, which omp_free also takes back. */
  omp_allocator_handle_t dfl = pool_allocator(omp_atv_default_mem_fb, 0);
  char *b1 = omp_alloc(BIG, dfl), *b2 = omp_alloc(BIG, dfl), *b3 = omp_alloc(1 << 20, dfl);
  CHECK(b1 && b2 && b3, "default_mem_fb: got %p %p %p past the pool", (void *)b1, (void *)b2, (void *)b3);
  if (b3) memset(b3, 3, 1 << 20);
  omp_free(b2, omp_null_allocator);
  omp_free(b3, dfl);
  omp_free(b1, dfl);

  /* allocator_fb: the fb_data allocator, then that one's fallback. */
  omp_allocator_handle_t second = pool_allocator(omp_atv_null_fb, 0);
  omp_allocator_handle_t first = pool_allocator(omp_atv_allocator_fb, second);
  char *c1 = omp_alloc(BIG, first), *c2 = omp_alloc(BIG, first);
  CHECK(c1 && c2, "allocator_fb: the second block did not come from fb_data (%p %p)", (void *)c1, (void *)c2);
  CHECK(omp_alloc(BIG, first) == NULL, "allocator_fb: both pools spent, but an allocation succeeded");
  CHECK(omp_alloc(BIG, second) == NULL, "allocator_fb: the fb_data pool was not charged");
  omp_free(c2, omp_null_allocator); /* back to `second` */
  char *c3 = omp_alloc(BIG, second);
  CHECK(c3 != NULL, "allocator_fb: freeing a fallback block did not refill the fb_data pool");
  omp_free(c3, second);
  omp_free(c1, first);

  /* A chain ending in default_mem_fb never fails. */
  omp_allocator_handle_t last = pool_allocator(omp_atv_default_mem_fb, 0);
  omp_allocator_handle_t head = pool_allocator(omp_atv_allocator_fb, last);
  void *d[4];
  for (int i = 0; i < 4; i++) d[i] = omp_alloc(BIG, head);
  CHECK(d[0] && d[1] && d[2] && d[3], "allocator_fb then default_mem_fb returned NULL");
  for (int i = 0; i < 4; i++) omp_free(d[i], omp_null_allocator);

  /* A team shares one pool and never takes more than pool_size from it. */
  omp_alloctrait_t shared_t[] = {{omp_atk_pool_size, 64 << 10}, {omp_atk_fallback, omp_atv_null_fb}};
  omp_allocator_handle_t shared = omp_init_allocator(omp_default_mem_space, 2, shared_t);
  int total = 0;
  void *got[4][128];
  int n[4] = {0, 0, 0, 0};
#pragma omp parallel num_threads(4) reduction(+ : total)
  {
    int t = omp_get_thread_num();
    while (n[t] < 128 && (got[t][n[t]] = omp_alloc(1024, shared)) != NULL) n[t]++;
    total = n[t];
#pragma omp barrier
    for (int i = 0; i < n[t]; i++) omp_free(got[t][i], shared);
  }
  CHECK(total >= 1 && total <= 64, "a team got %d blocks of 1 KiB from a 64 KiB pool", total);
  void *whole = omp_alloc(60 << 10, shared);
  CHECK(whole != NULL, "after the team freed its blocks, 60 KiB of the 64 KiB pool were not available");
  omp_free(whole, shared);
  omp_destroy_allocator(shared);
  omp_destroy_allocator(head);
  omp_destroy_allocator(last);
  omp_destroy_allocator(first);
  omp_destroy_allocator(second);
  omp_destroy_allocator(dfl);
  omp_destroy_allocator(nul);
  return conf_end();
}
