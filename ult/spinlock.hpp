// A test-and-test-and-set spin lock for short critical sections inside the
// runtime (queue pushes and pops, a few dozen instructions). Never held across
// a fiber switch except where a function's name says it hands the lock over.
#pragma once

#include <sched.h>

#include "ult/atomic.hpp"
#include "ult/tsa.hpp"

namespace bobbin {

class CAPABILITY("mutex") SpinLock {
 public:
  void lock() ACQUIRE() {
    // acquire: pairs with the release in unlock(), so the holder sees what the
    // previous holder wrote.
    while (held_.exchange(true, memory_order_acquire)) {
      // A holder preempted by the OS (more workers than cores) would make us
      // spin for its whole time slice: past a bound, give the core away.
      // 1024 polls: a guess, far above a critical section's length here.
      for (unsigned i = 0; held_.load(memory_order_relaxed); ++i) {
        if (i < 1024) cpu_relax();
        else sched_yield();
      }
    }
  }
  bool try_lock() TRY_ACQUIRE(true) {
    return !held_.load(memory_order_relaxed) && !held_.exchange(true, memory_order_acquire);
  }
  void unlock() RELEASE() { held_.store(false, memory_order_release); }

 private:
  Atomic<bool> held_{false};
};

class SCOPED_CAPABILITY SpinGuard {
 public:
  explicit SpinGuard(SpinLock& l) ACQUIRE(l) : l_(l) { l_.lock(); }
  ~SpinGuard() RELEASE() { l_.unlock(); }
  SpinGuard(const SpinGuard&) = delete;
  SpinGuard& operator=(const SpinGuard&) = delete;

 private:
  SpinLock& l_;
};

}  // namespace bobbin
