// WaitWord: how every runtime wait (barrier, join, ordered, reduction, copy)
// blocks. It is a scheduling point: spin a little, give the worker to other
// ready fibers, then park the fiber; the worker's idle loop can then steal.
//
// Protocol (invariant: a waiter that parks is woken by the notify that made
// its condition true):
//   waiter:   1. spin: while !done(): yield if the worker has other ready
//                fibers, else relax, until the spin budget runs out;
//             2. parked++;  3. fence;  4. v = seq;  5. if done(): parked--, return;
//             6. park_on(seq, v) (parks only if seq is still v, checked under
//                the bucket lock);  7. parked--, go to 2.
//   notifier: 1. make done() true;  2. fence;  3. if parked != 0: seq++, wake all on seq.
// The two seq_cst fences order each side's store before its load (the
// store-buffer pattern): either the waiter's step 5 sees the notifier's step
// 1, or the notifier's step 3 sees parked != 0. In the second case the seq++
// happens before the notifier takes the bucket lock, so a waiter that takes
// the lock later sees seq != v and does not park, and one that took it earlier
// is in the bucket and is woken. A notify with nobody parked costs one fence
// and one load of a line that stays shared.
#pragma once

#include <climits>
#include <cstdint>

#include "runtime/settings.hpp"
#include "ult/atomic.hpp"
#include "ult/parking_lot.hpp"
#include "ult/worker.hpp"

namespace bobbin::rt {

extern uint64_t g_fiber_spin_ns;  // set at init from the wait policy

class WaitWord {
 public:
  template <class Done>
  void wait(Done done) {
    if (done()) return;
    spin(done);
    while (!done()) {
      parked_.fetch_add(1, memory_order_relaxed);  // step 2
      fence_seq_cst();                             // step 3: pairs with notify_all's fence
      uint32_t v = seq_.load(memory_order_acquire);
      if (done()) {
        parked_.fetch_sub(1, memory_order_relaxed);
        return;
      }
      ult::park_on(&seq_, v);
      parked_.fetch_sub(1, memory_order_relaxed);
    }
  }

  void notify_all() {
    fence_seq_cst();  // step 2: pairs with the waiter's step 3
    if (parked_.load(memory_order_relaxed) != 0) {
      seq_.fetch_add(1, memory_order_release);
      ult::unpark_on(&seq_, INT_MAX);
    }
  }

  // Spins without yielding while !done(), for at most ns nanoseconds (a
  // wait for a party known to be running or about to be). Returns done().
  template <class Done>
  static bool relax_for(uint64_t ns, Done done) {
    uint64_t start = 0;
    for (unsigned i = 0; !done(); ++i) {
      if ((i & 15) == 15) {
        uint64_t now = now_ns();
        if (start == 0) start = now;
        else if (now - start >= ns) return done();
      }
      ult::Worker::relax();
    }
    return true;
  }

  // Spins (yielding to other fibers of this worker) while !done(), for at
  // most the fiber spin budget. Returns done().
  template <class Done>
  static bool spin(Done done) {
    uint64_t budget = g_fiber_spin_ns;
    if (budget == 0) return done();
    uint64_t start = 0;
    for (unsigned i = 1;; ++i) {
      if (done()) return true;
      ult::Worker::yield_or_relax();
      // Clock read every 64 polls: a guess that keeps its cost negligible.
      if ((i & 63) == 0 && budget != UINT64_MAX) {
        uint64_t now = now_ns();
        if (start == 0) start = now;
        else if (now - start >= budget) return done();
      }
    }
  }

 private:
  Atomic<uint32_t> seq_{0};
  Atomic<uint32_t> parked_{0};
};

}  // namespace bobbin::rt
