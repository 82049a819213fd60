// Workers: the kernel threads that run fibers. See worker.cpp for the
// protocols (park/unpark of fibers, sleep/notify of workers).
#pragma once

#include <pthread.h>

#include <cstdint>
#include <vector>

#include "ult/atomic.hpp"
#include "ult/fiber.hpp"
#include "ult/spinlock.hpp"
#include "ult/stack_pool.hpp"
#include "ult/trace.hpp"

namespace bobbin::ult {

// Intrusive FIFO of fibers, guarded by its owner's lock.
class FiberQueue {
 public:
  void push_back(Fiber* f) {
    f->next_ = nullptr;
    if (tail_) tail_->next_ = f; else head_ = f;
    tail_ = f;
  }
  Fiber* pop_front() {
    Fiber* f = head_;
    if (f) { head_ = f->next_; if (!head_) tail_ = nullptr; f->next_ = nullptr; }
    return f;
  }
  bool empty() const { return head_ == nullptr; }
  // Inserts keeping the order `before` gives on order keys (FIFO among keys
  // neither of which is before the other). Queues are short.
  void insert_ordered(Fiber* f, bool (*before)(uint64_t a, uint64_t b)) {
    Fiber** p = &head_;
    while (*p && !before(f->order_key_, (*p)->order_key_)) p = &(*p)->next_;
    f->next_ = *p;
    *p = f;
    if (!f->next_) tail_ = f;
  }
  Fiber* front() const { return head_; }

 private:
  Fiber* head_ = nullptr;
  Fiber* tail_ = nullptr;
};

// The hook through which the scheduler layer gives an idle worker more to do
// (tasks, stealable fibers). ult/ calls it; scheduler/worker_loop installs it.
struct WorkHooks {
  // Returns a fiber to run on `w` (prepared, or one of w's own), or null.
  Fiber* (*find_work)(Worker& w) = nullptr;
  // Whether find_work might succeed now; called after a worker announces it
  // is going to sleep (see the sleep protocol). Must be cheap and lock-free.
  bool (*has_work)(Worker& w) = nullptr;
  // Whether w may start this queued, not-started fiber with an order key now
  // (checked at the head of the ordered queue; false leaves it queued).
  // Called with w's run-queue lock held: must take only leaf locks.
  bool (*may_start)(Worker& w, Fiber* f) = nullptr;
  // The order of the ordered queue: whether order key a comes before b (both
  // non-zero). Called with a run-queue lock held; takes no lock. Null: a < b.
  bool (*key_before)(uint64_t a, uint64_t b) = nullptr;
  // A not-started fiber with an order key leaves w's ordered queue to start
  // on w (called with w's run-queue lock held: leaf locks only). A steal
  // takes it through steal_unstarted's predicate instead, which says so.
  void (*keyed_taken)(Worker& w, Fiber* f) = nullptr;
  // A fiber with an order key finishes on w (on w's thread).
  void (*keyed_finished)(Worker& w, Fiber* f) = nullptr;
  // The progress monitor (monitor.cpp) took a not-started fiber away from a
  // stuck worker, or preempted a fiber that held one: f ran, or was about to
  // run, beside fibers that waited for its kernel thread. Called on the
  // monitor thread for a taken fiber, and inside the preemption signal
  // handler (on f's own thread) for a preempted one: async-signal-safe and
  // lock-free.
  void (*rescued)(Fiber* f) = nullptr;
  // The progress monitor takes a not-started fiber with an order key off a
  // stuck worker w, to start it on a spare (called with w's run-queue lock
  // held: leaf locks only). True: the scheduler gave up its place on w.
  bool (*keyed_rescued)(Worker& w, Fiber* f) = nullptr;
};
const WorkHooks& work_hooks();
// Sets WorkHooks::rescued alone (the runtime's, installed after the scheduler's hooks).
void install_rescued_hook(void (*fn)(Fiber* f));
// Called as a fiber with a place (Fiber::place) resumes on its worker, also
// inside the preemption signal handler: the runtime re-pins the worker there
// (so the hook must be async-signal-safe).
void install_resumed_hook(void (*fn)(int place));
void install_work_hooks(WorkHooks hooks);
// Called on worker 0's thread (the program's, which the runtime does not pin
// unless asked) when it wakes from its idle sleep and when it leaves a team
// barrier (Worker::check_initial_placement): the kernel tends to wake it on
// the processor of the thread that woke it, which may be a pinned worker's,
// and rarely moves either; the two then share a processor while another
// idles. The hook moves the worker (runtime/places.cpp).
void install_initial_placement_hook(void (*fn)());

class alignas(kCacheLine) Worker {
 public:
  // The worker that runs the calling thread, or null on a foreign thread.
  static Worker* current() { return t_current_; }
  // The fiber now running on this thread (null on a foreign thread).
  static Fiber* current_fiber() { return t_current_ ? t_current_->running_ : nullptr; }

  int id() const { return id_; }

  // ---- called by the running fiber ---------------------------------------
  // Lets the other ready fibers of this worker run; returns at once if none.
  static void yield();
  // The program's sched_yield on a fiber (yield_linux.cpp): if fibers are
  // runnable on this worker, the calling fiber goes behind them and they run
  // first; true if it switched. False off a fiber or with nothing queued.
  // Once the queue has had a whole turn, the thread also gives its processor
  // to the OS (at most every kYieldQuantumNs while kernel threads of this
  // program or of another one want it).
  static bool yield_to_queued();
  // Whether a fiber queued on the caller's worker could run now (as
  // yield_to_queued would switch to it). False off a fiber.
  static bool runnable_queued();
  // A blocking call on a fiber (block_linux.cpp): whether another fiber of
  // this worker is queued or started and unfinished (parked), so that the
  // call should wait in short slices rather than hold the worker until it
  // returns. False off a fiber and for a kernel thread's own context alone.
  static bool others_share_worker();
  // Whether another pool worker runs its idle loop (spinning or asleep):
  // one that will steal a not-started fiber queued here. A hint.
  static bool idle_peer();
  // Whether this worker runs its idle loop (spinning or asleep). A hint.
  bool in_idle_loop() const { return running_hint() == &idle_; }
  // The running fiber says it waits for work it has not found (a thread at a
  // barrier with no task to run, runtime/help.hpp): while it waits, it lets
  // any fiber queued on its worker run first. Cleared by passing false. The
  // note is the fiber's: a fiber it yields or parks for (a gang member at its
  // join, which notes its own wait and takes it back) does not erase it, and
  // it holds again when the fiber resumes. Kept by the worker alone, a
  // thread woken from its barrier by a task push that another thread took
  // counted busy until it parked again (100 us later), and a moldable
  // chain's next step, deciding in that window, ran a third of its steps at
  // width 1.
  static void note_waiting_for_work(bool on);
  // Whether a fiber queued here now would run at once: the worker idles,
  // or its running fiber waits for work (above). A hint.
  bool available() const {
    Fiber* r = running_hint();
    return r == &idle_ || (r != nullptr && r == waiting_for_work_.load(memory_order_relaxed));
  }
  // On worker 0's own thread only: runs the initial placement hook (above).
  static void check_initial_placement();
  // Blocks the calling fiber until unpark(); may return spuriously, so callers
  // loop on their own condition. Must not be called by the idle context.
  static void park();
  // Makes a parked (or about to park) fiber runnable again. Any thread.
  static void unpark(Fiber* f);

  // ---- hand work to a worker ---------------------------------------------
  // Queues a prepared, not-started fiber on this worker and wakes it.
  void submit(Fiber* f);
  // Wakes this worker if it sleeps (after making work visible to it).
  void notify();
  // Tells the progress monitor that this worker's thread is in the runtime,
  // doing the runtime's work (a fork creating thousands of members), not
  // held by a fiber that waits outside it. The calling thread must be this
  // worker's own.
  void runtime_progress() { bump_progress(); }

  std::size_t ready_count() const { return ready_len_.load(memory_order_relaxed); }
  // Whether the first fiber of the ordered queue may start now (may_start)
  // and its order key comes before `key` (key_before). Worker's own thread.
  bool startable_before(uint64_t key);
  // Not-started movable fibers queued here: what other workers may steal.
  std::size_t movable_count() const { return movable_len_.load(memory_order_relaxed); }
  // Of those, the ones a pool worker's idle loop may take (scheduler/
  // worker_loop.cpp): not bound to a place, and not reserved for dedicated
  // workers (pool_only) unless `dedicated`. Gang members among them may
  // still be refused (their gang's eligibility).
  std::size_t stealable_count(bool dedicated) const {
    return open_len_.load(memory_order_relaxed) + (dedicated ? pool_only_len_.load(memory_order_relaxed) : 0);
  }
  bool is_sleeping() const { return sleeping_.load(memory_order_relaxed) == 1; }
  // Removes and returns a fiber that has not started and matches `pred`, or
  // null. Any thread. `pred` runs under this worker's run-queue lock (leaf
  // locks only), and a true answer means the fiber is taken: pred is not
  // called again once it said true.
  template <class Pred>
  Fiber* steal_unstarted(Pred pred);

  // ---- the pool ----------------------------------------------------------
  using PinFn = void (*)(int worker_id);
  // Makes the calling thread worker 0 (if the pool is empty) and grows the
  // pool to n workers, each a new kernel thread that calls pin(id) first.
  static void ensure_pool(int n, PinFn pin);
  static int pool_size() { return pool_size_.load(memory_order_acquire); }
  // acquire: pairs with the release in ensure_pool, so the slot is seen filled.
  static Worker* at(int i) { return pool_[i]; }
  // Stops and joins every worker thread but the caller's (worker 0); the pool
  // is empty afterwards. Only from worker 0's root fiber with no team running.
  static void shutdown_pool();
  // In the child of a fork() made by worker 0's root fiber: only that thread
  // exists, so the pool shrinks to worker 0 alone and the next region starts
  // new workers. Takes no lock. False (nothing changed) if the caller is not
  // worker 0's root fiber.
  static bool forget_pool_after_fork();
  // Makes a kernel thread that is not in the pool (a thread of the program)
  // a worker of its own: its context becomes a root fiber, so it can block
  // like any fiber. Such a worker has no thread of its own to run queued
  // fibers, so nothing is ever submitted to it but its own wake-ups.
  static Worker* adopt_foreign_thread();
  bool in_pool() const { return id_ < kMaxWorkers; }
  // A pool worker whose kernel thread the pool started (not an adopted
  // program thread such as worker 0's): it only ever runs fibers.
  bool dedicated() const { return own_thread_; }
  // The kernel thread of a pool worker or a spare (as an integer: pthread_t).
  unsigned long native_thread() const { return static_cast<unsigned long>(thread_); }
  // The kernel's id of that thread (0 until it has started): the monitor
  // asks the OS how long the thread waited for a processor.
  long kernel_tid() const { return kernel_tid_.load(memory_order_acquire); }
  static constexpr int kMaxWorkers = 4096;
  // A worker whose fibers take turns with yields gives its processor to the
  // OS at most this often while oversubscribed, or while its last such yield
  // ran another thread; up to kYieldQuantumMaxNs apart while its yields come
  // back at once (yield_to_queued, worker.cpp).
  static constexpr uint64_t kYieldQuantumNs = 20'000;
  static constexpr uint64_t kYieldQuantumMaxNs = 1'000'000;
  // A kernel yield that took this long ran another thread (one alone on its
  // processor returns in well under a microsecond).
  static constexpr uint64_t kYieldRanOtherNs = 5'000;

  // Spin budget of an idle worker before it sleeps: 0 = sleep at once,
  // UINT64_MAX = never sleep (OMP_WAIT_POLICY=active).
  static void set_spin_ns(uint64_t ns) { spin_ns_.store(ns, memory_order_relaxed); }
  // One step of a spin-wait: a pause instruction, or — when the pool has more
  // workers than the process has processors — sched_yield, so that spinning
  // workers hand their processor to the ones that would end the wait.
  static void relax();
  // One step of a fiber's wait for something another fiber does: lets the
  // worker's runnable fibers run, or relaxes when none may (queued gang
  // members held back by G3 are no reason to switch: the switch would find
  // nothing to run and come straight back without the processor given up).
  static void yield_or_relax();
  static bool oversubscribed() { return oversubscribed_.load(memory_order_relaxed); }
  // Recomputes oversubscribed(): pool workers, busy spares and program
  // threads outside the pool with a team open, against the processors the
  // process may use (pool growth, spares, such forks and joins, the
  // monitor's tick).
  static void update_oversubscribed();
  // ns scaled by processors / kernel threads (pool, program threads in
  // regions, spares started) when the latter are more: a spin budget shared
  // out among threads that take turns on the processors.
  static uint64_t oversubscribed_share(uint64_t ns);
  // A program thread outside the pool (adopt_foreign_thread) opened, or
  // closed, a team of more than one thread: a kernel thread that runs its
  // part and waits at the join, beside the workers running its members.
  static void outside_team_opened();
  static int outside_teams() { return outside_teams_.load(memory_order_relaxed); }
  static void outside_team_closed();
  static uint64_t spin_ns() { return spin_ns_.load(memory_order_relaxed); }

  // ---- progress (monitor.cpp) ---------------------------------------------
  // The monitor's first step with a held worker: ask its running fiber to
  // let the queued ones run at its next task scheduling point. Any thread.
  void ask_to_yield() { yield_req_.store(true, memory_order_relaxed); }
  // Whether that request is still there: the running fiber has created no
  // task since (the monitor's probe of a kernel thread's turn).
  bool asked_to_yield() const { return yield_req_.load(memory_order_relaxed); }
  // At a task scheduling point of the running fiber (no runtime spin lock
  // held): yields if the monitor asked. One load when it did not.
  static void yield_if_asked() {
    Worker* w = t_current_;
    if (w && w->yield_req_.load(memory_order_relaxed)) w->take_yield_request();
  }
  // Scheduling points passed on this worker (fiber starts and switches):
  // written by the worker's own thread, read by the progress monitor.
  uint64_t progress() const { return switches_.load(memory_order_relaxed); }
  // Whether a fiber queued here could run if the running one gave the
  // worker up: the FIFO, or a startable head of the ordered queue.
  bool has_runnable_queued() { return fifo_len_.load(memory_order_relaxed) != 0 || ordered_startable(); }
  // The monitor asks this worker's thread to preempt its running fiber
  // (preempt_linux.cpp sends the signal); the handler takes the request.
  // `report`: the preempted fiber goes to the `rescued` hook too (kRequestReport).
  void request_preempt(bool report) {
    preempt_req_.store(report ? kRequestReport : kRequest, memory_order_release);
  }
  // The monitor asks this worker's thread to give its processor up for a
  // moment (kernel threads outnumber the processors and it has run a turn
  // without a scheduling point): the handler calls sched_yield and returns
  // to the interrupted code. A pending preemption request is left as it is.
  void request_turn_end() {
    uint32_t none = 0;
    preempt_req_.compare_exchange_strong(none, kRequestYield, memory_order_release, memory_order_relaxed);
  }
  // The monitor asks this worker's thread where its running fiber is, half
  // way through a turn (kRequestLook): the handler notes it and returns,
  // and the turn's preemption compares (preempt_linux.cpp,
  // fiber_turn_kind). A pending request is left as it is.
  void request_look() {
    uint32_t none = 0;
    preempt_req_.compare_exchange_strong(none, kRequestLook, memory_order_release, memory_order_relaxed);
  }
  // Whether a request is still waiting for the handler to take it.
  bool preempt_request_pending() const { return preempt_req_.load(memory_order_relaxed) != 0; }
  // 0: no request; kRequest, kRequestReport, kRequestYield or kRequestLook.
  uint32_t take_preempt_request() { return preempt_req_.exchange(0, memory_order_acquire); }
  static constexpr uint32_t kRequest = 1, kRequestReport = 2, kRequestYield = 3, kRequestLook = 4;
  // What the handler made of the last kRequestYield: kTurnSpun (the thread
  // seemed to spin and yielded), kTurnNear (it may have: its turns stay as
  // they are) or kTurnComputed; 0 once the monitor took it.
  void note_turn(uint32_t result) { turn_result_.store(result, memory_order_relaxed); }
  uint32_t take_turn_result() { return turn_result_.exchange(0, memory_order_relaxed); }
  static constexpr uint32_t kTurnSpun = 1, kTurnNear = 2, kTurnComputed = 3;
  // What the handler made of the fiber it last preempted (kTurnSpun or
  // kTurnComputed, preempt_linux.cpp); 0 once the monitor took it, which
  // sets the length of the worker's fibers' turns by it; nothing is noted
  // for a turn without a look.
  void note_fiber_turn(uint32_t result) { fiber_turn_.store(result, memory_order_relaxed); }
  uint32_t take_fiber_turn() { return fiber_turn_.exchange(0, memory_order_relaxed); }
  // Fibers the monitor preempted on this worker so far (written by the
  // worker's own thread, in the signal handler; read there too).
  uint64_t preemptions() const { return preempts_.load(memory_order_relaxed); }
  // Whether this worker's thread blocks inside one of the runtime's own
  // waits for the program's blocking calls (block_wait.hpp), which take
  // the preemption signal's EINTR as a cue to look again rather than
  // returning it: the monitor may then signal a thread blocked in a call
  // the kernel does not restart. Set and cleared by the worker's thread.
  bool in_signal_safe_wait() const { return signal_safe_wait_.load(memory_order_relaxed) != 0; }
  static void enter_signal_safe_wait() {
    if (Worker* w = t_current_) w->signal_safe_wait_.store(1, memory_order_relaxed);
  }
  static void leave_signal_safe_wait() {
    if (Worker* w = t_current_) w->signal_safe_wait_.store(0, memory_order_relaxed);
  }
  // Inside the preemption signal handler, on this worker's thread, at a
  // point preempt_linux.cpp found safe: the running fiber goes to the back
  // of the FIFO and the next ready fiber runs. The handler returns (and the
  // interrupted code resumes) when the fiber is switched back to. `report`:
  // the fiber goes to the `rescued` hook first.
  void preempt_running(bool report);
  // A spare: a worker with a kernel thread of its own, outside the pool,
  // that runs only the fibers handed to it (no stealing, no gang
  // reservations), one OpenMP thread at a time. The monitor moves fibers
  // that have not started off a stuck worker to spares, and the runtime
  // gives the members of a region that needed that rescue before a spare
  // each. take_spare() returns an idle one (its queue empty, no fiber of
  // its own unfinished), starting a new kernel thread if none is idle.
  static Worker* take_spare();
  bool spare() const { return spare_; }
  // acquire: pairs with take_spare's release, so the spare's fields are seen built.
  static int spares_started() { return spare_count_.load(memory_order_acquire); }
  static Worker* spare_at(int i);
  // Fibers started here and not finished (parked, ready or running). Own
  // thread writes; others read it as a hint.
  int unfinished() const { return unfinished_.load(memory_order_relaxed); }
  // Fibers of this worker that wait: started and not running (parked or
  // queued), the adopted thread's own context if parked, and queued fibers
  // not started. A hint for the watchdog (another thread's reads).
  int waiting_fibers() const;
  // What the running fiber is (a hint for reports; another thread's read).
  Fiber* running_hint() const { return running_hint_.load(memory_order_relaxed); }

  // Entry of every fiber's first activation (called from fiber.cpp).
  [[noreturn]] static void fiber_main(Fiber* f);

  StackCache& stacks() { return stacks_; }

 private:
  explicit Worker(int id) : id_(id) {}
  static void* thread_main(void* self);
  static void idle_entry(Fiber* f);
  void idle_loop();
  Fiber* pop_ready();
  void switch_away(AfterSwitch after, void* arg, trace::Leave why);
  void run(Fiber* f);
  void sleep_if_idle();
  bool ordered_startable();
  static void after_yield(Fiber* from, void* arg);
  static void after_park(Fiber* from, void* arg);
  static void after_finish(Fiber* from, void* arg);
  void enqueue(Fiber* f);
  static Worker* adopt_current(int id);
  void bump_progress() {
    // Single writer (this worker's thread): a plain increment, published relaxed.
    switches_.store(switches_.load(memory_order_relaxed) + 1, memory_order_relaxed);
  }
  void became_idle_spare();
  void trace_thread_start(Fiber* running, bool idle);
  void take_yield_request();

  // initial-exec here too, so that every user of current() reads it with one
  // %fs-relative load instead of calling __tls_get_addr (as at the definition).
  static thread_local Worker* t_current_ __attribute__((tls_model("initial-exec")));
  static Worker* pool_[kMaxWorkers];
  static Atomic<int> pool_size_;
  static Atomic<uint64_t> spin_ns_;
  static Atomic<bool> oversubscribed_;
  static Atomic<int> spare_count_;
  static Atomic<int> outside_teams_;  // see outside_team_opened

  const int id_;
  pthread_t thread_{};
  Atomic<long> kernel_tid_{0};  // written once by the worker's own thread (release), read by the monitor
  bool own_thread_ = false;     // a thread the pool started (not the adopted main thread)
  PinFn pin_ = nullptr;         // called first by the worker's own thread
  Fiber* running_ = nullptr;    // written and read only by this worker's thread
  Fiber idle_;                  // the idle loop's context
  Fiber root_;                  // adopted thread's own context (worker 0)
  StackCache stacks_;           // this thread only

  SpinLock lock_;
  FiberQueue ready_ GUARDED_BY(lock_);
  FiberQueue ordered_ GUARDED_BY(lock_);  // fibers with an order key, ascending; served first
  Atomic<std::size_t> ready_len_{0};  // written under lock_, read lock-free as a hint
  Atomic<std::size_t> movable_len_{0};  // likewise, counting not-started movable fibers
  // Likewise, the part of movable_len_ that stealable_count counts.
  Atomic<std::size_t> open_len_{0};       // neither bound to a place nor pool_only
  Atomic<std::size_t> pool_only_len_{0};  // pool_only, not bound
  // Counts a not-started movable fiber in (+1) or out of (-1) the lengths above.
  void count_movable(const Fiber* f, int by) REQUIRES(lock_);
  Atomic<std::size_t> fifo_len_{0};     // likewise, fibers in ready_ (not ordered_)
  // yield_to_queued's switches in the current rotation of the queue, and
  // when it last gave the processor to the OS (monotonic clock); written
  // by the worker's own thread alone.
  std::size_t yields_in_rotation_ = 0;
  uint64_t last_os_yield_ns_ = 0;
  uint64_t os_yield_quantum_ns_ = kYieldQuantumNs;

  // Sleep protocol word: 1 while the worker is (about to be) asleep on the futex.
  alignas(kCacheLine) Atomic<uint32_t> sleeping_{0};
  Atomic<bool> stopping_{false};
  bool has_run_ = false;  // has run a fiber other than its idle one (read and written by its own thread)
  bool spare_ = false;    // set before the thread starts; see take_spare()

  // Progress (monitor.cpp). switches_, unfinished_ and running_hint_: written
  // by this worker's thread only, read by the monitor as hints.
  alignas(kCacheLine) Atomic<uint64_t> switches_{0};
  Atomic<int> unfinished_{0};
  Atomic<Fiber*> running_hint_{nullptr};
  Atomic<Fiber*> waiting_for_work_{nullptr};  // see note_waiting_for_work
  Atomic<bool> running_started_{false};  // the running fiber is a started fiber (not idle, not a root)
  Atomic<uint32_t> preempt_req_{0};  // set by the monitor, taken by the signal handler
  Atomic<uint32_t> turn_result_{0};  // set by the signal handler, taken by the monitor
  Atomic<uint32_t> fiber_turn_{0};   // likewise, for preempted fibers
  Atomic<uint64_t> preempts_{0};     // preempt_running's count (own thread)
  Atomic<uint32_t> signal_safe_wait_{0};  // see in_signal_safe_wait
  Atomic<bool> yield_req_{false};    // set by the monitor, taken at a scheduling point (yield_if_asked)
};

template <class Pred>
Fiber* Worker::steal_unstarted(Pred pred) NO_THREAD_SAFETY_ANALYSIS {
  if (movable_len_.load(memory_order_relaxed) == 0) return nullptr;
  SpinGuard g(lock_);
  Fiber* found = nullptr;
  bool from_fifo = false;
  for (FiberQueue* q : {&ordered_, &ready_}) {
    FiberQueue keep;
    while (Fiber* f = q->pop_front()) {
      if (!found && f->movable_ && !f->started() && pred(f)) {
        found = f;
        from_fifo = q == &ready_;
      } else {
        keep.push_back(f);
      }
    }
    *q = keep;
  }
  if (found) {
    // fifo_len_ counts ready_ alone: a steal from it that left the count up
    // kept the victim's idle loop from ever sleeping (own_work stayed true).
    if (from_fifo) fifo_len_.fetch_sub(1, memory_order_relaxed);
    ready_len_.fetch_sub(1, memory_order_relaxed);
    count_movable(found, -1);
  }
  return found;
}

}  // namespace bobbin::ult
