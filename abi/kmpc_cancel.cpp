// __kmpc_* cancellation entry points. cncl_kind: 1 parallel, 2 loop,
// 3 sections, 4 taskgroup (kmp.h's cancel_kind_t), as the runtime takes them.
#include "abi/abi_types.hpp"
#include "abi/ompt_entry.hpp"
#include "runtime/api.hpp"

using namespace bobbin;
using namespace bobbin::abi;

BOBBIN_EXPORT kmp_int32 __kmpc_cancel(ident_t*, kmp_int32, kmp_int32 kind) {
  BOBBIN_TRACED(traced_cancel(kind, BOBBIN_RA));
  return rt::cancel(kind);
}
BOBBIN_EXPORT kmp_int32 __kmpc_cancellationpoint(ident_t*, kmp_int32, kmp_int32 kind) {
  BOBBIN_TRACED(traced_cancellation_point(kind, BOBBIN_RA));
  return rt::cancellation_point(kind);
}
BOBBIN_EXPORT kmp_int32 __kmpc_cancel_barrier(ident_t* loc, kmp_int32) {
  BOBBIN_OMPT_ENTRY;
  // The ident's barrier bits (libomp's KMP_IDENT_BARRIER_*): explicit, or implicit.
  BOBBIN_TRACED(traced_cancel_barrier(loc && (loc->flags & 0x1E0) == 0x20 ? ompt_sync_region_barrier_explicit
                                                                          : rt::ompt::kImplicitBarrier,
                                      rt::ompt::return_address()));
  return rt::cancel_barrier();
}
