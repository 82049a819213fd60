#include "scheduler/task_list.hpp"

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
  size_.store(bottom_ - top_, memory_order_relaxed);
}

void* TaskList::pop_bottom() {
  if (size() == 0) return nullptr;
  SpinGuard g(lock_);
  if (top_ == bottom_) return nullptr;
  void* item = at(--bottom_);
  size_.store(bottom_ - top_, memory_order_relaxed);
  return item;
}

void* TaskList::pop_top() {
  if (size() == 0) return nullptr;
  SpinGuard g(lock_);
  if (top_ == bottom_) return nullptr;
  void* item = at(top_++);
  size_.store(bottom_ - top_, memory_order_relaxed);
  return item;
}

std::size_t TaskList::steal_half(std::vector<void*>& out) {
  if (size() == 0) return 0;
  SpinGuard g(lock_);
  std::size_t n = bottom_ - top_;
  std::size_t take = (n + 1) / 2;
  for (std::size_t i = 0; i < take; ++i) out.push_back(at(top_++));
  size_.store(bottom_ - top_, memory_order_relaxed);
  return take;
}

}  // namespace bobbin::sched
