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
// __kmpc_for_collapsed_init also takes non-rectangular nests (a loop's
// bounds linear in an enclosing loop's variable: lb0 + lb1 * v), counting
// and locating points by walking the outer loops; the _rectang entry
// points refuse them with the runtime's "not supported yet" message, as
// their names say.
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

bool rectangular(const LoopNestBounds& b) {
  return widen(b.lb1, b.loop_type) == 0 && widen(b.ub1, b.loop_type) == 0;
}

// Iterations of one loop from lb to ub by step under its canonical
// comparison (<= counting up, >= counting down); 0 if the step goes the
// other way or is 0.
uint64_t trips(const LoopNestBounds& b, uint64_t lb, uint64_t ub) {
  int64_t step = step_of(b);
  if (b.comparison == kLessOrEq) {
    if (step <= 0 || before(ub, lb, b.loop_type)) return 0;
    return (ub - lb) / uint64_t(step) + 1;
  }
  if (step >= 0 || before(lb, ub, b.loop_type)) return 0;
  return (lb - ub) / (0 - uint64_t(step)) + 1;
}

// Brings one loop to <= (counting up) or >= (counting down): < and > move
// the upper bound by one (its constant part, for a bound linear in an outer
// variable), != takes the step's direction. A rectangular loop gets its
// trip count; `*empty` is set when a strict comparison leaves no iteration
// (moving the bound would wrap).
void canonicalise(LoopNestBounds& b, bool* empty) {
  int64_t step = step_of(b);
  if (b.comparison == kNotEq) b.comparison = step > 0 ? kLess : kGreater;
  uint64_t lb = widen(b.lb0, b.loop_type), ub = widen(b.ub0, b.loop_type);
  bool rect = rectangular(b);
  if (b.comparison == kLess) {
    if (rect && !before(lb, ub, b.loop_type)) *empty = true;
    else b.ub0 = widen(ub - 1, b.loop_type);
    b.comparison = kLessOrEq;
  } else if (b.comparison == kGreater) {
    if (rect && !before(ub, lb, b.loop_type)) *empty = true;
    else b.ub0 = widen(ub + 1, b.loop_type);
    b.comparison = kGreaterOrEq;
  }
  b.trip_count = rect && !*empty ? trips(b, widen(b.lb0, b.loop_type), widen(b.ub0, b.loop_type)) : 0;
}

// Canonicalises the nest; true if every loop is rectangular.
bool canonicalise_nest(LoopNestBounds* nest, kmp_int32 n, bool* empty) {
  bool rect = true;
  for (kmp_int32 i = 0; i < n; ++i) {
    canonicalise(nest[i], empty);
    if (!rectangular(nest[i])) {
      if (nest[i].outer_iv < 0 || nest[i].outer_iv >= i) rt::unsupported("a loop nest whose bounds depend on an inner loop");
      rect = false;
    }
  }
  return rect;
}

// Points of a canonical rectangular nest.
uint64_t rectangular_total(const LoopNestBounds* nest, kmp_int32 n) {
  uint64_t total = 1;
  for (kmp_int32 i = 0; i < n; ++i) total *= nest[i].trip_count;
  return total;
}

uint64_t process(LoopNestBounds* nest, kmp_int32 n) {
  bool empty = false;
  if (!canonicalise_nest(nest, n, &empty))
    rt::unsupported("__kmpc_process_loop_nest_rectang on a non-rectangular loop nest");
  return n > 0 && !empty ? rectangular_total(nest, n) : 0;
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

// A non-rectangular nest, walked in the sequential order: loop i's bounds
// are lb0 + lb1 * v and ub0 + ub1 * v for v the variable of loop outer_iv.
// The innermost loop is counted, not walked, so the cost is the number of
// points of the outer n - 1 loops.
class NestWalk {
 public:
  NestWalk(const LoopNestBounds* nest, kmp_int32 n) : nest_(nest), n_(n), iv_(std::size_t(n)) {}

  uint64_t count() {
    uint64_t total = 0;
    walk(0, [&](uint64_t row) {
      total += row;
      return false;
    });
    return total;
  }

  // The variables of point `index` (0-based, sequential order) into out.
  void point(uint64_t index, uint64_t* out) {
    uint64_t before_row = 0;
    walk(0, [&](uint64_t row) {
      if (index >= before_row + row) {
        before_row += row;
        return false;
      }
      const LoopNestBounds& b = nest_[n_ - 1];
      iv_[std::size_t(n_ - 1)] = widen(lower(n_ - 1) + (index - before_row) * uint64_t(step_of(b)), b.loop_type);
      for (kmp_int32 i = 0; i < n_; ++i) out[i] = iv_[std::size_t(i)];
      return true;
    });
  }

 private:
  uint64_t bound(kmp_int32 i, uint64_t c0, uint64_t c1) const {
    const LoopNestBounds& b = nest_[i];
    return widen(widen(c0, b.loop_type) + widen(c1, b.loop_type) * iv_[std::size_t(b.outer_iv)], b.loop_type);
  }
  uint64_t lower(kmp_int32 i) const { return bound(i, nest_[i].lb0, nest_[i].lb1); }
  uint64_t upper(kmp_int32 i) const { return bound(i, nest_[i].ub0, nest_[i].ub1); }

  // Calls row(points of the innermost loop) for each point of the outer
  // loops, in order, until it returns true; true if it did.
  template <class Row>
  bool walk(kmp_int32 level, Row&& row) {
    const LoopNestBounds& b = nest_[level];
    uint64_t t = trips(b, lower(level), upper(level));
    if (level == n_ - 1) return row(t);
    uint64_t v = lower(level);
    for (uint64_t k = 0; k < t; ++k, v = widen(v + uint64_t(step_of(b)), b.loop_type)) {
      iv_[std::size_t(level)] = v;
      if (walk(level + 1, row)) return true;
    }
    return false;
  }

  const LoopNestBounds* nest_;
  kmp_int32 n_;
  std::vector<uint64_t> iv_;
};

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
  if (n <= 0) return 0;
  bool empty = false;
  bool rect = canonicalise_nest(nest, n, &empty);
  if (empty) return 0;
  NestWalk walk(nest, n);  // non-rectangular nests only
  uint64_t total = rect ? rectangular_total(nest, n) : walk.count();
  if (total == 0) return 0;
  rt::StaticPart p = rt::static_part(rt::LoopKind::Static, 0, rt::LoopBounds{0, int64_t(total - 1), 1, true, 8});
  if (uint64_t(p.lower) > uint64_t(p.upper)) return 0;
  std::vector<uint64_t> first(static_cast<std::size_t>(n)), last(static_cast<std::size_t>(n));
  for (auto [index, ivs] : {std::pair{uint64_t(p.lower), first.data()}, std::pair{uint64_t(p.upper), last.data()}}) {
    if (rect) original_ivs(index, nest, ivs, n);
    else walk.point(index, ivs);
  }
  for (kmp_int32 i = 0; i < n; ++i) {
    out[i] = nest[i];
    out[i].lb0 = first[std::size_t(i)];
    // The part with the last iteration of a rectangular nest ends at the
    // canonical upper bounds, as libomp's does (no point of the nest lies
    // between the two).
    if (!(rect && p.last)) out[i].ub0 = last[std::size_t(i)];
    out[i].lb1 = out[i].ub1 = 0;
  }
  if (plastiter) *plastiter = p.last ? 1 : 0;
  return 1;
}
