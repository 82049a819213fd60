// What the interposed blocking calls share (block_linux.cpp: semaphores,
// sleeps, mutexes, condition variables, barriers; ready_linux.cpp: poll,
// ppoll, select, pselect, epoll; futex_linux.cpp: futex waits through
// syscall; transfer_linux.cpp: read and write). block_linux.cpp's opening
// comment says why a blocking call on a fiber waits in slices and what it
// must return.
#pragma once

#include <dlfcn.h>
#include <time.h>

#include <cstdint>

#include "ult/preempt.hpp"
#include "ult/spinlock.hpp"
#include "ult/worker.hpp"

// This library's code, from its ELF header to the end of its text (the
// linker's symbols for this object, not the program's).
extern "C" const char __ehdr_start[] __attribute__((visibility("hidden")));
extern "C" const char __etext[] __attribute__((visibility("hidden")));

namespace bobbin::ult::block {

// A guess, not measured as optimal: well under the monitor's stuck
// threshold (2 ms), so a fiber made ready behind a blocked call is not
// mistaken for a stuck worker's, and long enough that the slices cost a few
// microseconds of system time per millisecond of waiting.
inline constexpr uint64_t kSliceNs = 100'000;

// How long a wait with no other fiber on the worker blocks at most before it
// looks again. The monitor's signal ends it early when a fiber is queued
// there meanwhile, but a signal taken just before the thread blocks would
// leave a wait without a deadline blocked for good (a poll ring of 8
// without timeouts hung now and then on a loaded machine); a guess, long
// enough to cost nothing.
inline constexpr uint64_t kLoneSliceNs = 10'000'000;

inline constexpr uint64_t kNoDeadline = UINT64_MAX;

// The C library's `name` at `version` (or its default version).
inline void* next_symbol(const char* name, const char* version) {
  void* f = dlvsym(RTLD_NEXT, name, version);
  return f ? f : dlsym(RTLD_NEXT, name);
}

// Whether this call should look before it blocks: no runtime spin lock
// held (a switch then is safe) and another fiber on the worker.
inline bool on_shared_worker() { return bobbin::t_spinlocks_held == 0 && Worker::others_share_worker(); }

// Whether a wait should go through the fiber loops: on a worker's thread
// even when no other fiber shares it now, since one may be queued during
// the wait, and a wait the kernel does not restart must not keep it out.
inline bool on_worker() { return bobbin::t_spinlocks_held == 0 && Worker::current() != nullptr; }

// Whether the caller (a return address) is this library: the runtime's own
// calls stay the C library's.
inline bool from_runtime(const void* ret) { return ret >= __ehdr_start && ret < __etext; }

inline uint64_t to_ns(const timespec& t) { return uint64_t(t.tv_sec) * 1'000'000'000u + uint64_t(t.tv_nsec); }
inline timespec from_ns(uint64_t ns) { return timespec{time_t(ns / 1'000'000'000u), long(ns % 1'000'000'000u)}; }

inline bool valid(const timespec* t) {
  return t && t->tv_sec >= 0 && t->tv_nsec >= 0 && t->tv_nsec < 1'000'000'000;
}

inline uint64_t now_on(clockid_t clock) {
  timespec t;
  clock_gettime(clock, &t);
  return to_ns(t);
}

// A relative timeout from now on `clock`, as a deadline (saturating).
inline uint64_t deadline_after(clockid_t clock, uint64_t ns) {
  uint64_t now = now_on(clock);
  return ns >= kNoDeadline - now ? kNoDeadline - 1 : now + ns;
}

// The end of the next slice on `clock` (kSliceNs, or `ns`), no later than
// `deadline` (*last: it is the deadline).
inline timespec slice_end(clockid_t clock, uint64_t deadline, bool* last, uint64_t ns = kSliceNs) {
  uint64_t end = now_on(clock) + ns;
  *last = deadline <= end;
  return from_ns(*last ? deadline : end);
}

// Around a wait that takes the preemption signal's EINTR as a cue to look
// again: the monitor may signal the thread there (Worker::
// in_signal_safe_wait), though the kernel does not restart the call.
struct SignalSafeWait {
  SignalSafeWait() { Worker::enter_signal_safe_wait(); }
  ~SignalSafeWait() { Worker::leave_signal_safe_wait(); }
  SignalSafeWait(const SignalSafeWait&) = delete;
  SignalSafeWait& operator=(const SignalSafeWait&) = delete;
};

}  // namespace bobbin::ult::block
