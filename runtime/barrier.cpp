// The team barrier: a centralised sense-reversing barrier (one arrival
// counter, one generation word) whose wait is a scheduling point.
//
// Why centralised. A team's fibers are spread over few workers (one per core);
// an arrival is one atomic add on a shared line, which at 2..16 workers costs
// less than the extra hops of a tree or dissemination barrier, and a fiber
// runtime's real cost is elsewhere (switching, parking). Tree barriers pay off
// past a socket's worth of workers; the interface (wait) does not change if
// one replaces this.
//
// Invariant B: generation changes exactly once per barrier instance, after
// all n threads arrived, and arrived_ is 0 again before it changes.
//   1. g = generation (acquire)                  -- before arriving, so a fast
//                                                   releaser cannot be missed
//   2. if arrived_++ == n-1 (acq_rel): the last:
//        arrived_ = 0 (relaxed; ordered by 3's release); generation = g+1 (release); notify
//   3. else wait (WaitWord) until generation != g (acquire)
// A thread cannot arrive at instance k+1 before seeing generation g+1, by
// which time arrived_ was reset (release/acquire on generation).
#include "runtime/barrier.hpp"

namespace bobbin::rt {

void Barrier::wait() {
  if (n_ <= 1) return;
  uint32_t g = generation_.load(memory_order_acquire);  // step 1; pairs with step 2's release
  // acq_rel: the last arriver must see every member's writes before the
  // phase (acquire), and its own are released with the generation.
  if (arrived_.fetch_add(1, memory_order_acq_rel) == n_ - 1) {
    arrived_.store(0, memory_order_relaxed);
    generation_.store(g + 1, memory_order_release);
    ww_.notify_all();
    return;
  }
  ww_.wait([&] { return generation_.load(memory_order_acquire) != g; });
}

}  // namespace bobbin::rt
