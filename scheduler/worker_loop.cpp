// Steal mode for fibers: an idle worker looks at the other workers' run
// queues, nearest id first, for a fiber that has not started and may move.
// Tasks (a later layer) plug into the same hooks.
#include "scheduler/worker_loop.hpp"

namespace bobbin::sched {

namespace {

ult::Fiber* find_work(ult::Worker& self) {
  int n = ult::Worker::pool_size();
  for (int k = 1; k < n; ++k) {
    ult::Worker* victim = ult::Worker::at((self.id() + k) % n);
    if (!victim || victim == &self) continue;
    if (ult::Fiber* f = victim->steal_unstarted([](ult::Fiber*) { return true; })) return f;
  }
  return nullptr;
}

bool has_work(ult::Worker& self) {
  int n = ult::Worker::pool_size();
  for (int k = 1; k < n; ++k) {
    ult::Worker* victim = ult::Worker::at((self.id() + k) % n);
    if (victim && victim != &self && victim->movable_count() != 0) return true;
  }
  return false;
}

void wake_one_sleeper(ult::Worker* except) {
  int n = ult::Worker::pool_size();
  for (int i = 0; i < n; ++i) {
    ult::Worker* w = ult::Worker::at(i);
    if (w && w != except && w->is_sleeping()) {
      w->notify();
      return;
    }
  }
}

}  // namespace

void install_worker_loop() { ult::install_work_hooks(ult::WorkHooks{&find_work, &has_work}); }

void spread(ult::Fiber* f, ult::Worker* origin) {
  // A thread outside the pool has no idle loop that would drain its queue
  // while it runs: its fibers go to worker 0's queue instead.
  ult::Worker* home = origin && origin->in_pool() ? origin : ult::Worker::at(0);
  home->submit(f);
  wake_one_sleeper(home);
}

}  // namespace bobbin::sched
