// Barriers, single, masked, copyprivate, critical sections and locks.
//
// Locks. A simple lock is one 32-bit word (the size libgomp gives omp_lock_t;
// clang's 8-byte omp_lock_t has room to spare): 0 free, 1 held, 2 held with
// waiters that may be parked. A nestable lock is two words (8 bytes, what
// clang gives omp_nest_lock_t; libgomp's 16 have room to spare): word 0 is
// the owning task's id (below), with bit 31 set while waiters may be
// parked, and word 1 the nesting count, which only the owner touches.
//
// Lock protocol (the classic three-state futex mutex, with the parking lot
// standing in for the futex so that waiters park their fiber, never the
// worker — a holder on the same worker can then run and release):
//   lock:   1. CAS 0->1: done.
//           2. spin (yielding to this worker's other fibers) while the word is
//              non-zero, retrying 1, for the fiber spin budget.
//           3. loop: if exchange(word, 2) == 0: done (held, maybe with waiters);
//              else park_on(word, 2);
//           4.   woken: spin as in 2 but retrying CAS 0->2, then back to 3.
//   unlock: if exchange(word, 0) == 2: unpark_on(word, 1).
// Invariant: while any fiber is parked on the word, the word is 2, or a
// woken waiter is in step 4: each waiter stores 2 before parking, and a
// woken one, which the unlock that woke it cleared the word for, stores 2
// again before it leaves step 4 (taking the lock as 2, or in step 3). So an
// unlock never skips a needed wake-up.
// Why step 4 spins. A holder that releases and takes the lock again at once
// (a loop around a critical section) wins it back before the woken waiter
// runs; without the spin that waiter would park again at once, storing 2,
// and the holder would pay an unpark at every release (measured, EPCC's
// critical and lock with 2 threads: 0.12 -> 0.085 us; libgomp, whose
// waiters spin far longer before they sleep, 0.07).
#include <cstring>

#include "runtime/api.hpp"
#include "runtime/help.hpp"
#include "runtime/task.hpp"
#include "runtime/team.hpp"
#include "ult/log.hpp"
#include "ult/parking_lot.hpp"
#include "ult/spinlock.hpp"
#include "ult/worker.hpp"
#include "ult/yield.hpp"

namespace bobbin::rt {

namespace {

Atomic<uint32_t>* word(void* lock) { return static_cast<Atomic<uint32_t>*>(lock); }

// Spins for the fiber spin budget until the word is 0 and this thread sets it
// to `held`. acquire: pairs with the release in release(), so the critical
// section sees the previous holder's writes.
//
// Between two looks at the word the waiter backs off, doubling up to
// kMaxBackoff pauses: every look pulls the word's line away from the holder,
// whose unlock and next lock then miss. Measured with EPCC's lock (gcc
// build, 2 threads, runs alternating with libgomp, median of the per-pair
// differences): no backoff +20..30 ns against libgomp (0-3 of 12-15 pairs
// faster); a cap of 16: -55 ns (11 of 12); 64: -5..-50 ns (8-9 of 12-15).
constexpr unsigned kMaxBackoff = 16;

bool spin_to_take(Atomic<uint32_t>* w, uint32_t held) {
  unsigned backoff = 1;
  return WaitWord::spin([&] {
    uint32_t e = 0;
    if (w->load(memory_order_relaxed) == 0 &&
        w->compare_exchange_strong(e, held, memory_order_acquire, memory_order_relaxed))
      return true;
    for (unsigned i = 1; i < backoff; ++i) cpu_relax();
    if (backoff < kMaxBackoff) backoff <<= 1;
    return false;
  });
}

void acquire(Atomic<uint32_t>* w) {
  uint32_t expect = 0;
  // acquire: as in spin_to_take.
  if (w->compare_exchange_strong(expect, 1, memory_order_acquire, memory_order_relaxed)) return;  // step 1
  if (spin_to_take(w, 1)) return;                                                                  // step 2
  while (w->exchange(2, memory_order_acquire) != 0) {                                              // step 3
    ult::park_on(w, 2);
    if (spin_to_take(w, 2)) return;                                                                // step 4
  }
}

void release(Atomic<uint32_t>* w) { lock_unset_inline(w); }  // wakes through lock_wake

bool try_acquire(Atomic<uint32_t>* w) {
  uint32_t expect = 0;
  return w->compare_exchange_strong(expect, 1, memory_order_acquire, memory_order_relaxed);
}

}  // namespace

// ---- flush --------------------------------------------------------------------
// A flush is a full fence. In a clang-built program `#pragma omp flush` is
// also a call, and the spec's own examples wait for another thread by
// spinning on a flag with a flush in the loop. On a fiber, the thread it
// waits for is often queued on its own worker, which the spin holds: only
// the monitor's preemption (after BOBBIN_STUCK_US, then a kernel thread per
// member for that region) let it run. So a flush made while other fibers are
// runnable on this worker lets them run first, as Bobbin's sched_yield does
// (ult/yield_linux.cpp), and costs one relaxed load when none is. Not with
// a runtime spin lock held (a switch there could block the lock's next
// taker on this worker). gcc inlines a flush as a fence: its programs keep
// the monitor's rescue.
namespace {
// What a wait outside the runtime made of one of its calls (a flush, a
// failed lock test) does: on a fiber, the worker's runnable fibers go first
// (none queued: one relaxed load); else, while kernel threads outnumber the
// processors (an outermost team wider than the machine run as kernel
// threads), the processor goes to another thread, as the runtime's own
// waits give it up then: the thread waited for may be the one that shares
// this processor, and without the yield it ran only when the OS ended the
// spinner's time slice (NPB LU's flag pipeline, clang build, 4 threads on
// 2 cores with max-active-levels 2: 19.5 s, as libomp). Not with a runtime
// spin lock held.
void let_others_run() {
  if (t_spinlocks_held != 0) return;
  if (!ult::Worker::yield_to_queued() && ult::Worker::oversubscribed()) os_yield();
}
}  // namespace

void flush() {
  fence_seq_cst();
  let_others_run();
}

// ---- barrier, single, masked, copyprivate ------------------------------------

void barrier() {
  Thread* t = current_thread_fast();
  leave_cancelled_loop(t);
  t->team->barrier.wait(t);
}

bool single_begin() {
  Thread* t = current_thread_fast();
  uint32_t k = ++t->single_seq;
  if (t->team->nthreads == 1) return true;
  // A thread meets its k-th single only after its (k-1)-th was claimed, so the
  // counter is at least k-1 here; the CAS lets exactly one thread claim k.
  uint32_t expect = k - 1;
  return t->team->single_claimed.load(memory_order_relaxed) == expect &&
         t->team->single_claimed.compare_exchange_strong(expect, k, memory_order_relaxed);
}

void single_end() {}

bool masked_begin(int filter) { return current_thread_fast()->tid == filter; }

void copyprivate(void* data, void (*copy)(void* dst, void* src), bool did_it) {
  Thread* t = current_thread_fast();
  Team* team = t->team;
  if (team->nthreads == 1) return;
  if (did_it) team->copy_src = data;  // published by the barrier's release
  team->barrier.wait(t);
  if (!did_it) copy(data, team->copy_src);
  // The source's data must stay alive until everyone has copied it.
  team->barrier.wait(t);
}

// single_share: the value of the team's k-th single goes through slot
// k % kShareSlots (Team::ShareSlot).
// Invariant S: a slot holds at most one construct's value, from the
// claimer's store of its key until the last of the other nthreads-1
// threads has read it.
//   claimer: 1. wait until key == 0 (acquire: the previous construct's
//               readers are done with `value`);
//            2. value = make(ctx); readers = nthreads-1; key = busy|k (release);
//               notify.
//   others:  3. wait until key == busy|k (acquire: value is complete);
//            4. read value; if readers-- == 1 (acq_rel): key = 0 (release); notify.
// The waits are task scheduling points (help_until): a claimer that is
// kShareSlots constructs ahead waits for threads that are behind, which
// never wait for it.
void* single_share(void* (*make)(void* ctx), void* ctx) {
  Thread* th = current_thread_fast();
  Team* team = th->team;
  bool first = single_begin();
  if (team->nthreads == 1) return make(ctx);
  uint64_t key = Team::kShareBusy | th->single_seq;
  Team::ShareSlot& s = team->share[th->single_seq % Team::kShareSlots];
  if (first) {
    help_until(th, [&] { return s.key.load(memory_order_acquire) == 0; });  // step 1
    void* v = make(ctx);
    s.value = v;  // step 2
    s.readers.store(team->nthreads - 1, memory_order_relaxed);
    s.key.store(key, memory_order_release);
    team->ww.notify_all();
    return v;  // not s.value: the slot may serve another construct already
  }
  help_until(th, [&] { return s.key.load(memory_order_acquire) == key; });  // step 3
  void* v = s.value;
  if (s.readers.fetch_sub(1, memory_order_acq_rel) == 1) {  // step 4
    s.key.store(0, memory_order_release);
    team->ww.notify_all();
  }
  return v;
}

// ---- locks ----------------------------------------------------------------------

void lock_init(void* lock) { word(lock)->store(0, memory_order_relaxed); }
void lock_destroy(void* lock) { word(lock)->store(0, memory_order_relaxed); }
void lock_set(void* lock) { acquire(word(lock)); }
void lock_wake(void* lock) { ult::unpark_on(word(lock), 1); }
// A failed test is a wait outside the runtime: programs spin on
// omp_test_lock. The owner may be a fiber queued on this worker (one that
// let others run at a flush inside its locked section), which the spin
// holds off until the monitor's preemption: LLVM's omp_test_lock at 8
// threads on 2 cores took 20-26 s against 0.02 s on libomp. So a failed
// test lets the worker's runnable fibers go first, as a flush does.
bool lock_test(void* lock) {
  if (try_acquire(word(lock))) return true;
  let_others_run();
  return false;
}

// Nestable locks. Same protocol as the simple lock, with the owner's id in
// place of "1" and the waiters bit in place of "2". The owner is a task, not
// a thread (OpenMP 3.0 on; spec 5.2 section 18.9): a new implicit task (even a
// serialized region's, on the same thread) or an explicit task does not own
// its creator's lock, so omp_test_nest_lock gives 0 there and
// omp_set_nest_lock waits. A task's id is drawn from a 31-bit counter at its
// first nestable-lock call; ids repeat only after 2^31 tasks have drawn one,
// which could confuse a task with another that still holds a lock after all
// of them: accepted.
namespace {
constexpr uint32_t kWaiters = 0x80000000u;

struct NestWords {
  Atomic<uint32_t> owner;  // 0 free, else (gtid+1) | maybe kWaiters
  uint32_t count;          // the owner's nesting depth; owner only
};
static_assert(sizeof(NestWords) == 8, "a nestable lock must fit clang's 8-byte omp_nest_lock_t");

NestWords* nest(void* lock) { return static_cast<NestWords*>(lock); }
Atomic<uint32_t> g_next_lock_owner{0};

uint32_t self_id() {
  Task* t = current_thread_fast()->current_task;
  if (t->lock_owner == 0) {
    uint32_t id;
    do {
      // relaxed: only uniqueness matters, no data is published with the id.
      id = (g_next_lock_owner.fetch_add(1, memory_order_relaxed) + 1) & ~kWaiters;
    } while (id == 0);
    t->lock_owner = id;
  }
  return t->lock_owner;
}

bool nest_try(NestWords* l, uint32_t me) {
  uint32_t expect = 0;
  // acquire: pairs with the release in nest_lock_unset.
  return l->owner.compare_exchange_strong(expect, me, memory_order_acquire, memory_order_relaxed);
}
}  // namespace

void nest_lock_init(void* lock) {
  nest(lock)->owner.store(0, memory_order_relaxed);
  nest(lock)->count = 0;
}
void nest_lock_destroy(void* lock) { nest_lock_init(lock); }

void nest_lock_set(void* lock) {
  NestWords* l = nest(lock);
  uint32_t me = self_id();
  if ((l->owner.load(memory_order_relaxed) & ~kWaiters) == me) {
    ++l->count;
    return;
  }
  if (!nest_try(l, me) &&
      !WaitWord::spin([&] { return l->owner.load(memory_order_relaxed) == 0 && nest_try(l, me); })) {
    for (;;) {
      uint32_t v = l->owner.load(memory_order_relaxed);
      if (v == 0) {
        // Keep the waiters bit: others may still be parked (the "store 2" rule).
        if (l->owner.compare_exchange_strong(v, me | kWaiters, memory_order_acquire, memory_order_relaxed)) break;
        continue;
      }
      if (!(v & kWaiters) && !l->owner.compare_exchange_strong(v, v | kWaiters, memory_order_relaxed)) continue;
      ult::park_on(&l->owner, v | kWaiters);
    }
  }
  l->count = 1;
}

void nest_lock_unset(void* lock) {
  NestWords* l = nest(lock);
  if (--l->count > 0) return;
  if (l->owner.exchange(0, memory_order_release) & kWaiters) ult::unpark_on(&l->owner, 1);
}

int nest_lock_test(void* lock) {
  NestWords* l = nest(lock);
  uint32_t me = self_id();
  if ((l->owner.load(memory_order_relaxed) & ~kWaiters) == me) return int(++l->count);
  if (!nest_try(l, me)) {
    let_others_run();
    return 0;
  }
  l->count = 1;
  return 1;
}

// ---- critical ---------------------------------------------------------------------
// The compiler's zero-filled name storage (32 bytes for kmpc, a pointer for
// GOMP) holds the lock word itself.

void critical_begin(void* name) { acquire(word(name)); }
void critical_end(void* name) { release(word(name)); }

}  // namespace bobbin::rt
