// Atomic read-modify-write of a location the program owns, of any width the
// atomic construct allows (1 to 32 bytes: integers, floats, long double,
// complex numbers).
//
// The problem: a compiler that cannot inline an atomic construct for a type
// or an operation hands the runtime the location, the operand and the
// operation. The runtime must make the read, the computation and the write
// one indivisible step with respect to every other atomic access to that
// location made through the runtime.
//
// The design: a location whose width is 1, 2, 4 or 8 bytes and that is
// aligned to its width is updated lock-free, with a compare-and-swap loop
// (or one fetch-and-op instruction where the hardware has it). Every other
// location (long double and double complex: 16 bytes; long double complex:
// 32; anything misaligned) is updated under a lock chosen by its address
// from a fixed table (atomic.cpp). Both choices depend only on the address
// and the width, so every access to one location takes the same path: a
// lock-free read never races a locked write of the same location.
//
// Rejected: one global lock for the wide types (libgomp's choice, and what
// libomp does per type class): unrelated locations contend. A 16-byte
// compare-and-swap (cmpxchg16b) for double complex: not on every x86-64 and
// libatomic would be needed; long double has padding bytes a byte-wise
// compare would have to ignore.
//
// Memory order: every lock-free update is seq_cst, a load seq_cst and a store
// seq_cst. libomp's routines are locked instructions (full barriers on x86),
// and programs built for it get seq_cst atomics from them without separate
// flush calls; on x86-64 the instructions are the same as acq_rel ones but
// for the store (xchg, which libomp's write routines also use).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace bobbin::rt {

// The lock of a location that has no lock-free update (atomic.cpp). The wait
// is a runtime lock's wait (a scheduling point); a holder never waits for
// anything but the few instructions of its update, or the program's own
// combiner function for the generic entry points.
void atomic_location_lock(const void* where);
void atomic_location_unlock(const void* where);

template <class T>
inline constexpr bool atomic_width_ok = sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8;

// The lock-free paths work on an unsigned integer of T's width: a type such
// as _Complex float (8 bytes, aligned to 4) has no always-lock-free
// std::atomic_ref, and clang then calls libatomic's generic functions, which
// the library does not link; the alignment is checked at run time
// (atomic_lock_free_at) and the build has -fno-strict-aliasing.
template <class T>
using AtomicBits = std::conditional_t<sizeof(T) == 1, uint8_t,
                   std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;

template <class T>
inline std::atomic_ref<AtomicBits<T>> atomic_bits(T* p) {
  return std::atomic_ref<AtomicBits<T>>(*reinterpret_cast<AtomicBits<T>*>(p));
}

template <class To, class From>
inline To bits_cast(const From& v) {
  static_assert(sizeof(To) == sizeof(From));
  To out;
  std::memcpy(&out, &v, sizeof out);
  return out;
}

template <class T>
inline bool atomic_lock_free_at(const T* p) {
  if constexpr (atomic_width_ok<T>)
    return (reinterpret_cast<uintptr_t>(p) & (sizeof(T) - 1)) == 0;
  else
    return false;
}

template <class T>
struct Updated {
  T before;
  T after;
};

// The update under the location's lock: out of line, so that the lock-free
// path of each entry point has no frame to set up (a lock add and a return,
// as libomp's, instead of saving registers for a call it does not make).
template <class T, class Next>
[[gnu::noinline]] Updated<T> locked_update(T* p, Next next) {
  Updated<T> u;
  atomic_location_lock(p);
  u.before = *p;
  u.after = next(u.before);
  *p = u.after;
  atomic_location_unlock(p);
  return u;
}

// The update loop behind atomic_update and atomic_replace_unless: when
// keep(before) holds, nothing is written; otherwise after = next(before),
// and when `after` is the value already there (byte for byte: min and max
// that change nothing, an and with all ones) nothing is written either,
// unless WriteAlways. The load is the update's point in the order.
template <bool WriteAlways, class T, class Keep, class Next>
inline Updated<T> atomic_update_unless(T* p, Keep keep, Next next) {
  Updated<T> u;
  if constexpr (atomic_width_ok<T>) {
    if (atomic_lock_free_at(p)) {
      auto ref = atomic_bits(p);
      using B = AtomicBits<T>;
      B seen = ref.load(std::memory_order_seq_cst);  // pairs with other threads' updates and stores
      for (;;) {
        u.before = bits_cast<T>(seen);
        if (keep(u.before)) {
          u.after = u.before;
          return u;
        }
        u.after = next(u.before);
        // Compared as bits, in registers: through memory (memcmp) the
        // compiler stored both values on the stack and read them back,
        // which widened the window in which another thread's update makes
        // the exchange fail.
        B want = bits_cast<B>(u.after);
        if (!WriteAlways && want == seen) return u;
        // seq_cst on success (above); relaxed on failure: `seen` is only
        // the input of the next attempt.
        if (ref.compare_exchange_weak(seen, want, std::memory_order_seq_cst, std::memory_order_relaxed)) return u;
      }
    }
  }
  return locked_update(p, [keep, next](T old) { return keep(old) ? old : next(old); });
}

// One update: after = next(before).
// WriteAlways: exchange even when the new value's bits equal the old ones
// (arithmetic, where that is rare): one comparison less between the load
// and the exchange, the window in which another thread's update makes it
// fail.
template <bool WriteAlways = false, class T, class Next>
inline Updated<T> atomic_update(T* p, Next next) {
  return atomic_update_unless<WriteAlways>(p, [](T) { return false; }, next);
}

// x = keep(x) ? x : value (min and max): the branch that decides whether to
// write waits only for the load and one comparison, not for a computed new
// value.
template <class T, class Keep>
inline Updated<T> atomic_replace_unless(T* p, Keep keep, T value) {
  return atomic_update_unless<true>(p, keep, [value](T) { return value; });
}

// Integer add: one fetch-and-add instruction (lock xadd) where lock-free.
// Wraps as two's complement (std::atomic_ref's fetch_add is defined to).
template <class T>
inline Updated<T> atomic_fetch_add(T* p, T v) {
  static_assert(std::is_integral_v<T>);
  if constexpr (atomic_width_ok<T>) {
    if (atomic_lock_free_at(p)) {
      T before = std::atomic_ref<T>(*p).fetch_add(v, std::memory_order_seq_cst);
      using U = std::make_unsigned_t<T>;
      return {before, T(U(before) + U(v))};
    }
  }
  return atomic_update(p, [v](T old) { return T(std::make_unsigned_t<T>(old) + std::make_unsigned_t<T>(v)); });
}

template <class T>
inline T atomic_read(T* p) {
  if constexpr (atomic_width_ok<T>) {
    if (atomic_lock_free_at(p)) return bits_cast<T>(atomic_bits(p).load(std::memory_order_seq_cst));  // pairs with updates
  }
  atomic_location_lock(p);
  T v = *p;
  atomic_location_unlock(p);
  return v;
}

template <class T>
inline void atomic_write(T* p, T v) {
  if constexpr (atomic_width_ok<T>) {
    if (atomic_lock_free_at(p)) {
      atomic_bits(p).store(bits_cast<AtomicBits<T>>(v), std::memory_order_seq_cst);  // pairs with atomic_read and updates
      return;
    }
  }
  atomic_location_lock(p);
  *p = v;
  atomic_location_unlock(p);
}

// Returns the value replaced.
template <class T>
inline T atomic_swap(T* p, T v) {
  if constexpr (atomic_width_ok<T>) {
    if (atomic_lock_free_at(p)) return bits_cast<T>(atomic_bits(p).exchange(bits_cast<AtomicBits<T>>(v), std::memory_order_seq_cst));
  }
  atomic_location_lock(p);
  T old = *p;
  *p = v;
  atomic_location_unlock(p);
  return old;
}

// if (*p == expected) *p = desired; returns the value found (the compare is
// of bytes: the integer types of the compare entry points).
template <class T>
inline T atomic_compare_swap(T* p, T expected, T desired) {
  if constexpr (atomic_width_ok<T>) {
    if (atomic_lock_free_at(p)) {
      // seq_cst either way: a failed compare is the construct's read.
      auto seen = bits_cast<AtomicBits<T>>(expected);
      atomic_bits(p).compare_exchange_strong(seen, bits_cast<AtomicBits<T>>(desired), std::memory_order_seq_cst,
                                             std::memory_order_seq_cst);
      return bits_cast<T>(seen);
    }
  }
  atomic_location_lock(p);
  T old = *p;
  if (std::memcmp(&old, &expected, sizeof(T)) == 0) *p = desired;
  atomic_location_unlock(p);
  return old;
}

}  // namespace bobbin::rt
