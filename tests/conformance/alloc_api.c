/* omp_alloc, omp_aligned_alloc, omp_calloc, omp_aligned_calloc, omp_realloc
 * and omp_free (spec 18.13), omp_free with omp_null_allocator, and
 * def-allocator-var: its initial value, that omp_null_allocator means it, and
 * that it is an ICV of each task. alloc_predefined.c has the two predefined
 * allocators stock libomp 14 gets wrong (large_cap, high_bw). */
#include "check.h"

static const omp_allocator_handle_t kPredefined[] = {omp_default_mem_alloc, omp_const_mem_alloc,
                                                     omp_low_lat_mem_alloc, omp_cgroup_mem_alloc,
                                                     omp_pteam_mem_alloc,   omp_thread_mem_alloc};
#define NPRE (int)(sizeof kPredefined / sizeof kPredefined[0])

static int all_bytes(const unsigned char *p, size_t n, unsigned char v) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != v) return 0;
  return 1;
}

int main(void) {
  for (int i = 0; i < NPRE; i++) {
    omp_allocator_handle_t a = kPredefined[i];
    unsigned char *p = omp_alloc(1000, a);
    CHECK(p != NULL, "omp_alloc(1000, predefined allocator %d) returned NULL", (int)a);
    if (p) memset(p, 0xab, 1000);
    for (size_t align = 1; align <= 8192; align *= 2) {
      void *q = omp_aligned_alloc(align, 24, a);
      CHECK(q && (uintptr_t)q % align == 0, "omp_aligned_alloc(%zu) with allocator %d gave %p", align, (int)a, q);
      omp_free(q, align % 4 ? a : omp_null_allocator);
    }
    unsigned char *z = omp_calloc(100, 10, a);
    CHECK(z && all_bytes(z, 1000, 0), "omp_calloc with allocator %d: not zeroed", (int)a);
    unsigned char *az = omp_aligned_calloc(512, 33, 3, a);
    CHECK(az && (uintptr_t)az % 512 == 0 && all_bytes(az, 99, 0), "omp_aligned_calloc(512) with allocator %d", (int)a);
    omp_free(az, a);
    CHECK(p && all_bytes(p, 1000, 0xab), "allocator %d: a block changed under other allocations", (int)a);
    omp_free(p, i % 2 ? a : omp_null_allocator); /* the allocator, or let the runtime find it */
    omp_free(z, omp_null_allocator);
  }
  omp_free(NULL, omp_default_mem_alloc); /* no effect */

  /* Zero bytes: a null pointer (spec 18.13.6, 18.13.8). */
  CHECK(omp_alloc(0, omp_default_mem_alloc) == NULL, "omp_alloc(0) is not NULL");
  CHECK(omp_calloc(0, 8, omp_default_mem_alloc) == NULL, "omp_calloc(0, 8) is not NULL");
  CHECK(omp_calloc(8, 0, omp_default_mem_alloc) == NULL, "omp_calloc(8, 0) is not NULL");

  /* omp_realloc: NULL is omp_alloc, contents kept up to the smaller size, 0 frees. */
  char *r = omp_realloc(NULL, 16, omp_default_mem_alloc, omp_null_allocator);
  CHECK(r != NULL, "omp_realloc(NULL, 16) returned NULL");
  if (r) {
    strcpy(r, "fifteen chars!!");
    r = omp_realloc(r, 100000, omp_null_allocator, omp_null_allocator);
    CHECK(r && strcmp(r, "fifteen chars!!") == 0, "omp_realloc lost the contents when growing");
    r = omp_realloc(r, 8, omp_low_lat_mem_alloc, omp_default_mem_alloc);
    CHECK(r && memcmp(r, "fifteen ", 8) == 0, "omp_realloc to another allocator lost the contents");
    CHECK(omp_realloc(r, 0, omp_null_allocator, omp_null_allocator) == NULL, "omp_realloc(p, 0) is not NULL");
  }

  /* def-allocator-var: omp_default_mem_alloc unless OMP_ALLOCATOR says otherwise. */
  CHECK_EQ("initial omp_get_default_allocator()", omp_get_default_allocator(), omp_default_mem_alloc);
  omp_alloctrait_t page_aligned = {omp_atk_alignment, 4096};
  omp_allocator_handle_t big = omp_init_allocator(omp_default_mem_space, 1, &page_aligned);
  CHECK(big != omp_null_allocator, "omp_init_allocator(alignment=4096) failed");
  omp_set_default_allocator(big);
  CHECK(omp_get_default_allocator() == big, "omp_set_default_allocator did not take");
  void *d = omp_alloc(10, omp_null_allocator);
  CHECK(d && (uintptr_t)d % 4096 == 0, "omp_alloc(omp_null_allocator) did not use def-allocator-var: %p", d);
  omp_free(d, omp_null_allocator);

  /* An ICV of each task: inherited by the implicit tasks, a change stays in its task. */
  int inherited = 1;
#pragma omp parallel num_threads(4) reduction(&& : inherited)
  {
    inherited = omp_get_default_allocator() == big;
    omp_set_default_allocator(kPredefined[omp_get_thread_num()]);
    void *x = omp_alloc(64, omp_null_allocator);
    inherited = inherited && x && omp_get_default_allocator() == kPredefined[omp_get_thread_num()];
    omp_free(x, omp_null_allocator);
  }
  CHECK(inherited, "the threads of a region did not start with their parent's def-allocator-var");
  CHECK(omp_get_default_allocator() == big, "a region's omp_set_default_allocator leaked out of it");
  omp_set_default_allocator(omp_default_mem_alloc);
  omp_destroy_allocator(big);

  /* Many threads at once, blocks freed by other threads than their allocators'. */
  void *blocks[4][64];
#pragma omp parallel num_threads(4)
  {
    int t = omp_get_thread_num();
    for (int i = 0; i < 64; i++) blocks[t][i] = omp_alloc((size_t)(i + 1) * 48, kPredefined[(t + i) % NPRE]);
    for (int i = 0; i < 64; i++) CHECK(blocks[t][i] != NULL, "thread %d: omp_alloc returned NULL", t);
#pragma omp barrier
    for (int i = 0; i < 64; i++) omp_free(blocks[(t + 1) % 4][i], omp_null_allocator);
  }
  return conf_end();
}
