// help_until: the task-aware wait behind every runtime wait that is a task
// scheduling point (barrier, join, taskwait, taskgroup end, dependence wait).
#pragma once

#include "runtime/task.hpp"
#include "runtime/team.hpp"
#include "runtime/wait.hpp"
#include "ult/worker.hpp"

namespace bobbin::rt {

// True if some list of the team holds a task (a hint, read without locks).
inline bool tasks_visible(Team* team) {
  TeamTasks* tt = team->tasks.load(memory_order_acquire);
  if (!tt) return false;
  return tt->priority.size() || tt->sched->any_queued();
}

// Whether a producer handed th a task through its polling slot (task.cpp).
inline bool handed_a_task(const Thread* th) {
  return th->poll_slot && th->poll_slot->load(memory_order_relaxed) > TeamTasks::kPolling;
}

// Takes back what help_until told th's worker (that th waits for work):
// before th runs a task, and when its wait ends. Called only when it did.
inline void stop_waiting_note(Thread* th) {
  if (th->noted_waiting) ult::Worker::note_waiting_for_work(false), th->noted_waiting = false;
}

// Runs tasks until done(); with nothing to run it spins, then parks on the
// team's wait word, which task pushes, task completions and barrier releases
// all notify.
//
// Between two tasks it lets the worker's other ready fibers run first: a
// gang member reserved on this worker (a nested region opened by a task
// elsewhere) must not wait behind every task this team still has, since its
// gang's other members may be spinning for it.
//
// While it finds no task it counts itself in team->hungry, so that task
// creation queues new tasks for it instead of running them at once, and
// says so to its worker: a gang member queued there runs at once (the spin
// below yields to it), so a gang opened by a task may take that worker
// (scheduler/gang.cpp) and the moldable model counts it free.
// `what` names the wait in the watchdog's report.
template <class Done>
void help_until(Thread* th, Done done, const char* what = "a task scheduling point") {
  Team* team = th->team;
  // relaxed: a hint for the report, read by the monitor thread.
  th->waiting_for.store(what, memory_order_relaxed);
  bool hungry = false;
  // relaxed: a hint; a stale value only delays or hastens one task's queueing.
  auto fed = [&] {
    if (!hungry) return;
    team->hungry.fetch_sub(1, memory_order_relaxed);
    hungry = false;
  };
  for (;;) {
    if (done()) break;
    if (run_one_task(th)) {
      fed();
      ult::Worker* w = ult::Worker::current();
      if (w && w->ready_count() > 0) ult::Worker::yield();
      continue;
    }
    if (!hungry) team->hungry.fetch_add(1, memory_order_relaxed);
    hungry = true;
    if (!th->noted_waiting) ult::Worker::note_waiting_for_work(true), th->noted_waiting = true;
    // Tasks visible already are ones the try above could not run (a tied
    // task's wait runs only its descendants): they wake the wait at once.
    bool seen = tasks_visible(team);
    auto wake = [&] { return done() || tasks_visible(team) || handed_a_task(th); };
    if (!WaitWord::spin(wake)) team->ww.wait(wake);
    // Woken by a new task to take: busy from before it leaves its list (the
    // next try notes the wait again if another thread took it), so that
    // whoever counts free workers and queued tasks together (the moldable
    // model: runtime/team.cpp, idle_for_region) sees the worker either
    // free with the task still queued or busy, never free with the task
    // gone. Noted busy only after the pop, a stencil strip's sweep saw the
    // worker taking the other strip's free and chose a width of 2 for it
    // (3 times in 240 regions). Not for tasks it could not run: it stays
    // free for a gang's members (scheduler/gang.cpp) while it spins on them.
    if (!seen) stop_waiting_note(th);
  }
  fed();
  stop_waiting_note(th);
  if (th->poll_slot) leave_polling(th);
  th->waiting_for.store(nullptr, memory_order_relaxed);
}

}  // namespace bobbin::rt
