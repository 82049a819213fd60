// Fiber stacks: mmap'ed, with a PROT_NONE guard page below, recycled per worker.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bobbin::ult {

struct Stack {
  char* base = nullptr;    // lowest mapped address (the guard page starts here)
  std::size_t mapped = 0;  // bytes mapped, guard included
  std::size_t usable() const { return mapped - guard_size(); }
  char* top() const { return base + mapped; }
  bool guard_contains(const void* p) const {
    auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(base);
    // The guard page, plus a page of slack below it: a large frame may jump it.
    return a >= b - guard_size() && a < b + guard_size();
  }
  static std::size_t guard_size();
};

// Process-wide default size of a fiber stack (OMP_STACKSIZE). Changing it
// affects stacks allocated afterwards; cached stacks of another size are freed.
void set_stack_size(std::size_t bytes);
std::size_t stack_size();

// Per-worker cache of free stacks of the current size. Not thread-safe: each
// cache belongs to one worker and is touched only by that worker's thread.
class StackCache {
 public:
  Stack take();
  void give(Stack s);
  void clear();
  ~StackCache() { clear(); }
  std::size_t size() const { return count_; }

  // Cap on cached stacks per worker; beyond it stacks go back to the kernel.
  // An outermost team of 8 run as fibers on 2 workers, each of its threads
  // opening inner teams of 16, keeps 64 inner members per worker: with a cap
  // of 32, every inner region unmapped and mapped stacks again (nested 8 x
  // 16: 1.1 s against 0.011 s with 256). A cached stack holds only the pages
  // its fibers touched.
  static constexpr std::size_t kMaxCached = 256;

 private:
  Stack slots_[kMaxCached];
  std::size_t count_ = 0;
};

Stack map_stack(std::size_t usable);
void unmap_stack(Stack s);

}  // namespace bobbin::ult
