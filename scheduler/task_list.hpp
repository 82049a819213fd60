// A task list: a double-ended queue of opaque items. The worker(s) that own
// it push and pop at the bottom (LIFO: depth-first, cache-warm); thieves take
// from the top (FIFO: the oldest, usually the biggest, pieces of work).
//
// Why a lock and not a Chase-Lev deque: a list may be shared by several
// workers (BOBBIN_TASKLIST=core, l3, numa, machine), so "one owner" does not
// hold in general; an uncontended spin lock costs two atomic operations, the
// same order as Chase-Lev's owner path with its fence. size() is read without
// the lock by victim selection and by idle checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ult/atomic.hpp"
#include "ult/spinlock.hpp"

namespace bobbin::sched {

class alignas(kCacheLine) TaskList {
 public:
  TaskList() : ring_(kInitial) {}
  TaskList(const TaskList&) = delete;
  TaskList& operator=(const TaskList&) = delete;

  void push_bottom(void* item);
  void* pop_bottom();
  void* pop_top();
  // Moves up to half of the items (at least one) from the top into `out`; returns how many.
  std::size_t steal_half(std::vector<void*>& out);
  // Removes the first item from the top that `accept` takes (e.g. the
  // tied-task constraint); null if none does.
  template <class Accept>
  void* pop_top_if(Accept accept);
  template <class Accept>
  void* pop_bottom_if(Accept accept);

  // relaxed: a hint; the lock orders the items themselves.
  std::size_t size() const { return size_.load(memory_order_relaxed); }

 private:
  static constexpr std::size_t kInitial = 256;  // grows by doubling; a guess, fits one spawn burst
  void grow() REQUIRES(lock_);
  void* at(std::size_t i) const REQUIRES(lock_) { return ring_[i & (ring_.size() - 1)]; }

  SpinLock lock_;
  std::vector<void*> ring_ GUARDED_BY(lock_);
  std::size_t top_ GUARDED_BY(lock_) = 0;     // index of the oldest item
  std::size_t bottom_ GUARDED_BY(lock_) = 0;  // one past the newest item
  Atomic<std::size_t> size_{0};
};

template <class Accept>
void* TaskList::pop_top_if(Accept accept) {
  if (size() == 0) return nullptr;
  SpinGuard g(lock_);
  for (std::size_t i = top_; i != bottom_; ++i) {
    void* item = at(i);
    if (!accept(item)) continue;
    // Close the gap by shifting the older items up by one.
    for (std::size_t j = i; j != top_; --j) ring_[j & (ring_.size() - 1)] = at(j - 1);
    ++top_;
    size_.store(bottom_ - top_, memory_order_relaxed);
    return item;
  }
  return nullptr;
}

template <class Accept>
void* TaskList::pop_bottom_if(Accept accept) {
  if (size() == 0) return nullptr;
  SpinGuard g(lock_);
  if (top_ == bottom_) return nullptr;
  void* item = at(bottom_ - 1);
  if (!accept(item)) return nullptr;
  --bottom_;
  size_.store(bottom_ - top_, memory_order_relaxed);
  return item;
}

}  // namespace bobbin::sched
