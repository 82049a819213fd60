/* libomp's kmp_* extensions from omp.h: kmp_set_defaults before the first
   region, the stack size set before the first region reaching every
   thread (each recurses through more stack than the default gives), block
   time, library modes (serial gives one-thread regions, throughput gives
   them back), affinity masks (set, unset, query, range errors, the calling
   thread's binding), the processor bound, warnings on/off. */
#include <sched.h>

#include "check.h"

enum { BIG_STACK = 32 << 20, DEPTH = 160, FRAME = 128 << 10 }; /* 20 MiB of frames */

static long deep(int n) {
  volatile char frame[FRAME];
  for (int i = FRAME - 1; i >= 0; i -= 1024) /* every page, top down: no jump over a guard page */
    frame[i] = (char)(n >> 1);
  frame[0] = (char)n;
  return n == 0 ? frame[0] : deep(n - 1) + frame[FRAME - 1];
}

static int team_size(void) {
  int n = 0;
#pragma omp parallel
#pragma omp single
  n = omp_get_num_threads();
  return n;
}

int main(void) {
  kmp_set_defaults("KMP_BLOCKTIME=7");
  CHECK_EQ("block time from kmp_set_defaults", kmp_get_blocktime(), 7);
  kmp_set_stacksize_s(BIG_STACK);
  CHECK_EQ("kmp_get_stacksize_s", kmp_get_stacksize_s(), BIG_STACK);
  CHECK_EQ("kmp_get_stacksize", kmp_get_stacksize(), BIG_STACK);
  long want = 0;
  for (int i = DEPTH; i > 0; i--)
    want += (char)(i >> 1);
  int ran = 0;
#pragma omp parallel reduction(+ : ran)
  if (omp_get_thread_num() != 0) { /* the initial thread keeps the process's stack */
    long got = deep(DEPTH); /* dies on a default-sized stack */
    CHECK(got == want, "thread %d: deep recursion gave %ld, want %ld", omp_get_thread_num(), got, want);
    ran++;
  }
  CHECK_EQ("threads through the deep recursion", ran, omp_get_max_threads() - 1);

  kmp_set_blocktime(0);
  CHECK_EQ("kmp_set_blocktime(0)", kmp_get_blocktime(), 0);
  kmp_set_blocktime(50);
  CHECK_EQ("kmp_set_blocktime(50)", kmp_get_blocktime(), 50);

  CHECK_EQ("default library mode (throughput)", kmp_get_library(), 3);
  kmp_set_library_serial();
  CHECK_EQ("library mode after kmp_set_library_serial", kmp_get_library(), 1);
  CHECK_EQ("threads of a region in serial mode", team_size(), 1);
  kmp_set_library_turnaround();
  CHECK_EQ("library mode after kmp_set_library_turnaround", kmp_get_library(), 2);
  CHECK_EQ("threads of a region in turnaround mode", team_size(), omp_get_max_threads());
  kmp_set_library(3);
  CHECK_EQ("library mode after kmp_set_library(3)", kmp_get_library(), 3);
  CHECK_EQ("threads of a region in throughput mode", team_size(), omp_get_max_threads());

  int maxp = kmp_get_affinity_max_proc();
  CHECK(maxp >= omp_get_num_procs(), "kmp_get_affinity_max_proc() = %d < omp_get_num_procs() = %d", maxp,
        omp_get_num_procs());
  kmp_affinity_mask_t m;
  kmp_create_affinity_mask(&m);
  for (int p = 0; p < maxp; p++)
    CHECK(kmp_get_affinity_mask_proc(p, &m) == 0, "a new mask holds processor %d", p);
  CHECK_EQ("set processor 0", kmp_set_affinity_mask_proc(0, &m), 0);
  CHECK_EQ("query processor 0", kmp_get_affinity_mask_proc(0, &m), 1);
  if (maxp > 1)
    CHECK_EQ("query processor 1", kmp_get_affinity_mask_proc(1, &m), 0);
  CHECK_EQ("set an out-of-range processor", kmp_set_affinity_mask_proc(maxp + 1000, &m), -1);
  CHECK_EQ("set a negative processor", kmp_set_affinity_mask_proc(-1, &m), -1);
  CHECK_EQ("unset processor 0", kmp_unset_affinity_mask_proc(0, &m), 0);
  CHECK_EQ("query processor 0 after unset", kmp_get_affinity_mask_proc(0, &m), 0);

  /* the calling thread's binding: a non-empty subset of the process's CPUs */
  cpu_set_t proc;
  CHECK(sched_getaffinity(0, sizeof proc, &proc) == 0, "sched_getaffinity failed");
  CHECK_EQ("kmp_get_affinity", kmp_get_affinity(&m), 0);
  int in = 0;
  for (int p = 0; p < maxp; p++)
    if (kmp_get_affinity_mask_proc(p, &m) == 1) {
      in++;
      CHECK(CPU_ISSET(p, &proc), "the thread's mask holds processor %d, outside the process's", p);
    }
  CHECK(in > 0, "the calling thread's affinity mask is empty");
  kmp_destroy_affinity_mask(&m);

  kmp_set_warnings_off();
  kmp_set_warnings_on();
  return conf_end();
}
