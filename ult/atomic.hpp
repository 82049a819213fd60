// The one facade for atomics, CPU relax and futex calls (STYLE 12): everything
// that synchronises goes through here, so a checked build can swap it out.
//
// Every atomic access in Bobbin names its memory order and the access it pairs
// with; there is no default seq_cst.
#pragma once

#include <atomic>
#include <cstdint>

namespace bobbin {

template <class T>
using Atomic = std::atomic<T>;

using std::memory_order_acq_rel;
using std::memory_order_acquire;
using std::memory_order_relaxed;
using std::memory_order_release;
using std::memory_order_seq_cst;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  asm volatile("" ::: "memory");
#endif
}

// Full fence: used only where a store must be ordered before a later load of
// another location (the Dekker pattern of park/wake). Each use says why.
inline void fence_seq_cst() { std::atomic_thread_fence(std::memory_order_seq_cst); }

// Futex on a 32-bit atomic (park_<os>.cpp). wait returns when *word != expected,
// on a wake, or spuriously; callers loop on their own condition.
void futex_wait(Atomic<uint32_t>* word, uint32_t expected);
void futex_wake(Atomic<uint32_t>* word, int count);
// As futex_wait, returning after at most `ns` nanoseconds.
void futex_wait_for(Atomic<uint32_t>* word, uint32_t expected, uint64_t ns);
// Monotonic clock in nanoseconds.
uint64_t now_ns();

constexpr std::size_t kCacheLine = 64;

}  // namespace bobbin
