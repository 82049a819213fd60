// __kmpc_* entry points for worksharing loops, ordered and doacross.
#include <type_traits>
#include <vector>

#include "abi/abi_types.hpp"
#include "abi/ompt_entry.hpp"
#include "runtime/api.hpp"

using namespace bobbin;
using namespace bobbin::abi;

namespace {

template <class T>
rt::LoopBounds bounds(T lower, T upper, int64_t incr) {
  return rt::LoopBounds{int64_t(lower), int64_t(upper), incr, std::is_unsigned_v<T>, int(sizeof(T))};
}

rt::LoopKind loop_kind(kmp_int32 sched, bool* ordered) {
  DecodedSchedule d = decode_schedule(sched);
  if (!d.known) rt::unsupported("this loop schedule kind");
  if (ordered) *ordered = d.ordered;
  return d.kind;
}

// What a statically scheduled construct is to a tool, from the ident's
// KMP_IDENT_WORK_* bits: clang lowers sections and distribute to the same call.
ompt_work_t static_work_kind(const ident_t* loc) {
  if (loc && (loc->flags & 0x400)) return ompt_work_sections;
  if (loc && (loc->flags & 0x800)) return ompt_work_distribute;
  return ompt_work_loop;
}

template <class T, class ST>
void static_init(kmp_int32 sched, kmp_int32* plast, T* plower, T* pupper, ST* pstride, ST incr, ST chunk) {
  rt::StaticPart p = rt::static_part(loop_kind(sched, nullptr), int64_t(chunk), bounds(*plower, *pupper, int64_t(incr)));
  *plower = T(p.lower);
  *pupper = T(p.upper);
  *pstride = ST(p.stride);
  if (plast) *plast = p.last;
}

template <class T, class ST>
void dispatch_init(kmp_int32 sched, T lb, T ub, ST st, ST chunk) {
  bool ordered = false;
  rt::LoopKind kind = loop_kind(sched, &ordered);
  rt::dispatch_init(kind, ordered, int64_t(chunk), bounds(lb, ub, int64_t(st)));
}

template <class T, class ST>
int dispatch_next(kmp_int32* plast, T* plb, T* pub, ST* pst, const void* ra) {
  int64_t lo, hi, st;
  bool last;
  if (!rt::dispatch_next(&lo, &hi, &st, &last)) {
    if (rt::ompt::on()) [[unlikely]] rt::ompt::work_here(ompt_work_loop, ompt_scope_end, 0, ra);
    return 0;
  }
  if (rt::ompt::on()) [[unlikely]] rt::ompt::dispatch_chunk_here(lo);
  *plb = T(lo);
  *pub = T(hi);
  if (pst) *pst = ST(st);
  if (plast) *plast = last;
  return 1;
}

}  // namespace

#define BOBBIN_LOOP_ENTRIES(SUFFIX, T, ST)                                                                        \
  BOBBIN_EXPORT void __kmpc_for_static_init_##SUFFIX(ident_t* loc, kmp_int32, kmp_int32 sched, kmp_int32* plast, \
                                                     T* plower, T* pupper, ST* pstride, ST incr, ST chunk) {     \
    if (rt::ompt::on()) [[unlikely]]                                                                             \
      rt::ompt::work_here(static_work_kind(loc), ompt_scope_begin, rt::loop_trip_count(bounds(*plower, *pupper, int64_t(incr))), BOBBIN_RA); \
    static_init<T, ST>(sched, plast, plower, pupper, pstride, incr, chunk);                                      \
  }                                                                                                              \
  BOBBIN_EXPORT void __kmpc_dispatch_init_##SUFFIX(ident_t*, kmp_int32, kmp_int32 sched, T lb, T ub, ST st,      \
                                                   ST chunk) {                                                   \
    if (rt::ompt::on()) [[unlikely]]                                                                             \
      rt::ompt::work_here(ompt_work_loop, ompt_scope_begin, rt::loop_trip_count(bounds(lb, ub, int64_t(st))), BOBBIN_RA);                  \
    dispatch_init<T, ST>(sched, lb, ub, st, chunk);                                                              \
  }                                                                                                              \
  BOBBIN_EXPORT int __kmpc_dispatch_next_##SUFFIX(ident_t*, kmp_int32, kmp_int32* plast, T* plb, T* pub,         \
                                                  ST* pst) {                                                     \
    return dispatch_next<T, ST>(plast, plb, pub, pst, BOBBIN_RA);                                                \
  }                                                                                                              \
  BOBBIN_EXPORT void __kmpc_dispatch_fini_##SUFFIX(ident_t*, kmp_int32) { rt::dispatch_iteration_done(); }

BOBBIN_LOOP_ENTRIES(4, kmp_int32, kmp_int32)
BOBBIN_LOOP_ENTRIES(4u, kmp_uint32, kmp_int32)
BOBBIN_LOOP_ENTRIES(8, kmp_int64, kmp_int64)
BOBBIN_LOOP_ENTRIES(8u, kmp_uint64, kmp_int64)

BOBBIN_EXPORT void __kmpc_for_static_fini(ident_t* loc, kmp_int32) {
  if (rt::ompt::on()) [[unlikely]] rt::ompt::work_here(static_work_kind(loc), ompt_scope_end, 0, BOBBIN_RA);
}
BOBBIN_EXPORT void __kmpc_ordered(ident_t*, kmp_int32) {
  BOBBIN_TRACED(traced_ordered_begin(BOBBIN_RA));
  rt::ordered_begin();
}
BOBBIN_EXPORT void __kmpc_end_ordered(ident_t*, kmp_int32) {
  BOBBIN_TRACED(traced_ordered_end(BOBBIN_RA));
  rt::ordered_end();
}

BOBBIN_EXPORT void __kmpc_doacross_init(ident_t*, kmp_int32, kmp_int32 num_dims, const kmp_dim* dims) {
  std::vector<rt::DoacrossDim> d(std::size_t(num_dims > 0 ? num_dims : 0));
  for (int i = 0; i < num_dims; ++i) d[std::size_t(i)] = {dims[i].lo, dims[i].up, dims[i].st};
  rt::doacross_init(num_dims, d.data());
  if (rt::ompt::on()) [[unlikely]] rt::ompt::doacross_start(num_dims);
}
BOBBIN_EXPORT void __kmpc_doacross_wait(ident_t*, kmp_int32, const kmp_int64* vec) {
  rt::doacross_wait(vec);
}
BOBBIN_EXPORT void __kmpc_doacross_post(ident_t*, kmp_int32, const kmp_int64* vec) {
  if (rt::ompt::on()) [[unlikely]] rt::ompt::doacross_dependence(true, vec);
  rt::doacross_post(vec);
}
BOBBIN_EXPORT void __kmpc_doacross_fini(ident_t*, kmp_int32) { rt::doacross_fini(); }

// sections as LLVM 19's runtime offers them: every thread asks for section
// numbers 0 .. n-1 until it gets n. The construct's barrier is a separate call.
// sections_init returns 1 ("active"): the asks work in a team of one as well.
BOBBIN_EXPORT kmp_int32 __kmpc_sections_init(ident_t*, kmp_int32) { return 1; }
BOBBIN_EXPORT kmp_int32 __kmpc_next_section(ident_t*, kmp_int32, kmp_int32 n) {
  return kmp_int32(rt::section_next(n));
}
BOBBIN_EXPORT void __kmpc_end_sections(ident_t*, kmp_int32) { rt::workshare_end(rt::WorkshareWait::None); }

// LLVM 19 frees a dispatched loop's buffer here; a thread has left Bobbin's
// loop when dispatch_next said so, and nothing is left to free.
BOBBIN_EXPORT void __kmpc_dispatch_deinit(ident_t*, kmp_int32) {}
