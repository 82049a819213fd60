// A test-and-test-and-set spin lock for short critical sections inside the
// runtime (queue pushes and pops, a few dozen instructions). Never held across
// a fiber switch except where a function's name says it hands the lock over.
#pragma once

#include <sched.h>

#include "ult/atomic.hpp"
#include "ult/tsa.hpp"
#include "ult/yield.hpp"

namespace bobbin {

// Spin locks the calling kernel thread holds (preempt_linux.cpp): a fiber
// is never preempted while it holds one, since the fiber run next on the
// same thread could spin for that lock forever. initial-exec: one
// %fs-relative add per lock and unlock.
extern thread_local int t_spinlocks_held __attribute__((tls_model("initial-exec")));

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
        else os_yield();
      }
    }
    ++t_spinlocks_held;
  }
  bool try_lock() TRY_ACQUIRE(true) {
    bool got = !held_.load(memory_order_relaxed) && !held_.exchange(true, memory_order_acquire);
    if (got) ++t_spinlocks_held;
    return got;
  }
  void unlock() RELEASE() {
    held_.store(false, memory_order_release);
    --t_spinlocks_held;
  }

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
