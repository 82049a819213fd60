// The team barrier. See barrier.cpp.
#pragma once

#include <cstdint>

#include "runtime/wait.hpp"

namespace bobbin::rt {

class Barrier {
 public:
  void reset(int n) {
    n_ = n;
    arrived_.store(0, memory_order_relaxed);
  }
  void wait();

 private:
  int n_ = 1;  // written by the master at fork, before members start
  alignas(kCacheLine) Atomic<int> arrived_{0};
  Atomic<uint32_t> generation_{0};
  WaitWord ww_;
};

}  // namespace bobbin::rt
