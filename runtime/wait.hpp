// WaitWord: how every runtime wait (barrier, join, ordered, reduction, copy)
// blocks. It is a scheduling point: spin a little, give the worker to other
// ready fibers, then park the fiber; the worker's idle loop can then steal.
//
// Protocol (invariant: a waiter that parks is woken by the notify that made
// its condition true):
//   waiter:   1. spin: while !done(): yield if the worker has other ready
//                fibers, else relax, until the spin budget runs out;
//             2. parked++ (seq_cst);  3. v = seq (seq_cst);  4. if done(): parked--, return;
//             5. park_on(seq, v) (parks only if seq is still v);  6. parked--, go to 2.
//   notifier: 1. make done() true;  2. seq++ (seq_cst);  3. if parked (seq_cst) != 0: wake all on seq.
// If the notifier reads parked == 0, the waiter's step 2 follows it in the
// single total order, so the waiter's step 3 reads the new seq, which
// synchronises with the notifier's step 2 and makes step 1's writes visible
// to done(). Otherwise the notifier wakes, and park_on's check under the
// bucket lock closes the last window.
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
      parked_.fetch_add(1, memory_order_seq_cst);
      uint32_t v = seq_.load(memory_order_seq_cst);
      if (done()) {
        parked_.fetch_sub(1, memory_order_relaxed);
        return;
      }
      ult::park_on(&seq_, v);
      parked_.fetch_sub(1, memory_order_relaxed);
    }
  }

  void notify_all() {
    seq_.fetch_add(1, memory_order_seq_cst);
    if (parked_.load(memory_order_seq_cst) != 0) ult::unpark_on(&seq_, INT_MAX);
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
      ult::Worker* w = ult::Worker::current();
      if (w && w->ready_count() != 0) {
        ult::Worker::yield();
      } else {
        cpu_relax();
      }
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
