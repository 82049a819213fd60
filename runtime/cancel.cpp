// Cancellation (OpenMP 5.2 §16): cancel and cancellation points for
// parallel, loop, sections and taskgroup; cancellable barriers.
//
// A cancel request sets a bit on the team (parallel, loop, sections) or a
// flag on the innermost taskgroup. Threads observe it at cancellation points,
// at cancellable barriers (which then return "cancelled" at once, since the
// cancelling thread will never arrive), in dynamic loops (no more chunks),
// and when a task would start (it is discarded). The loop and sections bits
// are cleared when the construct's closing barrier completes; the parallel
// bit lives until the next fork.
//
// Orders: requests are relaxed stores read by relaxed loads — a thread that
// misses a request runs on to the next cancellation point, which the spec
// allows; the barrier's own release/acquire orders what matters.
#include "runtime/api.hpp"
#include "runtime/help.hpp"
#include "runtime/settings.hpp"
#include "runtime/team.hpp"

namespace bobbin::rt {

namespace {
uint32_t bit_of(int kind) {
  switch (kind) {
    case 1: return kCancelParallel;
    case 2: return kCancelLoop;
    case 3: return kCancelSections;
    default: return 0;
  }
}

TaskGroup* cancellable_group(Thread* th) { return th->current_task->running_group; }
}  // namespace

bool cancellation_enabled() { return settings().cancellation; }

bool cancel(int kind) {
  if (!settings().cancellation) return false;
  Thread* th = current_thread_fast();
  if (kind == 4) {
    TaskGroup* g = cancellable_group(th);
    if (!g) return false;
    if (g->workshare && g->outer) g = g->outer;  // libgomp: the group around the construct
    g->cancelled.store(true, memory_order_relaxed);
    return true;
  }
  uint32_t bit = bit_of(kind);
  if (!bit) return false;
  th->team->cancel_flags.fetch_or(bit, memory_order_relaxed);
  th->team->ww.notify_all();  // threads parked in a cancellable barrier leave it
  return true;
}

bool cancellation_point(int kind) {
  if (!settings().cancellation) return false;
  Thread* th = current_thread_fast();
  uint32_t flags = th->team->cancel_flags.load(memory_order_relaxed);
  if (flags & kCancelParallel) return true;
  if (kind == 4) {
    for (TaskGroup* g = th->current_task->group; g; g = g->outer)
      if (g->cancelled.load(memory_order_relaxed)) return true;
    TaskGroup* g = cancellable_group(th);
    return g && g->cancelled.load(memory_order_relaxed);
  }
  return (flags & bit_of(kind)) != 0;
}

bool cancel_barrier() {
  Thread* th = current_thread_fast();
  leave_cancelled_loop(th);
  return th->team->barrier.wait(th, /*cancellable=*/true);
}

// A task that would start after its taskgroup or its region was cancelled is
// discarded (it completes without running).
bool task_cancelled(const Task* t) {
  if (!settings().cancellation) return false;
  if (t->team->cancel_flags.load(memory_order_relaxed) & kCancelParallel) return true;
  for (TaskGroup* g = t->group; g; g = g->outer)
    if (g->cancelled.load(memory_order_relaxed)) return true;
  return false;
}

}  // namespace bobbin::rt
