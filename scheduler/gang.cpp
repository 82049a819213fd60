// Gang scheduling: nested teams whose members wait for one another in user
// code (a hand-written spin barrier, a pthread barrier, a blocking read) must
// never have a member queued behind a fiber that waits for it. Plain
// user-level-thread runtimes hang there: a spinning fiber never gives its
// worker back. Kernel-thread runtimes survive by time-slicing, at the price
// of oversubscribing the cores.
//
// The protocol (the argument that it cannot deadlock is in README.md, and a
// model of it, checked with spin, in gang.pml):
//   G1. A gang's members run on distinct workers. The spec lets a region get
//       fewer threads than asked only when dyn-var is true (OMP_DYNAMIC): then
//       a gang never has more members than workers. With dyn-var false the
//       team must have the size asked for; if the gang cannot get that many
//       workers, the region is not a gang (it runs in steal mode).
//   G2. Gang ids come from one counter, under the same lock as the worker
//       reservations, so reservations happen in gang-id order.
//   G3. A worker serves queued gang members before anything else, lowest
//       (level, gang id) first — but starts one only when no fiber of an
//       earlier gang is unfinished on it (may_start): a later member that
//       spins would otherwise keep a parked earlier one from ever resuming.
//       (Its own ancestors are never hosted there, by G6.)
//   G4. The fork is a scheduling point: before a master enters its own gang,
//       its worker runs every earlier gang's member reserved on it, and the
//       master waits until no fiber of an earlier gang that is not one of its
//       own enclosing gangs is unfinished there (such a fiber, parked at a
//       runtime wait, would otherwise be stuck behind the master's gang).
//   G5. A worker may steal a not-started gang member only if no gang fiber
//       started and unfinished on it precedes the member or belongs to the
//       same gang (is_eligible): the second half keeps G1 true when a
//       member's reserved worker is busy and its own gang's master parks.
//   G6. A sub-gang never reserves a worker (other than its creator's) that
//       hosts an unfinished fiber of one of the creator's enclosing gangs:
//       that fiber may be waiting, in user code, for the creator. Nested
//       deeper than the machine is wide, a sub-gang gets fewer threads.
// Started fibers never move.
//
// Per-worker state: `load` (reserved members not yet finished) is read by
// any reserving thread under g_reserve and updated by the worker with
// relaxed atomics; `active` (keys of the gang fibers started and unfinished
// on the worker) is written by the worker's own thread and read by
// reservations, under the worker's `lock`.
// Lock order: g_reserve, then a worker's `lock` (a leaf).
#include "scheduler/gang.hpp"

#include <algorithm>
#include <mutex>

#include "ult/atomic.hpp"
#include "ult/log.hpp"
#include "ult/spinlock.hpp"
#include "ult/worker.hpp"

namespace bobbin::sched {

namespace {

struct alignas(kCacheLine) WorkerGangs {
  Atomic<int> load{0};
  SpinLock lock;
  std::vector<uint64_t> active GUARDED_BY(lock);
};

bool hosts_any(WorkerGangs& w, const std::vector<uint64_t>& keys) {
  if (keys.empty()) return false;
  SpinGuard g(w.lock);
  for (uint64_t a : w.active)
    if (std::find(keys.begin(), keys.end(), a) != keys.end()) return true;
  return false;
}

void add_active(WorkerGangs& w, uint64_t key) {
  SpinGuard g(w.lock);
  w.active.push_back(key);
}

void remove_active(WorkerGangs& w, uint64_t key) {
  SpinGuard g(w.lock);
  auto it = std::find(w.active.begin(), w.active.end(), key);
  if (it != w.active.end()) w.active.erase(it);
}

// Never destroyed: at exit a worker may still be finishing a gang fiber
// while static destructors run.
WorkerGangs* const g_workers = new WorkerGangs[ult::Worker::kMaxWorkers];
std::mutex g_reserve;  // G2: the gang counter and the reservations
uint64_t g_next_gang = 1;

WorkerGangs* own() {
  ult::Worker* w = ult::Worker::current();
  return w && w->in_pool() ? &g_workers[w->id()] : nullptr;
}


}  // namespace

void lock_reservations() { g_reserve.lock(); }
void unlock_reservations() { g_reserve.unlock(); }

GangReservation reserve_gang_locked(int creator, int want, int level, const std::vector<uint64_t>& ancestors) {
  GangReservation r;
  r.key = gang_key(level, g_next_gang++);
  int n = ult::Worker::pool_size();
  if (creator < 0 || creator >= n) creator = 0;
  std::vector<int> others;
  for (int k = 1; k < n; ++k) {
    int w = (creator + k) % n;
    if (!hosts_any(g_workers[w], ancestors)) others.push_back(w);  // G6
  }
  want = std::max(1, std::min(want, int(others.size()) + 1));  // G1
  // Least loaded first; among equals, nearest after the creator (consecutive).
  std::stable_sort(others.begin(), others.end(), [](int a, int b) {
    return g_workers[a].load.load(memory_order_relaxed) < g_workers[b].load.load(memory_order_relaxed);
  });
  r.workers.push_back(creator);
  for (int i = 0; i < want - 1; ++i) r.workers.push_back(others[std::size_t(i)]);
  for (int w : r.workers) g_workers[w].load.fetch_add(1, memory_order_relaxed);
  return r;
}

void cancel_reservation(const GangReservation& r) {
  for (int w : r.workers) g_workers[w].load.fetch_sub(1, memory_order_relaxed);
}

void gang_master_enter(uint64_t key) {
  if (WorkerGangs* s = own()) add_active(*s, key);
}

void gang_master_leave(uint64_t key) {
  if (WorkerGangs* s = own()) {
    remove_active(*s, key);
    s->load.fetch_sub(1, memory_order_relaxed);
  }
}

void run_earlier_gangs(uint64_t key, const std::vector<uint64_t>& ancestors) {
  ult::Worker* w = ult::Worker::current();
  WorkerGangs* s = own();
  if (!w || !s) return;
  auto earlier_unfinished = [&] {
    SpinGuard g(s->lock);
    for (uint64_t a : s->active)
      if (a < key && std::find(ancestors.begin(), ancestors.end(), a) == ancestors.end()) return true;
    return false;
  };
  for (;;) {
    // Only members that may start count: one held back by G3 waits for an
    // earlier gang that this master is itself part of (an ancestor), which
    // cannot finish before this master does.
    uint64_t k = w->lowest_startable_key();
    if (k != 0 && k < key) {
      ult::Worker::yield();  // G3: the lowest queued key runs first
    } else if (earlier_unfinished()) {
      if (w->ready_count() != 0) ult::Worker::yield();
      else ult::Worker::relax();  // it is parked: wait for it to be made ready
    } else {
      return;
    }
  }
}

bool may_start(ult::Worker& w, ult::Fiber* f) {
  if (!w.in_pool()) return true;
  WorkerGangs& s = g_workers[w.id()];
  SpinGuard g(s.lock);
  for (uint64_t a : s.active)
    if (a < f->order_key()) return false;  // G3: an earlier gang is unfinished here
  return true;
}

bool is_eligible(int w, uint64_t key) {
  WorkerGangs& s = g_workers[w];
  SpinGuard g(s.lock);
  for (uint64_t a : s.active)
    if (a <= key) return false;  // G5: an unfinished earlier gang, or this gang, runs here
  return true;
}

// Hooks from ult/: a keyed (gang) fiber starts or finishes on its worker.
void gang_fiber_started(ult::Worker& w, ult::Fiber* f) {
  if (w.in_pool()) add_active(g_workers[w.id()], f->order_key());
}

void gang_fiber_finished(ult::Worker& w, ult::Fiber* f) {
  if (!w.in_pool()) return;
  remove_active(g_workers[w.id()], f->order_key());
  g_workers[w.id()].load.fetch_sub(1, memory_order_relaxed);
}

std::vector<std::vector<uint64_t>> gang_stacks() {
  std::vector<std::vector<uint64_t>> out;
  int n = ult::Worker::pool_size();
  for (int i = 0; i < n; ++i) {
    SpinGuard g(g_workers[i].lock);
    out.push_back(g_workers[i].active);
  }
  return out;
}

}  // namespace bobbin::sched
