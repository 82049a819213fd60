// Memory allocation entry points: the omp_* API (omp.h), what clang emits for
// the allocate directive and clause (__kmpc_alloc ... __kmpc_free, with the
// same arguments after a gtid), and libomp's kmp_malloc family. Each calls
// runtime/alloc.cpp through api.hpp.
#include "abi/abi_types.hpp"
#include "omp.h"
#include "runtime/api.hpp"

using namespace bobbin;

static_assert(sizeof(omp_alloctrait_t) == sizeof(rt::AllocTrait) &&
                  offsetof(omp_alloctrait_t, value) == offsetof(rt::AllocTrait, value),
              "omp_alloctrait_t layout");

namespace {
const rt::AllocTrait* traits_of(const omp_alloctrait_t* t) { return reinterpret_cast<const rt::AllocTrait*>(t); }
}  // namespace

// The handles as data, as libomp exports them (omp.h makes them enumerators
// in C and C++, but other languages' bindings read the symbols).
#define BOBBIN_HANDLE(name) BOBBIN_EXPORT const omp_uintptr_t bobbin_handle_##name __asm__(#name) = name;
BOBBIN_HANDLE(omp_null_allocator)
BOBBIN_HANDLE(omp_default_mem_alloc)
BOBBIN_HANDLE(omp_large_cap_mem_alloc)
BOBBIN_HANDLE(omp_const_mem_alloc)
BOBBIN_HANDLE(omp_high_bw_mem_alloc)
BOBBIN_HANDLE(omp_low_lat_mem_alloc)
BOBBIN_HANDLE(omp_cgroup_mem_alloc)
BOBBIN_HANDLE(omp_pteam_mem_alloc)
BOBBIN_HANDLE(omp_thread_mem_alloc)
BOBBIN_HANDLE(omp_default_mem_space)
BOBBIN_HANDLE(omp_large_cap_mem_space)
BOBBIN_HANDLE(omp_const_mem_space)
BOBBIN_HANDLE(omp_high_bw_mem_space)
BOBBIN_HANDLE(omp_low_lat_mem_space)
#undef BOBBIN_HANDLE

BOBBIN_EXPORT omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t m, int ntraits, omp_alloctrait_t traits[]) {
  return omp_allocator_handle_t(rt::init_allocator(m, ntraits, traits_of(traits)));
}
BOBBIN_EXPORT void omp_destroy_allocator(omp_allocator_handle_t a) { rt::destroy_allocator(a); }
BOBBIN_EXPORT void omp_set_default_allocator(omp_allocator_handle_t a) { rt::set_default_allocator(a); }
BOBBIN_EXPORT omp_allocator_handle_t omp_get_default_allocator(void) {
  return omp_allocator_handle_t(rt::default_allocator());
}
BOBBIN_EXPORT void* omp_alloc(size_t size, omp_allocator_handle_t a) { return rt::mem_alloc(size, 0, a); }
BOBBIN_EXPORT void* omp_aligned_alloc(size_t align, size_t size, omp_allocator_handle_t a) {
  return rt::mem_alloc(size, align, a);
}
BOBBIN_EXPORT void* omp_calloc(size_t n, size_t size, omp_allocator_handle_t a) { return rt::mem_calloc(n, size, 0, a); }
BOBBIN_EXPORT void* omp_aligned_calloc(size_t align, size_t n, size_t size, omp_allocator_handle_t a) {
  return rt::mem_calloc(n, size, align, a);
}
BOBBIN_EXPORT void* omp_realloc(void* p, size_t size, omp_allocator_handle_t a, omp_allocator_handle_t free_a) {
  return rt::mem_realloc(p, size, a, free_a);
}
BOBBIN_EXPORT void omp_free(void* p, omp_allocator_handle_t) { rt::mem_free(p); }

// ---- clang: allocate directive and clause -----------------------------------

using abi::kmp_int32;

BOBBIN_EXPORT omp_allocator_handle_t __kmpc_init_allocator(kmp_int32, omp_memspace_handle_t m, int ntraits,
                                                           omp_alloctrait_t traits[]) {
  return omp_allocator_handle_t(rt::init_allocator(m, ntraits, traits_of(traits)));
}
BOBBIN_EXPORT void __kmpc_destroy_allocator(kmp_int32, omp_allocator_handle_t a) { rt::destroy_allocator(a); }
BOBBIN_EXPORT void __kmpc_set_default_allocator(kmp_int32, omp_allocator_handle_t a) { rt::set_default_allocator(a); }
BOBBIN_EXPORT omp_allocator_handle_t __kmpc_get_default_allocator(kmp_int32) {
  return omp_allocator_handle_t(rt::default_allocator());
}
BOBBIN_EXPORT void* __kmpc_alloc(kmp_int32, size_t size, omp_allocator_handle_t a) { return rt::mem_alloc(size, 0, a); }
BOBBIN_EXPORT void* __kmpc_aligned_alloc(kmp_int32, size_t align, size_t size, omp_allocator_handle_t a) {
  return rt::mem_alloc(size, align, a);
}
BOBBIN_EXPORT void* __kmpc_calloc(kmp_int32, size_t n, size_t size, omp_allocator_handle_t a) {
  return rt::mem_calloc(n, size, 0, a);
}
BOBBIN_EXPORT void* __kmpc_realloc(kmp_int32, void* p, size_t size, omp_allocator_handle_t a,
                                   omp_allocator_handle_t free_a) {
  return rt::mem_realloc(p, size, a, free_a);
}
BOBBIN_EXPORT void __kmpc_free(kmp_int32, void* p, omp_allocator_handle_t) { rt::mem_free(p); }

// ---- libomp's kmp_malloc family: malloc-like, from omp_default_mem_alloc ----

BOBBIN_EXPORT void* kmp_malloc(size_t size) { return rt::mem_alloc(size, 0, omp_default_mem_alloc); }
BOBBIN_EXPORT void* kmp_aligned_malloc(size_t size, size_t align) { return rt::mem_aligned_malloc(size, align); }
BOBBIN_EXPORT void* kmp_calloc(size_t n, size_t size) { return rt::mem_calloc(n, size, 0, omp_default_mem_alloc); }
BOBBIN_EXPORT void* kmp_realloc(void* p, size_t size) {
  return rt::mem_realloc(p, size, omp_default_mem_alloc, omp_null_allocator);
}
BOBBIN_EXPORT void kmp_free(void* p) { rt::mem_free(p); }
BOBBIN_EXPORT void* kmpc_malloc(size_t size) { return rt::mem_alloc(size, 0, omp_default_mem_alloc); }
BOBBIN_EXPORT void* kmpc_aligned_malloc(size_t size, size_t align) { return rt::mem_aligned_malloc(size, align); }
BOBBIN_EXPORT void* kmpc_calloc(size_t n, size_t size) { return rt::mem_calloc(n, size, 0, omp_default_mem_alloc); }
BOBBIN_EXPORT void* kmpc_realloc(void* p, size_t size) {
  return rt::mem_realloc(p, size, omp_default_mem_alloc, omp_null_allocator);
}
BOBBIN_EXPORT void kmpc_free(void* p) { rt::mem_free(p); }
