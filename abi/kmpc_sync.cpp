// __kmpc_* entry points for barriers, single, master/masked, critical,
// flush, copyprivate and threadprivate.
#include <atomic>

#include "abi/abi_types.hpp"
#include "runtime/api.hpp"

using namespace bobbin;
using namespace bobbin::abi;

BOBBIN_EXPORT void __kmpc_barrier(ident_t*, kmp_int32) { rt::barrier(); }
BOBBIN_EXPORT kmp_int32 __kmpc_single(ident_t*, kmp_int32) { return rt::single_begin(); }
BOBBIN_EXPORT void __kmpc_end_single(ident_t*, kmp_int32) { rt::single_end(); }
BOBBIN_EXPORT kmp_int32 __kmpc_master(ident_t*, kmp_int32) { return rt::masked_begin(0); }
BOBBIN_EXPORT void __kmpc_end_master(ident_t*, kmp_int32) {}
BOBBIN_EXPORT kmp_int32 __kmpc_masked(ident_t*, kmp_int32, kmp_int32 filter) { return rt::masked_begin(filter); }
BOBBIN_EXPORT void __kmpc_end_masked(ident_t*, kmp_int32) {}

BOBBIN_EXPORT void __kmpc_critical(ident_t*, kmp_int32, kmp_critical_name* crit) { rt::lock_set_inline(crit); }
BOBBIN_EXPORT void __kmpc_critical_with_hint(ident_t*, kmp_int32, kmp_critical_name* crit, kmp_uint32) {
  rt::critical_begin(crit);
}
BOBBIN_EXPORT void __kmpc_end_critical(ident_t*, kmp_int32, kmp_critical_name* crit) { rt::lock_unset_inline(crit); }

BOBBIN_EXPORT void __kmpc_flush(ident_t*) { std::atomic_thread_fence(std::memory_order_seq_cst); }

BOBBIN_EXPORT void __kmpc_copyprivate(ident_t*, kmp_int32, size_t, void* data, void (*copy)(void*, void*),
                                      kmp_int32 didit) {
  rt::copyprivate(data, copy, didit != 0);
}

BOBBIN_EXPORT void* __kmpc_threadprivate_cached(ident_t*, kmp_int32, void* data, size_t size, void*** cache) {
  return rt::threadprivate_cached(data, size, cache);
}
BOBBIN_EXPORT void __kmpc_threadprivate_register(ident_t*, void* data, void* (*ctor)(void*),
                                                 void* (*cctor)(void*, void*), void (*dtor)(void*)) {
  rt::threadprivate_register(data, ctor, cctor, dtor);
}
