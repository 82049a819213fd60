// __kmpc_* reduction entry points. Return protocol: 1 = this thread combines
// into the original variables and then calls the matching end; 2 = every
// thread combines its own copies with atomics (clang's second form, which it
// emits when the location's flags carry kIdentAtomicReduce; it then calls no
// end for nowait); 0 = nothing left to do. 2 is used for nowait only: a
// blocking reduction's tree doubles as its barrier.
#include "abi/abi_types.hpp"
#include "abi/ompt_entry.hpp"
#include "runtime/api.hpp"

using namespace bobbin;
using namespace bobbin::abi;

using reduce_fn = void (*)(void* lhs, void* rhs);

constexpr kmp_int32 kIdentAtomicReduce = 0x10;  // libomp's KMP_IDENT_ATOMIC_REDUCE

BOBBIN_EXPORT kmp_int32 __kmpc_reduce_nowait(ident_t* loc, kmp_int32, kmp_int32, size_t, void* data, reduce_fn fn,
                                             kmp_critical_name*) {
  BOBBIN_TRACED(traced_reduce_begin(data, fn, false, loc && (loc->flags & kIdentAtomicReduce), BOBBIN_RA));
  return rt::reduce_begin(data, fn, false, loc && (loc->flags & kIdentAtomicReduce));
}
BOBBIN_EXPORT void __kmpc_end_reduce_nowait(ident_t*, kmp_int32, kmp_critical_name*) {
  BOBBIN_TRACED(traced_reduce_end(false, BOBBIN_RA));
  rt::reduce_end(false);
}
BOBBIN_EXPORT kmp_int32 __kmpc_reduce(ident_t*, kmp_int32, kmp_int32, size_t, void* data, reduce_fn fn,
                                      kmp_critical_name*) {
  BOBBIN_TRACED(traced_reduce_begin(data, fn, true, false, BOBBIN_RA));
  return rt::reduce_begin(data, fn, true, false);
}
BOBBIN_EXPORT void __kmpc_end_reduce(ident_t*, kmp_int32, kmp_critical_name*) {
  BOBBIN_TRACED(traced_reduce_end(true, BOBBIN_RA));
  rt::reduce_end(true);
}
