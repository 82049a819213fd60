/* OMP_ALLOCATOR sets the initial def-allocator-var (spec 21.5.1): a
 * predefined allocator by name, or a predefined memory space with traits,
 * which gives a new allocator with those traits. omp_alloc with
 * omp_null_allocator uses it, and a team inherits it. An invalid value
 * leaves omp_default_mem_alloc. Expectations (CONF_EXPECT_*): HANDLE, the
 * predefined handle (0: an allocator made from a memory space); ALIGN, the
 * alignment trait; POOL, a pool_size with the null_fb fallback. */
#include "check.h"

int main(void) {
  long want = conf_env_long("CONF_EXPECT_HANDLE", 1);
  long align = conf_env_long("CONF_EXPECT_ALIGN", 1);
  long pool = conf_env_long("CONF_EXPECT_POOL", 0);
  omp_allocator_handle_t a = omp_get_default_allocator();
  if (want > 0) {
    CHECK_EQ("omp_get_default_allocator()", a, want);
  } else {
    CHECK(a != omp_null_allocator && (a < omp_default_mem_alloc || a > omp_thread_mem_alloc),
          "omp_get_default_allocator() is %#lx, not an allocator made from OMP_ALLOCATOR's traits",
          (unsigned long)a);
  }

  char *p = omp_alloc(100, omp_null_allocator);
  CHECK(p != NULL && (uintptr_t)p % (uintptr_t)align == 0, "omp_alloc(100, omp_null_allocator) gave %p, want %ld-aligned",
        (void *)p, align);
  omp_free(p, omp_null_allocator);

  int same = 1;
#pragma omp parallel num_threads(3) reduction(&& : same)
  same = omp_get_default_allocator() == a;
  CHECK(same, "a team's threads did not inherit def-allocator-var");

  if (pool > 0) {
    /* 5/8 of the pool fits once, not twice. */
    size_t part = (size_t)pool / 8 * 5;
    void *x = omp_alloc(part, omp_null_allocator);
    CHECK(x != NULL, "the first %zu bytes of OMP_ALLOCATOR's %ld-byte pool failed", part, pool);
    CHECK(omp_alloc(part, omp_null_allocator) == NULL, "OMP_ALLOCATOR's pool_size=%ld gave 2 x %zu bytes", pool, part);
    omp_free(x, omp_null_allocator);
  }
  return conf_end();
}
