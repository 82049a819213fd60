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
// A program's own sched_setaffinity comes through here too: it says the
// program pins (pthread_setaffinity_np's is noted in pin.cpp).
//
// Exported at the C library's default nodes (abi/bobbin.map).
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>

#include "ult/atomic.hpp"
#include "ult/block_wait.hpp"
#include "ult/pin.hpp"
#include "ult/worker.hpp"

namespace bobbin::ult {

namespace {

using GetFn = int (*)(pid_t, size_t, cpu_set_t*);
using SetFn = int (*)(pid_t, size_t, const cpu_set_t*);
using ThreadGetFn = int (*)(pthread_t, size_t, cpu_set_t*);

// Atomic: another library's constructor may call these before ours runs;
// every writer stores the same value.
Atomic<GetFn> g_get{nullptr};
Atomic<SetFn> g_set{nullptr};
Atomic<ThreadGetFn> g_thread_get{nullptr};

__attribute__((constructor)) void resolve_affinity() {
  g_get.store(reinterpret_cast<GetFn>(block::next_symbol("sched_getaffinity", "GLIBC_2.3.4")), memory_order_relaxed);
  g_set.store(reinterpret_cast<SetFn>(block::next_symbol("sched_setaffinity", "GLIBC_2.3.4")), memory_order_relaxed);
  g_thread_get.store(reinterpret_cast<ThreadGetFn>(block::next_symbol("pthread_getaffinity_np", "GLIBC_2.32")),
                     memory_order_relaxed);
}

// The C library's entry; null with errno ENOSYS if it has none.
template <class Fn>
Fn next(Atomic<Fn>& slot) {
  if (!slot.load(memory_order_relaxed)) resolve_affinity();
  Fn fn = slot.load(memory_order_relaxed);
  if (!fn) errno = ENOSYS;
  return fn;
}

// After a successful read (the kernel accepted `size` bytes, so the set
// holds every processor it knows): the process's mask instead, when it was
// the calling thread's own mask (`own`), read by the program (a caller at
// `ret`) on a thread whose mask reads so (reads_process_mask).
void as_the_program_sees(bool own, const void* ret, size_t size, cpu_set_t* set) {
  if (!own || in_runtime_affinity() || block::from_runtime(ret) || !reads_process_mask()) return;
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

extern "C" __attribute__((visibility("default"))) int bobbin_sched_getaffinity(pid_t pid, size_t size,
                                                                             cpu_set_t* set)
    __asm__("sched_getaffinity");
extern "C" int bobbin_sched_getaffinity(pid_t pid, size_t size, cpu_set_t* set) {
  using namespace bobbin::ult;
  GetFn get = next(g_get);
  if (!get) return -1;
  int rc = get(pid, size, set);
  if (rc == 0) as_the_program_sees(pid == 0 || pid == gettid(), __builtin_return_address(0), size, set);
  return rc;
}

extern "C" __attribute__((visibility("default"))) int bobbin_pthread_getaffinity_np(pthread_t thread, size_t size,
                                                                                  cpu_set_t* set)
    __asm__("pthread_getaffinity_np");
extern "C" int bobbin_pthread_getaffinity_np(pthread_t thread, size_t size, cpu_set_t* set) {
  using namespace bobbin::ult;
  ThreadGetFn get = next(g_thread_get);
  if (!get) return ENOSYS;
  int rc = get(thread, size, set);
  if (rc == 0) as_the_program_sees(pthread_equal(thread, pthread_self()), __builtin_return_address(0), size, set);
  return rc;
}

extern "C" __attribute__((visibility("default"))) int bobbin_sched_setaffinity(pid_t pid, size_t size,
                                                                             const cpu_set_t* set)
    __asm__("sched_setaffinity");
extern "C" int bobbin_sched_setaffinity(pid_t pid, size_t size, const cpu_set_t* set) {
  using namespace bobbin::ult;
  SetFn put = next(g_set);
  if (!put) return -1;
  if (!in_runtime_affinity() && !block::from_runtime(__builtin_return_address(0))) note_program_pin();
  return put(pid, size, set);
}
