/* pthread_getattr_np(pthread_self()) in a parallel region describes the
   stack the thread is running on: a local variable lies inside the reported
   range, and (for threads the runtime created) the range is at least
   OMP_STACKSIZE (CONF_STACK_MIN, in bytes). Programs check their stack
   this way, and collectors and overflow handlers find their bounds so.
   Top-level and nested regions, and an explicit task. */
#include <pthread.h>
#include <stdint.h>

#include "check.h"

static long min_size;

static void check_here(const char *where) {
  volatile char local = 0;
  pthread_attr_t attr;
  void *addr = NULL;
  size_t size = 0;
  int rc = pthread_getattr_np(pthread_self(), &attr);
  CHECK(rc == 0, "%s: pthread_getattr_np returned %d", where, rc);
  if (rc != 0)
    return;
  pthread_attr_getstack(&attr, &addr, &size);
  pthread_attr_destroy(&attr);
  uintptr_t lo = (uintptr_t)addr, hi = lo + size, p = (uintptr_t)&local;
  CHECK(p >= lo && p < hi,
        "%s (level %d, thread %d): a local at %#lx is outside the reported stack [%#lx, %#lx)",
        where, omp_get_level(), omp_get_thread_num(), (unsigned long)p, (unsigned long)lo,
        (unsigned long)hi);
  /* The initial thread's stack is the process's; others are the runtime's. */
  if (omp_get_thread_num() != 0 && min_size > 0)
    CHECK(size >= (size_t)min_size, "%s (thread %d): stack of %zu bytes, OMP_STACKSIZE asks %ld",
          where, omp_get_thread_num(), size, min_size);
}

int main(void) {
  min_size = conf_env_long("CONF_STACK_MIN", 0);
  omp_set_max_active_levels(2);
  check_here("initial thread");
#pragma omp parallel num_threads(4)
  {
    check_here("top-level region");
#pragma omp parallel num_threads(2)
    check_here("nested region");
#pragma omp single
    {
#pragma omp task
      check_here("task");
#pragma omp taskwait
    }
  }
  return conf_end();
}
