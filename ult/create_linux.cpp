// pthread_create from a pool worker: the child gets the process's processor
// mask, not the worker's, when the program asked for no binding.
//
// A kernel thread starts with its creator's mask. Bobbin pins its pool
// workers to one place each even when OMP_PROC_BIND is unset (the design's
// pinned workers), so a thread the program starts from inside a parallel
// region, on any member but the initial thread, was confined to that
// worker's one processor, where libomp and libgomp, whose threads are not
// bound then, give it every processor the process has. A program that
// starts an I/O or progress thread, or a pool of its own, from inside a
// region ran those threads on one core (tests/stress/stress_thread_churn.c
// started its request threads from a region: 7.8 s against 1.3).
//
// So when the runtime says the program asked for no binding
// (set_program_unbound, pin.hpp), a call from a dedicated worker's thread
// whose mask is narrower than the process's creates the child with the
// process's mask: through an attribute of our own when the caller passed none, else
// by widening the caller's own mask for the duration of the call (the
// child inherits it at clone; an affinity the caller's attribute names is
// applied after that, by the C library, so it still wins). With binding
// asked for, a child inherits its creator's place, as with libomp.
//
// Exported at GLIBC_2.34, the node programs built on glibc 2.34 or later
// (and the C++ library's std::thread) ask for (abi/bobbin.map).
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>

#include <cerrno>

#include "ult/atomic.hpp"
#include "ult/block_wait.hpp"
#include "ult/pin.hpp"
#include "ult/worker.hpp"

namespace bobbin::ult {

namespace {

using CreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

// Atomic: a library's constructor may start threads before ours runs
// (OpenBLAS does); every writer stores the same value (as stack_attr.cpp).
Atomic<CreateFn> g_next{nullptr};

__attribute__((constructor)) void resolve_next() {
  g_next.store(reinterpret_cast<CreateFn>(block::next_symbol("pthread_create", "GLIBC_2.34")), memory_order_relaxed);
}

}  // namespace

}  // namespace bobbin::ult

extern "C" __attribute__((visibility("default"))) int bobbin_pthread_create(pthread_t* thread,
                                                                          const pthread_attr_t* attr,
                                                                          void* (*start)(void*), void* arg)
    __asm__("pthread_create");
extern "C" int bobbin_pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*),
                                     void* arg) {
  using namespace bobbin::ult;
  if (!g_next.load(bobbin::memory_order_relaxed)) resolve_next();  // before our constructor ran
  CreateFn next = g_next.load(bobbin::memory_order_relaxed);
  if (!next) return ENOSYS;
  Worker* w = Worker::current();
  if (!program_unbound() || !w || !w->dedicated() ||
      block::from_runtime(__builtin_return_address(0)))
    return next(thread, attr, start, arg);
  static const CpuMask all(allowed_cpus());
  CpuMask mine = CpuMask::of_current_thread();
  if (all.empty() || mine.empty() || mine == all) return next(thread, attr, start, arg);  // not narrowed
  int rc;
  if (!attr) {
    pthread_attr_t own;
    pthread_attr_init(&own);
    pthread_attr_setaffinity_np(&own, all.bytes(), all.set());
    rc = next(thread, &own, start, arg);
    pthread_attr_destroy(&own);
  } else {
    bool widened = pin_current_thread(all);
    rc = next(thread, attr, start, arg);
    // Back to the worker's mask, unless the runtime pinned the worker
    // elsewhere meanwhile (places.cpp moves a worker off the processor the
    // unbound initial thread runs on, from that thread).
    if (widened && CpuMask::of_current_thread() == all) pin_current_thread(mine);
  }
  return rc;
}
