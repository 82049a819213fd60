/* omp_init_allocator with every value of every allocator trait (spec 6.2,
 * table 6.2): each allocator gives usable memory, alignment is honoured, and
 * omp_destroy_allocator releases it. Pinned and partitioned memory may be
 * missing on a machine, and an allocator that cannot be made is
 * omp_null_allocator (spec 18.13.2); Bobbin makes them all. Pools and
 * fallbacks: alloc_fallback.c; omp_atv_default, invalid values:
 * alloc_traits_edge.c. */
#include "check.h"

typedef struct {
  omp_alloctrait_key_t key;
  omp_uintptr_t value;
  const char *what;
} trait;

static const trait kTraits[] = {
    {omp_atk_sync_hint, omp_atv_contended, "sync_hint=contended"},
    {omp_atk_sync_hint, omp_atv_uncontended, "sync_hint=uncontended"},
    {omp_atk_sync_hint, omp_atv_serialized, "sync_hint=serialized"},
    {omp_atk_sync_hint, omp_atv_private, "sync_hint=private"},
    {omp_atk_alignment, 1, "alignment=1"},
    {omp_atk_alignment, 64, "alignment=64"},
    {omp_atk_alignment, 8192, "alignment=8192"},
    {omp_atk_access, omp_atv_all, "access=all"},
    {omp_atk_access, omp_atv_cgroup, "access=cgroup"},
    {omp_atk_access, omp_atv_pteam, "access=pteam"},
    {omp_atk_access, omp_atv_thread, "access=thread"},
    {omp_atk_pool_size, 1 << 20, "pool_size=1M"},
    {omp_atk_fallback, omp_atv_default_mem_fb, "fallback=default_mem_fb"},
    {omp_atk_fallback, omp_atv_null_fb, "fallback=null_fb"},
    {omp_atk_fallback, omp_atv_abort_fb, "fallback=abort_fb"},
    {omp_atk_pinned, omp_atv_false, "pinned=false"},
    {omp_atk_pinned, omp_atv_true, "pinned=true"},
    {omp_atk_partition, omp_atv_environment, "partition=environment"},
    {omp_atk_partition, omp_atv_nearest, "partition=nearest"},
    {omp_atk_partition, omp_atv_blocked, "partition=blocked"},
    {omp_atk_partition, omp_atv_interleaved, "partition=interleaved"},
};
#define NTRAITS (int)(sizeof kTraits / sizeof kTraits[0])

/* 256 KiB stays under the usual 8 MiB locked-memory limit for pinned=true. */
#define BYTES (256u << 10)

int main(void) {
  for (int i = 0; i < NTRAITS; i++) {
    omp_alloctrait_t t = {kTraits[i].key, kTraits[i].value};
    omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 1, &t);
    int optional = (kTraits[i].key == omp_atk_pinned && kTraits[i].value == omp_atv_true) ||
                   (kTraits[i].key == omp_atk_partition && kTraits[i].value != omp_atv_environment);
    CHECK(a != omp_null_allocator || (optional && !conf_env_long("CONF_EXPECT_BOBBIN", 0)),
          "omp_init_allocator(%s) returned omp_null_allocator", kTraits[i].what);
    if (a == omp_null_allocator) continue;
    size_t align = kTraits[i].key == omp_atk_alignment ? kTraits[i].value : 1;
    unsigned char *p = omp_alloc(BYTES, a);
    CHECK(p && (uintptr_t)p % align == 0, "%s: omp_alloc gave %p", kTraits[i].what, (void *)p);
    if (p) {
      for (size_t k = 0; k < BYTES; k += 512) p[k] = (unsigned char)k;
      p[BYTES - 1] = 7;
    }
    /* The larger of the trait and the argument (spec 18.13.6). */
    void *q = omp_aligned_alloc(16, 100, a);
    CHECK(q && (uintptr_t)q % (align > 16 ? align : 16) == 0, "%s: omp_aligned_alloc(16) gave %p",
          kTraits[i].what, q);
    int *z = omp_calloc(1000, sizeof(int), a);
    CHECK(z && z[0] == 0 && z[999] == 0, "%s: omp_calloc", kTraits[i].what);
    unsigned char *r = omp_realloc(p, BYTES / 2, a, a);
    CHECK(r && r[512] == (unsigned char)512 && r[BYTES / 2 - 512] == (unsigned char)(BYTES / 2 - 512),
          "%s: omp_realloc lost the contents", kTraits[i].what);
    omp_free(r, a);
    omp_free(q, omp_null_allocator);
    omp_free(z, a);
    omp_destroy_allocator(a);
  }

  /* Several traits at once, used by a team. */
  omp_alloctrait_t many[] = {{omp_atk_sync_hint, omp_atv_contended}, {omp_atk_alignment, 128},
                             {omp_atk_access, omp_atv_all},          {omp_atk_pool_size, 1 << 22},
                             {omp_atk_fallback, omp_atv_null_fb},     {omp_atk_partition, omp_atv_environment}};
  omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 6, many);
  CHECK(a != omp_null_allocator, "omp_init_allocator with six traits failed");
  int ok = 1;
#pragma omp parallel num_threads(4) reduction(&& : ok)
  for (int k = 0; k < 100; k++) {
    double *d = omp_alloc(1000, a);
    ok = ok && d && (uintptr_t)d % 128 == 0;
    if (d) d[124] = k;
    omp_free(d, a);
  }
  CHECK(ok, "a shared allocator with six traits failed in a team");
  omp_destroy_allocator(a);
  omp_destroy_allocator(omp_null_allocator); /* allowed, no effect */
  return conf_end();
}
