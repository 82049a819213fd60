// What an idle worker does beyond its own run queue. Steal mode for fibers:
// it looks at the other workers' run queues, nearest id first, for a fiber
// that has not started and may move; gang members only where gang.cpp says
// the worker is eligible. Tasks are found by the team's threads themselves
// at their scheduling points (runtime/task.cpp), not here.
#include "scheduler/worker_loop.hpp"

#include "scheduler/gang.hpp"
#include "ult/trace.hpp"

namespace bobbin::sched {

// gang.cpp
bool may_start(ult::Worker& w, ult::Fiber* f);
void gang_fiber_taken(ult::Worker& w, ult::Fiber* f);
void gang_fiber_finished(ult::Worker& w, ult::Fiber* f);
bool gang_fiber_rescued(ult::Worker& w, ult::Fiber* f);

namespace {

// Traced: a fiber that had not started taken from another worker's queue
// (an instant on the thief's track: the victim worker, and the gang of the
// fiber if it is a gang member).
uint16_t k_fiber_steal;

void fiber_steal_args(const ult::trace::Record& r, const uint32_t*, int, ult::trace::Json& o) {
  o.num("victim_worker", r.a[0]);
  if (r.a[1]) o.num("gang", r.a[1]);
}

// An adopted program thread's worker (outside the pool) looks for nothing:
// what it started stays on it, and the thread may leave for user code as
// soon as its own fiber is woken, stranding such a fiber until it next
// waits in the runtime. Its team's members it starts itself, at the join
// (take_helped). Spares do not look either (ult::Worker::idle_loop).
ult::Fiber* find_work(ult::Worker& self) {
  if (!self.in_pool()) return nullptr;
  int n = ult::Worker::pool_size();
  int me = self.id();
  for (int k = 1; k < n; ++k) {
    ult::Worker* victim = ult::Worker::at((me + k) % n);
    if (!victim || victim == &self) continue;
    // A gang member only where gang.cpp allows it (G5); a true answer has
    // recorded it as started here.
    int from = victim->id();
    bool dedicated = self.dedicated();
    auto may_take = [dedicated, me, from](ult::Fiber* c) {
      if (c->pool_only() && !dedicated) return false;
      // A bound member stays with its place's worker; only the monitor
      // moves it, to a spare (runtime/team.cpp).
      if (c->place() >= 0) return false;
      return c->order_key() == 0 || claim_for_steal(me, from, c->order_key());
    };
    if (ult::Fiber* f = victim->steal_unstarted(may_take)) {
      if (ult::trace::on()) ult::trace::instant(k_fiber_steal, uint32_t(from), uint32_t(gang_id(f->order_key())));
      return f;
    }
  }
  return nullptr;
}

// What find_work might take. Counting a fiber find_work refuses (a program
// thread's team member, pool_only, seen by worker 0, whose thread is the
// program's) kept that worker's idle loop from sleeping: it polled without
// a pause while the worker holding the member waited for a processor
// (FFTW's OpenMP build called from 2 program threads on 2 cores: masters
// waited about 2 ms for their members; 7 runs, median 0.142 s before,
// 0.133 after, libgomp 0.092).
bool has_work(ult::Worker& self) {
  if (!self.in_pool()) return false;  // as find_work
  int n = ult::Worker::pool_size();
  bool dedicated = self.dedicated();
  for (int k = 1; k < n; ++k) {
    ult::Worker* victim = ult::Worker::at((self.id() + k) % n);
    if (victim && victim != &self && victim->stealable_count(dedicated) != 0) return true;
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

ult::Fiber* take_helped(ult::Worker& self, bool (*pred)(const ult::Fiber*, const void*), const void* arg) {
  int n = ult::Worker::pool_size();
  for (int k = 0; k < n; ++k) {
    ult::Worker* victim = ult::Worker::at(k);
    if (!victim || victim == &self) continue;
    if (ult::Fiber* f = victim->steal_unstarted([&](ult::Fiber* c) { return c->helper() == &self && pred(c, arg); })) {
      if (ult::trace::on()) ult::trace::instant(k_fiber_steal, uint32_t(victim->id()), 0);
      return f;
    }
  }
  return nullptr;
}

void install_worker_loop() {
  if (ult::trace::on()) {
    k_fiber_steal = ult::trace::add_kind({"steal fiber", "steal", ult::trace::Shape::Instant, nullptr, &fiber_steal_args});
    add_gang_trace_kinds();
  }
  ult::install_work_hooks(ult::WorkHooks{&find_work, &has_work, &may_start, &key_before, &gang_fiber_taken, &gang_fiber_finished,
                                     /*rescued=*/nullptr, &gang_fiber_rescued});
}

// The dedicated pool worker (ult::Worker::dedicated) with the fewest queued
// fibers, or null if the pool has none.
ult::Worker* least_loaded_dedicated() {
  ult::Worker* best = nullptr;
  int n = ult::Worker::pool_size();
  for (int i = 0; i < n; ++i) {
    ult::Worker* w = ult::Worker::at(i);
    if (w && w->dedicated() && (!best || w->ready_count() < best->ready_count())) best = w;
  }
  return best;
}

void spread(ult::Fiber* f, ult::Worker* origin) {
  // A thread outside the pool has no idle loop that would drain its queue
  // while it runs: its fibers go to a pool worker's queue instead. A
  // pool-only fiber goes to a dedicated worker (worker 0 is the initial
  // thread, which may be in user code for as long as it likes).
  // A spare has an idle loop of its own, which runs them when its fiber waits.
  ult::Worker* home = origin && (origin->in_pool() || origin->spare()) ? origin : ult::Worker::at(0);
  if (f->pool_only() && !home->dedicated()) {
    if (ult::Worker* d = least_loaded_dedicated()) home = d;
  }
  home->submit(f);
  wake_one_sleeper(home);
}

}  // namespace bobbin::sched
