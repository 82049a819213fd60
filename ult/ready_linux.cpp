// Waits for readiness that a fiber makes: poll, ppoll, select, pselect,
// epoll_wait, epoll_pwait, epoll_pwait2 (and the fortified __poll_chk and
// __ppoll_chk, which a program built with _FORTIFY_SOURCE calls instead).
//
// The problem. The kernel never restarts these calls after a signal
// handler, with or without a timeout (signal(7)), so the monitor cannot
// preempt a fiber blocked in one (the program would see EINTR;
// preempt_linux.cpp). A member that waits in one for a team-mate queued on
// its own worker keeps that worker until its timeout runs out, for good
// without one: a ring of 8 members passing a token through pipes, each
// waiting in epoll_wait, ppoll or pselect, under an outer team of 2 on 2
// cores, hung (20 rounds past 60 s) where libomp takes 4 ms.
//
// What a wait does on a worker's thread (ready_wait): it looks without
// waiting; past its deadline it returns the look's answer; a runnable fiber
// queued on the worker runs first; while other fibers are parked there it
// blocks kSliceNs at a time, alone on the worker kLoneSliceNs at a time
// (block_wait.hpp), and the deadline is looked at before every yield (a
// loop of timed waits among fibers that are always runnable would never
// see it otherwise). epoll is waited for through ppoll on the epoll
// descriptor, which is readable when events are ready, for a timeout in
// nanoseconds that epoll_wait's milliseconds cannot give; each wake-up then
// looks with epoll_pwait (another thread may have taken the events: the
// wait goes on). A signal mask (ppoll, pselect, epoll_pwait) is the
// caller's in every look and every slice, so a signal it unblocks is taken
// inside the call, which returns EINTR, as the C library's would; between
// slices the thread's own mask is in force, as before the call.
//
// Invariants: (R1) each returns what the C library's would: the ready
// count and the sets or events of the last look, 0 at the deadline (never
// earlier: the deadline is on CLOCK_MONOTONIC, as the kernel's relative
// timeouts), -1 with errno on an error or a signal of the program's;
// select also writes the time left into its timeval, as Linux does; errno
// is the caller's on success. (R2) The preemption signal's EINTR is never
// the program's: the wait looks again. (R3) Off a worker, from the runtime
// itself, or with a zero timeout, the call is the C library's, unchanged.
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>

#include <algorithm>
#include <cstdint>

#include "ult/block_wait.hpp"
#include "ult/preempt.hpp"
#include "ult/worker.hpp"

namespace {

using bobbin::ult::Worker;
using namespace bobbin::ult::block;  // NOLINT: the shared helpers of the interposed waits

using PollFn = int (*)(pollfd*, nfds_t, int);
using PpollFn = int (*)(pollfd*, nfds_t, const timespec*, const sigset_t*);
using SelectFn = int (*)(int, fd_set*, fd_set*, fd_set*, timeval*);
using PselectFn = int (*)(int, fd_set*, fd_set*, fd_set*, const timespec*, const sigset_t*);
using EpollPwaitFn = int (*)(int, epoll_event*, int, int, const sigset_t*);
using EpollPwait2Fn = int (*)(int, epoll_event*, int, const timespec*, const sigset_t*);
using PollChkFn = int (*)(pollfd*, nfds_t, int, size_t);
using PpollChkFn = int (*)(pollfd*, nfds_t, const timespec*, const sigset_t*, size_t);

PollFn g_poll;
PpollFn g_ppoll;
SelectFn g_select;
PselectFn g_pselect;
EpollPwaitFn g_epoll_pwait;
EpollPwait2Fn g_epoll_pwait2;
PollChkFn g_poll_chk;
PpollChkFn g_ppoll_chk;

// Resolved at load, before the program's threads exist (as block_linux.cpp).
__attribute__((constructor)) void resolve_next() {
  g_poll = reinterpret_cast<PollFn>(next_symbol("poll", "GLIBC_2.2.5"));
  g_ppoll = reinterpret_cast<PpollFn>(next_symbol("ppoll", "GLIBC_2.4"));
  g_select = reinterpret_cast<SelectFn>(next_symbol("select", "GLIBC_2.2.5"));
  g_pselect = reinterpret_cast<PselectFn>(next_symbol("pselect", "GLIBC_2.2.5"));
  g_epoll_pwait = reinterpret_cast<EpollPwaitFn>(next_symbol("epoll_pwait", "GLIBC_2.6"));
  g_epoll_pwait2 = reinterpret_cast<EpollPwait2Fn>(next_symbol("epoll_pwait2", "GLIBC_2.35"));
  g_poll_chk = reinterpret_cast<PollChkFn>(next_symbol("__poll_chk", "GLIBC_2.16"));
  g_ppoll_chk = reinterpret_cast<PpollChkFn>(next_symbol("__ppoll_chk", "GLIBC_2.16"));
}

// The loop of every wait here, up to `deadline` (ns on CLOCK_MONOTONIC;
// kNoDeadline: none). look() asks without waiting: its answer, when not 0,
// is the call's. block(t) waits at most t: above 0 the call's answer, 0
// nothing yet, below 0 an error in errno.
template <class Look, class Block>
int ready_wait(uint64_t deadline, Look look, Block block) {
  for (;;) {
    int rc = look();
    if (rc != 0) return rc;
    uint64_t now = now_on(CLOCK_MONOTONIC);
    if (deadline != kNoDeadline && now >= deadline) return 0;  // before any yield
    if (Worker::yield_to_queued()) continue;
    uint64_t left = deadline == kNoDeadline ? kNoDeadline : deadline - now;
    uint64_t wait = std::min(left, Worker::others_share_worker() ? kSliceNs : kLoneSliceNs);
    unsigned signals = bobbin::ult::preemption_signals_taken();
    int saved = errno;
    {
      SignalSafeWait safe;
      rc = block(from_ns(wait));
    }
    if (rc > 0) return rc;
    if (rc < 0 && errno == EINTR && bobbin::ult::preemption_signals_taken() != signals) {  // R2
      errno = saved;
      continue;
    }
    if (rc < 0 || wait == left) return rc;
  }
}

int fiber_poll(pollfd* fds, nfds_t n, uint64_t deadline, const sigset_t* mask) {
  const timespec zero{0, 0};
  return ready_wait(
      deadline, [&] { return g_ppoll(fds, n, &zero, mask); },
      [&](timespec t) { return g_ppoll(fds, n, &t, mask); });
}

// select and pselect: the sets are the caller's, each look gets them
// afresh; after the deadline they are empty, as the last look left them.
int fiber_select(int nfds, fd_set* r, fd_set* w, fd_set* e, uint64_t deadline, const sigset_t* mask) {
  fd_set in[3];
  fd_set* sets[3] = {r, w, e};
  for (int i = 0; i < 3; ++i)
    if (sets[i]) in[i] = *sets[i];
  auto refill = [&] {
    for (int i = 0; i < 3; ++i)
      if (sets[i]) *sets[i] = in[i];
  };
  const timespec zero{0, 0};
  return ready_wait(
      deadline,
      [&] {
        refill();
        return g_pselect(nfds, r, w, e, &zero, mask);
      },
      [&](timespec t) {
        refill();
        return g_pselect(nfds, r, w, e, &t, mask);
      });
}

int fiber_epoll(int epfd, epoll_event* events, int max, uint64_t deadline, const sigset_t* mask) {
  auto look = [&] { return g_epoll_pwait(epfd, events, max, 0, mask); };
  return ready_wait(deadline, look, [&](timespec t) {
    pollfd p{epfd, POLLIN, 0};
    int rc = g_ppoll(&p, 1, &t, mask);
    return rc > 0 ? look() : rc;
  });
}

// Whether a call with this timeout and this caller goes through the loops
// above (R3).
bool ours(bool zero_timeout, const void* caller) { return !zero_timeout && on_worker() && !from_runtime(caller); }

uint64_t ms_deadline(int ms) { return ms < 0 ? kNoDeadline : deadline_after(CLOCK_MONOTONIC, uint64_t(ms) * 1'000'000u); }
uint64_t ts_deadline(const timespec* t) { return t ? deadline_after(CLOCK_MONOTONIC, to_ns(*t)) : kNoDeadline; }
bool zero(const timespec* t) { return t && t->tv_sec == 0 && t->tv_nsec == 0; }

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int bobbin_poll(pollfd* fds, nfds_t n, int timeout) __asm__("poll");
int bobbin_poll(pollfd* fds, nfds_t n, int timeout) {
  if (!g_poll) resolve_next();  // called from another library's constructor, before ours
  if (!ours(timeout == 0, __builtin_return_address(0))) return g_poll(fds, n, timeout);
  return fiber_poll(fds, n, ms_deadline(timeout), nullptr);
}

__attribute__((visibility("default"))) int bobbin_ppoll(pollfd* fds, nfds_t n, const timespec* t,
                                                        const sigset_t* mask) __asm__("ppoll");
int bobbin_ppoll(pollfd* fds, nfds_t n, const timespec* t, const sigset_t* mask) {
  if (!g_ppoll) resolve_next();
  if ((t && !valid(t)) || !ours(zero(t), __builtin_return_address(0))) return g_ppoll(fds, n, t, mask);
  return fiber_poll(fds, n, ts_deadline(t), mask);
}

// The fortified entries: the buffer's size checked as the C library's
// (which reports the overflow and ends the program), then the waits above.
__attribute__((visibility("default"))) int bobbin_poll_chk(pollfd* fds, nfds_t n, int timeout,
                                                           size_t fdslen) __asm__("__poll_chk");
int bobbin_poll_chk(pollfd* fds, nfds_t n, int timeout, size_t fdslen) {
  if (!g_poll_chk) resolve_next();
  if (fdslen / sizeof *fds < n || !ours(timeout == 0, __builtin_return_address(0)))
    return g_poll_chk(fds, n, timeout, fdslen);
  return fiber_poll(fds, n, ms_deadline(timeout), nullptr);
}

__attribute__((visibility("default"))) int bobbin_ppoll_chk(pollfd* fds, nfds_t n, const timespec* t,
                                                            const sigset_t* mask, size_t fdslen) __asm__("__ppoll_chk");
int bobbin_ppoll_chk(pollfd* fds, nfds_t n, const timespec* t, const sigset_t* mask, size_t fdslen) {
  if (!g_ppoll_chk) resolve_next();
  if (fdslen / sizeof *fds < n || (t && !valid(t)) || !ours(zero(t), __builtin_return_address(0)))
    return g_ppoll_chk(fds, n, t, mask, fdslen);
  return fiber_poll(fds, n, ts_deadline(t), mask);
}

__attribute__((visibility("default"))) int bobbin_select(int nfds, fd_set* r, fd_set* w, fd_set* e,
                                                         timeval* tv) __asm__("select");
int bobbin_select(int nfds, fd_set* r, fd_set* w, fd_set* e, timeval* tv) {
  if (!g_select) resolve_next();
  bool bad = tv && (tv->tv_sec < 0 || tv->tv_usec < 0 || tv->tv_usec >= 1'000'000);
  bool now = tv && tv->tv_sec == 0 && tv->tv_usec == 0;
  if (bad || nfds < 0 || nfds > FD_SETSIZE || !ours(now, __builtin_return_address(0)))
    return g_select(nfds, r, w, e, tv);
  uint64_t deadline = kNoDeadline;
  if (tv) deadline = deadline_after(CLOCK_MONOTONIC, uint64_t(tv->tv_sec) * 1'000'000'000u + uint64_t(tv->tv_usec) * 1000u);
  int rc = fiber_select(nfds, r, w, e, deadline, nullptr);
  if (tv) {  // the time left, as Linux does
    int saved = errno;
    uint64_t at = now_on(CLOCK_MONOTONIC), left = at < deadline ? deadline - at : 0;
    *tv = timeval{time_t(left / 1'000'000'000u), long(left % 1'000'000'000u / 1000u)};
    errno = saved;
  }
  return rc;
}

__attribute__((visibility("default"))) int bobbin_pselect(int nfds, fd_set* r, fd_set* w, fd_set* e, const timespec* t,
                                                          const sigset_t* mask) __asm__("pselect");
int bobbin_pselect(int nfds, fd_set* r, fd_set* w, fd_set* e, const timespec* t, const sigset_t* mask) {
  if (!g_pselect) resolve_next();
  if ((t && !valid(t)) || nfds < 0 || nfds > FD_SETSIZE || !ours(zero(t), __builtin_return_address(0)))
    return g_pselect(nfds, r, w, e, t, mask);
  return fiber_select(nfds, r, w, e, ts_deadline(t), mask);
}

__attribute__((visibility("default"))) int bobbin_epoll_wait(int epfd, epoll_event* ev, int max,
                                                             int timeout) __asm__("epoll_wait");
int bobbin_epoll_wait(int epfd, epoll_event* ev, int max, int timeout) {
  if (!g_epoll_pwait) resolve_next();
  if (max <= 0 || !ours(timeout == 0, __builtin_return_address(0))) return g_epoll_pwait(epfd, ev, max, timeout, nullptr);
  return fiber_epoll(epfd, ev, max, ms_deadline(timeout), nullptr);
}

__attribute__((visibility("default"))) int bobbin_epoll_pwait(int epfd, epoll_event* ev, int max, int timeout,
                                                              const sigset_t* mask) __asm__("epoll_pwait");
int bobbin_epoll_pwait(int epfd, epoll_event* ev, int max, int timeout, const sigset_t* mask) {
  if (!g_epoll_pwait) resolve_next();
  if (max <= 0 || !ours(timeout == 0, __builtin_return_address(0))) return g_epoll_pwait(epfd, ev, max, timeout, mask);
  return fiber_epoll(epfd, ev, max, ms_deadline(timeout), mask);
}

__attribute__((visibility("default"))) int bobbin_epoll_pwait2(int epfd, epoll_event* ev, int max, const timespec* t,
                                                               const sigset_t* mask) __asm__("epoll_pwait2");
int bobbin_epoll_pwait2(int epfd, epoll_event* ev, int max, const timespec* t, const sigset_t* mask) {
  if (!g_epoll_pwait2) resolve_next();
  if (!g_epoll_pwait2) {  // a C library older than 2.35, though the program asked for it
    errno = ENOSYS;
    return -1;
  }
  if (max <= 0 || (t && !valid(t)) || !ours(zero(t), __builtin_return_address(0)))
    return g_epoll_pwait2(epfd, ev, max, t, mask);
  return fiber_epoll(epfd, ev, max, ts_deadline(t), mask);
}

}  // extern "C"
