// The __kmpc_atomic_* entry points: what a compiler calls for an atomic
// construct it does not inline (Intel's compilers and flang for most types
// and operations; clang for some). Every function is generated from one row
// of kmpc_atomic.inc; this file says what the types, the operations and the
// variants mean. How a location is updated atomically (lock-free or under
// its lock) is runtime/atomic.hpp's.
//
// Semantics are libomp's: x op= e computes in C's promoted types and
// converts back (integers wrap); _rev swaps the operands; a capture returns x
// before the update when `flag` is 0 and after it otherwise; min and max
// write only when e is smaller / greater (a NaN e changes nothing).
#include <cstdint>
#include <type_traits>

#include "abi/abi_types.hpp"
#include "runtime/api.hpp"
#include "runtime/atomic.hpp"

using namespace bobbin;
using namespace bobbin::abi;

namespace {

// The C types behind the type names of the entry points.
using fixed1_t = int8_t;  // libomp's `char`: signed on the ABIs it serves
using fixed1u_t = uint8_t;
using fixed2_t = int16_t;
using fixed2u_t = uint16_t;
using fixed4_t = int32_t;
using fixed4u_t = uint32_t;
using fixed8_t = int64_t;
using fixed8u_t = uint64_t;
using float4_t = float;
using float8_t = double;
using float10_t = long double;
using cmplx4_t = _Complex float;
using cmplx8_t = _Complex double;
using cmplx10_t = _Complex long double;

// Integer arithmetic in an unsigned type at least as wide as int, so that
// it wraps where C's would be undefined and the conversion back truncates.
template <class T>
using Wide = std::conditional_t<(sizeof(T) > 4), uint64_t, uint32_t>;

// Each operation: T apply<T>(a, b) = a op b converted to T (b may be wider:
// the mixed-type rows).
struct op_add {
  template <class T, class A, class B>
  static T apply(A a, B b) {
    if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) return T(Wide<T>(a) + Wide<T>(b));
    else return T(a + b);
  }
};
struct op_sub {
  template <class T, class A, class B>
  static T apply(A a, B b) {
    if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) return T(Wide<T>(a) - Wide<T>(b));
    else return T(a - b);
  }
};
struct op_mul {
  template <class T, class A, class B>
  static T apply(A a, B b) {
    if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) return T(Wide<T>(a) * Wide<T>(b));
    else return T(a * b);
  }
};
struct op_div {  // integer division by zero traps, as in libomp
  template <class T, class A, class B>
  static T apply(A a, B b) { return T(a / b); }
};
struct op_andb {
  template <class T, class A, class B>
  static T apply(A a, B b) { return T(a & b); }
};
struct op_orb {
  template <class T, class A, class B>
  static T apply(A a, B b) { return T(a | b); }
};
struct op_xor {
  template <class T, class A, class B>
  static T apply(A a, B b) { return T(a ^ b); }
};
struct op_shl {  // shifted in the unsigned wide type: C++20 gives the same bits for negative a
  template <class T, class A, class B>
  static T apply(A a, B b) { return T(Wide<T>(a) << b); }
};
struct op_shr {  // arithmetic for the signed types, logical for the unsigned ones
  template <class T, class A, class B>
  static T apply(A a, B b) { return T(a >> b); }
};
struct op_andl {
  template <class T, class A, class B>
  static T apply(A a, B b) { return T(a && b); }
};
struct op_orl {
  template <class T, class A, class B>
  static T apply(A a, B b) { return T(a || b); }
};
struct op_eqv {
  template <class T, class A, class B>
  static T apply(A a, B b) { return T(~(a ^ b)); }
};
struct op_neqv {
  template <class T, class A, class B>
  static T apply(A a, B b) { return T(a ^ b); }
};
struct op_max {
  template <class T, class A, class B>
  static T apply(A a, B b) { return a < b ? T(b) : T(a); }
};
struct op_min {
  template <class T, class A, class B>
  static T apply(A a, B b) { return a > b ? T(b) : T(a); }
};

// x = x op e (or e op x): one atomic update, both values back.
template <class Op, bool Rev, class T, class R>
rt::Updated<T> update(T* x, R e) {
  constexpr bool same_integers = std::is_integral_v<T> && std::is_same_v<T, R>;
  if constexpr (same_integers && !Rev && std::is_same_v<Op, op_add>) {
    return rt::atomic_fetch_add(x, e);
  } else if constexpr (same_integers && !Rev && std::is_same_v<Op, op_sub>) {
    return rt::atomic_fetch_add(x, T(std::make_unsigned_t<T>(0) - std::make_unsigned_t<T>(e)));
  } else if constexpr (std::is_same_v<T, R> && std::is_same_v<Op, op_max>) {
    return rt::atomic_replace_unless(x, [e](T old) { return !(old < e); }, e);  // op_max: old < e ? e : old
  } else if constexpr (std::is_same_v<T, R> && std::is_same_v<Op, op_min>) {
    return rt::atomic_replace_unless(x, [e](T old) { return !(old > e); }, e);  // op_min: old > e ? e : old
  } else {
    // Floating-point arithmetic nearly always changes the bits: exchange
    // without comparing first (as libomp does).
    constexpr bool arithmetic = std::is_same_v<Op, op_add> || std::is_same_v<Op, op_sub> ||
                                std::is_same_v<Op, op_mul> || std::is_same_v<Op, op_div>;
    return rt::atomic_update<arithmetic && std::is_floating_point_v<T>>(x, [e](T old) {
      if constexpr (Rev) return Op::template apply<T>(e, old);
      else return Op::template apply<T>(old, e);
    });
  }
}

// The generic entry points: f(result, x, e) computes x op e for the compiler.
using Combiner = void (*)(void*, void*, void*);

template <class Bytes>
void generic_lock_free(void* x, void* e, Combiner f) {
  rt::atomic_update(static_cast<Bytes*>(x), [e, f](Bytes old) {
    Bytes result;
    f(&result, &old, e);
    return result;
  });
}

void generic_locked(void* x, void* e, Combiner f) {
  rt::atomic_location_lock(x);
  f(x, x, e);
  rt::atomic_location_unlock(x);
}

template <int N>
void generic(void* x, void* e, Combiner f) {
  if constexpr (N == 1) generic_lock_free<uint8_t>(x, e, f);
  else if constexpr (N == 2) generic_lock_free<uint16_t>(x, e, f);
  else if constexpr (N == 4) generic_lock_free<uint32_t>(x, e, f);
  else if constexpr (N == 8) generic_lock_free<uint64_t>(x, e, f);
  else generic_locked(x, e, f);
}

}  // namespace

// ---- expanding the table ------------------------------------------------------

#define BOBBIN_CAT(a, b) BOBBIN_CAT_(a, b)
#define BOBBIN_CAT_(a, b) a##b
#define BOBBIN_IF_0(...)
#define BOBBIN_IF_1(...) __VA_ARGS__

// How a capture comes back: returned, or (cmplx4) through a pointer argument.
#define BOBBIN_CAPTURE_fixed1 ret
#define BOBBIN_CAPTURE_fixed1u ret
#define BOBBIN_CAPTURE_fixed2 ret
#define BOBBIN_CAPTURE_fixed2u ret
#define BOBBIN_CAPTURE_fixed4 ret
#define BOBBIN_CAPTURE_fixed4u ret
#define BOBBIN_CAPTURE_fixed8 ret
#define BOBBIN_CAPTURE_fixed8u ret
#define BOBBIN_CAPTURE_float4 ret
#define BOBBIN_CAPTURE_float8 ret
#define BOBBIN_CAPTURE_float10 ret
#define BOBBIN_CAPTURE_cmplx4 out
#define BOBBIN_CAPTURE_cmplx8 ret
#define BOBBIN_CAPTURE_cmplx10 ret

#define BOBBIN_ATOMIC_UPDATE(t, op, rev, name)                                               \
  BOBBIN_EXPORT void __kmpc_atomic_##t##_##name(ident_t*, int, t##_t* x, t##_t e) {           \
    update<op_##op, rev>(x, e);                                                              \
  }
#define BOBBIN_ATOMIC_CAPTURE_ret(t, op, rev, name)                                          \
  BOBBIN_EXPORT t##_t __kmpc_atomic_##t##_##name(ident_t*, int, t##_t* x, t##_t e, int flag) { \
    rt::Updated<t##_t> u = update<op_##op, rev>(x, e);                                       \
    return flag ? u.after : u.before;                                                        \
  }
#define BOBBIN_ATOMIC_CAPTURE_out(t, op, rev, name)                                          \
  BOBBIN_EXPORT void __kmpc_atomic_##t##_##name(ident_t*, int, t##_t* x, t##_t e, t##_t* out, \
                                                int flag) {                                  \
    rt::Updated<t##_t> u = update<op_##op, rev>(x, e);                                       \
    *out = flag ? u.after : u.before;                                                        \
  }
#define BOBBIN_ATOMIC_CAPTURE(t, op, rev, name) \
  BOBBIN_CAT(BOBBIN_ATOMIC_CAPTURE_, BOBBIN_CAPTURE_##t)(t, op, rev, name)

#define BOBBIN_ATOMIC_OP(t, op, reverse)                 \
  BOBBIN_ATOMIC_UPDATE(t, op, false, op)                 \
  BOBBIN_ATOMIC_CAPTURE(t, op, false, op##_cpt)          \
  BOBBIN_IF_##reverse(BOBBIN_ATOMIC_UPDATE(t, op, true, op##_rev) \
                      BOBBIN_ATOMIC_CAPTURE(t, op, true, op##_cpt_rev))

#define BOBBIN_ATOMIC_MIXED(t, op, rt_)                                                        \
  BOBBIN_EXPORT void __kmpc_atomic_##t##_##op##_##rt_(ident_t*, int, t##_t* x, rt_##_t e) {    \
    update<op_##op, false>(x, e);                                                             \
  }

#define BOBBIN_ATOMIC_SWAP_ret(t)                                                          \
  BOBBIN_EXPORT t##_t __kmpc_atomic_##t##_swp(ident_t*, int, t##_t* x, t##_t e) {          \
    return rt::atomic_swap(x, e);                                                          \
  }
#define BOBBIN_ATOMIC_SWAP_out(t)                                                          \
  BOBBIN_EXPORT void __kmpc_atomic_##t##_swp(ident_t*, int, t##_t* x, t##_t e, t##_t* out) { \
    *out = rt::atomic_swap(x, e);                                                          \
  }
#define BOBBIN_ATOMIC_ACCESS(t)                                                              \
  BOBBIN_EXPORT t##_t __kmpc_atomic_##t##_rd(ident_t*, int, t##_t* x) { return rt::atomic_read(x); } \
  BOBBIN_EXPORT void __kmpc_atomic_##t##_wr(ident_t*, int, t##_t* x, t##_t e) { rt::atomic_write(x, e); } \
  BOBBIN_CAT(BOBBIN_ATOMIC_SWAP_, BOBBIN_CAPTURE_##t)(t)

// bool_N_cas: x == e ? (x = d, true) : false. val_N_cas: the value found.
// bool_N_cas_cpt: as bool_N_cas, and on failure *v = the value found (v is
// untouched on success). val_N_cas_cpt: the value found; *v = x afterwards.
#define BOBBIN_ATOMIC_COMPARE(n, T)                                                           \
  BOBBIN_EXPORT bool __kmpc_atomic_bool_##n##_cas(ident_t*, int, T* x, T e, T d) {            \
    return rt::atomic_compare_swap(x, e, d) == e;                                             \
  }                                                                                           \
  BOBBIN_EXPORT T __kmpc_atomic_val_##n##_cas(ident_t*, int, T* x, T e, T d) {                \
    return rt::atomic_compare_swap(x, e, d);                                                  \
  }                                                                                           \
  BOBBIN_EXPORT bool __kmpc_atomic_bool_##n##_cas_cpt(ident_t*, int, T* x, T e, T d, T* v) {  \
    T found = rt::atomic_compare_swap(x, e, d);                                               \
    if (found == e) return true;                                                              \
    *v = found;                                                                               \
    return false;                                                                             \
  }                                                                                           \
  BOBBIN_EXPORT T __kmpc_atomic_val_##n##_cas_cpt(ident_t*, int, T* x, T e, T d, T* v) {      \
    T found = rt::atomic_compare_swap(x, e, d);                                               \
    *v = found == e ? d : found;                                                              \
    return found;                                                                             \
  }

#define BOBBIN_ATOMIC_GENERIC(n)                                                                 \
  BOBBIN_EXPORT void __kmpc_atomic_##n(ident_t*, int, void* x, void* e, Combiner f) { generic<n>(x, e, f); }

#include "abi/kmpc_atomic.inc"

// Atomics the compiler brackets itself: one lock shared with gcc's
// GOMP_atomic_start/end (a program mixing both ABIs serialises on it).
BOBBIN_EXPORT void __kmpc_atomic_start(void) { rt::atomic_fallback_begin(); }
BOBBIN_EXPORT void __kmpc_atomic_end(void) { rt::atomic_fallback_end(); }
