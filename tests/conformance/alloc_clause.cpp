/* The allocate directive and the allocate clause (spec 6.6, 6.7), which clang
 * lowers to __kmpc_alloc / __kmpc_aligned_alloc / __kmpc_free: the variables
 * get memory of the named allocator (seen through its alignment trait), the
 * align modifier is honoured (built with -fopenmp-version=51), and private,
 * firstprivate and reduction copies behave as without the clause.
 * C++, because clang 14 compiling C truncates a user allocator's handle to 32
 * bits before it passes it (the enum is an int in C): see README.md. */
#include "check.h"

static int aligned(const void *p, uintptr_t a) { return ((uintptr_t)p & (a - 1)) == 0; }

static long directive(omp_allocator_handle_t page) {
  long x = 5;
  double v[100];
  int w[10];
#pragma omp allocate(x) allocator(omp_low_lat_mem_alloc)
#pragma omp allocate(v) allocator(omp_default_mem_alloc) align(256)
#pragma omp allocate(w) allocator(page)
  CHECK(aligned(v, 256), "allocate align(256): v is at %p", (void *)v);
  CHECK(aligned(w, 4096), "allocate allocator(alignment=4096): w is at %p", (void *)w);
  for (int i = 0; i < 100; i++) v[i] = i;
  for (int i = 0; i < 10; i++) w[i] = i;
  return x + (long)v[99] + w[9];
}

int main(void) {
  omp_alloctrait_t t = {omp_atk_alignment, 4096};
  omp_allocator_handle_t page = omp_init_allocator(omp_default_mem_space, 1, &t);
  CHECK(page != omp_null_allocator, "omp_init_allocator(alignment=4096) failed");
  CHECK_EQ("allocate directive: x + v[99] + w[9]", directive(page), 5 + 99 + 9);

  int priv = -1, bad = 0;
#pragma omp parallel num_threads(4) private(priv) allocate(page : priv) reduction(+ : bad)
  {
    bad += !aligned(&priv, 4096);
    priv = omp_get_thread_num();
#pragma omp barrier
    bad += priv != omp_get_thread_num();
  }
  CHECK_EQ("private(priv) allocate(alignment=4096 allocator): misplaced or clobbered copies", bad, 0);
  CHECK_EQ("the original of a private variable", priv, -1);

  int arr[64];
  for (int i = 0; i < 64; i++) arr[i] = i;
  bad = 0;
#pragma omp parallel num_threads(4) firstprivate(arr) allocate(omp_pteam_mem_alloc : arr) reduction(+ : bad)
  {
    for (int i = 0; i < 64; i++) bad += arr[i] != i;
    arr[0] = 100 + omp_get_thread_num();
  }
  CHECK_EQ("firstprivate(arr) allocate(omp_pteam_mem_alloc): wrong copies", bad, 0);
  CHECK_EQ("the original of a firstprivate array", arr[0], 0);

  long sum = 0;
#pragma omp parallel for num_threads(4) reduction(+ : sum) allocate(omp_thread_mem_alloc : sum)
  for (int i = 1; i <= 1000; i++) sum += i;
  CHECK_EQ("reduction(+: sum) allocate(omp_thread_mem_alloc)", sum, 500500);

  long last = 0;
#pragma omp parallel for num_threads(3) lastprivate(last) allocate(page : last)
  for (int i = 0; i < 30; i++) last = i * 2;
  CHECK_EQ("lastprivate(last) allocate(page)", last, 58);
  omp_destroy_allocator(page);
  return conf_end();
}
