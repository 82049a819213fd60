// A task list: a double-ended queue of opaque items. The worker(s) that own
// it push and pop at the bottom (LIFO: depth-first, cache-warm); thieves take
// from the top (FIFO: the oldest, usually the biggest, pieces of work).
//
// Beside the deque, an ordered part: items pushed with a key (push_ordered)
// come out smallest key first, to owners when the deque is empty and to
// thieves before the deque's top. The runtime keys tasks that were ordered
// by something other than their creator's recursion: tasks released by
// dependences and tasks with a priority (runtime/task.cpp says why).
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
  void push_ordered(void* item, uint64_t key);
  // The owner's pop: the deque's bottom, else the smallest key.
  void* pop_bottom();
  // A thief's pop: the smallest key, else the deque's top.
  void* pop_top();
  // Moves into `out` the smallest-key item if there is one, else up to half
  // of the deque (at least one item) from the top; returns how many.
  std::size_t steal_half(std::vector<void*>& out);
  // Moves into `out` up to `max` items (at least one if any): the
  // smallest-key one alone if there is one, else from the deque's top;
  // kHalf: half of the deque (rounded up), counted under the lock.
  static constexpr std::size_t kHalf = ~std::size_t(0);
  std::size_t take_top(std::vector<void*>& out, std::size_t max);
  // The same into an array of `cap` (no allocation): at most min(max, cap).
  std::size_t take_top(void** out, std::size_t cap, std::size_t max);
  // pop_top restricted to items `accept` takes (e.g. the tied-task
  // constraint): the smallest accepted key, else the first accepted item from
  // the deque's top; null if none is accepted.
  template <class Accept>
  void* pop_top_if(Accept accept);
  // pop_bottom restricted likewise: the newest accepted item of the deque
  // (scanning from the bottom up, so that accepted items under a newer one
  // that is not accepted are found); if none, the smallest accepted key.
  template <class Accept>
  void* pop_bottom_if(Accept accept);
  // The same, after a scan that found nothing when pushes() was `since`:
  // only what came since, which is the newest of the deque (at most
  // pushes() - since items from the bottom) and the ordered part; `*seen`:
  // pushes() under the lock, for the next call.
  template <class Accept>
  void* pop_bottom_if_since(Accept accept, uint64_t since, uint64_t* seen);

  // relaxed: a hint; the lock orders the items themselves.
  std::size_t size() const { return size_.load(memory_order_relaxed); }
  // Items added so far (both parts), a count that only grows: a constrained
  // scan that found nothing need not look again until it moves (ScanMemo).
  uint64_t pushes() const { return pushes_.load(memory_order_relaxed); }

 private:
  static constexpr std::size_t kInitial = 256;  // grows by doubling; a guess, fits one spawn burst
  struct Keyed {
    uint64_t key;
    void* item;
  };
  void grow() REQUIRES(lock_);
  void* at(std::size_t i) const REQUIRES(lock_) { return ring_[i & (ring_.size() - 1)]; }
  void* take_keyed(std::size_t i) REQUIRES(lock_);  // removes heap_[i]
  template <class Accept>
  std::size_t min_accepted(Accept& accept) const REQUIRES(lock_);  // heap_.size() if none
  void update_size() REQUIRES(lock_) { size_.store(bottom_ - top_ + heap_.size(), memory_order_relaxed); }
  void count_push() REQUIRES(lock_) { pushes_.store(pushes_.load(memory_order_relaxed) + 1, memory_order_release); }

  SpinLock lock_;
  std::vector<void*> ring_ GUARDED_BY(lock_);
  std::size_t top_ GUARDED_BY(lock_) = 0;     // index of the oldest item
  std::size_t bottom_ GUARDED_BY(lock_) = 0;  // one past the newest item
  std::vector<Keyed> heap_ GUARDED_BY(lock_);  // the ordered part: a binary min-heap on key
  Atomic<std::size_t> size_{0};                // both parts
  Atomic<uint64_t> pushes_{0};                 // written under lock_, read without
};

template <class Accept>
std::size_t TaskList::min_accepted(Accept& accept) const {
  // The heap's root when accepted (the common case), else a scan: the
  // constrained pops are rare and the ordered part is short.
  std::size_t best = heap_.size();
  for (std::size_t i = 0; i < heap_.size(); ++i)
    if ((best == heap_.size() || heap_[i].key < heap_[best].key) && accept(heap_[i].item)) {
      best = i;
      if (i == 0) break;
    }
  return best;
}

template <class Accept>
void* TaskList::pop_top_if(Accept accept) {
  if (size() == 0) return nullptr;
  SpinGuard g(lock_);
  std::size_t k = min_accepted(accept);
  if (k != heap_.size()) return take_keyed(k);
  for (std::size_t i = top_; i != bottom_; ++i) {
    void* item = at(i);
    if (!accept(item)) continue;
    // Close the gap by shifting the older items up by one.
    for (std::size_t j = i; j != top_; --j) ring_[j & (ring_.size() - 1)] = at(j - 1);
    ++top_;
    update_size();
    return item;
  }
  return nullptr;
}

template <class Accept>
void* TaskList::pop_bottom_if(Accept accept) {
  uint64_t seen;
  return pop_bottom_if_since(accept, 0, &seen);
}

template <class Accept>
void* TaskList::pop_bottom_if_since(Accept accept, uint64_t since, uint64_t* seen) {
  // acquire: pairs with count_push's release, so that a count that moved
  // is seen with the item that moved it.
  uint64_t before = pushes_.load(memory_order_acquire);
  if (size() == 0) {
    *seen = before;
    return nullptr;
  }
  SpinGuard g(lock_);
  uint64_t now = pushes_.load(memory_order_relaxed);
  *seen = now;
  // Items pushed since sit below every older one: push_bottom appends and
  // every pop keeps the order of the rest.
  std::size_t stop = top_;
  if (now - since < bottom_ - top_) stop = bottom_ - std::size_t(now - since);
  for (std::size_t i = bottom_; i != stop; --i) {
    void* item = at(i - 1);
    if (!accept(item)) continue;
    // Close the gap by shifting the newer items down by one.
    for (std::size_t j = i - 1; j + 1 != bottom_; ++j) ring_[j & (ring_.size() - 1)] = at(j + 1);
    --bottom_;
    update_size();
    return item;
  }
  std::size_t k = min_accepted(accept);
  return k != heap_.size() ? take_keyed(k) : nullptr;
}

}  // namespace bobbin::sched
