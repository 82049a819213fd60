// The team barrier. See barrier.cpp.
#pragma once

#include <cstdint>

#include "runtime/wait.hpp"

namespace bobbin::rt {

struct Thread;

class Barrier {
 public:
  // Stores only what changed: the lines stay shared with the members, which
  // read them next (see keep_or_set in team.cpp).
  void reset(int n) {
    if (n_ != n) n_ = n;
    if (arrived_.load(memory_order_relaxed) != 0) arrived_.store(0, memory_order_relaxed);
  }
  // A task scheduling point: runs the team's tasks while it waits, and does
  // not release the team until every task of the team has completed.
  // `cancellable`: also ends when the region is cancelled; returns whether it was.
  bool wait(Thread* th, bool cancellable = false);

 private:
  int n_ = 1;  // written by the master at fork, before members start
  alignas(kCacheLine) Atomic<int> arrived_{0};
  Atomic<uint32_t> generation_{0};
};

}  // namespace bobbin::rt
