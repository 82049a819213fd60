// What the OS knows about the calling kernel thread (thread_info_linux.cpp):
// for affinity displays, which report the thread a fiber runs on.
#pragma once

#include <cstdint>
#include <vector>

namespace bobbin::ult {

// The kernel's id of the calling thread (gettid on Linux).
long native_thread_id();
// The OS processors the calling thread may run on now, ascending.
std::vector<int> current_thread_cpus();
// Processor time the kernel thread `tid` of this process has used, in ns
// (exact for a thread running now); false if it is gone.
bool thread_cpu_ns(long tid, uint64_t* ns);
// Whether the kernel thread `tid` sleeps in the kernel until an event (a
// blocking system call: read, futex, poll, ...). Not a thread in an
// uninterruptible wait (a page fault, the address-space lock, disk I/O),
// which waits for the kernel, not for another thread of the program.
bool thread_blocked(long tid);
// The kernel threads of this process now (0 if unknown).
int process_thread_count();
// The system call the kernel thread `tid` is in now, as /proc sees it: 1
// with its number and first four arguments if it sleeps in one, 0 if it is
// on a processor (in user code or in the kernel: /proc cannot tell) or off
// one outside any call, -1 if it is gone.
int thread_syscall(long tid, long* nr, unsigned long args[4]);

}  // namespace bobbin::ult
