// The team barrier: a centralised sense-reversing barrier (one arrival
// counter, one generation word) whose wait is a task scheduling point.
//
// Why centralised. A team's fibers are spread over few workers (one per core);
// an arrival is one atomic add on a shared line, which at 2..16 workers costs
// less than the extra hops of a tree or dissemination barrier, and a fiber
// runtime's real cost is elsewhere (switching, parking). Tree barriers pay off
// past a socket's worth of workers; the interface (wait) does not change if
// one replaces this.
//
// Invariant B: generation changes exactly once per barrier instance, after
// all n threads arrived and every task of the team completed, and arrived_ is
// 0 again before it changes.
//   1. g = generation (acquire)        -- before arriving, so a fast releaser cannot be missed
//   2. if arrived_++ == n-1 (acq_rel): the last arriver runs tasks until the
//      team is quiescent, then arrived_ = 0 (relaxed; ordered by the release
//      below), generation = g+1 (release), notify;
//   3. else run tasks until generation != g (acquire).
// Once all threads have arrived no new task can be created except by running
// tasks, and those keep the team from being quiescent; so quiescence seen by
// the last arriver is final.
#include "runtime/barrier.hpp"

#include "runtime/help.hpp"

namespace bobbin::rt {

// After a barrier every task of the team has completed: the implicit task's
// dependence table names only finished tasks and can go.
static void forget_dependences(Thread* th) {
  if (th->current_task && th->current_task->domain) deps_clear_domain(th->current_task);
}

// A cancelled loop or sections ends at its closing barrier. Read before
// writing: cancel_flags shares a line with fields every waiter polls
// (Team::tasks), and a read-modify-write at each barrier would take that
// line from them (measured: a third of EPCC's barrier time, 2 threads).
// relaxed: the bits were set before their setters arrived, which the
// arrival's acq_rel orders.
static void clear_construct_cancel(Team* team) {
  constexpr uint32_t kConstruct = kCancelLoop | kCancelSections;
  if (team->cancel_flags.load(memory_order_relaxed) & kConstruct)
    team->cancel_flags.fetch_and(~kConstruct, memory_order_relaxed);
}

// Leaving generation g. Team-mates that share a worker leave one after the
// other, and the first to run keeps the worker until its next scheduling
// point: if that is a member that then waits in user code for something
// the primary thread does (a flag it sets after the barrier, the usual
// reason to single it out), the primary thread waits behind the spin until
// the spin gives up or the monitor preempts it. A member that shares the
// primary thread's worker and finds it not yet gone lets it go first. (A
// team of 3 on 2 workers whose members poll a flag the primary thread sets,
// as LLVM's kmp_sch_simd_guided test: 430 us per round, both members
// spinning out their bound every time; libomp 6 us.)
void Barrier::leave(Thread* th, uint32_t g) {
  if (th->tid == 0) {
    // relaxed: a hint; a stale value costs one yield or one spin.
    master_left_.store(g + 1, memory_order_relaxed);
    ult::Worker::check_initial_placement();  // a read of the rseq area when nothing moved
    return;
  }
  ult::Worker* w = ult::Worker::current();
  if (!w || w != master_worker_ || t_spinlocks_held != 0) return;
  // The primary thread may still be parked: the releaser makes the barrier
  // complete before it wakes the parked waiters, so it can be queued here a
  // moment after this member sees the new generation. Wait for it that
  // long (a bound, kWaitNs: a guess several times a wake's cost), then
  // yield once: every fiber queued here, the primary thread among them,
  // runs before this one goes on. One yield, not a loop of them: with
  // team-mates that keep yielding to each other (a spin barrier on
  // sched_yield) a loop could wait for a primary thread that is not here.
  constexpr uint64_t kWaitNs = 20'000;
  auto master_gone = [&] { return master_left_.load(memory_order_relaxed) == g + 1; };
  WaitWord::relax_for(kWaitNs, [&] { return master_gone() || w->ready_count() != 0; });
  if (!master_gone() && w->ready_count() != 0) ult::Worker::yield();
}

bool Barrier::wait(Thread* th, bool cancellable) {
  Team* team = th->team;
  auto cancelled = [&] {
    return cancellable && (team->cancel_flags.load(memory_order_relaxed) & kCancelParallel) != 0;
  };
  if (n_ <= 1) {
    help_until(th, [&] { return team_quiescent(team); });
    forget_dependences(th);
    clear_construct_cancel(team);
    return cancelled();
  }
  uint32_t g = generation_.load(memory_order_acquire);  // step 1; pairs with step 2's release
  // acq_rel: the last arriver must see every member's writes before the
  // phase (acquire), and its own are released with the generation.
  if (arrived_.fetch_add(1, memory_order_acq_rel) == n_ - 1) {
    help_until(th, [&] { return team_quiescent(team); });
    arrived_.store(0, memory_order_relaxed);
    clear_construct_cancel(team);
    generation_.store(g + 1, memory_order_release);
    team->ww.notify_all();
    forget_dependences(th);
    leave(th, g);
    return cancelled();
  }
  help_until(th, [&] { return generation_.load(memory_order_acquire) != g || cancelled(); }, "a barrier");
  if (generation_.load(memory_order_acquire) != g) {
    forget_dependences(th);
    leave(th, g);
  }
  return cancelled();
}

}  // namespace bobbin::rt
