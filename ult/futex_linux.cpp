// Futex waits that a fiber makes through the C library's syscall(): what
// libstdc++'s std::atomic::wait, std::barrier, std::latch,
// std::counting_semaphore and std::future, and programs' own futex-based
// barriers and flags, call (FUTEX_WAIT, FUTEX_WAIT_BITSET).
//
// The problem. A futex wait without a timeout is restarted by the kernel
// after the monitor's signal, so the monitor frees a worker blocked in one,
// but only after its stuck threshold: a ring of 8 members passing a token
// through futex words under an outer team of 2 on 2 cores took 16 times
// libomp's time. A wait with a timeout is not restarted (the program would
// see EINTR), so the monitor cannot free the worker at all: the same ring
// with 10 s timeouts took 10 s a round.
//
// What a wait does on a worker's thread (futex_wait_on_fiber), as the
// waits of block_linux.cpp: a runnable fiber queued on the worker runs
// first; while other fibers are parked there it blocks kSliceNs at a time,
// alone on the worker kLoneSliceNs at a time when it has a timeout, and an
// untimed one alone is the C library's call, which the monitor preempts
// where the kernel restarts it. Its answers are the kernel's: 0 for a
// wake-up, -1 with EAGAIN (the word was not the expected value), ETIMEDOUT
// (the timeout passed: never earlier, on the clock the operation names),
// EINTR for a signal of the program's. A wait without a timeout also
// returns 0 after letting a fiber run or at the end of a slice: a futex
// wake-up may be spurious, and every caller looks at its word again, while
// waiting again would miss a wake-up sent between two slices. A wait with a
// timeout keeps waiting until its word changes or its deadline passes: its
// caller would start a relative timeout afresh after each return, and with
// fibers always runnable it would never time out.
//
// The entry point. syscall() is variadic; a call of any other number goes
// on to the C library's by a jump, so that a spin loop polling with
// syscall(SYS_getppid) is still in the C library's wrapper, called from the
// program, when the monitor's signal comes (preempt_linux.cpp's
// leaf_call_return). The runtime's own futex calls (park_linux.cpp) are the
// C library's, told by their return address.
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

#include "ult/block_wait.hpp"
#include "ult/preempt.hpp"
#include "ult/worker.hpp"

using SyscallFn = long (*)(long, ...);

// The C library's syscall(), for the entry point's jump (hidden: the
// entry point reads it from its own object).
extern "C" __attribute__((visibility("hidden"))) SyscallFn bobbin_next_syscall;
SyscallFn bobbin_next_syscall;

namespace {

using bobbin::ult::Worker;
using namespace bobbin::ult::block;  // NOLINT: the shared helpers of the interposed waits

__attribute__((constructor)) void resolve_next() {
  bobbin_next_syscall = reinterpret_cast<SyscallFn>(next_symbol("syscall", "GLIBC_2.2.5"));
}

long raw_futex(uint32_t* addr, int op, uint32_t val, const timespec* t, uint32_t* addr2, uint32_t val3) {
  return bobbin_next_syscall(long(SYS_futex), addr, op, val, t, addr2, val3);
}

uint32_t word_of(const uint32_t* addr) { return __atomic_load_n(addr, __ATOMIC_ACQUIRE); }

// A FUTEX_WAIT or FUTEX_WAIT_BITSET on a fiber; see the top of the file.
long futex_wait_on_fiber(uint32_t* addr, int op, uint32_t val, const timespec* t, uint32_t val3) {
  int cmd = op & FUTEX_CMD_MASK;
  bool absolute = cmd == FUTEX_WAIT_BITSET;
  clockid_t clock = absolute && (op & FUTEX_CLOCK_REALTIME) ? CLOCK_REALTIME : CLOCK_MONOTONIC;
  // FUTEX_WAIT's timeout is relative: as long on either clock.
  uint64_t deadline = !t ? kNoDeadline : absolute ? to_ns(*t) : deadline_after(CLOCK_MONOTONIC, to_ns(*t));
  // Each slice is an absolute wait on the operation's clock.
  int slice_op = FUTEX_WAIT_BITSET | (op & FUTEX_PRIVATE_FLAG) | (clock == CLOCK_REALTIME ? FUTEX_CLOCK_REALTIME : 0);
  uint32_t bitset = absolute ? val3 : FUTEX_BITSET_MATCH_ANY;
  int saved = errno;
  auto woken = [&] {
    errno = saved;
    return 0L;
  };
  auto fail = [](int e) {
    errno = e;
    return -1L;
  };
  if (word_of(addr) != val) return fail(EAGAIN);
  for (;;) {
    // Before any yield, as in block_linux.cpp's fiber_sem_wait.
    if (deadline != kNoDeadline && now_on(clock) >= deadline) return fail(ETIMEDOUT);
    if (Worker::yield_to_queued()) {
      if (deadline == kNoDeadline || word_of(addr) != val) return woken();
      continue;
    }
    bool shared = Worker::others_share_worker();
    if (!shared && deadline == kNoDeadline) return raw_futex(addr, op, val, nullptr, nullptr, val3);
    bool last = false;
    timespec until = slice_end(clock, deadline, &last, shared ? kSliceNs : kLoneSliceNs);
    unsigned signals = bobbin::ult::preemption_signals_taken();
    long rc;
    {
      SignalSafeWait safe;
      rc = raw_futex(addr, slice_op, val, &until, nullptr, bitset);
    }
    if (rc == 0) return woken();
    int e = errno;
    if (e == EAGAIN) return woken();  // the word changed since it was looked at: a wake-up
    bool ours = e == EINTR && bobbin::ult::preemption_signals_taken() != signals;
    if (e == ETIMEDOUT && last) return -1;
    if (e != ETIMEDOUT && !ours) return -1;  // the program's signal, EFAULT, EINVAL: the kernel's answer
    if (deadline == kNoDeadline) return woken();
    if (word_of(addr) != val) return woken();
  }
}

}  // namespace

// The entry point's slow path, with the arguments as the caller passed them
// (a seventh integer argument is read from the stack, as the C library's
// syscall() does): futex calls, and any call made before the constructor
// above ran (from another library's constructor).
extern "C" __attribute__((visibility("hidden"), used)) long bobbin_syscall_slow(long nr, long a1, long a2, long a3,
                                                                              long a4, long a5, long a6) {
  if (!bobbin_next_syscall) resolve_next();
  // The entry point jumped here: the return address is its caller's.
  const void* caller = __builtin_return_address(0);
  if (nr == SYS_futex) {
    auto* addr = reinterpret_cast<uint32_t*>(a1);
    int op = int(a2), cmd = op & FUTEX_CMD_MASK;
    auto* t = reinterpret_cast<const timespec*>(a4);
    bool wait = cmd == FUTEX_WAIT || (cmd == FUTEX_WAIT_BITSET && uint32_t(a6) != 0);
    if (wait && (!t || valid(t)) && on_worker() && !from_runtime(caller))
      return futex_wait_on_fiber(addr, op, uint32_t(a3), t, uint32_t(a6));
  }
  return bobbin_next_syscall(nr, a1, a2, a3, a4, a5, a6);
}

#define BOBBIN_STRING_OF(x) #x
#define BOBBIN_STRINGIFY(x) BOBBIN_STRING_OF(x)

#if defined(__x86_64__)
// syscall(): any number but SYS_futex jumps on to the C library's (r11 is
// free at a call; rax carries a variadic call's vector count, which the C
// library's ignores but is kept).
__asm__(
    ".text\n"
    ".globl syscall\n"
    ".type syscall, @function\n"
    "syscall:\n"
    "  cmpq $" BOBBIN_STRINGIFY(SYS_futex) ", %rdi\n"
    "  je 1f\n"
    "  movq bobbin_next_syscall(%rip), %r11\n"
    "  testq %r11, %r11\n"
    "  jz 1f\n"
    "  jmpq *%r11\n"
    "1:\n"
    "  jmp bobbin_syscall_slow\n"
    ".size syscall, .-syscall\n");
#endif
