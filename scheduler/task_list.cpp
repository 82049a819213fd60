#include "scheduler/task_list.hpp"

#include <algorithm>
#include <utility>

namespace bobbin::sched {

void TaskList::grow() {
  std::vector<void*> bigger(ring_.size() * 2);
  std::size_t n = bottom_ - top_;
  for (std::size_t i = 0; i < n; ++i) bigger[i] = at(top_ + i);
  ring_.swap(bigger);
  top_ = 0;
  bottom_ = n;
}

void TaskList::push_bottom(void* item) {
  SpinGuard g(lock_);
  if (bottom_ - top_ == ring_.size()) grow();
  ring_[bottom_ & (ring_.size() - 1)] = item;
  ++bottom_;
  update_size();
  count_push();
}

void TaskList::push_ordered(void* item, uint64_t key) {
  SpinGuard g(lock_);
  heap_.push_back({key, item});
  for (std::size_t i = heap_.size() - 1; i > 0;) {  // sift up
    std::size_t up = (i - 1) / 2;
    if (heap_[up].key <= heap_[i].key) break;
    std::swap(heap_[up], heap_[i]);
    i = up;
  }
  update_size();
  count_push();
}

void* TaskList::take_keyed(std::size_t i) {
  void* item = heap_[i].item;
  heap_[i] = heap_.back();
  heap_.pop_back();
  std::size_t n = heap_.size();
  if (i < n) {
    // The moved entry may belong above i (it came from another subtree) or below.
    while (i > 0 && heap_[(i - 1) / 2].key > heap_[i].key) {
      std::swap(heap_[(i - 1) / 2], heap_[i]);
      i = (i - 1) / 2;
    }
    for (;;) {
      std::size_t l = 2 * i + 1, r = l + 1, m = i;
      if (l < n && heap_[l].key < heap_[m].key) m = l;
      if (r < n && heap_[r].key < heap_[m].key) m = r;
      if (m == i) break;
      std::swap(heap_[m], heap_[i]);
      i = m;
    }
  }
  update_size();
  return item;
}

void* TaskList::pop_bottom() {
  if (size() == 0) return nullptr;
  SpinGuard g(lock_);
  if (top_ != bottom_) {
    void* item = at(--bottom_);
    update_size();
    return item;
  }
  return heap_.empty() ? nullptr : take_keyed(0);
}

void* TaskList::pop_top() {
  if (size() == 0) return nullptr;
  SpinGuard g(lock_);
  if (!heap_.empty()) return take_keyed(0);
  if (top_ == bottom_) return nullptr;
  void* item = at(top_++);
  update_size();
  return item;
}

std::size_t TaskList::steal_half(std::vector<void*>& out) { return take_top(out, kHalf); }

std::size_t TaskList::take_top(std::vector<void*>& out, std::size_t max) {
  std::size_t n = size(), first = out.size();
  out.resize(first + std::max<std::size_t>(max == kHalf ? n : std::min(n, max), 1));
  std::size_t got = take_top(out.data() + first, out.size() - first, max);
  out.resize(first + got);
  return got;
}

std::size_t TaskList::take_top(void** out, std::size_t cap, std::size_t max) {
  if (size() == 0 || cap == 0) return 0;
  SpinGuard g(lock_);
  if (!heap_.empty()) {
    // One: the taker queues what it takes on a deque, which would lose the order.
    out[0] = take_keyed(0);
    return 1;
  }
  std::size_t n = bottom_ - top_;
  std::size_t take = max == kHalf ? (n + 1) / 2 : std::min(n, std::max<std::size_t>(max, 1));
  take = std::min(take, cap);
  for (std::size_t i = 0; i < take; ++i) out[i] = at(top_++);
  update_size();
  return take;
}

}  // namespace bobbin::sched
