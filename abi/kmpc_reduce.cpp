// __kmpc_* reduction entry points. Return protocol: 1 = this thread combines
// into the original variables and then calls the matching end; 2 = combine
// with atomics (never returned: the runtime always combines in a tree);
// 0 = nothing left to do.
#include "abi/abi_types.hpp"
#include "runtime/api.hpp"

using namespace bobbin;
using namespace bobbin::abi;

using reduce_fn = void (*)(void* lhs, void* rhs);

BOBBIN_EXPORT kmp_int32 __kmpc_reduce_nowait(ident_t*, kmp_int32, kmp_int32, size_t, void* data, reduce_fn fn,
                                             kmp_critical_name*) {
  return rt::reduce_begin(data, fn, false) ? 1 : 0;
}
BOBBIN_EXPORT void __kmpc_end_reduce_nowait(ident_t*, kmp_int32, kmp_critical_name*) { rt::reduce_end(false); }
BOBBIN_EXPORT kmp_int32 __kmpc_reduce(ident_t*, kmp_int32, kmp_int32, size_t, void* data, reduce_fn fn,
                                      kmp_critical_name*) {
  return rt::reduce_begin(data, fn, true) ? 1 : 0;
}
BOBBIN_EXPORT void __kmpc_end_reduce(ident_t*, kmp_int32, kmp_critical_name*) { rt::reduce_end(true); }
