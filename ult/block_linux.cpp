// Blocking calls that a fiber makes: sem_wait, pthread_barrier_wait,
// sleeps (nanosleep, clock_nanosleep, usleep, sleep), waits with a deadline
// (sem_timedwait, sem_clockwait, pthread_mutex_timedlock,
// pthread_mutex_clocklock; poll, select and epoll are ready_linux.cpp's,
// futex waits futex_linux.cpp's, read and write transfer_linux.cpp's), a
// contended pthread mutex, read-write lock or spin lock, or a condition
// variable wait (pthread_mutex_lock, pthread_rwlock_*, pthread_spin_lock,
// pthread_cond_wait, pthread_cond_timedwait, pthread_cond_clockwait), and
// which fiber holds a recursive or error-checking mutex or a write lock
// (pthread_mutex_trylock, pthread_mutex_unlock, pthread_rwlock_unlock).
//
// The problem. Team members that wait for each other outside the runtime
// with a blocking call (a pipe between members, a semaphore ring, a POSIX
// barrier) block their worker's kernel thread. On a fiber, the member it
// waits for is often queued on that same worker, which the kernel cannot
// run while the call blocks: only the progress monitor (monitor.cpp) frees
// it, after BOBBIN_STUCK_US, by preempting the call, and the region's next
// forks then give every member a kernel thread (runtime/progress.cpp). That
// is correct but slow: a detection per region at first, then kernel
// threads where fibers would have done.
//
// Rejected: making these descriptors non-blocking behind the program's back
// (it changes what other processes sharing the pipe see), or an event loop
// in the runtime (every blocking call of the program would pass through
// it). Chosen: the call first asks whether it would block, and while it
// would and another fiber is runnable on this worker, lets that fiber run
// (as Bobbin's sched_yield does, yield_linux.cpp); while other fibers of the
// worker are started but parked, it blocks in slices of kSliceNs, so that
// one made ready meanwhile waits at most a slice; with no other fiber on the
// worker it is the C library's call, unchanged. Off a fiber (the monitor, a
// program's own threads, a spare with one member) nothing changes but one
// thread-local load.
//
// Invariants: (B1) the call returns what the C library's would have: the
// wait loop only decides when to make the real call (read, sem_wait) or
// implements exactly the POSIX contract (the barrier, below); errno is the
// caller's unless the call fails. (B2) A switch happens only with no
// runtime spin lock held by this thread (t_spinlocks_held), as in
// sched_yield. (B3) A descriptor the program made non-blocking is left
// alone: read then returns EAGAIN as it must.
//
// A sleep is a wait by intent: a member that polls a flag with usleep
// between looks (a common way to wait politely) held its worker through
// every sleep, and the preemption signal could not take it: it nearly always
// lands in the kernel's sleep, which a signal ends with EINTR inside the C
// library (not a safe point, preempt_linux.cpp) rather than restarts. A team
// of 3 on 2 workers whose primary thread was queued behind such a poller
// hung (LLVM's kmp_sch_simd_guided test). On a shared worker a sleep now
// lets the queued fibers run, then sleeps in slices until its deadline,
// letting them run between slices (B1: it returns no earlier than the C
// library's would, and EINTR with the time left if a signal ends a slice).
//
// Mutexes and condition variables (the C library's, std::mutex and
// std::condition_variable). A member that blocks on a mutex held by a fiber
// queued on its own worker (preempted inside its critical section by the
// monitor) would block that worker for good: the kernel cannot run the
// holder, and the monitor cannot preempt a thread inside the C library's
// lock. So a contended lock on a fiber lets the queued fibers run and
// blocks only in slices while others share the worker (B1: it returns as
// the C library's lock would, EDEADLK for an error-checking mutex the
// thread holds). A condition wait with a fiber runnable on the worker
// releases the mutex, lets it run, takes the mutex again and returns 0: a
// spurious wake-up, which POSIX allows and every correct caller re-checks
// its predicate after; with fibers parked there, it waits in slices. A
// team of 16 on 2 workers meeting at a mutex-and-condvar barrier took 2.5
// times libomp's time before, the members going to kernel threads one
// rescue at a time. The runtime's own calls (std::mutex in libbobbin,
// which switches nothing while it holds per-worker state) are the C
// library's, told by their return address. pthread_cond_timedwait's
// deadline is on the clock the condition variable was made with, which the
// C library keeps in a bit of the condition (cond_clock below).
//
// Waits with a deadline. The monitor frees a worker whose fiber blocks in
// the kernel by preempting it where the kernel restarts the call, and a
// wait with a timeout is not restarted (the program would see EINTR): a
// member in sem_timedwait, poll or select with a timeout, or a timed lock,
// held its worker until the timeout ran out, and its team-mates queued
// there waited with it (a semaphore ring and a poll ring of 8 members
// after an omp barrier, 10 s deadlines: each round took the 10 s). They
// now wait as the calls above, in slices up to their deadline, and return
// what the C library's would (ETIMEDOUT) once it passed. The waits for
// readiness (poll, select, epoll) do the same in ready_linux.cpp.
//
// Exported at the C library's version nodes (abi/bobbin.map): programs built
// on glibc 2.34 or later ask for sem_wait and pthread_barrier_* at
// GLIBC_2.34 and for the sleeps at GLIBC_2.2.5.
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>

#include "ult/atomic.hpp"
#include "ult/block_wait.hpp"
#include "ult/preempt.hpp"
#include "ult/spinlock.hpp"
#include "ult/thread_info.hpp"
#include "ult/worker.hpp"
#include "ult/yield.hpp"

namespace {

using bobbin::Atomic;
using bobbin::memory_order_acq_rel;
using bobbin::memory_order_acquire;
using bobbin::memory_order_relaxed;
using bobbin::memory_order_release;
using bobbin::ult::Worker;
using namespace bobbin::ult::block;  // NOLINT: the shared helpers of the interposed waits

using SemWaitFn = int (*)(sem_t*);
using BarrierInitFn = int (*)(pthread_barrier_t*, const pthread_barrierattr_t*, unsigned);
using BarrierFn = int (*)(pthread_barrier_t*);
using ClockNanosleepFn = int (*)(clockid_t, int, const timespec*, timespec*);
using NanosleepFn = int (*)(const timespec*, timespec*);
using UsleepFn = int (*)(useconds_t);
using SleepFn = unsigned (*)(unsigned);
using MutexLockFn = int (*)(pthread_mutex_t*);
using MutexClocklockFn = int (*)(pthread_mutex_t*, clockid_t, const timespec*);
using CondWaitFn = int (*)(pthread_cond_t*, pthread_mutex_t*);
using CondClockwaitFn = int (*)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const timespec*);
using CondTimedwaitFn = int (*)(pthread_cond_t*, pthread_mutex_t*, const timespec*);
using SemClockwaitFn = int (*)(sem_t*, clockid_t, const timespec*);
using SemTimedwaitFn = int (*)(sem_t*, const timespec*);
using MutexTimedlockFn = int (*)(pthread_mutex_t*, const timespec*);
using RwlockFn = int (*)(pthread_rwlock_t*);
using RwlockClockFn = int (*)(pthread_rwlock_t*, clockid_t, const timespec*);
using RwlockTimedFn = int (*)(pthread_rwlock_t*, const timespec*);
using SpinFn = int (*)(pthread_spinlock_t*);

SemWaitFn g_sem_wait;
BarrierInitFn g_barrier_init;
BarrierFn g_barrier_wait, g_barrier_destroy;
ClockNanosleepFn g_clock_nanosleep;
NanosleepFn g_nanosleep;
UsleepFn g_usleep;
SleepFn g_sleep;
// The C library's, also those called from the wrappers: under a program
// built with ThreadSanitizer, whose interceptors come first and call these
// wrappers as the C library's, a trylock through the interceptor again would
// be seen as a second lock.
MutexLockFn g_mutex_lock, g_mutex_trylock, g_mutex_unlock;
MutexClocklockFn g_mutex_clocklock;
CondWaitFn g_cond_wait;
CondClockwaitFn g_cond_clockwait;
CondTimedwaitFn g_cond_timedwait;
SemClockwaitFn g_sem_clockwait;
SemTimedwaitFn g_sem_timedwait;
MutexTimedlockFn g_mutex_timedlock;
RwlockFn g_rwlock_rdlock, g_rwlock_wrlock, g_rwlock_tryrdlock, g_rwlock_trywrlock, g_rwlock_unlock;
RwlockClockFn g_rwlock_clockrdlock, g_rwlock_clockwrlock;
RwlockTimedFn g_rwlock_timedrdlock, g_rwlock_timedwrlock;
SpinFn g_spin_lock, g_spin_trylock;

// Resolved at load, before the program's threads exist (as stack_attr.cpp).
__attribute__((constructor)) void resolve_next() {
  g_sem_wait = reinterpret_cast<SemWaitFn>(next_symbol("sem_wait", "GLIBC_2.34"));
  g_barrier_init = reinterpret_cast<BarrierInitFn>(next_symbol("pthread_barrier_init", "GLIBC_2.34"));
  g_barrier_wait = reinterpret_cast<BarrierFn>(next_symbol("pthread_barrier_wait", "GLIBC_2.34"));
  g_barrier_destroy = reinterpret_cast<BarrierFn>(next_symbol("pthread_barrier_destroy", "GLIBC_2.34"));
  g_clock_nanosleep = reinterpret_cast<ClockNanosleepFn>(next_symbol("clock_nanosleep", "GLIBC_2.17"));
  g_nanosleep = reinterpret_cast<NanosleepFn>(next_symbol("nanosleep", "GLIBC_2.2.5"));
  g_usleep = reinterpret_cast<UsleepFn>(next_symbol("usleep", "GLIBC_2.2.5"));
  g_sleep = reinterpret_cast<SleepFn>(next_symbol("sleep", "GLIBC_2.2.5"));
  g_mutex_lock = reinterpret_cast<MutexLockFn>(next_symbol("pthread_mutex_lock", "GLIBC_2.2.5"));
  g_mutex_trylock = reinterpret_cast<MutexLockFn>(next_symbol("pthread_mutex_trylock", "GLIBC_2.34"));
  g_mutex_unlock = reinterpret_cast<MutexLockFn>(next_symbol("pthread_mutex_unlock", "GLIBC_2.2.5"));
  g_mutex_clocklock = reinterpret_cast<MutexClocklockFn>(next_symbol("pthread_mutex_clocklock", "GLIBC_2.34"));
  g_cond_wait = reinterpret_cast<CondWaitFn>(next_symbol("pthread_cond_wait", "GLIBC_2.3.2"));
  g_cond_clockwait = reinterpret_cast<CondClockwaitFn>(next_symbol("pthread_cond_clockwait", "GLIBC_2.34"));
  g_cond_timedwait = reinterpret_cast<CondTimedwaitFn>(next_symbol("pthread_cond_timedwait", "GLIBC_2.3.2"));
  g_sem_clockwait = reinterpret_cast<SemClockwaitFn>(next_symbol("sem_clockwait", "GLIBC_2.34"));
  g_sem_timedwait = reinterpret_cast<SemTimedwaitFn>(next_symbol("sem_timedwait", "GLIBC_2.34"));
  g_mutex_timedlock = reinterpret_cast<MutexTimedlockFn>(next_symbol("pthread_mutex_timedlock", "GLIBC_2.34"));
  g_rwlock_rdlock = reinterpret_cast<RwlockFn>(next_symbol("pthread_rwlock_rdlock", "GLIBC_2.34"));
  g_rwlock_wrlock = reinterpret_cast<RwlockFn>(next_symbol("pthread_rwlock_wrlock", "GLIBC_2.34"));
  g_rwlock_tryrdlock = reinterpret_cast<RwlockFn>(next_symbol("pthread_rwlock_tryrdlock", "GLIBC_2.34"));
  g_rwlock_trywrlock = reinterpret_cast<RwlockFn>(next_symbol("pthread_rwlock_trywrlock", "GLIBC_2.34"));
  g_rwlock_unlock = reinterpret_cast<RwlockFn>(next_symbol("pthread_rwlock_unlock", "GLIBC_2.34"));
  g_rwlock_clockrdlock = reinterpret_cast<RwlockClockFn>(next_symbol("pthread_rwlock_clockrdlock", "GLIBC_2.34"));
  g_rwlock_clockwrlock = reinterpret_cast<RwlockClockFn>(next_symbol("pthread_rwlock_clockwrlock", "GLIBC_2.34"));
  g_rwlock_timedrdlock = reinterpret_cast<RwlockTimedFn>(next_symbol("pthread_rwlock_timedrdlock", "GLIBC_2.34"));
  g_rwlock_timedwrlock = reinterpret_cast<RwlockTimedFn>(next_symbol("pthread_rwlock_timedwrlock", "GLIBC_2.34"));
  g_spin_lock = reinterpret_cast<SpinFn>(next_symbol("pthread_spin_lock", "GLIBC_2.34"));
  g_spin_trylock = reinterpret_cast<SpinFn>(next_symbol("pthread_spin_trylock", "GLIBC_2.34"));
}

// ---- sleeps ----

// Sleeps on `clock` until `deadline` (ns on that clock) as above; 0, or the
// error that ended a slice (EINTR), with *left the time still to sleep.
// The monitor's preemption signal ends a sleep with EINTR too (the kernel
// restarts no sleep once a handler ran): that one is not the program's, and
// the sleep goes on.
int sleep_until(clockid_t clock, uint64_t deadline, uint64_t* left) {
  for (;;) {
    unsigned signals = bobbin::ult::preemption_signals_taken();
    Worker::yield_to_queued();
    timespec now;
    clock_gettime(clock, &now);
    uint64_t t = to_ns(now);
    if (t >= deadline) {
      *left = 0;
      return 0;
    }
    *left = deadline - t;
    int rc;
    SignalSafeWait safe;
    if (!Worker::others_share_worker()) {
      timespec until = from_ns(deadline);
      rc = g_clock_nanosleep(clock, TIMER_ABSTIME, &until, nullptr);
      if (rc == 0) {
        *left = 0;
        return 0;
      }
    } else {
      timespec slice = from_ns(*left < kSliceNs ? *left : kSliceNs);
      rc = g_clock_nanosleep(clock, 0, &slice, nullptr);
    }
    // Only the monitor's signal: go on (a signal of the program's as well
    // is then seen as ours, and the sleep goes on: allowed, as a sleep may
    // also end late).
    if (rc == EINTR && bobbin::ult::preemption_signals_taken() != signals) continue;
    if (rc != 0) {
      if (clock_gettime(clock, &now) == 0) *left = to_ns(now) < deadline ? deadline - to_ns(now) : 0;
      return rc;
    }
  }
}

// Relative sleeps on the monotonic clock (POSIX measures nanosleep there).
int sleep_for(uint64_t ns, uint64_t* left) {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return sleep_until(CLOCK_MONOTONIC, to_ns(now) + ns, left);
}

// nanosleep's and usleep's contract: 0, or -1 with errno (EINTR) and the
// time left in *rem.
int posix_sleep(uint64_t ns, timespec* rem) {
  uint64_t left = 0;
  int rc = sleep_for(ns, &left);
  if (rc == 0) return 0;
  if (rem) *rem = from_ns(left);
  errno = rc;
  return -1;
}

// ---- waits with a deadline ----

// sem_wait's loop on a fiber, up to `deadline` (ns on `clock`;
// kNoDeadline: none): 0, or -1 with errno (ETIMEDOUT, EINVAL, a signal's
// EINTR); errno is the caller's on success. Slices while others share the
// worker; else waits of kLoneSliceNs, which the monitor's signal may end
// early (then it looks again), and for an untimed wait 1: the caller makes
// the C library's call, which the monitor preempts where the kernel
// restarts it.
int fiber_sem_wait(sem_t* s, clockid_t clock, uint64_t deadline) {
  int saved = errno;
  for (;;) {
    if (sem_trywait(s) == 0) {
      errno = saved;
      return 0;
    }
    if (errno != EAGAIN) return -1;  // EINVAL, EINTR: as sem_wait
    // Before any yield: with fibers always runnable here (others in this
    // same loop), the deadline would never be looked at.
    if (deadline != kNoDeadline && now_on(clock) >= deadline) {
      errno = ETIMEDOUT;
      return -1;
    }
    if (Worker::yield_to_queued()) continue;
    bool shared = Worker::others_share_worker();
    if (!shared && deadline == kNoDeadline) {
      errno = saved;
      return 1;
    }
    bool last = false;
    timespec until = slice_end(clock, deadline, &last, shared ? kSliceNs : kLoneSliceNs);
    unsigned signals = bobbin::ult::preemption_signals_taken();
    {
      SignalSafeWait safe;
      if (g_sem_clockwait(s, clock, &until) == 0) {
        errno = saved;
        return 0;
      }
    }
    // The preemption signal ends the timed wait with EINTR: not the
    // program's, look again (as sleep_until).
    if (errno == EINTR && bobbin::ult::preemption_signals_taken() != signals) continue;
    if (errno != ETIMEDOUT || last) return -1;
  }
}

// ---- mutexes and condition variables ----

// Recursive and error-checking mutexes. The C library names their owner by
// kernel thread, which the fibers of one worker share: a fiber's lock of a
// recursive mutex that another fiber of its worker held (preempted, or
// switched away at a yield, a sleep or a scheduling point inside its
// critical section) succeeded as that holder's recursion, and both were
// inside at once; an error-checking one answered EDEADLK (a nested team of
// 4 under an outer one of 2 on 2 cores, a yield and a sleep inside each
// section: 398 overlaps and 274 errors in 800 sections). So each worker's
// thread keeps a registry of the fibers that hold such mutexes it locked
// (t_held: mutex, fiber, depth), and a fiber's lock of one that another
// fiber of the thread holds waits as for a holder elsewhere. A mutex the
// registry does not know (locked before the thread ran fibers, or past its
// kHeld entries) keeps the C library's rule. Not covered: a condition wait
// on such a mutex, whose relock is the C library's own.
struct Held {
  const void* lock;  // a pthread_mutex_t or a pthread_rwlock_t
  const void* fiber;
  uint32_t depth;
};
constexpr int kHeld = 16;
thread_local Held t_held[kHeld] __attribute__((tls_model("initial-exec")));
thread_local int t_held_count __attribute__((tls_model("initial-exec")));

// Kinds whose owner is a kernel thread and whose relock by it the C library
// answers itself (not robust, priority-inheriting or -protecting ones:
// 16, 32, 64 in __kind).
bool thread_owned_kind(const pthread_mutex_t* m) {
  int kind = __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED);
  int type = kind & 3;
  return (type == PTHREAD_MUTEX_RECURSIVE_NP || type == PTHREAD_MUTEX_ERRORCHECK_NP) && (kind & (16 | 32 | 64)) == 0;
}

Held* held_entry(const void* m) {
  for (int i = 0; i < t_held_count; ++i)
    if (t_held[i].lock == m) return &t_held[i];
  return nullptr;
}

// Whether another fiber of this kernel thread holds m (the registry's
// answer, checked against the C library's owner).
bool held_by_sibling(const pthread_mutex_t* m, const void* me) {
  Held* h = held_entry(m);
  return h && h->fiber != me &&
         __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) == bobbin::ult::native_thread_id();
}

void note_locked(const void* m, const void* me) {
  if (Held* h = held_entry(m)) {
    if (h->fiber == me) {
      ++h->depth;
      return;
    }
    *h = Held{m, me, 1};  // a stale entry: its fiber let go through a path not seen here
    return;
  }
  if (t_held_count < kHeld) t_held[t_held_count++] = Held{m, me, 1};
}

void note_unlocked(const void* m, const void* me) {
  Held* h = held_entry(m);
  if (!h || h->fiber != me) return;
  if (--h->depth == 0) *h = t_held[--t_held_count];
}

// The wait of a lock on a fiber (a mutex or a read-write lock) once a first
// try found it taken: queued fibers first, then slices while others share
// the worker, then the C library's lock; ETIMEDOUT once `deadline` (ns on
// `clock`; kNoDeadline: none) passed. try_lock() tries (EBUSY: taken);
// sibling() says whether another fiber of this thread holds it, which only
// this thread can run once it is made ready, so it is waited for without
// the lock; lock() blocks without a deadline, clocklock(until) up to one.
template <class Try, class Sibling, class Lock, class ClockLock>
int lock_wait(clockid_t clock, uint64_t deadline, Try try_lock, Sibling sibling, Lock lock, ClockLock clocklock) {
  for (;;) {
    // Before any yield, as in fiber_sem_wait.
    if (deadline != kNoDeadline && now_on(clock) >= deadline) return ETIMEDOUT;
    if (Worker::yield_to_queued()) {
      if (sibling()) continue;
      if (int rc = try_lock(); rc != EBUSY) return rc;
      continue;
    }
    bool shared = Worker::others_share_worker();
    bool last = false;
    timespec until = slice_end(clock, deadline, &last, shared ? kSliceNs : kLoneSliceNs);
    if (sibling()) {
      g_clock_nanosleep(clock, TIMER_ABSTIME, &until, nullptr);
      if (last) return ETIMEDOUT;
      continue;
    }
    if (!shared && deadline == kNoDeadline) return lock();  // the monitor preempts it where the kernel restarts it
    if (int rc = clocklock(until); rc != ETIMEDOUT || last) return rc;
  }
}

// A lock of m on a fiber: at once if it is free, else lock_wait.
int lock_waiting(pthread_mutex_t* m, const void* me, bool tracked, clockid_t clock, uint64_t deadline) {
  if (!tracked || !held_by_sibling(m, me)) {
    if (int rc = g_mutex_trylock(m); rc != EBUSY) return rc;
    // The C library's answer to relocking an error-checking mutex this
    // kernel thread holds for this fiber (as it would be without fibers).
    if ((m->__data.__kind & 3) == PTHREAD_MUTEX_ERRORCHECK_NP && m->__data.__owner == bobbin::ult::native_thread_id())
      return g_mutex_lock(m);
  }
  return lock_wait(
      clock, deadline, [&] { return g_mutex_trylock(m); }, [&] { return tracked && held_by_sibling(m, me); },
      [&] { return g_mutex_lock(m); }, [&](const timespec& until) { return g_mutex_clocklock(m, clock, &until); });
}

int fiber_lock(pthread_mutex_t* m, clockid_t clock = CLOCK_MONOTONIC, uint64_t deadline = kNoDeadline) {
  bool tracked = thread_owned_kind(m);
  const void* me = tracked ? Worker::current_fiber() : nullptr;
  int rc = lock_waiting(m, me, tracked, clock, deadline);
  if (rc == 0 && tracked) note_locked(m, me);
  return rc;
}

// Read-write locks (the C library's, std::shared_mutex). As a mutex: a
// member that blocks on a lock a fiber preempted on its own worker holds
// would wait for the monitor to free that worker one waiter at a time (16
// members over 2 workers, a few milliseconds under the lock: past 30 s
// for 480 sections, libomp 0.2 s). And the C library names a write lock's
// holder by kernel thread: a fiber's rdlock or wrlock of a lock that
// another fiber of its worker holds for writing answered EDEADLK (600 of
// 800 write sections of a nested team of 4 under an outer one of 2, a
// yield inside each), and a program that does not look at the answer goes
// on without the lock. So the write holder is kept in t_held as for the
// recursive mutexes, and a lock held for writing by another fiber of this
// thread waits for it; the C library's EDEADLK stays for a fiber's relock
// of its own write lock (or one the registry does not know).
int rwlock_waiting(pthread_rwlock_t* l, bool write, clockid_t clock, uint64_t deadline) {
  const void* me = Worker::current_fiber();
  auto noted = [&](int rc) {
    if (rc == 0 && write) note_locked(l, me);
    return rc;
  };
  auto try_lock = [&] { return noted(write ? g_rwlock_trywrlock(l) : g_rwlock_tryrdlock(l)); };
  if (int rc = try_lock(); rc != EBUSY) return rc;
  // Held for writing by this kernel thread: by another fiber of it (the
  // registry's holder), or by this fiber, which the C library answers.
  long tid = bobbin::ult::native_thread_id();
  auto writer_here = [&] { return __atomic_load_n(&l->__data.__cur_writer, __ATOMIC_RELAXED) == tid; };
  if (writer_here()) {
    Held* h = held_entry(l);
    if (!h || h->fiber == me) return write ? g_rwlock_wrlock(l) : g_rwlock_rdlock(l);  // EDEADLK
  }
  auto sibling = [&] {
    Held* h = writer_here() ? held_entry(l) : nullptr;
    return h && h->fiber != me;
  };
  return lock_wait(
      clock, deadline, try_lock, sibling, [&] { return noted(write ? g_rwlock_wrlock(l) : g_rwlock_rdlock(l)); },
      [&](const timespec& until) {
        return noted(write ? g_rwlock_clockwrlock(l, clock, &until) : g_rwlock_clockrdlock(l, clock, &until));
      });
}

// A condition wait on a fiber until `deadline` on `clock` (nullptr: none):
// see the comment at the top. Each return but the deadline's is a wake-up
// the caller checks its predicate after, also the end of a slice: waiting
// again here would miss a broadcast sent while the slice ran out (16
// members of a condition-variable barrier all waited for good, 2 runs in
// 60 of the progress matrix).
int fiber_cond_wait(pthread_cond_t* c, pthread_mutex_t* m, clockid_t clock, const timespec* deadline) {
  if (Worker::runnable_queued()) {
    int saved = errno;
    if (t_held_count != 0) note_unlocked(m, Worker::current_fiber());  // fiber_lock notes it again
    g_mutex_unlock(m);
    Worker::yield_to_queued();
    int rc = fiber_lock(m);
    errno = saved;
    // Past the deadline, the timeout: with fibers always runnable here, a
    // caller's loop of timed waits would otherwise never see it.
    if (rc == 0 && deadline) {
      timespec now;
      clock_gettime(clock, &now);
      if (to_ns(now) >= to_ns(*deadline)) return ETIMEDOUT;
    }
    return rc;
  }
  bool shared = Worker::others_share_worker();
  if (!shared && !deadline) return g_cond_wait(c, m);  // the monitor preempts it where the kernel restarts it
  // Alone on the worker with a deadline: a timed wait is not restarted
  // after the monitor's signal, so it waits kLoneSliceNs at a time.
  bool last = false;
  timespec until = slice_end(clock, deadline ? to_ns(*deadline) : kNoDeadline, &last, shared ? kSliceNs : kLoneSliceNs);
  int rc = g_cond_clockwait(c, m, clock, &until);
  return rc == ETIMEDOUT && !last ? 0 : rc;
}

// The clock of a condition variable's deadlines (pthread_condattr_setclock
// at its init): the C library keeps it in bit 1 of __wrefs (set means
// CLOCK_MONOTONIC), written only by pthread_cond_init.
constexpr unsigned kCondMonotonicBit = 2;
clockid_t cond_clock(pthread_cond_t* c) {
  return (__atomic_load_n(&c->__data.__wrefs, __ATOMIC_RELAXED) & kCondMonotonicBit) ? CLOCK_MONOTONIC
                                                                                       : CLOCK_REALTIME;
}

// ---- the barrier ----
// A process-private barrier initialised here keeps this layout inside the
// pthread_barrier_t; a process-shared one is the C library's, marked by a
// zero tag in bytes the C library's layout does not use.
//
// Protocol. `state` packs the round (high half) and the arrivals in it
// (low half), so an arrival learns its round from the same atomic step
// that counts it; `round` is that round again, alone, for the futex.
//   1. A thread arrives: fetch_add(1) on state (acq_rel: it releases the
//      thread's writes before the barrier and, for the last, acquires all
//      others').
//   2. The last arrival of round g stores state = (g+1, 0) — no arrival can
//      race with it, since every thread of the round has arrived and none is
//      released yet — then round = g+1 (release: pairs with the waiters'
//      acquire) and wakes the futex waiters.
//   3. Every other thread waits until round != g; it cannot miss the change,
//      since futex_wait compares round with g in the kernel.
//   4. `inside` counts the threads between their arrival and their last
//      access to the barrier: a thread may destroy (and free) the barrier as
//      soon as its own wait returned, and destroy waits for the others to
//      be out, as the C library's does.
struct FiberBarrier {
  Atomic<uint64_t> state;   // round << 32 | arrivals; every arriving thread writes
  Atomic<uint32_t> round;   // the round, for the futex; the last arrival writes
  uint32_t count;           // written by init only
  Atomic<uint32_t> inside;  // threads in barrier_wait; each one writes
  uint32_t unused;
  uint64_t tag;             // kTag: this layout; 0: the C library's barrier
};
static_assert(sizeof(FiberBarrier) <= sizeof(pthread_barrier_t), "the barrier must fit in pthread_barrier_t");
static_assert(alignof(pthread_barrier_t) >= alignof(uint64_t), "pthread_barrier_t is 8-byte aligned");
static_assert(offsetof(FiberBarrier, tag) >= 20, "the tag must lie past the C library's fields (20 bytes)");
constexpr uint64_t kTag = 0x424f4242494e4252;  // "BOBBINBR"

FiberBarrier* ours(pthread_barrier_t* b) {
  auto* fb = reinterpret_cast<FiberBarrier*>(b);
  return fb->tag == kTag ? fb : nullptr;
}

int barrier_wait(FiberBarrier* b) {
  b->inside.fetch_add(1, memory_order_relaxed);                // step 4
  uint64_t old = b->state.fetch_add(1, memory_order_acq_rel);  // step 1
  auto g = uint32_t(old >> 32);
  if (uint32_t(old) + 1 == b->count) {
    b->state.store(uint64_t(g + 1) << 32, memory_order_relaxed);  // step 2
    b->round.store(g + 1, memory_order_release);
    bobbin::futex_wake(&b->round, INT_MAX);
    b->inside.fetch_sub(1, memory_order_release);  // pairs with destroy's acquire
    return PTHREAD_BARRIER_SERIAL_THREAD;
  }
  // step 3. acquire: pairs with the last arrival's release.
  while (b->round.load(memory_order_acquire) == g) {
    if (on_shared_worker()) {
      if (Worker::yield_to_queued()) continue;
      SignalSafeWait safe;  // the loop looks again after any wake-up
      bobbin::futex_wait_for(&b->round, g, kSliceNs);
    } else {
      bobbin::futex_wait(&b->round, g);
    }
  }
  b->inside.fetch_sub(1, memory_order_release);  // pairs with destroy's acquire
  return 0;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int bobbin_sem_wait(sem_t* s) __asm__("sem_wait");
int bobbin_sem_wait(sem_t* s) {
  if (!g_sem_wait) resolve_next();
  if (on_shared_worker()) {
    int rc = fiber_sem_wait(s, CLOCK_MONOTONIC, kNoDeadline);
    if (rc <= 0) return rc;
  }
  return g_sem_wait(s);
}

__attribute__((visibility("default"))) int bobbin_sem_timedwait(sem_t* s, const timespec* t) __asm__("sem_timedwait");
int bobbin_sem_timedwait(sem_t* s, const timespec* t) {
  if (!g_sem_timedwait) resolve_next();
  if (!valid(t) || !on_worker()) return g_sem_timedwait(s, t);
  return fiber_sem_wait(s, CLOCK_REALTIME, to_ns(*t));
}

__attribute__((visibility("default"))) int bobbin_sem_clockwait(sem_t* s, clockid_t clock, const timespec* t) __asm__(
    "sem_clockwait");
int bobbin_sem_clockwait(sem_t* s, clockid_t clock, const timespec* t) {
  if (!g_sem_clockwait) resolve_next();
  bool ours = (clock == CLOCK_MONOTONIC || clock == CLOCK_REALTIME) && valid(t);
  if (!ours || !on_worker()) return g_sem_clockwait(s, clock, t);
  return fiber_sem_wait(s, clock, to_ns(*t));
}

__attribute__((visibility("default"))) int bobbin_barrier_init(pthread_barrier_t* b, const pthread_barrierattr_t* a,
                                                               unsigned count) __asm__("pthread_barrier_init");
int bobbin_barrier_init(pthread_barrier_t* b, const pthread_barrierattr_t* a, unsigned count) {
  if (!g_barrier_init) resolve_next();
  int shared = PTHREAD_PROCESS_PRIVATE;
  if (a && pthread_barrierattr_getpshared(a, &shared) != 0) return EINVAL;
  if (count == 0 || count > INT_MAX) return EINVAL;
  auto* fb = reinterpret_cast<FiberBarrier*>(b);
  if (shared != PTHREAD_PROCESS_PRIVATE) {
    int rc = g_barrier_init(b, a, count);
    if (rc == 0) fb->tag = 0;
    return rc;
  }
  fb->state.store(0, memory_order_relaxed);
  fb->round.store(0, memory_order_relaxed);
  fb->count = count;
  fb->inside.store(0, memory_order_relaxed);
  fb->unused = 0;
  fb->tag = kTag;
  return 0;
}

__attribute__((visibility("default"))) int bobbin_barrier_wait(pthread_barrier_t* b) __asm__("pthread_barrier_wait");
int bobbin_barrier_wait(pthread_barrier_t* b) {
  if (FiberBarrier* fb = ours(b)) return barrier_wait(fb);
  if (!g_barrier_wait) resolve_next();
  return g_barrier_wait(b);
}

__attribute__((visibility("default"))) int bobbin_barrier_destroy(pthread_barrier_t* b) __asm__("pthread_barrier_destroy");
int bobbin_barrier_destroy(pthread_barrier_t* b) {
  if (FiberBarrier* fb = ours(b)) {
    // relaxed: a destroy racing with waits is undefined; this only catches
    // threads still counted in the current round, as the C library's does.
    if (uint32_t(fb->state.load(memory_order_relaxed)) != 0) return EBUSY;
    // acquire: pairs with each leaving thread's release (step 4).
    while (fb->inside.load(memory_order_acquire) != 0) bobbin::os_yield();
    fb->tag = 0;
    return 0;
  }
  if (!g_barrier_destroy) resolve_next();
  return g_barrier_destroy(b);
}

__attribute__((visibility("default"))) int bobbin_clock_nanosleep(clockid_t clock, int flags, const timespec* t,
                                                                   timespec* rem) __asm__("clock_nanosleep");
int bobbin_clock_nanosleep(clockid_t clock, int flags, const timespec* t, timespec* rem) {
  if (!g_clock_nanosleep) resolve_next();
  // Only the clocks a deadline can be read from here; a processor-time
  // clock (or a bad argument) is the C library's to answer.
  bool wall = clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC || clock == CLOCK_BOOTTIME || clock == CLOCK_TAI;
  if (!wall || !valid(t) || !on_worker()) return g_clock_nanosleep(clock, flags, t, rem);
  int saved = errno;
  uint64_t deadline = to_ns(*t), left = 0;
  if (!(flags & TIMER_ABSTIME)) {
    timespec now;
    clock_gettime(clock, &now);
    deadline += to_ns(now);
  }
  int rc = sleep_until(clock, deadline, &left);
  if (rc == EINTR && rem && !(flags & TIMER_ABSTIME)) *rem = from_ns(left);
  errno = saved;
  return rc;
}

__attribute__((visibility("default"))) int bobbin_nanosleep(const timespec* t, timespec* rem) __asm__("nanosleep");
int bobbin_nanosleep(const timespec* t, timespec* rem) {
  if (!g_nanosleep) resolve_next();
  if (!valid(t) || !on_worker()) return g_nanosleep(t, rem);
  return posix_sleep(to_ns(*t), rem);
}

__attribute__((visibility("default"))) int bobbin_usleep(useconds_t us) __asm__("usleep");
int bobbin_usleep(useconds_t us) {
  if (!g_usleep) resolve_next();
  if (!on_worker()) return g_usleep(us);
  return posix_sleep(uint64_t(us) * 1000u, nullptr);
}

__attribute__((visibility("default"))) unsigned bobbin_sleep(unsigned s) __asm__("sleep");
unsigned bobbin_sleep(unsigned s) {
  if (!g_sleep) resolve_next();
  if (!on_worker()) return g_sleep(s);
  int saved = errno;
  uint64_t left = 0;
  int rc = sleep_for(uint64_t(s) * 1'000'000'000u, &left);
  errno = saved;
  // The seconds left, rounded up as the C library's (0 when it slept them all).
  return rc == 0 ? 0 : unsigned((left + 999'999'999u) / 1'000'000'000u);
}

__attribute__((visibility("default"))) int bobbin_mutex_lock(pthread_mutex_t* m) __asm__("pthread_mutex_lock");
int bobbin_mutex_lock(pthread_mutex_t* m) {
  if (!g_mutex_lock) resolve_next();
  if (!on_worker() || from_runtime(__builtin_return_address(0))) return g_mutex_lock(m);
  return fiber_lock(m);
}

__attribute__((visibility("default"))) int bobbin_mutex_trylock(pthread_mutex_t* m) __asm__("pthread_mutex_trylock");
int bobbin_mutex_trylock(pthread_mutex_t* m) {
  if (!g_mutex_trylock) resolve_next();
  if (!on_worker() || from_runtime(__builtin_return_address(0)) || !thread_owned_kind(m)) return g_mutex_trylock(m);
  const void* me = Worker::current_fiber();
  if (held_by_sibling(m, me)) return EBUSY;
  int rc = g_mutex_trylock(m);
  if (rc == 0) note_locked(m, me);
  return rc;
}

__attribute__((visibility("default"))) int bobbin_mutex_unlock(pthread_mutex_t* m) __asm__("pthread_mutex_unlock");
int bobbin_mutex_unlock(pthread_mutex_t* m) {
  if (!g_mutex_unlock) resolve_next();
  if (t_held_count != 0 && on_worker() && !from_runtime(__builtin_return_address(0)))
    note_unlocked(m, Worker::current_fiber());
  return g_mutex_unlock(m);
}

__attribute__((visibility("default"))) int bobbin_mutex_timedlock(pthread_mutex_t* m, const timespec* t) __asm__(
    "pthread_mutex_timedlock");
int bobbin_mutex_timedlock(pthread_mutex_t* m, const timespec* t) {
  if (!g_mutex_timedlock) resolve_next();
  if (!valid(t) || !on_worker() || from_runtime(__builtin_return_address(0))) return g_mutex_timedlock(m, t);
  return fiber_lock(m, CLOCK_REALTIME, to_ns(*t));
}

__attribute__((visibility("default"))) int bobbin_mutex_clocklock(pthread_mutex_t* m, clockid_t clock,
                                                                   const timespec* t) __asm__("pthread_mutex_clocklock");
int bobbin_mutex_clocklock(pthread_mutex_t* m, clockid_t clock, const timespec* t) {
  if (!g_mutex_clocklock) resolve_next();
  bool ours = (clock == CLOCK_MONOTONIC || clock == CLOCK_REALTIME) && valid(t);
  if (!ours || !on_worker() || from_runtime(__builtin_return_address(0))) return g_mutex_clocklock(m, clock, t);
  return fiber_lock(m, clock, to_ns(*t));
}

__attribute__((visibility("default"))) int bobbin_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) __asm__(
    "pthread_cond_wait");
int bobbin_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  if (!g_cond_wait) resolve_next();
  if (!on_worker() || from_runtime(__builtin_return_address(0))) return g_cond_wait(c, m);
  return fiber_cond_wait(c, m, CLOCK_MONOTONIC, nullptr);
}

__attribute__((visibility("default"))) int bobbin_cond_clockwait(pthread_cond_t* c, pthread_mutex_t* m,
                                                                  clockid_t clock, const timespec* t) __asm__(
    "pthread_cond_clockwait");
int bobbin_cond_clockwait(pthread_cond_t* c, pthread_mutex_t* m, clockid_t clock, const timespec* t) {
  if (!g_cond_clockwait) resolve_next();
  bool ours = (clock == CLOCK_MONOTONIC || clock == CLOCK_REALTIME) && valid(t);
  if (!ours || !on_worker() || from_runtime(__builtin_return_address(0))) return g_cond_clockwait(c, m, clock, t);
  return fiber_cond_wait(c, m, clock, t);
}

__attribute__((visibility("default"))) int bobbin_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m,
                                                                  const timespec* t) __asm__("pthread_cond_timedwait");
int bobbin_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m, const timespec* t) {
  if (!g_cond_timedwait) resolve_next();
  if (!valid(t) || !on_worker() || from_runtime(__builtin_return_address(0))) return g_cond_timedwait(c, m, t);
  return fiber_cond_wait(c, m, cond_clock(c), t);
}

__attribute__((visibility("default"))) int bobbin_rwlock_rdlock(pthread_rwlock_t* l) __asm__("pthread_rwlock_rdlock");
int bobbin_rwlock_rdlock(pthread_rwlock_t* l) {
  if (!g_rwlock_rdlock) resolve_next();
  if (!on_worker() || from_runtime(__builtin_return_address(0))) return g_rwlock_rdlock(l);
  return rwlock_waiting(l, false, CLOCK_MONOTONIC, kNoDeadline);
}

__attribute__((visibility("default"))) int bobbin_rwlock_wrlock(pthread_rwlock_t* l) __asm__("pthread_rwlock_wrlock");
int bobbin_rwlock_wrlock(pthread_rwlock_t* l) {
  if (!g_rwlock_wrlock) resolve_next();
  if (!on_worker() || from_runtime(__builtin_return_address(0))) return g_rwlock_wrlock(l);
  return rwlock_waiting(l, true, CLOCK_MONOTONIC, kNoDeadline);
}

__attribute__((visibility("default"))) int bobbin_rwlock_timedrdlock(pthread_rwlock_t* l, const timespec* t) __asm__(
    "pthread_rwlock_timedrdlock");
int bobbin_rwlock_timedrdlock(pthread_rwlock_t* l, const timespec* t) {
  if (!g_rwlock_timedrdlock) resolve_next();
  if (!valid(t) || !on_worker() || from_runtime(__builtin_return_address(0))) return g_rwlock_timedrdlock(l, t);
  return rwlock_waiting(l, false, CLOCK_REALTIME, to_ns(*t));
}

__attribute__((visibility("default"))) int bobbin_rwlock_timedwrlock(pthread_rwlock_t* l, const timespec* t) __asm__(
    "pthread_rwlock_timedwrlock");
int bobbin_rwlock_timedwrlock(pthread_rwlock_t* l, const timespec* t) {
  if (!g_rwlock_timedwrlock) resolve_next();
  if (!valid(t) || !on_worker() || from_runtime(__builtin_return_address(0))) return g_rwlock_timedwrlock(l, t);
  return rwlock_waiting(l, true, CLOCK_REALTIME, to_ns(*t));
}

__attribute__((visibility("default"))) int bobbin_rwlock_clockrdlock(pthread_rwlock_t* l, clockid_t clock,
                                                                      const timespec* t) __asm__(
    "pthread_rwlock_clockrdlock");
int bobbin_rwlock_clockrdlock(pthread_rwlock_t* l, clockid_t clock, const timespec* t) {
  if (!g_rwlock_clockrdlock) resolve_next();
  bool ours = (clock == CLOCK_MONOTONIC || clock == CLOCK_REALTIME) && valid(t);
  if (!ours || !on_worker() || from_runtime(__builtin_return_address(0))) return g_rwlock_clockrdlock(l, clock, t);
  return rwlock_waiting(l, false, clock, to_ns(*t));
}

__attribute__((visibility("default"))) int bobbin_rwlock_clockwrlock(pthread_rwlock_t* l, clockid_t clock,
                                                                      const timespec* t) __asm__(
    "pthread_rwlock_clockwrlock");
int bobbin_rwlock_clockwrlock(pthread_rwlock_t* l, clockid_t clock, const timespec* t) {
  if (!g_rwlock_clockwrlock) resolve_next();
  bool ours = (clock == CLOCK_MONOTONIC || clock == CLOCK_REALTIME) && valid(t);
  if (!ours || !on_worker() || from_runtime(__builtin_return_address(0))) return g_rwlock_clockwrlock(l, clock, t);
  return rwlock_waiting(l, true, clock, to_ns(*t));
}

// The C library's tries answer EBUSY for a lock held for writing, by this
// thread or another; a write lock taken here is noted as its holder's.
__attribute__((visibility("default"))) int bobbin_rwlock_trywrlock(pthread_rwlock_t* l) __asm__(
    "pthread_rwlock_trywrlock");
int bobbin_rwlock_trywrlock(pthread_rwlock_t* l) {
  if (!g_rwlock_trywrlock) resolve_next();
  int rc = g_rwlock_trywrlock(l);
  if (rc == 0 && on_worker() && !from_runtime(__builtin_return_address(0))) note_locked(l, Worker::current_fiber());
  return rc;
}

__attribute__((visibility("default"))) int bobbin_rwlock_unlock(pthread_rwlock_t* l) __asm__("pthread_rwlock_unlock");
int bobbin_rwlock_unlock(pthread_rwlock_t* l) {
  if (!g_rwlock_unlock) resolve_next();
  if (t_held_count != 0 && on_worker() && !from_runtime(__builtin_return_address(0)))
    note_unlocked(l, Worker::current_fiber());
  return g_rwlock_unlock(l);
}

// pthread_spin_lock spins inside the C library, where the monitor never
// preempts (not a safe point): a member spinning for a lock that a fiber
// preempted on its own worker holds spun for good (16 members over 2
// workers, a few milliseconds under the lock). On a fiber it tries, lets
// the worker's runnable fibers run, and spins a little between tries.
__attribute__((visibility("default"))) int bobbin_spin_lock(pthread_spinlock_t* l) __asm__("pthread_spin_lock");
int bobbin_spin_lock(pthread_spinlock_t* l) {
  if (!g_spin_lock) resolve_next();
  if (!on_worker() || from_runtime(__builtin_return_address(0))) return g_spin_lock(l);
  for (;;) {
    if (g_spin_trylock(l) == 0) return 0;
    if (Worker::yield_to_queued()) continue;
    for (int i = 0; i < 64 && __atomic_load_n(l, __ATOMIC_RELAXED) != 0; ++i) bobbin::cpu_relax();
  }
}

}  // extern "C"
