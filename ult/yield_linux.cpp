// sched_yield for fibers, and the runtime's own kernel yield.
//
// A program that waits for another thread by spinning with sched_yield
// (a common hand-written barrier or flag wait) asks the OS to run another
// thread. On a fiber the threads it may wait for are often the other fibers
// of its own worker, which the kernel cannot run: so Bobbin's sched_yield,
// called by a fiber while runnable fibers are queued on its worker, switches
// to them first (as the kernel would switch to other runnable threads) and
// returns 0; otherwise it is the system call. Exported at the C library's
// node (abi/bobbin.map), so the program's calls come here first. It needs no
// preemption and no kernel thread per member: a yielding spin barrier of 16
// fibers on one worker passes in a few switches.
//
// The runtime's own spin loops yield with os_yield, a system call from its
// own instruction: a fiber switch inside them could come in the middle of a
// switch or a queue update, and the preemption handler (preempt_linux.cpp)
// treats the return from the program's yield — and only that one — as a
// safe point.
#include <sys/syscall.h>
#include <unistd.h>

#include "ult/spinlock.hpp"
#include "ult/worker.hpp"
#include "ult/yield.hpp"

namespace bobbin {

void os_yield() {
#if defined(__x86_64__)
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "0"(long(SYS_sched_yield)) : "rcx", "r11", "memory");
  (void)ret;
#else
  syscall(SYS_sched_yield);
#endif
}

namespace ult {

// The program's kernel yield, from an instruction of its own: its return
// address is user_yield_return (a safe point for preemption).
__attribute__((noinline)) static int user_kernel_yield() {
#if defined(__x86_64__)
  long ret;
  __asm__ volatile(
      "syscall\n"
      ".globl bobbin_user_yield_return\n"
      ".hidden bobbin_user_yield_return\n"
      "bobbin_user_yield_return:"
      : "=a"(ret)
      : "0"(long(SYS_sched_yield))
      : "rcx", "r11", "memory");
  return ret < 0 ? -1 : 0;
#else
  return int(syscall(SYS_sched_yield));
#endif
}

}  // namespace ult
}  // namespace bobbin

#if defined(__x86_64__)
extern "C" char bobbin_user_yield_return[];
#endif

namespace bobbin::ult {
uintptr_t user_yield_return() {
#if defined(__x86_64__)
  return reinterpret_cast<uintptr_t>(bobbin_user_yield_return);
#else
  return 0;
#endif
}
}  // namespace bobbin::ult

extern "C" __attribute__((visibility("default"))) int bobbin_sched_yield() __asm__("sched_yield");
extern "C" int bobbin_sched_yield() {
  using bobbin::ult::Worker;
  if (bobbin::t_spinlocks_held == 0 && Worker::yield_to_queued()) return 0;
  return bobbin::ult::user_kernel_yield();
}
