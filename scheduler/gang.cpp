// Gang scheduling: nested teams whose members wait for one another in user
// code (a hand-written spin barrier, a pthread barrier, a blocking read) must
// never have a member queued behind a fiber that waits for it. Plain
// user-level-thread runtimes hang there: a spinning fiber never gives its
// worker back. Kernel-thread runtimes survive by time-slicing, at the price
// of oversubscribing the cores.
//
// The gang order. Each gang has a path: the ids of its enclosing gangs,
// outermost first, then its own id. One gang precedes another when its path
// is lexicographically smaller, an enclosing gang's path (a prefix) before
// the paths that extend it. So the gangs inside B come right after B and
// before every gang B precedes. An order by (nest level, id) was rejected:
// it puts a sub-gang after every gang one level up, although its enclosing
// gang may precede those and waits for it (a deadlock with omp barriers
// only; scheduler/README.md, tests/gang/g3_order.c). A path does not pack
// into 64 bits (the ids grow without bound, and so may the nesting), and
// 64-bit labels kept in path order would have to be re-spaced when a gap
// between two live gangs runs out; so a key is a pointer to an immutable
// GangKey holding the path, and the ordered run queues compare keys through
// the key_before hook. A GangKey is reference-counted by its master and its
// members and freed when the last of them is done with it; it is only read
// while one of them holds it, or while it is listed on a worker (below).
//
// The protocol (the argument that it cannot deadlock is in README.md, and a
// model of it, checked with spin, in tests/model/gang.pml). A worker
// *hosts* a gang while one of the gang's fibers is there unfinished: a
// member reserved there and not started, a member started there, or the
// master from its reservation (its fork) until it leaves the gang.
//   G1. A gang's members run on distinct workers. The spec lets a region get
//       fewer threads than asked only when dyn-var is true (OMP_DYNAMIC): then
//       a gang never has more members than workers. With dyn-var false the
//       team must have the size asked for; if the gang cannot get that many
//       workers, the region is not a gang (it runs in steal mode).
//   G2. Gang ids come from one counter, under the same lock as the worker
//       reservations and the queueing of members, so reservations happen
//       in gang-id order.
//   G3. A worker serves queued gang members before anything else, first in
//       the gang order — but starts one only when no fiber of a preceding
//       gang is started and unfinished on it (may_start): a later member
//       that spins would otherwise keep a parked earlier one from ever
//       resuming. (Its enclosing gangs are never hosted there, by G6.)
//   G4. The fork is a scheduling point: before a master enters its own gang,
//       its worker runs every preceding gang's member reserved on it, and the
//       master waits until no fiber of a preceding gang that is not one of
//       its own enclosing gangs is unfinished there (such a fiber, parked at
//       a runtime wait, would otherwise be stuck behind the master's gang).
//   G5. A worker may steal a not-started gang member only if it hosts no
//       gang at all (claim_for_steal). It keeps G1 (the thief hosts none of
//       the member's gang), and it keeps what G6 and G7 give the reserved
//       workers: a member never arrives, by stealing, on a worker where a
//       gang before it, inside it or after it is hosted. With the machine's
//       nearness known, the thief must also lie in the gang's subtree
//       (gang_span: the smallest one holding its reserved workers, and more
//       than one core), so a gang kept under one package stays there (a
//       bubble). Steals are never needed for progress: a reserved worker
//       runs its members (G3, G4), and the monitor moves members a held
//       worker cannot start.
//   G6. A gang never reserves a worker (other than its creator's) that hosts
//       one of its enclosing gangs: a fiber of that gang there may be
//       waiting, in user code, for the creator, and would keep the new
//       member from running. Reserved and forking fibers count, not only
//       started ones. Nested deeper than the machine is wide, a sub-gang
//       gets fewer threads.
//   G7. A gang never reserves a worker (other than its creator's) that hosts
//       a gang it precedes. With path keys a new gang can precede gangs
//       already reserved (a sub-gang of an early gang); G7 keeps, on each
//       worker but its creator's, the gangs in the order they were
//       reserved there, which is what G3 and G4 rely on.
// Started fibers never move.
//
// Per-worker state: `load` (reserved members and masters not yet finished)
// is read by any reserving thread under g_reserve and updated with relaxed
// atomics; `active` (gangs with a fiber started and unfinished there, or an
// entered master) and `reserved` (gangs with a member queued there and not
// started, or a master there in its fork) are guarded by the worker's
// `lock`. A member moves from `reserved` to `active` in the same critical
// section of its run queue's lock that takes it out of the queue (pop_ready
// through keyed_taken, or a steal through claim_for_steal), so no reserving
// thread ever misses it in between.
// Lock order: g_reserve, then a worker's run-queue lock (ult/worker.cpp),
// then workers' `lock`s in ascending worker id. A reservation holds every
// worker's `lock` while it chooses and records its workers, so that no steal
// moves a fiber onto a worker between the check and the record.
#include "scheduler/gang.hpp"

#include <algorithm>
#include <mutex>

#include "ult/atomic.hpp"
#include "ult/eternal.hpp"
#include "ult/log.hpp"
#include "ult/spinlock.hpp"
#include "ult/trace.hpp"
#include "ult/worker.hpp"

namespace bobbin::sched {

namespace {

struct GangKey {
  // The master and each member hold one reference, dropped when the master
  // leaves or the member finishes (or at cancel_reservation). acq_rel on the
  // decrement: the last holder sees every other holder's reads done.
  Atomic<int> refs{0};
  int master_worker = 0;       // the worker its master was reserved on
  int span = -1;               // G5: a thief's least nearness to the master (-1: any)
  std::vector<uint64_t> path;  // written once, before the key is published
};

GangKey* key_of(uint64_t k) { return reinterpret_cast<GangKey*>(uintptr_t(k)); }
uint64_t handle_of(GangKey* k) { return uint64_t(reinterpret_cast<uintptr_t>(k)); }

bool before(const GangKey& a, const GangKey& b) {
  return std::lexicographical_compare(a.path.begin(), a.path.end(), b.path.begin(), b.path.end());
}

// a is one of b's enclosing gangs: its path is a proper prefix of b's.
bool encloses(const GangKey& a, const GangKey& b) {
  return a.path.size() < b.path.size() && std::equal(a.path.begin(), a.path.end(), b.path.begin());
}

void release(GangKey* k) {
  if (k->refs.fetch_sub(1, memory_order_acq_rel) == 1) delete k;
}

struct alignas(kCacheLine) WorkerGangs {
  Atomic<int> load{0};
  SpinLock lock;
  std::vector<GangKey*> active GUARDED_BY(lock);
  std::vector<GangKey*> reserved GUARDED_BY(lock);
};

void erase_one(std::vector<GangKey*>& v, GangKey* k) {
  auto it = std::find(v.begin(), v.end(), k);
  if (it != v.end()) v.erase(it);
}

// Never destroyed: at exit a worker may still be finishing a gang fiber
// while static destructors run.
constinit ult::Eternal<WorkerGangs[ult::Worker::kMaxWorkers]> g_workers_storage;
constinit WorkerGangs (&g_workers)[ult::Worker::kMaxWorkers] = g_workers_storage.value;
std::mutex g_reserve;  // G2: the gang counter and the reservations
uint64_t g_next_gang = 1;

int own_id() {
  ult::Worker* w = ult::Worker::current();
  return w && w->in_pool() ? w->id() : -1;
}

// Locks two workers' gang state in the lock order (one lock if a == b).
class PairGuard {
 public:
  PairGuard(int a, int b) NO_THREAD_SAFETY_ANALYSIS : lo_(std::min(a, b)), hi_(std::max(a, b)) {
    g_workers[lo_].lock.lock();
    if (hi_ != lo_) g_workers[hi_].lock.lock();
  }
  ~PairGuard() NO_THREAD_SAFETY_ANALYSIS {
    if (hi_ != lo_) g_workers[hi_].lock.unlock();
    g_workers[lo_].lock.unlock();
  }
  PairGuard(const PairGuard&) = delete;
  PairGuard& operator=(const PairGuard&) = delete;

 private:
  int lo_, hi_;
};

// G6 and G7: whether a new gang may reserve a worker other than its
// creator's: every gang hosted there precedes it and is not one of its
// enclosing gangs.
bool may_reserve(WorkerGangs& w, const GangKey& key) REQUIRES(w.lock) {
  for (const std::vector<GangKey*>* list : {&w.active, &w.reserved})
    for (const GangKey* h : *list)
      if (encloses(*h, key) || !before(*h, key)) return false;
  return true;
}

// Trace events (add_gang_trace_kinds): a reservation (instant: gang id,
// depth, threads asked; the workers reserved, the creator's first) and a
// fork's wait for earlier gangs (G4; a span: gang id, depth).
uint16_t k_reserve, k_wait;

void reservation_args(const ult::trace::Record& r, const uint32_t* list, int n, ult::trace::Json& o) {
  o.num("gang", r.a[0]);
  o.num("depth", r.a[1]);
  o.num("asked", r.a[2]);
  o.num("got", uint64_t(n));
  o.nums("workers", list, n);
}

void wait_args(const ult::trace::Record& r, const uint32_t*, int, ult::trace::Json& o) {
  o.num("gang", r.a[0]);
  o.num("depth", r.a[1]);
}

std::string path_text(const GangKey& k) {
  std::string s;
  for (std::size_t i = 0; i < k.path.size(); ++i) s += (i ? "." : "") + std::to_string(k.path[i]);
  return s;
}

}  // namespace

bool key_before(uint64_t a, uint64_t b) { return before(*key_of(a), *key_of(b)); }

uint64_t gang_id(uint64_t key) { return key ? key_of(key)->path.back() : 0; }
int gang_depth(uint64_t key) { return key ? int(key_of(key)->path.size()) : 0; }

void add_gang_trace_kinds() {
  k_reserve = ult::trace::add_kind({"gang reservation", "gang", ult::trace::Shape::Instant, nullptr, &reservation_args});
  k_wait = ult::trace::add_kind({"gang wait", "gang", ult::trace::Shape::Span, nullptr, &wait_args});
}

WorkerNearness g_nearness = nullptr;  // written before any gang (set_worker_nearness)

void set_worker_nearness(WorkerNearness nearness) { g_nearness = nearness; }
WorkerNearness worker_nearness() { return g_nearness; }

// The gang's subtree for G5, as the least nearness to its creator
// (workers[0]) a thief must have: that of its farthest reserved worker, and
// never a single core: at most the depth of the creator's core's parent
// (its own depth less one), so that with more workers than cores a gang on
// one core may still be taken up by the cores beside it.
int gang_span(const std::vector<int>& workers) {
  int creator = workers[0], span = g_nearness(creator, creator) - 1;
  for (int w : workers) span = std::min(span, g_nearness(creator, w));
  return span;
}

void lock_reservations() { g_reserve.lock(); }
void unlock_reservations() { g_reserve.unlock(); }

GangReservation reserve_gang_locked(int creator, int want, uint64_t enclosing, bool pool_only,
                                    bool idle_only) NO_THREAD_SAFETY_ANALYSIS {
  int asked = want;
  auto* key = new GangKey;
  if (enclosing) key->path = key_of(enclosing)->path;
  key->path.push_back(g_next_gang++);
  int n = ult::Worker::pool_size();
  if (creator < 0 || creator >= n) creator = 0;
  key->master_worker = creator;
  // Every worker's lock, in the lock order: the choice below and its record
  // are one step for the steals that check these lists (claim_for_steal).
  for (int i = 0; i < n; ++i) g_workers[i].lock.lock();
  std::vector<int> others;
  for (int k = 1; k < n; ++k) {
    int w = (creator + k) % n;
    if (pool_only && !ult::Worker::at(w)->dedicated()) continue;
    if (idle_only && !ult::Worker::at(w)->available()) continue;
    if (may_reserve(g_workers[w], *key)) others.push_back(w);  // G6, G7
  }
  want = std::max(1, std::min(want, int(others.size()) + 1));  // G1
  order_candidates(others, creator, [](int w) { return g_workers[w].load.load(memory_order_relaxed); });
  GangReservation r;
  r.workers.push_back(creator);
  for (int i = 0; i < want - 1; ++i) r.workers.push_back(others[std::size_t(i)]);
  if (g_nearness) key->span = gang_span(r.workers);
  for (int w : r.workers) {
    g_workers[w].load.fetch_add(1, memory_order_relaxed);
    g_workers[w].reserved.push_back(key);  // the master in its fork, then each member
  }
  key->refs.store(int(r.workers.size()), memory_order_relaxed);  // published by the locks
  for (int i = n; i-- > 0;) g_workers[i].lock.unlock();
  r.key = handle_of(key);
  if (ult::trace::on()) {
    std::vector<uint32_t> ws(r.workers.begin(), r.workers.end());
    ult::trace::instant_list(k_reserve, uint32_t(key->path.back()), uint32_t(key->path.size()), uint32_t(asked),
                             ws.data(), int(ws.size()), false);
  }
  return r;
}

void cancel_reservation(const GangReservation& r) {
  GangKey* k = key_of(r.key);
  for (int w : r.workers) {
    SpinGuard g(g_workers[w].lock);
    erase_one(g_workers[w].reserved, k);
    g_workers[w].load.fetch_sub(1, memory_order_relaxed);
  }
  delete k;  // no member was queued: nobody else holds it
}

void gang_master_enter(uint64_t key) {
  GangKey* k = key_of(key);
  WorkerGangs& s = g_workers[k->master_worker];
  SpinGuard g(s.lock);
  erase_one(s.reserved, k);
  if (own_id() == k->master_worker) s.active.push_back(k);
}

void gang_master_leave(uint64_t key) {
  GangKey* k = key_of(key);
  WorkerGangs& s = g_workers[k->master_worker];
  {
    SpinGuard g(s.lock);
    erase_one(s.active, k);
  }
  s.load.fetch_sub(1, memory_order_relaxed);
  release(k);
}

void run_earlier_gangs(uint64_t key) {
  ult::Worker* w = ult::Worker::current();
  int id = own_id();
  if (!w || id < 0) return;
  WorkerGangs& s = g_workers[id];
  const GangKey& k = *key_of(key);
  // A preemption on this worker: the monitor found it held outside the
  // runtime by a fiber that never reached a scheduling point (maybe an
  // earlier gang's member waiting for this very gang, in user code, which
  // the gang order cannot serve). From then on its fibers take turns, as
  // kernel threads would, and this master stops waiting for the earlier
  // gangs (G4 is given up for this fork).
  uint64_t preempted = w->preemptions();
  auto earlier_unfinished = [&] {
    SpinGuard g(s.lock);
    for (const GangKey* a : s.active)
      if (before(*a, k) && !encloses(*a, k)) return true;
    return false;
  };
  uint64_t waited_from = 0;  // traced: when the wait began (0: no wait yet)
  for (;;) {
    if (w->preemptions() != preempted) return;
    // Only members that may start count: one held back by G3 waits for an
    // earlier gang that this master is itself part of (an enclosing gang),
    // which cannot finish before this master does.
    bool startable = w->startable_before(key);
    if (startable || earlier_unfinished()) {
      if (ult::trace::on() && !waited_from) waited_from = ult::trace::now();
    } else {
      if (waited_from) ult::trace::span(k_wait, waited_from, uint32_t(k.path.back()), uint32_t(k.path.size()));
      return;
    }
    // A startable earlier member runs first (G3: the first queued key);
    // with none runnable (the earlier gang's fiber is parked, and later
    // gangs' members may not start) relax until it is made ready. Switching
    // whenever anything was queued spun here without the processor given up
    // (on 16 modelled workers over 2 processors, a third of the time of
    // nested yielding barriers).
    ult::Worker::yield_or_relax();
  }
}

bool may_start(ult::Worker& w, ult::Fiber* f) {
  if (!w.in_pool()) return true;
  WorkerGangs& s = g_workers[w.id()];
  const GangKey& k = *key_of(f->order_key());
  SpinGuard g(s.lock);
  for (const GangKey* a : s.active)
    if (before(*a, k)) return false;  // G3: a preceding gang is unfinished here
  return true;
}

// Both locks are held through PairGuard, which the analysis cannot follow.
bool claim_for_steal(int thief, int victim, uint64_t key) NO_THREAD_SAFETY_ANALYSIS {
  GangKey* k = key_of(key);
  PairGuard g(thief, victim);
  WorkerGangs& t = g_workers[thief];
  WorkerGangs& v = g_workers[victim];
  if (!t.active.empty() || !t.reserved.empty()) return false;  // G5
  // G5's bubble half: a thief outside the gang's subtree leaves the member
  // to its reserved worker.
  if (g_nearness && g_nearness(thief, k->master_worker) < k->span) return false;
  erase_one(v.reserved, k);
  t.active.push_back(k);
  v.load.fetch_sub(1, memory_order_relaxed);
  t.load.fetch_add(1, memory_order_relaxed);
  return true;
}

// Hooks from ult/: a keyed (gang) fiber leaves w's ordered queue to start
// on w (under w's run-queue lock), or finishes on w.
void gang_fiber_taken(ult::Worker& w, ult::Fiber* f) {
  if (!w.in_pool()) return;
  WorkerGangs& s = g_workers[w.id()];
  GangKey* k = key_of(f->order_key());
  SpinGuard g(s.lock);
  erase_one(s.reserved, k);
  s.active.push_back(k);
}

// The monitor moves a member reserved on w, not started, to a spare (a
// kernel thread outside the pool, which hosts no gang): w no longer hosts it.
bool gang_fiber_rescued(ult::Worker& w, ult::Fiber* f) {
  if (!w.in_pool()) return true;
  WorkerGangs& s = g_workers[w.id()];
  GangKey* k = key_of(f->order_key());
  SpinGuard g(s.lock);
  erase_one(s.reserved, k);
  s.load.fetch_sub(1, memory_order_relaxed);
  return true;
}

void gang_fiber_finished(ult::Worker& w, ult::Fiber* f) {
  GangKey* k = key_of(f->order_key());
  if (w.in_pool()) {
    WorkerGangs& s = g_workers[w.id()];
    {
      SpinGuard g(s.lock);
      erase_one(s.active, k);
    }
    s.load.fetch_sub(1, memory_order_relaxed);
  }
  release(k);
}

std::vector<std::string> gang_stacks() {
  std::vector<std::string> out;
  int n = ult::Worker::pool_size();
  for (int i = 0; i < n; ++i) {
    std::string line;
    SpinGuard g(g_workers[i].lock);
    for (const GangKey* k : g_workers[i].active) line += (line.empty() ? "" : " ") + path_text(*k);
    if (!g_workers[i].reserved.empty()) {
      line += line.empty() ? "reserved" : "; reserved";
      for (const GangKey* k : g_workers[i].reserved) line += " " + path_text(*k);
    }
    out.push_back(line);
  }
  return out;
}

}  // namespace bobbin::sched
