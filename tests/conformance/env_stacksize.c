/* OMP_STACKSIZE: with 16M (spelled several ways by the harness) every
   thread other than the initial one (which runs on the process stack, sized
   by ulimit) can use 8 MiB of stack in a parallel region. The expected size
   in bytes comes in CONF_EXPECT_STACK_BYTES; the program uses half of it. */
#include "check.h"

static unsigned long long __attribute__((noinline)) use_stack(size_t bytes, int seed) {
  volatile unsigned char buf[bytes]; /* a VLA: really on this thread's stack */
  for (size_t i = 0; i < bytes; i += 4096)
    buf[bytes - 1 - i] = (unsigned char)(i / 4096 + seed); /* from the top down */
  unsigned long long sum = 0;
  for (size_t i = 0; i < bytes; i += 4096)
    sum += buf[bytes - 1 - i];
  return sum;
}

int main(void) {
  long stack = conf_env_long("CONF_EXPECT_STACK_BYTES", 16L << 20);
  size_t use = (size_t)stack / 2;
  unsigned long long want[4], got[4] = {0};
  for (int t = 0; t < 4; t++) {
    want[t] = 0;
    for (size_t i = 0; i < use; i += 4096)
      want[t] += (unsigned char)(i / 4096 + t);
  }
  for (int rep = 0; rep < 2; rep++) {
#pragma omp parallel num_threads(4)
    {
      int t = omp_get_thread_num();
      if (t != 0)
        got[t] = use_stack(use, t);
    }
    for (int t = 1; t < 4; t++)
      CHECK(got[t] == want[t], "thread %d: checksum over %zu bytes of stack %llu, want %llu", t,
            use, got[t], want[t]);
  }
  return conf_end();
}
