// pthread_getattr_np on a fiber. The C library answers with the kernel
// thread's stack, but code running on a fiber is on the fiber's stack:
// a program that checks its stack size in a parallel region (against
// OMP_STACKSIZE, say), a conservative collector or a stack-overflow
// handler looking for its bounds would read the wrong region. For the
// calling thread, on a fiber with a stack of its own, the answer's stack
// is replaced by the fiber's (usable part and guard); every other call is
// the C library's. Programs linked against glibc 2.32 or later ask for
// the symbol at GLIBC_2.32, so it is exported at that node
// (abi/bobbin.map); the C library's comes next in the lookup order.
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

#include "ult/atomic.hpp"
#include "ult/fiber.hpp"
#include "ult/worker.hpp"

namespace {

using GetattrFn = int (*)(pthread_t, pthread_attr_t*);
// Atomic: a library whose constructor runs before ours may start threads
// (OpenBLAS does), whose start-up (the sanitizers' runtimes) calls
// pthread_getattr_np and resolves it while our constructor does too. Every
// writer stores the same value; relaxed, since the symbol lookup is what
// each one needs, not the others' writes (ThreadSanitizer reported the
// race: KASTORS dgetrf linked with OpenBLAS).
bobbin::Atomic<GetattrFn> g_next{nullptr};

// Resolved at load, before the program's own threads can call it.
__attribute__((constructor)) void resolve_next() {
  void* f = dlvsym(RTLD_NEXT, "pthread_getattr_np", "GLIBC_2.32");
  if (!f) f = dlsym(RTLD_NEXT, "pthread_getattr_np");
  g_next.store(reinterpret_cast<GetattrFn>(f), bobbin::memory_order_relaxed);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int bobbin_getattr_np(pthread_t thread, pthread_attr_t* attr)
    __asm__("pthread_getattr_np");
extern "C" int bobbin_getattr_np(pthread_t thread, pthread_attr_t* attr) {
  if (!g_next.load(bobbin::memory_order_relaxed)) resolve_next();  // before our constructor ran
  GetattrFn next = g_next.load(bobbin::memory_order_relaxed);
  if (!next) return ENOSYS;
  int rc = next(thread, attr);
  if (rc != 0 || !pthread_equal(thread, pthread_self())) return rc;
  const bobbin::ult::Fiber* f = bobbin::ult::Worker::current_fiber();
  if (!f || f->native() || !f->stack().base) return rc;
  const bobbin::ult::Stack& s = f->stack();
  std::size_t guard = bobbin::ult::Stack::guard_size();
  pthread_attr_setstack(attr, s.base + guard, s.usable());
  pthread_attr_setguardsize(attr, guard);
  return 0;
}
