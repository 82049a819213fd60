// Shared helpers of the policy files and their factories.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "scheduler/steal_policy.hpp"
#include "ult/atomic.hpp"
#include "ult/log.hpp"

namespace bobbin::sched {

// Per-thief state, one cache line each so thieves never share a line.
// Only thief i uses entry i, so each entry is made at its thief's first use
// (`make(i)`, else a default T), in zeroed memory: from calloc, a block this
// size is fresh pages that the kernel maps once touched (glibc maps blocks
// above its threshold, 128 KiB at start), so a process with 2 workers
// touches 2 lines of the 4096. (Made all at once, the default policy's
// entries cost about 1 ms of every process's start.) Heap memory, not a
// mapping of our own: the leak checker scans it for the states' own
// allocations (random-order's and producer-order's vectors).
template <class T>
class PerThief {
 public:
  using Make = T (*)(std::size_t);
  explicit PerThief(Make make = nullptr) : make_(make), raw_(std::calloc(kBytes + kCacheLine, 1)) {
    if (!raw_) fatal("out of memory for the steal policy's per-thief state");
    auto at = (reinterpret_cast<std::uintptr_t>(raw_) + kCacheLine - 1) & ~std::uintptr_t(kCacheLine - 1);
    slots_ = reinterpret_cast<Slot*>(at);
  }
  ~PerThief() {
    for (std::size_t i = 0; i < kN; ++i)
      if (slots_[i].ready) get(i)->~T();
    std::free(raw_);
  }
  PerThief(const PerThief&) = delete;
  PerThief& operator=(const PerThief&) = delete;

  T& operator[](int i) {
    std::size_t k = std::size_t(i);
    Slot& s = slots_[k];
    if (!s.ready) {
      if (make_) new (s.bytes) T(make_(k));
      else new (s.bytes) T();
      s.ready = true;
    }
    return *get(k);
  }

 private:
  static constexpr std::size_t kN = StealPolicy::kMaxThieves;
  struct alignas(kCacheLine) Slot {
    alignas(T) unsigned char bytes[sizeof(T)];
    bool ready;
  };
  static constexpr std::size_t kBytes = kN * sizeof(Slot);
  T* get(std::size_t k) { return std::launder(reinterpret_cast<T*>(slots_[k].bytes)); }

  Make make_;
  void* raw_;
  Slot* slots_ = nullptr;
};

// Thief i's generator, seeded apart from the others'.
inline Rng seeded_rng(std::size_t i) {
  Rng r;
  r.s = 0x9E3779B97F4A7C15ull * (i + 1) | 1;
  return r;
}

std::unique_ptr<StealPolicy> make_hybrid();
std::unique_ptr<StealPolicy> make_random();
std::unique_ptr<StealPolicy> make_hierarchical();
std::unique_ptr<StealPolicy> make_round_robin();
std::unique_ptr<StealPolicy> make_random_order();
std::unique_ptr<StealPolicy> make_producer();
std::unique_ptr<StealPolicy> make_producer_order();

}  // namespace bobbin::sched
