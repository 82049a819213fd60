// GOMP_* entry points for worksharing loops (long and unsigned long long),
// sections, ordered and doacross. gcc's loops are [start, end) with the
// chunks handed back the same way; gomp_types.hpp translates. Every schedule
// goes through the runtime's dispatcher: gcc computes plain static schedules
// itself and calls here only for the others (and for static with ordered).
#include <cstdarg>

#include "abi/gomp_types.hpp"
#include "runtime/api.hpp"

using namespace bobbin;
using namespace bobbin::abi::gomp;

namespace {

template <class T>
bool begin(rt::WorkshareStart& w, T* istart, T* iend) {
  int64_t lo, hi, st;
  bool last;
  if (!rt::workshare_begin(w, &lo, &hi, &st, &last)) return false;
  return chunk_out(lo, hi, st, istart, iend);
}

template <class T>
bool next(T* istart, T* iend) {
  int64_t lo, hi, st;
  bool last;
  return rt::dispatch_next(&lo, &hi, &st, &last) && chunk_out(lo, hi, st, istart, iend);
}

template <class T>
bool next_ordered(T* istart, T* iend) {
  int64_t lo, hi, st;
  bool last;
  return rt::dispatch_next_ordered(&lo, &hi, &st, &last) && chunk_out(lo, hi, st, istart, iend);
}

rt::WorkshareStart loop(rt::LoopKind kind, bool ordered, int64_t chunk, const rt::LoopBounds& b) {
  rt::WorkshareStart w;
  w.kind = kind;
  w.ordered = ordered;
  w.chunk = chunk;
  w.bounds = b;
  return w;
}

// GOMP_loop{,_ordered,_doacross}_start (GCC 9+): the schedule as an argument,
// task reductions of the construct, and `mem`: in, a size; out, a
// zero-filled block of that size the team shares for the construct. A null
// istart asks for the block only (scan reductions).
template <class T>
bool begin_general(rt::WorkshareStart& w, T* istart, T* iend, uintptr_t* reductions, void** mem) {
  Reductions red(reductions);
  w.reductions = red.blocks();
  w.nreductions = red.size();
  if (mem) w.scratch_size = uintptr_t(*mem) ? uintptr_t(*mem) : 1;
  w.loop = istart != nullptr;
  int64_t lo = 0, hi = 0, st = 1;
  bool last;
  bool got = rt::workshare_begin(w, &lo, &hi, &st, &last);
  if (reductions) red.write_back(nullptr);  // the storage; workshare_reductions_end releases it
  if (mem) *mem = w.scratch;
  if (!istart) return true;
  return got && chunk_out(lo, hi, st, istart, iend);
}

template <class T>
int64_t next_vararg(void* ctx) {
  return int64_t(va_arg(*static_cast<va_list*>(ctx), T));
}

}  // namespace

// ---- long loops -------------------------------------------------------------------

#define BOBBIN_GOMP_LOOP(NAME, KIND, ORDERED)                                                                       \
  BOBBIN_EXPORT bool GOMP_loop_##NAME##_start(long start, long end, long incr, long chunk, long* istart,           \
                                              long* iend) {                                                       \
    rt::WorkshareStart w = loop(KIND, ORDERED, chunk, open_bounds(start, end, incr));                             \
    return begin(w, istart, iend);                                                                                 \
  }
#define BOBBIN_GOMP_LOOP_RUNTIME(NAME, ORDERED)                                                                     \
  BOBBIN_EXPORT bool GOMP_loop_##NAME##_start(long start, long end, long incr, long* istart, long* iend) {        \
    rt::WorkshareStart w = loop(rt::LoopKind::Runtime, ORDERED, 0, open_bounds(start, end, incr));                 \
    return begin(w, istart, iend);                                                                                 \
  }
#define BOBBIN_GOMP_NEXT(NAME, FN) \
  BOBBIN_EXPORT bool GOMP_loop_##NAME##_next(long* istart, long* iend) { return FN(istart, iend); }

BOBBIN_GOMP_LOOP(static, chunk > 0 ? rt::LoopKind::StaticChunked : rt::LoopKind::Static, false)
BOBBIN_GOMP_LOOP(dynamic, rt::LoopKind::Dynamic, false)
BOBBIN_GOMP_LOOP(guided, rt::LoopKind::Guided, false)
BOBBIN_GOMP_LOOP(nonmonotonic_dynamic, rt::LoopKind::Dynamic, false)
BOBBIN_GOMP_LOOP(nonmonotonic_guided, rt::LoopKind::Guided, false)
BOBBIN_GOMP_LOOP_RUNTIME(runtime, false)
BOBBIN_GOMP_LOOP_RUNTIME(nonmonotonic_runtime, false)
BOBBIN_GOMP_LOOP_RUNTIME(maybe_nonmonotonic_runtime, false)
BOBBIN_GOMP_LOOP(ordered_static, chunk > 0 ? rt::LoopKind::StaticChunked : rt::LoopKind::Static, true)
BOBBIN_GOMP_LOOP(ordered_dynamic, rt::LoopKind::Dynamic, true)
BOBBIN_GOMP_LOOP(ordered_guided, rt::LoopKind::Guided, true)
BOBBIN_GOMP_LOOP_RUNTIME(ordered_runtime, true)

BOBBIN_GOMP_NEXT(static, next)
BOBBIN_GOMP_NEXT(dynamic, next)
BOBBIN_GOMP_NEXT(guided, next)
BOBBIN_GOMP_NEXT(runtime, next)
BOBBIN_GOMP_NEXT(nonmonotonic_dynamic, next)
BOBBIN_GOMP_NEXT(nonmonotonic_guided, next)
BOBBIN_GOMP_NEXT(nonmonotonic_runtime, next)
BOBBIN_GOMP_NEXT(maybe_nonmonotonic_runtime, next)
BOBBIN_GOMP_NEXT(ordered_static, next_ordered)
BOBBIN_GOMP_NEXT(ordered_dynamic, next_ordered)
BOBBIN_GOMP_NEXT(ordered_guided, next_ordered)
BOBBIN_GOMP_NEXT(ordered_runtime, next_ordered)

BOBBIN_EXPORT bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk, long* istart,
                                   long* iend, uintptr_t* reductions, void** mem) {
  rt::WorkshareStart w = loop(loop_kind(sched, chunk), false, chunk, open_bounds(start, end, incr));
  return begin_general(w, istart, iend, reductions, mem);
}
BOBBIN_EXPORT bool GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk, long* istart,
                                           long* iend, uintptr_t* reductions, void** mem) {
  rt::WorkshareStart w = loop(loop_kind(sched, chunk), true, chunk, open_bounds(start, end, incr));
  return begin_general(w, istart, iend, reductions, mem);
}

// ---- doacross loops (ordered(n)) ----------------------------------------------------

#define BOBBIN_GOMP_DOACROSS(NAME, KIND)                                                                            \
  BOBBIN_EXPORT bool GOMP_loop_doacross_##NAME##_start(unsigned ncounts, long* counts, long chunk, long* istart,   \
                                                       long* iend) {                                              \
    DoacrossSpace<long> space(ncounts, counts);                                                                    \
    rt::WorkshareStart w = loop(KIND, false, chunk, open_bounds(0, counts[0], 1));                                 \
    w.doacross_ndims = space.n;                                                                                    \
    w.doacross = space.dims;                                                                                       \
    return begin(w, istart, iend);                                                                                 \
  }
BOBBIN_GOMP_DOACROSS(static, chunk > 0 ? rt::LoopKind::StaticChunked : rt::LoopKind::Static)
BOBBIN_GOMP_DOACROSS(dynamic, rt::LoopKind::Dynamic)
BOBBIN_GOMP_DOACROSS(guided, rt::LoopKind::Guided)

BOBBIN_EXPORT bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long* counts, long* istart, long* iend) {
  DoacrossSpace<long> space(ncounts, counts);
  rt::WorkshareStart w = loop(rt::LoopKind::Runtime, false, 0, open_bounds(0, counts[0], 1));
  w.doacross_ndims = space.n;
  w.doacross = space.dims;
  return begin(w, istart, iend);
}
BOBBIN_EXPORT bool GOMP_loop_doacross_start(unsigned ncounts, long* counts, long sched, long chunk, long* istart,
                                            long* iend, uintptr_t* reductions, void** mem) {
  DoacrossSpace<long> space(ncounts, counts);
  rt::WorkshareStart w = loop(loop_kind(sched, chunk), false, chunk, open_bounds(0, counts[0], 1));
  w.doacross_ndims = space.n;
  w.doacross = space.dims;
  return begin_general(w, istart, iend, reductions, mem);
}

// ---- unsigned long long loops -------------------------------------------------------------

#define BOBBIN_GOMP_ULL_LOOP(NAME, KIND, ORDERED)                                                                   \
  BOBBIN_EXPORT bool GOMP_loop_ull_##NAME##_start(bool up, ull start, ull end, ull incr, ull chunk, ull* istart,   \
                                                  ull* iend) {                                                    \
    rt::WorkshareStart w = loop(KIND, ORDERED, int64_t(chunk), open_bounds(up, start, end, incr));                \
    return begin(w, istart, iend);                                                                                 \
  }
#define BOBBIN_GOMP_ULL_LOOP_RUNTIME(NAME, ORDERED)                                                                 \
  BOBBIN_EXPORT bool GOMP_loop_ull_##NAME##_start(bool up, ull start, ull end, ull incr, ull* istart, ull* iend) { \
    rt::WorkshareStart w = loop(rt::LoopKind::Runtime, ORDERED, 0, open_bounds(up, start, end, incr));             \
    return begin(w, istart, iend);                                                                                 \
  }
#define BOBBIN_GOMP_ULL_NEXT(NAME, FN) \
  BOBBIN_EXPORT bool GOMP_loop_ull_##NAME##_next(ull* istart, ull* iend) { return FN(istart, iend); }

BOBBIN_GOMP_ULL_LOOP(static, chunk > 0 ? rt::LoopKind::StaticChunked : rt::LoopKind::Static, false)
BOBBIN_GOMP_ULL_LOOP(dynamic, rt::LoopKind::Dynamic, false)
BOBBIN_GOMP_ULL_LOOP(guided, rt::LoopKind::Guided, false)
BOBBIN_GOMP_ULL_LOOP(nonmonotonic_dynamic, rt::LoopKind::Dynamic, false)
BOBBIN_GOMP_ULL_LOOP(nonmonotonic_guided, rt::LoopKind::Guided, false)
BOBBIN_GOMP_ULL_LOOP_RUNTIME(runtime, false)
BOBBIN_GOMP_ULL_LOOP_RUNTIME(nonmonotonic_runtime, false)
BOBBIN_GOMP_ULL_LOOP_RUNTIME(maybe_nonmonotonic_runtime, false)
BOBBIN_GOMP_ULL_LOOP(ordered_static, chunk > 0 ? rt::LoopKind::StaticChunked : rt::LoopKind::Static, true)
BOBBIN_GOMP_ULL_LOOP(ordered_dynamic, rt::LoopKind::Dynamic, true)
BOBBIN_GOMP_ULL_LOOP(ordered_guided, rt::LoopKind::Guided, true)
BOBBIN_GOMP_ULL_LOOP_RUNTIME(ordered_runtime, true)

BOBBIN_GOMP_ULL_NEXT(static, next)
BOBBIN_GOMP_ULL_NEXT(dynamic, next)
BOBBIN_GOMP_ULL_NEXT(guided, next)
BOBBIN_GOMP_ULL_NEXT(runtime, next)
BOBBIN_GOMP_ULL_NEXT(nonmonotonic_dynamic, next)
BOBBIN_GOMP_ULL_NEXT(nonmonotonic_guided, next)
BOBBIN_GOMP_ULL_NEXT(nonmonotonic_runtime, next)
BOBBIN_GOMP_ULL_NEXT(maybe_nonmonotonic_runtime, next)
BOBBIN_GOMP_ULL_NEXT(ordered_static, next_ordered)
BOBBIN_GOMP_ULL_NEXT(ordered_dynamic, next_ordered)
BOBBIN_GOMP_ULL_NEXT(ordered_guided, next_ordered)
BOBBIN_GOMP_ULL_NEXT(ordered_runtime, next_ordered)

BOBBIN_EXPORT bool GOMP_loop_ull_start(bool up, ull start, ull end, ull incr, long sched, ull chunk, ull* istart,
                                       ull* iend, uintptr_t* reductions, void** mem) {
  rt::WorkshareStart w =
      loop(loop_kind(sched, int64_t(chunk)), false, int64_t(chunk), open_bounds(up, start, end, incr));
  return begin_general(w, istart, iend, reductions, mem);
}
BOBBIN_EXPORT bool GOMP_loop_ull_ordered_start(bool up, ull start, ull end, ull incr, long sched, ull chunk,
                                               ull* istart, ull* iend, uintptr_t* reductions, void** mem) {
  rt::WorkshareStart w =
      loop(loop_kind(sched, int64_t(chunk)), true, int64_t(chunk), open_bounds(up, start, end, incr));
  return begin_general(w, istart, iend, reductions, mem);
}

#define BOBBIN_GOMP_ULL_DOACROSS(NAME, KIND)                                                                       \
  BOBBIN_EXPORT bool GOMP_loop_ull_doacross_##NAME##_start(unsigned ncounts, ull* counts, ull chunk, ull* istart, \
                                                           ull* iend) {                                           \
    DoacrossSpace<ull> space(ncounts, counts);                                                                     \
    rt::WorkshareStart w = loop(KIND, false, int64_t(chunk), open_bounds(true, 0, counts[0], 1));                  \
    w.doacross_ndims = space.n;                                                                                    \
    w.doacross = space.dims;                                                                                       \
    return begin(w, istart, iend);                                                                                 \
  }
BOBBIN_GOMP_ULL_DOACROSS(static, chunk > 0 ? rt::LoopKind::StaticChunked : rt::LoopKind::Static)
BOBBIN_GOMP_ULL_DOACROSS(dynamic, rt::LoopKind::Dynamic)
BOBBIN_GOMP_ULL_DOACROSS(guided, rt::LoopKind::Guided)

BOBBIN_EXPORT bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, ull* counts, ull* istart, ull* iend) {
  DoacrossSpace<ull> space(ncounts, counts);
  rt::WorkshareStart w = loop(rt::LoopKind::Runtime, false, 0, open_bounds(true, 0, counts[0], 1));
  w.doacross_ndims = space.n;
  w.doacross = space.dims;
  return begin(w, istart, iend);
}
BOBBIN_EXPORT bool GOMP_loop_ull_doacross_start(unsigned ncounts, ull* counts, long sched, ull chunk, ull* istart,
                                                ull* iend, uintptr_t* reductions, void** mem) {
  DoacrossSpace<ull> space(ncounts, counts);
  rt::WorkshareStart w =
      loop(loop_kind(sched, int64_t(chunk)), false, int64_t(chunk), open_bounds(true, 0, counts[0], 1));
  w.doacross_ndims = space.n;
  w.doacross = space.dims;
  return begin_general(w, istart, iend, reductions, mem);
}

// ---- the end of a loop ------------------------------------------------------------------

BOBBIN_EXPORT void GOMP_loop_end(void) { rt::workshare_end(rt::WorkshareWait::Barrier); }
BOBBIN_EXPORT void GOMP_loop_end_nowait(void) { rt::workshare_end(rt::WorkshareWait::None); }
BOBBIN_EXPORT bool GOMP_loop_end_cancel(void) { return rt::workshare_end(rt::WorkshareWait::CancellableBarrier); }

// ---- sections: a dynamic loop over section numbers 1..count, one at a time ------------------

namespace {
rt::WorkshareStart sections(unsigned count) {
  rt::WorkshareStart w = loop(rt::LoopKind::Dynamic, false, 1, rt::LoopBounds{1, int64_t(count), 1, true, 4});
  w.sections = true;
  return w;
}
unsigned section_of(bool got, int64_t lower) { return got ? unsigned(lower) : 0; }
}  // namespace

BOBBIN_EXPORT unsigned GOMP_sections_start(unsigned count) {
  rt::WorkshareStart w = sections(count);
  int64_t lo = 0, hi, st;
  bool last;
  bool got = rt::workshare_begin(w, &lo, &hi, &st, &last);
  return section_of(got, lo);
}
BOBBIN_EXPORT unsigned GOMP_sections2_start(unsigned count, uintptr_t* reductions, void** mem) {
  rt::WorkshareStart w = sections(count);
  int64_t lo = 0, end = 0;
  return begin_general(w, &lo, &end, reductions, mem) ? section_of(true, lo) : 0;
}
BOBBIN_EXPORT unsigned GOMP_sections_next(void) {
  int64_t lo = 0, hi, st;
  bool last;
  bool got = rt::dispatch_next(&lo, &hi, &st, &last);
  return section_of(got, lo);
}
BOBBIN_EXPORT void GOMP_sections_end(void) { rt::workshare_end(rt::WorkshareWait::Barrier); }
BOBBIN_EXPORT void GOMP_sections_end_nowait(void) { rt::workshare_end(rt::WorkshareWait::None); }
BOBBIN_EXPORT bool GOMP_sections_end_cancel(void) {
  return rt::workshare_end(rt::WorkshareWait::CancellableBarrier);
}

// ---- ordered and doacross ---------------------------------------------------------------------
// gcc's ordered regions take turns per chunk (see dispatch_next_ordered):
// the end of a region passes nothing on.

BOBBIN_EXPORT void GOMP_ordered_start(void) { rt::ordered_begin(); }
BOBBIN_EXPORT void GOMP_ordered_end(void) {}

BOBBIN_EXPORT void GOMP_doacross_post(long* counts) {
  static_assert(sizeof(long) == sizeof(int64_t), "LP64: a doacross vector of long is one of int64_t");
  rt::doacross_post(reinterpret_cast<const int64_t*>(counts));
}
BOBBIN_EXPORT void GOMP_doacross_wait(long first, ...) {
  va_list ap;
  va_start(ap, first);
  rt::doacross_wait_each(first, &next_vararg<long>, &ap);
  va_end(ap);
}
BOBBIN_EXPORT void GOMP_doacross_ull_post(ull* counts) {
  rt::doacross_post(reinterpret_cast<const int64_t*>(counts));
}
BOBBIN_EXPORT void GOMP_doacross_ull_wait(ull first, ...) {
  va_list ap;
  va_start(ap, first);
  rt::doacross_wait_each(int64_t(first), &next_vararg<ull>, &ap);
  va_end(ap);
}
