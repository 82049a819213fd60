// Workers and the two protocols that make fibers block without losing wake-ups.
//
// The problem. OpenMP threads are fibers; when one waits (barrier, lock,
// taskwait) it must give its worker to other fibers, and whoever ends the wait
// — maybe a fiber on another worker, maybe a plain thread — must make it run
// again exactly once, even if the wake-up arrives while the waiter is still in
// the middle of switching away. And a worker with nothing to run must sleep in
// the kernel, yet wake whenever work is handed to it.
//
// Rejected designs. (1) A per-fiber mutex held across the switch (the waiter
// locks, switches, the next context unlocks): correct, but every wake-up takes
// a lock that the fast path does not need. (2) Switching through a scheduler
// context on every block (fiber -> scheduler -> fiber): simpler, but two jumps
// per switch, and our same-worker switch budget is one. (3) Sleeping workers on
// a condition variable: a mutex on every notify.
//
// The chosen design. Fibers switch directly to the next ready fiber (or to the
// worker's idle context when there is none). The fiber that leaves passes an
// after-switch action, run by the destination once the leaver's context is
// saved; only then can anyone resume the leaver.
//
// Park/unpark protocol. Invariant P: a fiber is in at most one run queue and
// is made Ready by exactly one party per park.
//   park (the fiber F itself):
//     1. If F.permit is set, clear it and return (a wake-up came first).
//     2. Switch away; the destination runs after_park(F):
//        a. F.state = Parked                              (seq_cst)
//        b. if F.permit is set and CAS(state Parked->Ready): enqueue F.
//   unpark(F) (anyone):
//     1. F.permit = 1                                     (seq_cst)
//     2. if F.state == Parked and CAS(state Parked->Ready): enqueue F.
// 2a/2b against 1/2 is the store-buffer (Dekker) pattern: with all four
// accesses seq_cst, at least one side sees the other's store, so a wake-up is
// never lost; the CAS makes only one side enqueue (P). A permit left set makes
// the next park return at once: spurious returns are allowed and callers loop.
//
// Sleep protocol of a worker W (kernel thread, futex). Invariant S: if work is
// visible to W, W is awake or will find the work before sleeping.
//   W: 1. sleeping = 1;  2. fence;  3. check every work source; if any: sleeping = 0, go run it;
//      4. futex_wait(sleeping, 1) while sleeping == 1.
//   Producer: 1. publish work (queue push);  2. fence;  3. if sleeping == 1 and exchange(sleeping, 0) == 1: futex_wake.
// The two seq_cst fences order each side's store before its load, so either W
// sees the work in step 3 or the producer sees sleeping == 1 and wakes W; a
// wake between W's step 3 and 4 leaves sleeping == 0 and futex_wait returns.
//
// Lock order: while a worker's lock_ is held, nothing is taken but the leaf
// locks of the hooks called under it (may_start, keyed_taken and a steal's
// predicate: the gang scheduler's per-worker locks).
#include "ult/worker.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>

#include "ult/eternal.hpp"
#include "ult/guard.hpp"
#include "ult/log.hpp"
#include "ult/monitor.hpp"
#include "ult/pin.hpp"
#include "ult/preempt.hpp"
#include "ult/thread_info.hpp"
#include "ult/yield.hpp"

namespace bobbin::ult {

thread_local Worker* Worker::t_current_ __attribute__((tls_model("initial-exec"))) = nullptr;
Worker* Worker::pool_[Worker::kMaxWorkers];
Atomic<int> Worker::pool_size_{0};
// 200 ms: libomp's default KMP_BLOCKTIME; the runtime sets the real value.
Atomic<uint64_t> Worker::spin_ns_{200'000'000};
Atomic<bool> Worker::oversubscribed_{false};
Atomic<int> Worker::spare_count_{0};
Atomic<int> Worker::outside_teams_{0};

void Worker::relax() {
  if (oversubscribed_.load(memory_order_relaxed)) os_yield();
  else cpu_relax();
}

void Worker::yield_or_relax() {
  Worker* w = t_current_;
  if (w && w->has_runnable_queued()) yield();
  else relax();
}

static WorkHooks g_hooks;
static std::mutex g_pool_mutex;  // serialises pool growth and shutdown (rare)

// Spares (take_spare).
// Spares are never destroyed (a fiber may name one as its home until it
// finishes, and the monitor scans them lock-free); an idle one sleeps in its
// idle loop at no cost but its stack. kMaxSpares bounds the kernel threads
// the rescue may add: beyond it, take_spare() answers null and the caller
// queues as before.
namespace {
constexpr int kMaxSpares = 4096;
Worker* g_spares[kMaxSpares];
std::mutex g_spare_mutex;                        // guards g_idle_spares and spare creation
constinit Eternal<std::vector<Worker*>> g_idle_spares_storage;  // never destroyed, as g_spares
constinit std::vector<Worker*>& g_idle_spares = g_idle_spares_storage.value;
}  // namespace

void install_work_hooks(WorkHooks hooks) { g_hooks = hooks; }
const WorkHooks& work_hooks() { return g_hooks; }
void install_rescued_hook(void (*fn)(Fiber* f)) { g_hooks.rescued = fn; }
static void (*g_resumed)(int place) = nullptr;
void install_resumed_hook(void (*fn)(int place)) { g_resumed = fn; }

static void (*g_initial_placement)() = nullptr;
void install_initial_placement_hook(void (*fn)()) { g_initial_placement = fn; }

void Worker::check_initial_placement() {
  Worker* w = t_current_;
  if (w && w->id_ == 0 && !w->own_thread_ && g_initial_placement) g_initial_placement();
}

static bool key_less(uint64_t a, uint64_t b) { return a < b; }

// ---- run queue --------------------------------------------------------------

void Worker::enqueue(Fiber* f) {
  {
    SpinGuard g(lock_);
    if (f->order_key_ && !f->started()) {
      ordered_.insert_ordered(f, g_hooks.key_before ? g_hooks.key_before : &key_less);
    } else {
      ready_.push_back(f);
      fifo_len_.fetch_add(1, memory_order_relaxed);
    }
    // relaxed: a hint for lock-free polling; the lock orders the push itself.
    ready_len_.fetch_add(1, memory_order_relaxed);
    if (f->movable_ && !f->started()) count_movable(f, +1);
  }
  // Any other thread must notify (sleep protocol). A worker that queues onto
  // itself is awake, except in a signal handler that interrupted its sleep
  // (a detach event fulfilled from an I/O completion signal): the handler
  // clears the flag its futex wait loops on, so the wait that resumes after
  // the handler returns ends at once. Only this thread writes 1 there.
  if (t_current_ != this) notify();
  else if (sleeping_.load(memory_order_relaxed) == 1) sleeping_.store(0, memory_order_relaxed);
}

Fiber* Worker::pop_ready() {
  if (ready_len_.load(memory_order_relaxed) == 0) return nullptr;
  SpinGuard g(lock_);
  Fiber* f = ordered_.front();
  if (f && g_hooks.may_start && !g_hooks.may_start(*this, f)) f = nullptr;
  if (f) {
    ordered_.pop_front();
    if (g_hooks.keyed_taken) g_hooks.keyed_taken(*this, f);
  } else if ((f = ready_.pop_front())) {
    fifo_len_.fetch_sub(1, memory_order_relaxed);
  }
  if (f) {
    ready_len_.fetch_sub(1, memory_order_relaxed);
    if (f->movable_ && !f->started()) count_movable(f, -1);
  }
  return f;
}

void Worker::count_movable(const Fiber* f, int by) {
  auto add = [by](Atomic<std::size_t>& n) { n.store(n.load(memory_order_relaxed) + std::size_t(by), memory_order_relaxed); };
  add(movable_len_);
  if (f->place_ >= 0) return;
  add(f->pool_only_ ? pool_only_len_ : open_len_);
}

bool Worker::startable_before(uint64_t key) {
  if (ready_len_.load(memory_order_relaxed) == 0) return false;
  SpinGuard g(lock_);
  Fiber* f = ordered_.front();
  if (!f || (g_hooks.may_start && !g_hooks.may_start(*this, f))) return false;
  return g_hooks.key_before ? g_hooks.key_before(f->order_key_, key) : f->order_key_ < key;
}

void Worker::submit(Fiber* f) {
  BOBBIN_ASSERT(!f->started());
  enqueue(f);
}

void Worker::notify() {
  fence_seq_cst();  // producer step 2: pairs with the fence in sleep_if_idle step 2
  if (sleeping_.load(memory_order_relaxed) == 1 && sleeping_.exchange(0, memory_order_acq_rel) == 1) {
    futex_wake(&sleeping_, 1);
    if (trace::on()) trace::woke_worker(id_);
  }
}

// ---- switching ----------------------------------------------------------------

void Worker::run(Fiber* f) {
  bump_progress();
  if (!f->started()) {
    f->home_ = this;
    f->stack_ = stacks_.take();
    unfinished_.store(unfinished_.load(memory_order_relaxed) + 1, memory_order_relaxed);
  }
  running_hint_.store(f, memory_order_relaxed);
  waiting_for_work_.store(f->waiting_for_work_ ? f : nullptr, memory_order_relaxed);
  running_started_.store(!f->native_, memory_order_relaxed);
  BOBBIN_ASSERT(f->home_ == this);
  if (trace::on()) trace::switched(f, false, trace::Leave::Run);
  // relaxed: only this worker's thread reads Running; unpark compares against Parked.
  f->state_.store(uint32_t(FiberState::Running), memory_order_relaxed);
  Fiber* from = running_;
  running_ = f;
  FiberOps::switch_to(from, f, nullptr, nullptr);
}

void Worker::switch_away(AfterSwitch after, void* arg, trace::Leave why) {
  Fiber* next = pop_ready();
  if (!next) next = &idle_;
  bump_progress();
  if (!next->started() && next != &idle_) {
    next->home_ = this;
    next->stack_ = stacks_.take();
    unfinished_.store(unfinished_.load(memory_order_relaxed) + 1, memory_order_relaxed);
  }
  running_hint_.store(next, memory_order_relaxed);
  waiting_for_work_.store(next->waiting_for_work_ ? next : nullptr, memory_order_relaxed);
  running_started_.store(!next->native_, memory_order_relaxed);
  next->state_.store(uint32_t(FiberState::Running), memory_order_relaxed);
  if (trace::on()) trace::switched(next, next == &idle_, why);
  Fiber* from = running_;
  running_ = next;
  FiberOps::switch_to(from, next, after, arg);
  // Back on `from`: whoever switched here has already set running_ = from.
  // A bound fiber takes its place back (the worker may have followed other
  // fibers' places meanwhile), also when it resumes inside the preemption
  // signal handler: it goes straight back to user code, which may look at
  // its mask before it calls the runtime again. The hook is
  // async-signal-safe (one system call, runtime/places.cpp).
  if (from->place_ >= 0 && g_resumed) [[unlikely]] g_resumed(from->place_);
}

void Worker::yield() {
  Worker* w = t_current_;
  if (w->ready_len_.load(memory_order_relaxed) == 0) return;
  BOBBIN_ASSERT(w->running_ != &w->idle_);
  w->switch_away(&after_yield, nullptr, trace::Leave::Yield);
}

int Worker::waiting_fibers() const {
  int started_running = running_started_.load(memory_order_relaxed) ? 1 : 0;
  int n = unfinished_.load(memory_order_relaxed) - started_running;
  if (root_.native_ && root_.state_.load(memory_order_relaxed) == uint32_t(FiberState::Parked)) ++n;
  std::size_t queued = ready_len_.load(memory_order_relaxed);
  return std::max(0, n) + int(queued);
}

// While kernel threads outnumber the processors, the fibers of one worker
// that wait with yields (a sched_yield spin barrier, a flush loop) may wait
// for a fiber of another worker whose thread the OS is not running: a
// switch among them never gives the processor up, and the other thread ran
// only when the OS ended this one's time slice. So,
// oversubscribed, the worker's thread also yields to the OS after a
// rotation of its queue (the switches since the last look outnumber the
// queued fibers) if kYieldQuantumNs passed since it last did: 0.2 s for the
// whole yield matrix of the progress suite on those modelled workers, 10 s
// without. The quantum spares members that wait for one another on one
// worker a system call per round (outer 8 x inner 16 on 2 workers, 200
// rounds: 11-16 ms with a yield every rotation, 9-18 with the quantum; with
// none, 7 ms or, in 2 runs of 5, 0.4-1.2 s).
// Another program's threads on the same processors are the same case, which
// the pool's count cannot see: MPI ranks whose workers share the cores (2
// ranks x 2 on 2 cores, mpilu 512 on a 2 x 1 grid: a panel's two members on
// one worker, one polling the MPI library, which yields, the other at the
// panel's spin barrier, 0.6-1.0 s; the other rank, whose thread the poll
// waits for, ran only when the OS ended this one's time slice). So the
// thread yields to the OS after a rotation whether or not the pool is
// oversubscribed, every kYieldQuantumNs while that yield runs another thread
// (it comes back late), and twice as far apart each time it comes back at
// once, up to kYieldQuantumMaxNs: alone on its processor, one system call a
// millisecond.
bool Worker::runnable_queued() {
  Worker* w = t_current_;
  return w && w->running_ && w->running_ != &w->idle_ && w->has_runnable_queued();
}

bool Worker::yield_to_queued() {
  if (!runnable_queued()) return false;
  Worker* w = t_current_;
  if (++w->yields_in_rotation_ > w->fifo_len_.load(memory_order_relaxed)) {
    w->yields_in_rotation_ = 0;
    uint64_t now = now_ns();
    if (now - w->last_os_yield_ns_ >= w->os_yield_quantum_ns_) {
      os_yield();
      uint64_t back = now_ns();
      w->last_os_yield_ns_ = back;
      bool contended = oversubscribed() || back - now >= kYieldRanOtherNs;
      w->os_yield_quantum_ns_ = contended ? kYieldQuantumNs : std::min(2 * w->os_yield_quantum_ns_, kYieldQuantumMaxNs);
    }
  }
  w->switch_away(&after_yield, nullptr, trace::Leave::Yield);
  return true;
}

bool Worker::others_share_worker() {
  Worker* w = t_current_;
  if (!w || !w->running_ || w->running_ == &w->idle_) return false;
  // unfinished_ counts the fibers started here with a stack of their own,
  // the running one among them unless it is a kernel thread's own context.
  int own = w->running_->native_ ? 0 : 1;
  return w->unfinished_.load(memory_order_relaxed) > own || w->has_runnable_queued();
}

void Worker::take_yield_request() {
  yield_req_.store(false, memory_order_relaxed);
  if (running_ != &idle_) yield();
}

void Worker::note_waiting_for_work(bool on) {
  Worker* w = t_current_;
  if (!w) return;
  w->running_->waiting_for_work_ = on;
  w->waiting_for_work_.store(on ? w->running_ : nullptr, memory_order_relaxed);
}

bool Worker::idle_peer() {
  Worker* self = t_current_;
  int n = pool_size();
  for (int i = 0; i < n; ++i) {
    Worker* w = pool_[i];
    if (w && w != self && w->running_hint() == &w->idle_) return true;
  }
  return false;
}

void Worker::preempt_running(bool report) {
  Fiber* f = running_;
  // Null: the thread is still starting (the signal can come before its idle loop).
  if (!f || f == &idle_ || !has_runnable_queued()) return;
  if (report && g_hooks.rescued) g_hooks.rescued(f);
  preempts_.store(preempts_.load(memory_order_relaxed) + 1, memory_order_relaxed);
  switch_away(&after_yield, nullptr, trace::Leave::Preempt);
}

void Worker::after_yield(Fiber* from, void*) {
  from->state_.store(uint32_t(FiberState::Ready), memory_order_relaxed);
  from->home_->enqueue(from);
}

void Worker::park() {
  Worker* w = t_current_;
  Fiber* self = w->running_;
  BOBBIN_ASSERT(self != &w->idle_);
  // Step 1. acquire: pairs with unpark's store, so the waker's writes are seen.
  if (self->permit_.exchange(0, memory_order_acquire) == 1) return;
  w->switch_away(&after_park, nullptr, trace::Leave::Park);
  // Consume the permit that woke us (if any). acquire: as in step 1.
  self->permit_.exchange(0, memory_order_acquire);
}

void Worker::after_park(Fiber* from, void*) {
  // Step 2a/2b; seq_cst: the Dekker pair with unpark steps 1/2.
  from->state_.store(uint32_t(FiberState::Parked), memory_order_seq_cst);
  if (from->permit_.load(memory_order_seq_cst) == 1) {
    uint32_t expect = uint32_t(FiberState::Parked);
    if (from->state_.compare_exchange_strong(expect, uint32_t(FiberState::Ready), memory_order_seq_cst)) {
      from->home_->enqueue(from);
    }
  }
}

void Worker::unpark(Fiber* f) {
  f->permit_.store(1, memory_order_seq_cst);  // step 1
  uint32_t expect = uint32_t(FiberState::Parked);
  if (f->state_.load(memory_order_seq_cst) == expect &&
      f->state_.compare_exchange_strong(expect, uint32_t(FiberState::Ready), memory_order_seq_cst)) {
    f->home_->enqueue(f);  // step 2
    if (trace::on()) trace::woke_fiber(f, f->home_->id_);
  }
}

void Worker::fiber_main(Fiber* f) {
  f->entry_(f);
  f->state_.store(uint32_t(FiberState::Finished), memory_order_relaxed);
  t_current_->switch_away(&after_finish, nullptr, trace::Leave::Finish);
  fatal("internal error: a finished fiber was resumed");
}

void Worker::after_finish(Fiber* from, void*) {
  Worker* w = t_current_;  // == from->home_: fibers never migrate
  if (from->order_key_ && g_hooks.keyed_finished) g_hooks.keyed_finished(*w, from);
  w->stacks_.give(from->stack_);
  from->stack_ = Stack{};
  from->ctx_ = nullptr;
  // release: pairs with the acquire in Fiber::reusable(); the stack is no
  // longer in use once the owner can see Idle.
  from->state_.store(uint32_t(FiberState::Idle), memory_order_release);
  int left = w->unfinished_.load(memory_order_relaxed) - 1;
  w->unfinished_.store(left, memory_order_relaxed);
  if (w->spare_ && left == 0 && w->ready_len_.load(memory_order_relaxed) == 0) w->became_idle_spare();
}

// ---- the idle context -----------------------------------------------------

bool Worker::ordered_startable() {
  if (ready_len_.load(memory_order_relaxed) == fifo_len_.load(memory_order_relaxed)) return false;
  SpinGuard g(lock_);
  Fiber* f = ordered_.front();
  return f && (!g_hooks.may_start || g_hooks.may_start(*this, f));
}

void Worker::sleep_if_idle() {
  // Work for this worker: its FIFO, the head of its ordered queue if it may
  // start (a held-back one is not work yet), or — checked less often, since
  // it looks at every other worker — something to steal.
  auto own_work = [this] {
    return fifo_len_.load(memory_order_relaxed) != 0 || stopping_.load(memory_order_relaxed);
  };
  auto has_work = [&] {
    return own_work() || ordered_startable() || (!spare_ && g_hooks.has_work && g_hooks.has_work(*this));
  };
  // A worker that has never had work sleeps at once: the spin budget is
  // for the gap between two regions, and spinning through the program's
  // serial start-up only takes from the thread doing the work (on this
  // host a spinning core slowed the serial code on the other by up to 25%).
  //
  // So does one while program threads outside the pool, in regions of their
  // own, make kernel threads outnumber the processors. Its polls (and
  // yields) then take turns from threads the runtime does not schedule,
  // which may be spinning in a library; and a worker that sleeps is woken by
  // the kernel onto a processor that is free or whose thread yields, where a
  // spinning one waits in the run queue it is in, behind any thread that
  // never yields, for whole time slices. Program threads calling OpenBLAS
  // (its OpenMP build) at once, 2 on 2 cores: 0.22 s against 0.58 with the
  // spin; the shape without OpenBLAS is bots/roots' `shared`. Not when the
  // pool alone outnumbers the processors: there the spin is what passes a
  // chain of tasks from worker to worker (stress_deps at 64 threads on 2
  // cores: 3.7 s with it, over 60 without).
  bool outsiders = outside_teams_.load(memory_order_relaxed) > 0 && oversubscribed();
  uint64_t budget = has_run_ && !outsiders ? spin_ns_.load(memory_order_relaxed) : 0;
  // With the pool alone oversubscribed, the budget is the worker's share of
  // the processors: blocktime x processors / kernel threads. Each idle
  // worker yields at every poll then, and a thread that has work to do
  // gets its turn after every spinning one: a region of 4096 kernel threads
  // on 2 processors took 2.4 s to start, its creator waiting behind the
  // members that had already run and spun for 200 ms each. Unless the wait
  // policy is active (an unbounded budget): the program asked for spinning.
  if (budget && budget != UINT64_MAX && oversubscribed()) budget = oversubscribed_share(budget);
  if (budget) {
    uint64_t start = now_ns();
    for (unsigned i = 1;; ++i) {
      if (own_work()) return;
      // Every 64 polls: the ordered head and stealable work (a guess, so the
      // poll stays cheap while the reaction stays well under a microsecond
      // per poll times 64).
      if ((i & 63) == 0 && has_work()) return;
      // And the processor, to any other thread the kernel put on it: worker
      // 0's thread is the program's and not pinned, so it can share a
      // processor with a pinned worker until the kernel moves it, and an
      // idle loop that only paused there held that worker (which had a
      // region's member to run) off for whole time slices: 4 to 8 ms per
      // region for the first regions of a program. A yield with nothing
      // else to run returns at once.
      if ((i & 63) == 0) os_yield();
      relax();
      // Reading the clock every 64 polls keeps its cost (~20 ns) under a few
      // percent of the loop; a guess, not measured.
      if ((i & 63) == 0 && budget != UINT64_MAX && now_ns() - start >= budget) break;
    }
  }
  sleeping_.store(1, memory_order_relaxed);  // step 1
  fence_seq_cst();                           // step 2: pairs with the fence in notify()
  if (has_work()) {                          // step 3
    sleeping_.store(0, memory_order_relaxed);
    return;
  }
  // step 4. acquire: pairs with notify's exchange, so the work pushed before it is seen.
  uint64_t slept_from = trace::on() ? trace::now() : 0;
  while (sleeping_.load(memory_order_acquire) == 1) futex_wait(&sleeping_, 1);
  if (slept_from) trace::slept(slept_from);
  check_initial_placement();
}

void Worker::idle_loop() {
  for (;;) {
    Fiber* f = pop_ready();
    if (!f && !spare_ && g_hooks.find_work) f = g_hooks.find_work(*this);
    if (f) {
      has_run_ = true;
      run(f);
      continue;
    }
    if (stopping_.load(memory_order_acquire)) return;  // acquire: pairs with shutdown_pool's release
    sleep_if_idle();
  }
}

void* Worker::thread_main(void* self) {
  auto* w = static_cast<Worker*>(self);
  t_current_ = w;
  w->kernel_tid_.store(native_thread_id(), memory_order_release);  // pairs with kernel_tid()
  install_guard_for_thread();
  if (w->pin_) w->pin_(w->id_);
  if (w->spare_) pin_current_thread(allowed_cpus());  // not the creator's mask: anywhere the process may run
  allow_preemption_signal();
  w->idle_.native_ = true;
  w->idle_.home_ = w;
  w->running_ = &w->idle_;
  w->running_hint_.store(&w->idle_, memory_order_relaxed);
  if (trace::on()) w->trace_thread_start(&w->idle_, true);
  w->idle_loop();
  w->stacks_.clear();
  uninstall_guard_for_thread();
  return nullptr;
}

// ---- the pool ----------------------------------------------------------------

void Worker::idle_entry(Fiber* f) { static_cast<Worker*>(f->user())->idle_loop(); }

// The calling thread's own context becomes the root fiber; its idle loop runs
// on a small fiber of its own.
Worker* Worker::adopt_current(int id) {
  auto* w = new Worker(id);
  t_current_ = w;
  w->thread_ = pthread_self();  // for the monitor's preemption signal
  w->kernel_tid_.store(native_thread_id(), memory_order_release);  // pairs with kernel_tid()
  install_guard_for_thread();
  w->root_.native_ = true;
  w->root_.home_ = w;
  w->root_.state_.store(uint32_t(FiberState::Running), memory_order_relaxed);
  w->running_ = &w->root_;
  w->idle_.prepare(&idle_entry, w);
  w->idle_.home_ = w;
  w->idle_.stack_ = map_stack(256u << 10);  // the idle loop only runs scheduler code
  if (trace::on()) w->trace_thread_start(&w->root_, false);
  return w;
}

// The calling thread's track: named after the worker, begun with the
// context it runs now (its idle loop, or an adopted thread's own context).
void Worker::trace_thread_start(Fiber* running, bool idle) {
  char name[48];
  int sort;
  if (in_pool()) {
    snprintf(name, sizeof name, "worker %d", id_);
    sort = id_;
  } else if (spare_) {
    snprintf(name, sizeof name, "spare %d", id_);
    sort = id_;
  } else {
    snprintf(name, sizeof name, "program thread %ld (worker %d)", kernel_tid(), id_);
    sort = 2 * kMaxWorkers + id_;
  }
  trace::attach_thread(name, sort);
  if (!running->trace_id_) running->trace_id_ = trace::new_fiber_id();
  trace::switched(running, idle, trace::Leave::Run);
}

// Ids of workers outside the pool (adopted program threads and spares).
static Atomic<int> g_next_outside_id{Worker::kMaxWorkers};

Worker* Worker::adopt_foreign_thread() {
  Atomic<int>& next_id = g_next_outside_id;
  BOBBIN_ASSERT(t_current_ == nullptr);
  // The descriptor lives as long as the process: the thread may keep using
  // OpenMP until it exits, and nothing else refers to it.
  return adopt_current(next_id.fetch_add(1, memory_order_relaxed));
}

void Worker::ensure_pool(int n, PinFn pin) {
  std::lock_guard<std::mutex> g(g_pool_mutex);
  int have = pool_size_.load(memory_order_relaxed);
  if (n > kMaxWorkers) fatal("cannot run %d workers (at most %d)", n, kMaxWorkers);
  if (have == 0 && n > 0) {
    Worker* w = adopt_current(0);
    if (pin) pin(0);
    pool_[0] = w;
    pool_size_.store(1, memory_order_release);
    have = 1;
  }
  for (int i = have; i < n; ++i) {
    auto* w = new Worker(i);
    w->own_thread_ = true;
    w->pin_ = pin;
    pool_[i] = w;
    int rc = pthread_create(&w->thread_, nullptr, &thread_main, w);
    if (rc != 0) {
      // The process may have no more threads (RLIMIT_NPROC, the system's
      // thread limit) or no room for a stack (RLIMIT_AS): the pool stays as
      // it is, and every team still gets its threads, as fibers on the
      // workers there are (callers place members modulo pool_size()).
      pool_[i] = nullptr;
      delete w;
      static Atomic<bool> said{false};
      if (!said.exchange(true, memory_order_relaxed))
        warn("cannot start worker thread %d (%s): OpenMP threads share the %d running", i, strerror(rc), i);
      break;
    }
    pool_size_.store(i + 1, memory_order_release);  // pairs with the acquire in pool_size()
  }
  update_oversubscribed();
}

uint64_t Worker::oversubscribed_share(uint64_t ns) {
  uint64_t cpus = allowed_cpus().size();  // read once (pin.cpp)
  uint64_t threads = uint64_t(pool_size_.load(memory_order_relaxed)) +
                     uint64_t(outside_teams_.load(memory_order_relaxed)) +
                     uint64_t(spare_count_.load(memory_order_relaxed));
  return threads > cpus ? ns / threads * cpus : ns;
}

void Worker::update_oversubscribed() {
  int cpus = int(allowed_cpus().size());  // read once (pin.cpp)
  int threads = pool_size_.load(memory_order_relaxed) + outside_teams_.load(memory_order_relaxed);
  int spares = spare_count_.load(memory_order_acquire);
  for (int i = 0; i < spares && threads <= cpus; ++i)
    if (g_spares[i]->unfinished() > 0) ++threads;
  bool over = threads > cpus;
  if (oversubscribed_.load(memory_order_relaxed) == over) return;
  oversubscribed_.store(over, memory_order_relaxed);
  // The monitor gives kernel threads turns now (monitor.cpp): out of a long sleep.
  if (over) monitor_kick();
}

// Concurrent updates may store their answers out of order; the monitor's
// tick recomputes it.
void Worker::outside_team_opened() {
  outside_teams_.fetch_add(1, memory_order_relaxed);
  update_oversubscribed();
}

void Worker::outside_team_closed() {
  outside_teams_.fetch_sub(1, memory_order_relaxed);
  update_oversubscribed();
}

// ---- spares ----------------------------------------------------------------

Worker* Worker::spare_at(int i) { return g_spares[i]; }

Worker* Worker::take_spare() {
  std::lock_guard<std::mutex> g(g_spare_mutex);
  if (!g_idle_spares.empty()) {
    Worker* w = g_idle_spares.back();
    g_idle_spares.pop_back();
    return w;
  }
  int n = spare_count_.load(memory_order_relaxed);
  if (n >= kMaxSpares) return nullptr;
  auto* w = new Worker(g_next_outside_id.fetch_add(1, memory_order_relaxed));
  w->own_thread_ = true;
  w->spare_ = true;
  w->has_run_ = true;  // it exists to run what it is given: spin before sleeping like any worker
  // Default stack attributes: glibc carves the program's static TLS from the
  // thread's stack mapping, so a small stack would fail with large TLS.
  // Created by the monitor (a rescue), it takes the program's signal mask,
  // not the monitor's, which blocks every signal (monitor_thread_mask).
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  sigset_t mask;
  if (monitor_thread_mask(&mask)) pthread_attr_setsigmask_np(&attr, &mask);
  int rc = pthread_create(&w->thread_, &attr, &thread_main, w);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    static Atomic<bool> said{false};
    if (!said.exchange(true, memory_order_relaxed)) warn("cannot start a spare kernel thread: %s", strerror(rc));
    delete w;
    return nullptr;
  }
  g_spares[n] = w;
  spare_count_.store(n + 1, memory_order_release);  // pairs with the monitor's acquire
  update_oversubscribed();
  return w;
}

void Worker::became_idle_spare() {
  std::lock_guard<std::mutex> g(g_spare_mutex);
  g_idle_spares.push_back(this);
}

bool Worker::forget_pool_after_fork() {
  Worker* w0 = pool_[0];
  if (!w0 || t_current_ != w0 || w0->running_ != &w0->root_) return false;
  // The other workers' threads did not survive the fork. Their objects (run
  // queues, stack caches) are left as they are, unreachable: one of their
  // locks may have been held when the parent forked.
  int n = pool_size_.load(memory_order_relaxed);
  for (int i = 1; i < n; ++i) pool_[i] = nullptr;
  // The spares' threads did not survive either: forget them (their objects
  // are left, as the workers'), and the mutex, which one of them may have
  // held, starts unlocked.
  new (&g_spare_mutex) std::mutex;
  g_idle_spares.clear();
  spare_count_.store(0, memory_order_relaxed);
  oversubscribed_.store(false, memory_order_relaxed);
  forget_monitor_after_fork();
  pool_size_.store(1, memory_order_release);
  return true;
}

void Worker::shutdown_pool() {
  std::lock_guard<std::mutex> g(g_pool_mutex);
  int n = pool_size_.load(memory_order_relaxed);
  if (n == 0) return;
  BOBBIN_ASSERT(t_current_ == pool_[0] && t_current_->running_ == &t_current_->root_);
  stop_monitor();  // it reads the workers deleted below
  // Stop every worker before deleting any: a running idle loop still scans
  // the other workers (stealing, has_work) until it sees its own stop.
  for (int i = 1; i < n; ++i) {
    pool_[i]->stopping_.store(true, memory_order_release);  // pairs with the acquire in idle_loop
    pool_[i]->notify();
  }
  for (int i = 1; i < n; ++i) pthread_join(pool_[i]->thread_, nullptr);
  for (int i = 1; i < n; ++i) {
    delete pool_[i];
    pool_[i] = nullptr;
  }
  Worker* w0 = pool_[0];
  unmap_stack(w0->idle_.stack_);
  w0->stacks_.clear();
  uninstall_guard_for_thread();
  delete w0;
  pool_[0] = nullptr;
  t_current_ = nullptr;
  pool_size_.store(0, memory_order_release);
  oversubscribed_.store(false, memory_order_relaxed);
}

}  // namespace bobbin::ult
