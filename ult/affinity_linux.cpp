// A thread's processor mask, as the program reads it, when the program
// asked for no binding.
//
// Bobbin pins its pool workers to a place each even when OMP_PROC_BIND is
// unset (the design's pinned workers); libomp and libgomp leave their
// threads unbound then. So an OpenMP thread that read its own mask inside
// a region got one processor under Bobbin where libomp and libgomp report
// every processor of the process: a library that sizes its pool from the
// calling thread's mask at its first use (TBB does), or a program that
// prints its threads' masks to check its launch, saw a one-core machine.
//
// So sched_getaffinity and pthread_getaffinity_np asked about the calling
// thread, on a kernel thread of the runtime's own (a dedicated pool worker
// or a spare: every program thread there is an OpenMP thread running as a
// fiber), while the program asked for no binding (program_unbound), answer
// with the process's mask, which such a thread would have under libomp.
// Not once the program has set a mask itself (program_pinned: it binds its
// threads, and must read back what it set), nor for the runtime's own
// calls, nor on the program's own threads (the initial thread, and threads
// it started: their masks are the program's doing). Every other call is
// the C library's. With binding asked for, a thread reads its place's
// processors, as under libomp.
//
// sched_getaffinity's and pthread_getaffinity_np's entry points jump on to
// the C library's while no read can be answered so (binding asked for, or
// the program pins threads: bobbin_affinity_answers, pin.cpp), so that a
// spin loop polling one is still in the C library's frameless wrapper, called from the
// program, when the monitor's preemption signal comes (preempt_linux.cpp's
// leaf_call_return). Through a C function instead, it was not preemptible
// there: a bound nested team wider than the processors, whose members spin
// for each other and read their masks as they spin (the conformance test
// aff_spin_mask), hung. When a read may be answered so, the call is a
// scheduling point instead: it lets the worker's queued fibers run first,
// as sched_yield does (yield_linux.cpp).
//
// A program's own sched_setaffinity comes through here too: it says the
// program pins (pthread_setaffinity_np's is noted in pin.cpp).
//
// Exported at the C library's default nodes (abi/bobbin.map).
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>

#include "ult/block_wait.hpp"
#include "ult/pin.hpp"
#include "ult/spinlock.hpp"
#include "ult/worker.hpp"

using GetFn = int (*)(pid_t, size_t, cpu_set_t*);

// The C library's sched_getaffinity, for the entry point's jump (hidden:
// the entry point reads it from its own object). Written by the
// constructor below, or by the slow path if a call comes first; every
// writer stores the same value.
extern "C" __attribute__((visibility("hidden"))) GetFn bobbin_next_getaffinity;
GetFn bobbin_next_getaffinity;
// The same for pthread_getaffinity_np, whose C library's wrapper is
// frameless at its system call too.
using ThreadGetFn = int (*)(pthread_t, size_t, cpu_set_t*);
extern "C" __attribute__((visibility("hidden"))) ThreadGetFn bobbin_next_thread_getaffinity;
ThreadGetFn bobbin_next_thread_getaffinity;

namespace bobbin::ult {

namespace {

using SetFn = int (*)(pid_t, size_t, const cpu_set_t*);

// The C library's sched_setaffinity (set as the two above).
SetFn g_next_setaffinity;

__attribute__((constructor)) void resolve_affinity() {
  bobbin_next_getaffinity = reinterpret_cast<GetFn>(block::next_symbol("sched_getaffinity", "GLIBC_2.3.4"));
  g_next_setaffinity = reinterpret_cast<SetFn>(block::next_symbol("sched_setaffinity", "GLIBC_2.3.4"));
  bobbin_next_thread_getaffinity =
      reinterpret_cast<ThreadGetFn>(block::next_symbol("pthread_getaffinity_np", "GLIBC_2.32"));
}

// After a successful read (the kernel accepted `size` bytes, so the set
// holds every processor it knows): the process's mask instead, when it was
// the calling thread's own mask (`own`), read by the program (a caller at
// `ret`) on a thread whose mask reads so (reads_process_mask).
// A read so answered by the program is a scheduling point for the worker's
// queued fibers (the entry's jump, which keeps a polling loop preemptible,
// is not taken then).
void as_the_program_sees(bool own, const void* ret, size_t size, cpu_set_t* set) {
  if (!own || in_runtime_affinity() || block::from_runtime(ret) || !reads_process_mask()) return;
  if (t_spinlocks_held == 0) Worker::yield_to_queued();
  CPU_ZERO_S(size, set);
  for (int c : allowed_cpus())
    if (size_t(c) < size * 8) CPU_SET_S(size_t(c), size, set);
}

}  // namespace

bool reads_process_mask() {
  if (!program_unbound() || program_pinned()) return false;
  Worker* w = Worker::current();
  return w && (w->dedicated() || w->spare());
}

}  // namespace bobbin::ult

// sched_getaffinity when a read may be answered with the process's mask,
// or before the constructor above ran. The entry point jumped here: the
// return address is its caller's.
extern "C" __attribute__((visibility("hidden"), used)) int bobbin_getaffinity_slow(pid_t pid, size_t size,
                                                                                 cpu_set_t* set) {
  using namespace bobbin::ult;
  if (!bobbin_next_getaffinity) resolve_affinity();
  GetFn get = bobbin_next_getaffinity;
  if (!get) {
    errno = ENOSYS;
    return -1;
  }
  int rc = get(pid, size, set);
  if (rc == 0) as_the_program_sees(pid == 0 || pid == gettid(), __builtin_return_address(0), size, set);
  return rc;
}

// pthread_getaffinity_np likewise.
extern "C" __attribute__((visibility("hidden"), used)) int bobbin_thread_getaffinity_slow(pthread_t thread, size_t size,
                                                                                        cpu_set_t* set) {
  using namespace bobbin::ult;
  if (!bobbin_next_thread_getaffinity) resolve_affinity();
  ThreadGetFn get = bobbin_next_thread_getaffinity;
  if (!get) return ENOSYS;
  int rc = get(thread, size, set);
  if (rc == 0) as_the_program_sees(pthread_equal(thread, pthread_self()), __builtin_return_address(0), size, set);
  return rc;
}

#if defined(__x86_64__)
// The entry point `name`: on to the C library's (`next`) by a jump unless a
// read may be answered so, else to `slow` (r11 is free at a call).
#define BOBBIN_AFFINITY_ENTRY(name, next, slow)       \
  __asm__(".text\n"                                   \
          ".globl " #name "\n"                        \
          ".type " #name ", @function\n"              \
          #name ":\n"                                 \
          "  cmpb $0, bobbin_affinity_answers(%rip)\n" \
          "  jne 1f\n"                                \
          "  movq " #next "(%rip), %r11\n"            \
          "  testq %r11, %r11\n"                      \
          "  jz 1f\n"                                 \
          "  jmpq *%r11\n"                            \
          "1:\n"                                      \
          "  jmp " #slow "\n"                         \
          ".size " #name ", .-" #name "\n");
BOBBIN_AFFINITY_ENTRY(sched_getaffinity, bobbin_next_getaffinity, bobbin_getaffinity_slow)
BOBBIN_AFFINITY_ENTRY(pthread_getaffinity_np, bobbin_next_thread_getaffinity, bobbin_thread_getaffinity_slow)
#else
// Elsewhere, plain calls: the slow paths then see the runtime's return
// address and answer every read as the kernel has it.
extern "C" __attribute__((visibility("default"))) int sched_getaffinity(pid_t pid, size_t size, cpu_set_t* set) {
  return bobbin_getaffinity_slow(pid, size, set);
}
extern "C" __attribute__((visibility("default"))) int pthread_getaffinity_np(pthread_t thread, size_t size,
                                                                           cpu_set_t* set) {
  return bobbin_thread_getaffinity_slow(thread, size, set);
}
#endif

extern "C" __attribute__((visibility("default"))) int bobbin_sched_setaffinity(pid_t pid, size_t size,
                                                                             const cpu_set_t* set)
    __asm__("sched_setaffinity");
extern "C" int bobbin_sched_setaffinity(pid_t pid, size_t size, const cpu_set_t* set) {
  using namespace bobbin::ult;
  if (!g_next_setaffinity) resolve_affinity();
  SetFn put = g_next_setaffinity;
  if (!put) {
    errno = ENOSYS;
    return -1;
  }
  if (!in_runtime_affinity() && !block::from_runtime(__builtin_return_address(0))) note_program_pin();
  return put(pid, size, set);
}
