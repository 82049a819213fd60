// libomp 17+'s entry points for collapsed loop nests (what a compiler may
// call for collapse(n) instead of computing the nest's iteration space
// itself): canonical bounds and trip counts of a rectangular nest, the
// original induction variables of a point of the collapsed space, and a
// thread's static part of the space as its first and last points.
//
// A nest is an array of n loop descriptions (outermost first), 64 bytes each
// (libomp's bounds_info_t): the loop's type, its variable's type, its
// comparison, the loop its bounds depend on, then lb0, lb1, ub0, ub1, step
// and the trip count. Values of 32-bit loops live in the low half of their
// 64-bit fields (libomp writes them through a union). A loop is rectangular
// when lb1 and ub1 are 0: its bounds are lb0 and ub0.
//
// Non-rectangular nests (bounds linear in an outer variable) are refused
// with the runtime's "not supported yet" message.
#include <cstdint>
#include <vector>

#include "abi/abi_types.hpp"
#include "runtime/api.hpp"

using namespace bobbin;
using namespace bobbin::abi;

namespace {

enum : kmp_int32 { kLessOrEq = 0, kGreaterOrEq = 1, kNotEq = 2, kLess = 3, kGreater = 4 };
enum : kmp_int32 { kU8 = 0, kI8, kU16, kI16, kU32, kI32, kU64, kI64 };

struct LoopNestBounds {
  kmp_int32 loop_type;
  kmp_int32 iv_type;
  kmp_int32 comparison;
  kmp_int32 outer_iv;
  kmp_uint64 lb0, lb1, ub0, ub1;
  kmp_int64 step;
  kmp_uint64 trip_count;
};
static_assert(sizeof(LoopNestBounds) == 64, "libomp's bounds_info_t is 64 bytes");

bool is_signed(kmp_int32 type) { return type == kI8 || type == kI16 || type == kI32 || type == kI64; }
int bits_of(kmp_int32 type) { return type <= kI8 ? 8 : type <= kI16 ? 16 : type <= kI32 ? 32 : 64; }

// A field's value in the loop's type, widened to 64 bits (sign- or
// zero-extended as the type is).
uint64_t widen(uint64_t raw, kmp_int32 type) {
  int bits = bits_of(type);
  if (bits == 64) return raw;
  uint64_t mask = (uint64_t(1) << bits) - 1, v = raw & mask;
  if (is_signed(type) && (v >> (bits - 1))) v |= ~mask;
  return v;
}
int64_t step_of(const LoopNestBounds& b) { return int64_t(widen(uint64_t(b.step), b.loop_type)); }
// a < b in the loop's type.
bool before(uint64_t a, uint64_t b, kmp_int32 type) { return is_signed(type) ? int64_t(a) < int64_t(b) : a < b; }

// Brings one loop to <= (counting up) or >= (counting down) and computes
// its trip count. A loop whose step goes the wrong way, or is 0, runs no
// iteration.
void canonicalise(LoopNestBounds& b) {
  if (widen(b.lb1, b.loop_type) != 0 || widen(b.ub1, b.loop_type) != 0)
    rt::unsupported("a non-rectangular collapsed loop nest (__kmpc_*_rectang, __kmpc_for_collapsed_init)");
  int64_t step = step_of(b);
  uint64_t lb = widen(b.lb0, b.loop_type), ub = widen(b.ub0, b.loop_type);
  if (b.comparison == kNotEq) b.comparison = step > 0 ? kLess : kGreater;
  b.trip_count = 0;
  if (b.comparison == kLess || b.comparison == kLessOrEq) {
    if (b.comparison == kLess) {
      if (!before(lb, ub, b.loop_type)) return;  // empty; ub - 1 could wrap
      ub -= 1;
      b.ub0 = ub;
      b.comparison = kLessOrEq;
    }
    if (step <= 0 || before(ub, lb, b.loop_type)) return;
    b.trip_count = (ub - lb) / uint64_t(step) + 1;
  } else {
    if (b.comparison == kGreater) {
      if (!before(ub, lb, b.loop_type)) return;
      ub += 1;
      b.ub0 = ub;
      b.comparison = kGreaterOrEq;
    }
    if (step >= 0 || before(lb, ub, b.loop_type)) return;
    b.trip_count = (lb - ub) / (0 - uint64_t(step)) + 1;
  }
}

uint64_t process(LoopNestBounds* nest, kmp_int32 n) {
  uint64_t total = 1;
  for (kmp_int32 i = 0; i < n; ++i) {
    canonicalise(nest[i]);
    total *= nest[i].trip_count;
  }
  return n > 0 ? total : 0;
}

// The original variables of point `iv` of the collapsed space (innermost
// loop fastest), each in its loop's type widened to 64 bits.
void original_ivs(uint64_t iv, const LoopNestBounds* nest, uint64_t* out, kmp_int32 n) {
  for (kmp_int32 i = n - 1; i >= 0; --i) {
    const LoopNestBounds& b = nest[i];
    uint64_t k = b.trip_count ? iv % b.trip_count : 0;
    iv = b.trip_count ? iv / b.trip_count : 0;
    out[i] = widen(widen(b.lb0, b.loop_type) + k * uint64_t(step_of(b)), b.loop_type);
  }
}

}  // namespace

BOBBIN_EXPORT kmp_uint64 __kmpc_process_loop_nest_rectang(ident_t*, kmp_int32, void* nest, kmp_int32 n) {
  return process(static_cast<LoopNestBounds*>(nest), n);
}

BOBBIN_EXPORT void __kmpc_calc_original_ivs_rectang(ident_t*, kmp_uint64 new_iv, const void* nest, kmp_uint64* ivs,
                                                    kmp_int32 n) {
  original_ivs(new_iv, static_cast<const LoopNestBounds*>(nest), ivs, n);
}

// The calling thread's part of the collapsed space under a static schedule
// (the same split as schedule(static) over the space's iterations, and as
// libomp's): its first and last points go to chunk[i].lb0 and .ub0, the
// other fields are the canonical loop's. Returns 0 if the thread has no
// iteration.
BOBBIN_EXPORT kmp_int32 __kmpc_for_collapsed_init(ident_t*, kmp_int32, void* original, void* chunk, kmp_int32 n,
                                                  kmp_int32* plastiter) {
  auto* nest = static_cast<LoopNestBounds*>(original);
  auto* out = static_cast<LoopNestBounds*>(chunk);
  if (plastiter) *plastiter = 0;
  uint64_t total = process(nest, n);
  if (total == 0) return 0;
  rt::StaticPart p = rt::static_part(rt::LoopKind::Static, 0, rt::LoopBounds{0, int64_t(total - 1), 1, true, 8});
  if (uint64_t(p.lower) > uint64_t(p.upper)) return 0;
  std::vector<uint64_t> first(static_cast<std::size_t>(n)), last(static_cast<std::size_t>(n));
  original_ivs(uint64_t(p.lower), nest, first.data(), n);
  original_ivs(uint64_t(p.upper), nest, last.data(), n);
  for (kmp_int32 i = 0; i < n; ++i) {
    out[i] = nest[i];
    out[i].lb0 = first[std::size_t(i)];
    // The part with the last iteration ends at the canonical upper bounds,
    // as libomp's does (no point of the nest lies between the two).
    if (!p.last) out[i].ub0 = last[std::size_t(i)];
    out[i].lb1 = out[i].ub1 = 0;
  }
  if (plastiter) *plastiter = p.last ? 1 : 0;
  return 1;
}
