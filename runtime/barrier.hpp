// The team barrier. See barrier.cpp.
#pragma once

#include <cstdint>

#include "runtime/wait.hpp"
#include "ult/worker.hpp"

namespace bobbin::rt {

struct Thread;

class Barrier {
 public:
  // Stores only what changed: the lines stay shared with the members, which
  // read them next (see keep_or_set in team.cpp).
  // `master_worker`: the worker the team's primary thread runs on (a
  // started fiber, or a kernel thread's own context, never moves).
  void reset(int n, ult::Worker* master_worker) {
    if (n_ != n) n_ = n;
    if (master_worker_ != master_worker) master_worker_ = master_worker;
    if (arrived_.load(memory_order_relaxed) != 0) arrived_.store(0, memory_order_relaxed);
  }
  // A task scheduling point: runs the team's tasks while it waits, and does
  // not release the team until every task of the team has completed.
  // `cancellable`: also ends when the region is cancelled; returns whether it was.
  bool wait(Thread* th, bool cancellable = false);

 private:
  void leave(Thread* th, uint32_t g);

  int n_ = 1;  // written by the master at fork, before members start
  ult::Worker* master_worker_ = nullptr;  // likewise
  alignas(kCacheLine) Atomic<int> arrived_{0};
  Atomic<uint32_t> generation_{0};
  // The last generation the primary thread has left: a line of its own,
  // read only by members that share its worker.
  alignas(kCacheLine) Atomic<uint32_t> master_left_{0};
};

}  // namespace bobbin::rt
