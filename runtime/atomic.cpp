// The locks of atomic.hpp's wide and misaligned locations: a fixed table of
// lock words, one per cache line, chosen by the location's address. Two
// locations that share a lock only serialise; one location always maps to
// the same lock, which is all atomicity needs. Each word is a runtime simple
// lock (sync.cpp's protocol), so a contended wait is a scheduling point.
#include <cstdint>

#include "runtime/api.hpp"
#include "runtime/atomic.hpp"
#include "ult/atomic.hpp"

namespace bobbin::rt {
namespace {

// 64 lines: a guess (4 KiB), enough that a handful of hot locations rarely
// collide; the table is touched only by programs with wide atomics.
constexpr std::size_t kLocationLocks = 64;

struct alignas(kCacheLine) LocationLock {
  Atomic<uint32_t> word{0};
};
LocationLock g_location_locks[kLocationLocks];

Atomic<uint32_t>* lock_of(const void* where) {
  // Drop the low 4 bits (a 16-byte location is one slot), then mix the rest so
  // that arrays of 16- and 32-byte elements spread over the table.
  uint64_t a = reinterpret_cast<uintptr_t>(where) >> 4;
  a *= 0x9e3779b97f4a7c15ull;  // Fibonacci hashing: the golden ratio's 64-bit fraction
  return &g_location_locks[a >> 58].word;  // the top 6 bits: 64 slots
}
static_assert(kLocationLocks == 64, "lock_of takes the top 6 bits of the hash");

}  // namespace

void atomic_location_lock(const void* where) { lock_set_inline(lock_of(where)); }
void atomic_location_unlock(const void* where) { lock_unset_inline(lock_of(where)); }

}  // namespace bobbin::rt
